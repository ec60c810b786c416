"""Who is calling: credentials (API keys, JWTs), the principal they prove, and its grants."""

from __future__ import annotations

__all__: list[str] = []
