"""Budgets end in boundary negatives, and every read answers with the chat model unreachable."""

from __future__ import annotations

import asyncio
from typing import Any

from rememberstack.v1 import common_pb2
from rememberstack.v1 import query_service_pb2 as pb
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.domain import ClaimsContextQuery, FactsContextQuery
from services.query.service import QueryService
from shared.embedding import Embedder
from shared.timescope import TimeScope

# The generated stub types describe sync calls; the aio channel makes them awaitable.
Stub = Any


async def test_facts_context_over_its_database_budget_answers_boundary(
    db_engine: AsyncEngine, embedder: Embedder, world: Any
) -> None:
    service = QueryService(db_engine, embedder, db_budget_seconds=0.3)
    facts_query = FactsContextQuery(world.namespace, "anything", (), 15, 3, 1, None, TimeScope())
    claims_query = ClaimsContextQuery(world.namespace, "anything", (), 50, 200, None)
    # A writer holding an exclusive lock stalls every read of facts and claims past the budget.
    async with db_engine.connect() as blocker, blocker.begin():
        await blocker.execute(text("LOCK TABLE facts, claims IN ACCESS EXCLUSIVE MODE"))
        facts = await asyncio.wait_for(service.facts_context(facts_query), timeout=10)
        claims = await asyncio.wait_for(
            service.claims_and_sources_context(claims_query), timeout=10
        )
    for result in (facts, claims):
        assert result.negative is not None and result.negative.kind == "boundary"
        assert result.negative.explanation and result.negative.workaround
        assert result.truncation.reasons == ("time_budget",)


async def test_every_read_answers_with_prompt_engine_and_chat_endpoint_unreachable(
    world: Any, stub: Stub
) -> None:
    doc = await world.document(["Ravi works on the billing migration."])
    claim = await world.claim(doc, "Ravi works on the billing migration.")
    ravi = await world.entity("Ravi", "Ravi, an engineer")
    billing = await world.entity("billing migration")
    await world.sql(
        "INSERT INTO entity_aliases (namespace, entity_id, alias, normalized_alias)"
        " VALUES (:ns, :e, 'Ravi', 'ravi')",
        ns=world.namespace,
        e=ravi,
    )
    fact = await world.fact(
        ravi,
        "Ravi works on billing migration",
        predicate="works_on",
        obj=billing,
        evidence=[(claim, "supports")],
    )
    ns = world.namespace
    resolved = await stub.ResolveEntity(pb.ResolveEntityRequest(namespace=ns, name="Ravi"))
    assert [c.entity_id for c in resolved.candidates] == [str(ravi)]
    facts = await stub.FactsContext(pb.FactsContextRequest(namespace=ns, query="Ravi billing"))
    assert [f.fact_id for f in facts.facts] == [str(fact)]
    claims = await stub.ClaimsAndSourcesContext(
        pb.ClaimsAndSourcesContextRequest(namespace=ns, query="Ravi billing")
    )
    assert [c.claim_id for c in claims.claims] == [str(claim)]
    combined = await stub.CombinedContext(
        pb.CombinedContextRequest(
            namespace=ns,
            facts=pb.FactsContextRequest(entity_ids=[str(ravi)]),
            claims_and_sources=pb.ClaimsAndSourcesContextRequest(query="billing"),
        )
    )
    assert combined.facts.facts and combined.claims_and_sources.claims
    relations = await stub.LookupRelations(
        pb.LookupRelationsRequest(namespace=ns, subject_entity_id=str(ravi))
    )
    assert len(relations.facts) == 1
    observations = await stub.LookupObservations(
        pb.LookupObservationsRequest(namespace=ns, entity_id=str(ravi))
    )
    assert observations.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY
    hydrated = await stub.HydrateRelation(
        pb.HydrateRelationRequest(namespace=ns, fact_id=str(fact))
    )
    assert hydrated.claims[0].claim_id == str(claim)
    transcript = await stub.TranscriptRelation(
        pb.TranscriptRelationRequest(namespace=ns, fact_id=str(fact))
    )
    assert not transcript.decisions
    found = await stub.SearchClaims(pb.SearchClaimsRequest(namespace=ns, query="billing"))
    assert found.claims
    chunks = await stub.SearchChunks(pb.SearchChunksRequest(namespace=ns, query="billing"))
    assert chunks.chunks
    adjacent = await stub.AdjacentChunks(
        pb.AdjacentChunksRequest(namespace=ns, chunk_id=chunks.chunks[0].chunk_id)
    )
    assert [c.chunk_id for c in adjacent.chunks] == [chunks.chunks[0].chunk_id]
