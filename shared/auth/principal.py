"""The acting principal of a call: who it is, its scopes, the namespaces it may touch."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "ALL_NAMESPACES",
    "SCOPES",
    "Principal",
    "Scope",
    "parse_namespaces",
    "parse_scopes",
]

Scope = Literal["read", "ingest", "curate", "admin"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
ALL_NAMESPACES = "*"


@dataclass(frozen=True, slots=True)
class Principal:
    """A verified caller.

    ``namespaces`` None means every namespace (a grant of ``*``). ``admin`` holds every scope.
    ``name`` is what decisions, merges and transcripts record as ``decided_by``.
    """

    name: str
    kind: Literal["api_key", "jwt", "anonymous"]
    scopes: frozenset[Scope]
    namespaces: frozenset[str] | None

    @classmethod
    def anonymous(cls) -> Principal:
        """The caller of a server running open (loopback, no credentials configured)."""
        return cls("anonymous", "anonymous", frozenset(SCOPES), None)

    def has_scope(self, scope: Scope) -> bool:
        return scope in self.scopes or "admin" in self.scopes

    def may_touch(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces


def parse_scopes(values: Iterable[str], where: str) -> frozenset[Scope]:
    """Scopes from a key file or token; an unknown scope is an error, never ignored."""
    scopes: set[Scope] = set()
    for value in values:
        if value not in SCOPES:
            raise ValueError(f"{where}: unknown scope {value!r} (known: {', '.join(SCOPES)})")
        scopes.add(value)
    return frozenset(scopes)


def parse_namespaces(values: Iterable[str], where: str) -> frozenset[str] | None:
    """Namespaces from a key file or token: a list of names, or ``*`` for all of them."""
    names = set()
    for value in values:
        if not isinstance(value, str) or not value:
            raise ValueError(f"{where}: namespaces must be non-empty strings")
        names.add(value)
    if ALL_NAMESPACES in names:
        return None
    return frozenset(names)
