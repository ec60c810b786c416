"""gRPC plumbing shared by every service: server, channels and error mapping."""

from __future__ import annotations

__all__: list[str] = []
