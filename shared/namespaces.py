"""The one check of a request's namespace, shared by every service's converters."""

from __future__ import annotations

from shared.errors import Violations

__all__ = ["MAX_NAMESPACE_CHARS", "resolve_namespace"]

# The settings' default namespace has the same bound (shared/config.py), so a resolved
# namespace is never longer than this either.
MAX_NAMESPACE_CHARS = 128


def resolve_namespace(
    value: str, default: str, violations: Violations, field: str = "namespace"
) -> str:
    """The namespace a request names, or `default` when it names none (empty); a name longer
    than the bound is recorded as a violation of `field`."""
    if len(value) > MAX_NAMESPACE_CHARS:
        violations.add(field, f"must be at most {MAX_NAMESPACE_CHARS} characters")
    return value or default
