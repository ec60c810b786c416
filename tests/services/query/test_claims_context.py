"""ClaimsAndSourcesContext, SearchClaims, SearchChunks, AdjacentChunks and CombinedContext."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import grpc
import pytest
from rememberstack.v1 import common_pb2, query_service_pb2

# The generated stub types describe sync calls; the aio channel makes them awaitable.
Stub = Any
STATEMENT = "The cutover is scheduled for June 8."


def _request(
    world: Any, query: str, **kwargs: Any
) -> query_service_pb2.ClaimsAndSourcesContextRequest:
    return query_service_pb2.ClaimsAndSourcesContextRequest(
        namespace=world.namespace, query=query, **kwargs
    )


async def test_claims_context_groups_agreeing_claims_and_counts_distinct_documents(
    world: Any, stub: Stub
) -> None:
    spec = await world.document([STATEMENT, f"Again: {STATEMENT}"], title="spec")
    note = await world.document([STATEMENT], title="note")
    first = await world.claim(spec, STATEMENT)
    repeat = await world.claim(spec, STATEMENT, chunk=1)
    other_doc = await world.claim(note, STATEMENT)
    response = await stub.ClaimsAndSourcesContext(_request(world, "when is the cutover"))
    shown = [c for c in response.claims if c.claim_text == STATEMENT]
    assert len(shown) == 1
    assert shown[0].corroboration_count == 2
    folded = {shown[0].claim_id, *shown[0].grouped_claim_ids}
    assert folded == {str(first), str(repeat), str(other_doc)}
    assert response.chunks


async def test_claims_context_keeps_claims_apart_when_said_on_or_attribution_differ(
    world: Any, stub: Stub
) -> None:
    doc = await world.document([STATEMENT])
    later = datetime(2026, 2, 1, tzinfo=UTC)
    await world.claim(doc, STATEMENT)
    await world.claim(doc, STATEMENT, asserted_at=later)
    await world.claim(doc, STATEMENT, holder="Dana")
    response = await stub.ClaimsAndSourcesContext(_request(world, "cutover June 8"))
    shown = [c for c in response.claims if c.claim_text == STATEMENT]
    assert len(shown) == 3
    assert all(c.corroboration_count == 1 and not c.grouped_claim_ids for c in shown)
    assert {c.holder for c in shown} == {"", "Dana"}


async def test_claims_context_serves_only_current_testimony_of_live_documents(
    world: Any, stub: Stub
) -> None:
    live = await world.document(["Ravi approved the schema change."])
    gone = await world.document(["Ravi approved the schema change yesterday."])
    kept = await world.claim(live, "Ravi approved the schema change.")
    retired = await world.claim(live, "Ravi approved the schema migration.", current=False)
    deleted = await world.claim(gone, "Ravi approved the schema change yesterday.")
    await world.sql("UPDATE documents SET deleted_at = now() WHERE id = :d", d=gone.id)
    response = await stub.ClaimsAndSourcesContext(_request(world, "who approved the schema change"))
    ids = {c.claim_id for c in response.claims}
    assert ids == {str(kept)}
    assert str(retired) not in ids and str(deleted) not in ids
    assert response.dropped_by_hydration >= 3
    assert {c.doc_id for c in response.chunks} == {str(live.id)}


async def test_claims_context_k_applies_to_claims_and_chunks_separately(
    world: Any, stub: Stub
) -> None:
    doc = await world.document(
        ["Alpha ships in May.", "Beta ships in June.", "Gamma ships in July."]
    )
    for index, sentence in enumerate(
        ["Alpha ships in May.", "Beta ships in June.", "Gamma ships in July."]
    ):
        await world.claim(doc, sentence, chunk=index)
    response = await stub.ClaimsAndSourcesContext(
        _request(world, "what ships when", k=2, candidate_k=2)
    )
    assert (len(response.claims), len(response.chunks)) == (2, 2)
    assert response.truncation.truncated
    assert response.truncation.reason == common_pb2.TRUNCATION_REASON_RESULT_BUDGET


async def test_claims_context_time_scope_filters_on_stated_world_time(
    world: Any, stub: Stub
) -> None:
    doc = await world.document(["Office moves.", "Office moved."])
    in_2024 = await world.claim(
        doc,
        "The office was in Berlin during 2024.",
        valid_from=datetime(2024, 1, 1, tzinfo=UTC),
        # As extractors state it: the last day the period covers.
        valid_until=datetime(2024, 12, 31, tzinfo=UTC),
        precision="year",
        valid_kind="effective_period",
    )
    undated = await world.claim(doc, "The office is in Lisbon.", chunk=1)
    request = _request(world, "where is the office")
    request.time_scope.at.valid_at.FromDatetime(datetime(2024, 12, 31, 12, tzinfo=UTC))
    in_scope = await stub.ClaimsAndSourcesContext(request)
    assert {c.claim_id for c in in_scope.claims} == {str(in_2024), str(undated)}
    request.time_scope.at.valid_at.FromDatetime(datetime(2025, 1, 1, 12, tzinfo=UTC))
    later = await stub.ClaimsAndSourcesContext(request)
    assert {c.claim_id for c in later.claims} == {str(undated)}
    unscoped = await stub.ClaimsAndSourcesContext(_request(world, "where is the office"))
    assert not unscoped.HasField("temporal_scope")
    assert len(unscoped.claims) == 2


async def test_claims_context_unknown_entities_answer_unknown_entity(
    world: Any, stub: Stub
) -> None:
    request = _request(world, "anything", entity_ids=["6d1f3f5e-0000-4000-8000-000000000002"])
    response = await stub.ClaimsAndSourcesContext(request)
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY


async def test_claims_context_empty_namespace_answers_known_empty(world: Any, stub: Stub) -> None:
    response = await stub.ClaimsAndSourcesContext(_request(world, "anything at all"))
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY
    assert response.negative.explanation and response.negative.workaround


async def test_living_document_serves_only_chunks_of_its_latest_version(
    world: Any, stub: Stub
) -> None:
    doc = await world.document(["Old wording of the runbook."], versioning_mode="living")
    await world.sql(
        "INSERT INTO document_versions (id, namespace, document_id, version_number, content,"
        " content_text, media_type, content_sha256) VALUES (gen_random_uuid(), :ns, :d, 2,"
        " 'x', 'x', 'text/plain', 'x')",
        ns=world.namespace,
        d=doc.id,
    )
    await world.sql(
        "UPDATE documents SET latest_version_id = (SELECT id FROM document_versions"
        " WHERE document_id = :d AND version_number = 2) WHERE id = :d",
        d=doc.id,
    )
    response = await stub.SearchChunks(
        query_service_pb2.SearchChunksRequest(namespace=world.namespace, query="runbook wording")
    )
    assert not response.chunks
    assert response.dropped_by_hydration == 1


@pytest.mark.parametrize(
    "channel",
    [
        query_service_pb2.SEARCH_CHANNEL_LEXICAL,
        query_service_pb2.SEARCH_CHANNEL_SEMANTIC,
        query_service_pb2.SEARCH_CHANNEL_FUSED,
    ],
)
async def test_search_claims_each_channel_finds_the_matching_claim_first(
    world: Any, stub: Stub, channel: Any
) -> None:
    doc = await world.document(["Zebra crossings were repainted.", "Lunch is at noon."])
    target = await world.claim(doc, "Zebra crossings were repainted.")
    await world.claim(doc, "Lunch is at noon.", chunk=1)
    response = await stub.SearchClaims(
        query_service_pb2.SearchClaimsRequest(
            namespace=world.namespace, query="zebra crossings repainted", channel=channel, k=1
        )
    )
    assert [c.claim_id for c in response.claims] == [str(target)]
    assert response.claims[0].score > 0


async def test_search_chunks_lexical_channel_matches_terms(world: Any, stub: Stub) -> None:
    doc = await world.document(["Kubernetes probes use gRPC health.", "Lunch is at noon."])
    response = await stub.SearchChunks(
        query_service_pb2.SearchChunksRequest(
            namespace=world.namespace,
            query="kubernetes health",
            channel=query_service_pb2.SEARCH_CHANNEL_LEXICAL,
        )
    )
    assert [c.chunk_id for c in response.chunks] == [str(doc.chunk_ids[0])]
    assert response.chunks[0].char_start == 0


async def test_adjacent_chunks_returns_the_window_in_document_order(world: Any, stub: Stub) -> None:
    doc = await world.document([f"Paragraph {i}." for i in range(6)])
    response = await stub.AdjacentChunks(
        query_service_pb2.AdjacentChunksRequest(
            namespace=world.namespace, chunk_id=str(doc.chunk_ids[3]), window=2
        )
    )
    assert [c.ordinal for c in response.chunks] == [1, 2, 3, 4, 5]
    edge = await stub.AdjacentChunks(
        query_service_pb2.AdjacentChunksRequest(
            namespace=world.namespace, chunk_id=str(doc.chunk_ids[0])
        )
    )
    assert [c.text for c in edge.chunks] == ["Paragraph 0.", "Paragraph 1."]


async def test_adjacent_chunks_unknown_chunk_is_not_found(world: Any, stub: Stub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.AdjacentChunks(
            query_service_pb2.AdjacentChunksRequest(
                namespace=world.namespace, chunk_id="6d1f3f5e-0000-4000-8000-000000000003"
            )
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_combined_context_evaluates_both_halves_at_one_instant(
    world: Any, stub: Stub
) -> None:
    doc = await world.document([STATEMENT])
    claim = await world.claim(doc, STATEMENT)
    cutover = await world.entity("cutover")
    fact = await world.fact(cutover, "the cutover is on June 8", evidence=[(claim, "supports")])
    response = await stub.CombinedContext(
        query_service_pb2.CombinedContextRequest(
            namespace=world.namespace,
            facts=query_service_pb2.FactsContextRequest(query="cutover date"),
            claims_and_sources=query_service_pb2.ClaimsAndSourcesContextRequest(
                query="cutover date"
            ),
        )
    )
    assert [f.fact_id for f in response.facts.facts] == [str(fact)]
    assert [c.claim_id for c in response.claims_and_sources.claims] == [str(claim)]
    assert response.facts.evaluated_at == response.claims_and_sources.evaluated_at
    assert response.evaluated_at == response.facts.evaluated_at
    assert response.claims_and_sources.claims[0].corroboration_count == 1
    assert response.facts.claims[0].corroboration_count == 0


async def test_search_claims_lexical_term_rare_in_namespace_outranks_a_frequent_repeated_one(
    world: Any, stub: Stub
) -> None:
    lines = [
        "Caroline told Caroline's sister about the trip.",
        "Caroline painted a lake.",
        "Caroline went hiking.",
        "Caroline likes pottery.",
        "Melanie researched adoption agencies.",
    ]
    doc = await world.document(lines)
    ids = [await world.claim(doc, line, chunk=index) for index, line in enumerate(lines)]
    response = await stub.SearchClaims(
        query_service_pb2.SearchClaimsRequest(
            namespace=world.namespace,
            query="Did Caroline look into adoption?",
            channel=query_service_pb2.SEARCH_CHANNEL_LEXICAL,
            k=5,
        )
    )
    ranked = [c.claim_id for c in response.claims]
    assert ranked[0] == str(ids[4])
    assert set(ranked) == {str(i) for i in ids}
