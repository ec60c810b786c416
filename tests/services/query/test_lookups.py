"""LookupRelations, LookupObservations, HydrateRelation and TranscriptRelation over gRPC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from rememberstack.v1 import common_pb2, fact_pb2, query_service_pb2

# The generated stub types describe sync calls; the aio channel makes them awaitable.
Stub = Any
UNKNOWN = "6d1f3f5e-0000-4000-8000-000000000009"


async def _supported(world: Any, subject: Any, label: str, documents: int, **kwargs: Any) -> Any:
    evidence = []
    for index in range(documents):
        doc = await world.document([f"{label} ({index})"])
        evidence.append((await world.claim(doc, f"{label} ({index})"), "supports"))
    return await world.fact(subject, label, evidence=evidence, **kwargs)


async def test_lookup_relations_orders_by_evidence_then_learned_time_and_caps_at_k(
    world: Any, stub: Stub
) -> None:
    ravi = await world.entity("Ravi")
    billing = await world.entity("billing")
    search = await world.entity("search")
    weak = await _supported(
        world, ravi, "Ravi works on search", 1, predicate="works_on", obj=search
    )
    strong = await _supported(
        world, ravi, "Ravi works on billing", 2, predicate="works_on", obj=billing
    )
    await world.fact(ravi, "Ravi likes tea")
    request = query_service_pb2.LookupRelationsRequest(
        namespace=world.namespace, subject_entity_id=str(ravi), predicate="works_on"
    )
    response = await stub.LookupRelations(request)
    assert [f.fact_id for f in response.facts] == [str(strong), str(weak)]
    assert response.facts[0].kind == fact_pb2.FACT_KIND_RELATION
    assert response.facts[0].evidence_count == 2
    assert not response.truncation.truncated
    request.k = 1
    capped = await stub.LookupRelations(request)
    assert [f.fact_id for f in capped.facts] == [str(strong)]
    assert capped.truncation.reason == common_pb2.TRUNCATION_REASON_LOOKUP_K_LIMIT
    assert (capped.truncation.estimated_total, capped.truncation.total_is_exact) == (2, True)


async def test_lookup_relations_follows_merge_redirects_and_reports_unknown_ids(
    world: Any, stub: Stub
) -> None:
    survivor = await world.entity("Melanie")
    absorbed = await world.entity("Mel")
    await world.sql("UPDATE entities SET redirect_to = :s WHERE id = :a", s=survivor, a=absorbed)
    other = await world.entity("painting")
    fact = await world.fact(survivor, "Melanie paints", predicate="related_to", obj=other)
    response = await stub.LookupRelations(
        query_service_pb2.LookupRelationsRequest(
            namespace=world.namespace, subject_entity_id=str(absorbed)
        )
    )
    assert [f.fact_id for f in response.facts] == [str(fact)]
    unknown = await stub.LookupRelations(
        query_service_pb2.LookupRelationsRequest(
            namespace=world.namespace, object_entity_id=UNKNOWN
        )
    )
    assert unknown.negative.kind == common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY
    empty = await stub.LookupRelations(
        query_service_pb2.LookupRelationsRequest(namespace=world.namespace, predicate="reports_to")
    )
    assert empty.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY


async def test_lookup_observations_ranks_by_property_query(world: Any, stub: Stub) -> None:
    dana = await world.entity("Dana")
    await world.fact(dana, "Dana prefers morning meetings")
    birthday = await world.fact(dana, "Dana was born in March 1990")
    await world.fact(dana, "Dana drives a blue car")
    response = await stub.LookupObservations(
        query_service_pb2.LookupObservationsRequest(
            namespace=world.namespace, entity_id=str(dana), property_query="birthday", k=1
        )
    )
    assert [f.fact_id for f in response.facts] == [str(birthday)]
    assert response.facts[0].kind == fact_pb2.FACT_KIND_OBSERVATION
    assert response.truncation.truncated and response.truncation.estimated_total == 3


async def test_hydrate_relation_returns_invalidated_fact_with_all_claims_and_documents(
    world: Any, stub: Stub
) -> None:
    topic = await world.entity("vendor")
    doc = await world.document(["The vendor is Acme."], title="contract", source_kind="drive")
    current = await world.claim(doc, "The vendor is Acme.")
    retired = await world.claim(doc, "Vendor: Acme.", current=False)
    fact = await world.fact(
        topic,
        "the vendor is Acme",
        evidence=[(current, "supports"), (retired, "supports")],
        invalidated_at=datetime.now(UTC),
    )
    response = await stub.HydrateRelation(
        query_service_pb2.HydrateRelationRequest(namespace=world.namespace, fact_id=str(fact))
    )
    assert response.fact.fact_id == str(fact)
    assert response.fact.validity.HasField("invalidated_at")
    assert {c.claim_id for c in response.claims} == {str(current), str(retired)}
    assert {c.is_current_testimony for c in response.claims} == {True, False}
    assert [(d.title, d.source_kind) for d in response.documents] == [("contract", "drive")]
    assert len(response.fact_evidence) == 2


async def test_hydrate_and_transcript_of_unknown_fact_are_not_found(world: Any, stub: Stub) -> None:
    for call, request in (
        (
            stub.HydrateRelation,
            query_service_pb2.HydrateRelationRequest(namespace=world.namespace, fact_id=UNKNOWN),
        ),
        (
            stub.TranscriptRelation,
            query_service_pb2.TranscriptRelationRequest(namespace=world.namespace, fact_id=UNKNOWN),
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call(request)
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_transcript_returns_forty_most_recent_decisions_oldest_first(
    world: Any, stub: Stub
) -> None:
    topic = await world.entity("cutover")
    fact = await world.fact(topic, "the cutover is on June 8")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for index in range(42):
        await world.decision(
            fact,
            "noop" if index else "add",
            start + timedelta(hours=index),
            confidence=0.9,
            rationale=f"decision {index}",
            window_before={"valid_from": None, "valid_until": None, "valid_precision": "unknown"},
            window_after={
                "valid_from": "2026-06-08T00:00:00+00:00",
                "valid_until": None,
                "valid_precision": "day",
            },
        )
    response = await stub.TranscriptRelation(
        query_service_pb2.TranscriptRelationRequest(namespace=world.namespace, fact_id=str(fact))
    )
    assert len(response.decisions) == 40
    assert response.decisions[0].rationale == "decision 2"
    assert response.decisions[-1].rationale == "decision 41"
    assert response.decisions[-1].outcome == fact_pb2.DECISION_OUTCOME_NOOP
    assert response.decisions[0].window_after.valid_precision == common_pb2.PRECISION_DAY
    assert response.truncation.truncated and response.truncation.estimated_total == 42
