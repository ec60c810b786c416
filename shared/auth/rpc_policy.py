"""Which scope each RPC needs and which admission class it counts against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from shared.auth.principal import Scope

__all__ = ["OPEN_SERVICES", "RPC_POLICIES", "RpcPolicy", "policy_for"]

Admission = Literal["read", "write", "watch"]

# Probes and tooling must work without a credential (kubelet's gRPC probe sends none).
OPEN_SERVICES = frozenset(
    {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }
)


@dataclass(frozen=True, slots=True)
class RpcPolicy:
    """``scope`` the caller must hold; ``admission`` the per-credential limit the call uses
    (``watch``: a long-lived stream, bounded by count instead of by in-flight calls)."""

    scope: Scope
    admission: Admission


_READ = RpcPolicy("read", "read")
_INGEST = RpcPolicy("ingest", "write")
_CURATE = RpcPolicy("curate", "write")

_BY_SERVICE: dict[str, dict[str, RpcPolicy]] = {
    "rememberstack.v1.IngestService": {
        "IngestDocument": _INGEST,
        "IngestDocuments": _INGEST,
        "DeleteDocument": _INGEST,
        "ReleaseParkedVersion": _INGEST,
        "ReextractDocuments": _INGEST,
        "ReplayIngestDeadLetters": _CURATE,
        "GetReadiness": _READ,
        "WatchReadiness": RpcPolicy("read", "watch"),
        "GetDocument": _READ,
        "ListDocuments": _READ,
    },
    "rememberstack.v1.AdjudicatorService": {
        "GetEngineInfo": _READ,
        "ListMergeProposals": _READ,
        "AdjudicateClaims": _CURATE,
        "MergeEntities": _CURATE,
        "UndoMerge": _CURATE,
        "ReviewSupport": _CURATE,
        "ReplayDeadLetters": _CURATE,
    },
    "rememberstack.v1.QueryService": dict.fromkeys(
        (
            "ResolveEntity",
            "FactsContext",
            "ClaimsAndSourcesContext",
            "CombinedContext",
            "LookupRelations",
            "LookupObservations",
            "HydrateRelation",
            "TranscriptRelation",
            "SearchClaims",
            "SearchChunks",
            "AdjacentChunks",
            "ListContradictionMembers",
        ),
        _READ,
    ),
    "rememberstack.v1.GraphService": dict.fromkeys(("GraphNeighborhood", "GraphPath"), _READ),
}

RPC_POLICIES: dict[str, RpcPolicy] = {
    f"/{service}/{method}": policy
    for service, methods in _BY_SERVICE.items()
    for method, policy in methods.items()
}

# An RPC missing from the table (added to a proto but not here) fails closed: admin only.
_UNLISTED = RpcPolicy("admin", "write")


def policy_for(method: str) -> RpcPolicy | None:
    """The policy of a full method name (``/pkg.Service/Method``); None for open services."""
    service = method.lstrip("/").rpartition("/")[0]
    if service in OPEN_SERVICES:
        return None
    return RPC_POLICIES.get(method, _UNLISTED)
