"""Bad requests are refused with INVALID_ARGUMENT naming every bad field (SPEC §7, §9)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from rememberstack.v1 import query_service_pb2 as pb

from shared.grpc.errors import parse_rich_error

# The generated stub types describe sync calls; the aio channel makes them awaitable.
Stub = Any
A = "6d1f3f5e-0000-4000-8000-00000000000a"


async def _fields(call: Any, request: Any) -> set[str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call(request)
    error = parse_rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    return {violation.field for violation in error.field_violations}


async def test_facts_context_k_31_and_other_bounds_are_named(stub: Stub) -> None:
    request = pb.FactsContextRequest(query="x", k=31, evidence_per_fact=6, hops=3)
    assert await _fields(stub.FactsContext, request) == {"k", "evidence_per_fact", "hops"}


async def test_facts_context_duplicate_entity_ids_and_missing_query_are_named(stub: Stub) -> None:
    assert await _fields(stub.FactsContext, pb.FactsContextRequest(entity_ids=[A, A])) == {
        "entity_ids[1]"
    }
    assert await _fields(stub.FactsContext, pb.FactsContextRequest()) == {"query"}
    too_many = [f"6d1f3f5e-0000-4000-8000-{i:012d}" for i in range(20)]
    assert "entity_ids" in await _fields(
        stub.FactsContext, pb.FactsContextRequest(entity_ids=too_many)
    )


async def test_facts_context_as_of_without_believed_at_is_refused(stub: Stub) -> None:
    request = pb.FactsContextRequest(query="x")
    request.time_scope.as_of.valid_at.GetCurrentTime()
    assert await _fields(stub.FactsContext, request) == {"time_scope.as_of.believed_at"}


async def test_overlap_with_to_before_from_is_refused(stub: Stub) -> None:
    request = pb.ClaimsAndSourcesContextRequest(query="x")
    getattr(request.time_scope.overlap, "from").FromSeconds(2_000_000_000)
    request.time_scope.overlap.to.FromSeconds(1_000_000_000)
    assert await _fields(stub.ClaimsAndSourcesContext, request) == {"time_scope.overlap.to"}


async def test_malformed_timestamp_is_refused(stub: Stub) -> None:
    request = pb.FactsContextRequest(query="x")
    request.time_scope.at.valid_at.seconds = 10**12
    assert await _fields(stub.FactsContext, request) == {"time_scope.at.valid_at"}


async def test_claims_context_bounds_are_named(stub: Stub) -> None:
    assert await _fields(
        stub.ClaimsAndSourcesContext, pb.ClaimsAndSourcesContextRequest(query="x", k=101)
    ) == {"k"}
    assert await _fields(
        stub.ClaimsAndSourcesContext,
        pb.ClaimsAndSourcesContextRequest(query="x", k=50, candidate_k=10),
    ) == {"candidate_k"}
    assert await _fields(
        stub.ClaimsAndSourcesContext, pb.ClaimsAndSourcesContextRequest(query="x" * 8193)
    ) == {"query"}


async def test_unknown_search_channel_is_refused(stub: Stub) -> None:
    request = pb.SearchClaimsRequest(query="x", channel=9)  # type: ignore[arg-type]
    assert await _fields(stub.SearchClaims, request) == {"channel"}
    assert await _fields(stub.SearchChunks, pb.SearchChunksRequest(query="x", k=401)) == {"k"}


async def test_lookups_and_single_resource_reads_name_their_fields(stub: Stub) -> None:
    assert await _fields(stub.LookupRelations, pb.LookupRelationsRequest()) == {"subject_entity_id"}
    assert await _fields(
        stub.LookupRelations, pb.LookupRelationsRequest(predicate="other:Bad-Name", k=401)
    ) == {"predicate", "k"}
    assert await _fields(stub.LookupObservations, pb.LookupObservationsRequest()) == {"entity_id"}
    assert await _fields(stub.HydrateRelation, pb.HydrateRelationRequest(fact_id="nope")) == {
        "fact_id"
    }
    assert await _fields(stub.AdjacentChunks, pb.AdjacentChunksRequest(chunk_id=A, window=3)) == {
        "window"
    }
    assert await _fields(stub.ResolveEntity, pb.ResolveEntityRequest(limit=51)) == {"name", "limit"}


async def test_combined_context_prefixes_fields_of_each_half(stub: Stub) -> None:
    request = pb.CombinedContextRequest(
        facts=pb.FactsContextRequest(query="x", k=31),
        claims_and_sources=pb.ClaimsAndSourcesContextRequest(),
    )
    assert await _fields(stub.CombinedContext, request) == {
        "facts.k",
        "claims_and_sources.query",
    }
