"""Bounds that keep reads cheap on large stores: capped lookup totals, overlapped embeddings."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from rememberstack.v1 import common_pb2, query_service_pb2
from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.domain import FactsContextQuery
from services.query.service import QueryService
from services.query.sql import facts as fact_rows
from shared.embedding import Embedder
from shared.timescope import TimeScope

Stub = Any


async def _hub(world: Any, relations: int) -> uuid.UUID:
    hub = await world.entity("Hub Team")
    for index in range(relations):
        other = await world.entity(f"Member {index}")
        await world.fact(hub, f"Hub Team knows member {index}", predicate="knows", obj=other)
    return hub


async def test_lookup_total_past_the_count_cap_is_a_disclosed_lower_bound(
    world: Any, stub: Stub, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = await _hub(world, 5)
    request = query_service_pb2.LookupRelationsRequest(
        namespace=world.namespace, subject_entity_id=str(hub), k=2
    )
    exact = await stub.LookupRelations(request)
    assert (exact.truncation.estimated_total, exact.truncation.total_is_exact) == (5, True)

    monkeypatch.setattr(fact_rows, "_COUNT_CAP", 3)
    capped = await stub.LookupRelations(request)
    assert len(capped.facts) == 2
    assert capped.truncation.truncated
    assert capped.truncation.reason == common_pb2.TRUNCATION_REASON_LOOKUP_K_LIMIT
    assert (capped.truncation.estimated_total, capped.truncation.total_is_exact) == (3, False)


async def test_lookup_ties_keep_one_order_across_pages_of_k(world: Any, stub: Stub) -> None:
    """Equal evidence and learned time: the id decides, the same way for every k."""
    hub = await _hub(world, 4)
    request = query_service_pb2.LookupRelationsRequest(
        namespace=world.namespace, subject_entity_id=str(hub)
    )
    everything = [f.fact_id for f in (await stub.LookupRelations(request)).facts]
    assert len(everything) == 4
    request.k = 2
    first_two = [f.fact_id for f in (await stub.LookupRelations(request)).facts]
    assert first_two == everything[:2]


async def test_concurrent_facts_context_reads_share_a_bounded_embedding_pool(
    world: Any, db_engine: AsyncEngine, embedder: Embedder
) -> None:
    """One embedding thread, six concurrent reads: each still gets its own query's answer, and
    a read that ends before its embedding is used (unknown anchor) leaves nothing behind."""
    hub = await _hub(world, 2)
    await world.fact(hub, "Hub Team ships the billing migration")
    service = QueryService(db_engine, embedder, db_budget_seconds=25, embed_threads=1)
    try:

        def query(text: str, anchors: tuple[uuid.UUID, ...] = ()) -> FactsContextQuery:
            return FactsContextQuery(
                world.namespace, text, anchors, 15, 3, 1, None, TimeScope(kind="current")
            )

        unknown = uuid.uuid4()
        results = await asyncio.gather(
            service.facts_context(query("billing migration")),
            service.facts_context(query("billing migration", (hub,))),
            service.facts_context(query("member", (unknown,))),
            service.facts_context(query("knows member 1", (hub,))),
            service.facts_context(query("billing migration")),
            service.facts_context(query("", (hub,))),
        )
    finally:
        service.close()
    labels = [[fact.label for fact in result.facts] for result in results]
    assert labels[0][0] == labels[4][0] == "Hub Team ships the billing migration"
    assert labels[1][0] == "Hub Team ships the billing migration"
    assert results[2].negative is not None and results[2].negative.kind == "unknown_entity"
    assert labels[3][0] == "Hub Team knows member 1"
    assert sorted(labels[5]) == sorted(
        [
            "Hub Team knows member 0",
            "Hub Team knows member 1",
            "Hub Team ships the billing migration",
        ]
    )
