"""Graph test fixtures: a SQL test-data builder and in-process graph servers on port 0."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import grpc.aio
import pytest
from rememberstack.v1 import graph_service_pb2_grpc
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.graph.app import build_server
from services.graph.config import load_settings
from shared.grpc.server import GrpcServer


class GraphBuilder:
    """Writes entities, relations and merges straight into the tables, as the adjudicator would."""

    def __init__(self, engine: AsyncEngine, namespace: str) -> None:
        self.engine = engine
        self.namespace = namespace

    async def _run(self, sql: str, **params: Any) -> Any:
        async with self.engine.begin() as conn:
            await conn.execute(
                text("INSERT INTO namespaces (namespace) VALUES (:ns) ON CONFLICT DO NOTHING"),
                {"ns": self.namespace},
            )
            result = await conn.execute(text(sql), {"ns": self.namespace, **params})
            return result.scalar() if result.returns_rows else None

    async def entity(self, name: str) -> uuid.UUID:
        entity_id: uuid.UUID = await self._run(
            "INSERT INTO entities (namespace, canonical_name, normalized_name)"
            " VALUES (:ns, :name, lower(:name)) RETURNING id",
            name=name,
        )
        return entity_id

    async def entities(self, *names: str) -> list[uuid.UUID]:
        return [await self.entity(name) for name in names]

    async def relation(
        self,
        subject: uuid.UUID,
        predicate: str,
        obj: uuid.UUID,
        *,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        precision: str = "unknown",
        ingested_at: datetime | None = None,
        invalidated_at: datetime | None = None,
        evidence_count: int = 1,
        support: str = "current",
    ) -> uuid.UUID:
        fact_id: uuid.UUID = await self._run(
            "INSERT INTO facts (namespace, kind, subject_entity_id, predicate, object_entity_id,"
            " statement, label, valid_from, valid_until, valid_precision, ingested_at,"
            " invalidated_at, evidence_count, support)"
            " VALUES (:ns, 'relation', :s, :p, :o, :label, :label, :vf, :vu, :prec,"
            " coalesce(CAST(:ia AS timestamptz), now()), :inv, :ev, :sup) RETURNING id",
            s=subject,
            p=predicate,
            o=obj,
            label=f"{subject} {predicate} {obj}",
            vf=valid_from,
            vu=valid_until,
            prec=precision,
            ia=ingested_at,
            inv=invalidated_at,
            ev=evidence_count,
            sup=support,
        )
        return fact_id

    async def chain(self, ids: list[uuid.UUID], predicate: str = "related_to") -> list[uuid.UUID]:
        return [await self.relation(a, predicate, b) for a, b in itertools.pairwise(ids)]

    async def merge(self, absorbed: uuid.UUID, survivor: uuid.UUID) -> None:
        """A merge as SPEC §3 defines it: a redirect plus a recorded merge event."""
        await self._run(
            "UPDATE entities SET redirect_to = :survivor WHERE id = :absorbed",
            absorbed=absorbed,
            survivor=survivor,
        )
        await self._run(
            "INSERT INTO merge_events (namespace, survivor_id, absorbed_id, snapshot, decided_by)"
            " VALUES (:ns, :survivor, :absorbed, '{}', 'test')",
            absorbed=absorbed,
            survivor=survivor,
        )

    async def invalidate(self, fact_id: uuid.UUID, at: datetime | None = None) -> None:
        await self._run(
            "UPDATE facts SET invalidated_at = coalesce(CAST(:at AS timestamptz), now()),"
            " invalidation_reason = 'retracted_source_removal' WHERE id = :id",
            id=fact_id,
            at=at,
        )

    async def close_window(self, fact_id: uuid.UUID, valid_until: datetime) -> None:
        await self._run(
            "UPDATE facts SET valid_until = :vu WHERE id = :id", id=fact_id, vu=valid_until
        )


@pytest.fixture
def graph(db_engine: AsyncEngine, namespace: str) -> GraphBuilder:
    return GraphBuilder(db_engine, namespace)


async def _serve(database_url: str, db_engine: AsyncEngine, **overrides: Any) -> GrpcServer:
    settings = load_settings(database_url=database_url, port=0, service_name="graph", **overrides)
    server = await build_server(settings, engine=db_engine)
    await server.start()
    return server


@pytest.fixture(scope="module")
async def graph_stub(
    database_url: str, db_engine: AsyncEngine
) -> AsyncIterator[graph_service_pb2_grpc.GraphServiceStub]:
    """A graph server with the default budgets and a channel to it."""
    server = await _serve(database_url, db_engine)
    async with grpc.aio.insecure_channel(server.address) as channel:
        yield graph_service_pb2_grpc.GraphServiceStub(channel)
    await server.stop(grace=0.5)


@pytest.fixture(scope="module")
async def small_budget_stub(
    database_url: str, db_engine: AsyncEngine
) -> AsyncIterator[graph_service_pb2_grpc.GraphServiceStub]:
    """A graph server whose edge and frontier budgets are tiny, so tests can hit them."""
    server = await _serve(database_url, db_engine, graph_max_edges=5, graph_max_frontier=2)
    async with grpc.aio.insecure_channel(server.address) as channel:
        yield graph_service_pb2_grpc.GraphServiceStub(channel)
    await server.stop(grace=0.5)
