"""Graph use cases: a neighbourhood page and shortest paths, each in one read-only snapshot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from services.graph.continuation import Cursor, InvalidContinuation, decode_cursor, encode_cursor
from services.graph.domain import (
    Clocks,
    EdgeRecord,
    NeighborhoodPage,
    NeighborhoodQuery,
    NodeRecord,
    PathAnswer,
    PathQuery,
    PathRecord,
)
from services.graph.repository import GraphRepository
from services.graph.traversal import (
    Budget,
    NeighborhoodWalk,
    OutOfTime,
    Walker,
    search_paths,
    walk_neighborhood,
)
from shared.config import Settings
from shared.proto_convert import NegativeAnswer, TruncationInfo

__all__ = ["MAX_PATHS", "GraphService"]

MAX_PATHS = 10
_BUDGET_REASONS = ("expansion_budget", "frontier_budget", "time_budget")


def _clocks(requested: Clocks | None, snapshot: datetime) -> Clocks:
    # A chain never sees beliefs newer than its first page, whatever believed_at asks for.
    if requested is None:
        return Clocks(valid_at=snapshot, believed_at=snapshot)
    return Clocks(valid_at=requested.valid_at, believed_at=min(requested.believed_at, snapshot))


def _time_boundary() -> NegativeAnswer:
    return NegativeAnswer(
        kind="boundary",
        explanation="the time budget ran out before the start entity was resolved",
        workaround="retry, or narrow the request with predicates",
    )


class GraphService:
    """Bitemporal neighbourhood and path reads under the configured graph budgets."""

    def __init__(
        self, engine: AsyncEngine, repository: GraphRepository, settings: Settings
    ) -> None:
        self._engine = engine
        self._repository = repository
        self._settings = settings

    def _budget(self) -> Budget:
        return Budget(
            max_edges=self._settings.graph_max_edges,
            max_frontier=self._settings.graph_max_frontier,
            time_budget_ms=self._settings.graph_time_budget_ms,
        )

    @asynccontextmanager
    async def _snapshot(self, budget: Budget) -> AsyncIterator[tuple[AsyncConnection, datetime]]:
        async with self._engine.connect() as conn:
            # Repeatable read: every hop of one call sees the same committed state.
            conn = await conn.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
            now = await self._repository.begin_snapshot(conn, budget.remaining_ms())
            try:
                yield conn, now
            finally:
                await conn.rollback()

    async def neighborhood(self, query: NeighborhoodQuery) -> NeighborhoodPage:
        """One page of the nodes within ``query.hops`` of the start entity."""
        budget = self._budget()
        cursor: Cursor | None = None
        if query.continuation:
            try:
                cursor = decode_cursor(query, query.continuation)
            except InvalidContinuation as exc:
                return NeighborhoodPage(
                    negative=NegativeAnswer(
                        kind="boundary",
                        explanation=str(exc),
                        workaround="repeat the request without continuation to start a new chain",
                    )
                )
        async with self._snapshot(budget) as (conn, now):
            snapshot = cursor.snapshot if cursor else now
            walker = Walker(
                self._repository,
                conn,
                namespace=query.namespace,
                predicates=query.predicates,
                clocks=_clocks(query.clocks, snapshot),
                budget=budget,
            )
            try:
                await walker.resolve([query.entity_id])
            except OutOfTime:
                return NeighborhoodPage(negative=_time_boundary())
            start = walker.survivor(query.entity_id)
            if start is None:
                return NeighborhoodPage(
                    negative=NegativeAnswer(
                        kind="unknown_entity",
                        explanation=f"entity {query.entity_id} is unknown in this namespace",
                        workaround="resolve the name first (ResolveEntity) and use its id",
                    )
                )
            walk = await walk_neighborhood(walker, start, query.hops)
        return self._page(query, walk, walker, cursor, snapshot)

    def _page(
        self,
        query: NeighborhoodQuery,
        walk: NeighborhoodWalk,
        walker: Walker,
        cursor: Cursor | None,
        snapshot: datetime,
    ) -> NeighborhoodPage:
        budget_reasons = list(walker.budget.reasons)
        ordered = sorted(walk.hop, key=lambda n: (walk.hop[n], n))
        skip = 0
        if cursor is not None:
            after = (cursor.last_hop, cursor.last_entity_id)
            skip = sum(1 for n in ordered if (walk.hop[n], n) <= after)
        page = ordered[skip : skip + query.limit]
        more = len(ordered) - skip - len(page)
        reasons = [*budget_reasons, *(["result_budget"] if more else [])]
        continuation = ""
        if more:
            last = page[-1]
            continuation = encode_cursor(query, Cursor(snapshot, walk.hop[last], last))
        nodes = tuple(NodeRecord(n, walker.names.get(n, ""), walk.hop[n]) for n in page)
        edges: tuple[EdgeRecord, ...] = ()
        paths: tuple[PathRecord, ...] = ()
        if query.include_paths:
            edges = self._page_edges(walk, walker, set(page))
            paths = tuple(self._path_to(walk, n) for n in page)
        negative = None
        if cursor is None and len(ordered) == 1:
            cut = any(r in _BUDGET_REASONS for r in budget_reasons)
            negative = NegativeAnswer(
                kind="boundary" if cut else "known_empty",
                explanation=(
                    f"a budget ({', '.join(budget_reasons)}) stopped the walk before any relation"
                    if cut
                    else "no relation reaches this entity under the given predicates and clocks"
                ),
                workaround="widen predicates or clocks" if not cut else "narrow with predicates",
            )
        return NeighborhoodPage(
            nodes=nodes,
            edges=edges,
            paths=paths,
            truncation=TruncationInfo(
                truncated=bool(reasons),
                returned=len(nodes),
                estimated_total=len(ordered),
                total_is_exact=not any(r in _BUDGET_REASONS for r in budget_reasons),
                reasons=tuple(reasons),
                continuation=continuation,
            ),
            negative=negative,
        )

    @staticmethod
    def _page_edges(
        walk: NeighborhoodWalk, walker: Walker, page: set[UUID]
    ) -> tuple[EdgeRecord, ...]:
        # Each edge is sent once per chain: on the page of its later endpoint in walk order.
        chosen: list[EdgeRecord] = []
        for edge in walk.edges.values():
            ends = [walker.survivor(edge.subject_entity_id), walker.survivor(edge.object_entity_id)]
            keys = [(walk.hop[e], e) for e in ends if e is not None and e in walk.hop]
            if len(keys) == 2 and max(keys)[1] in page:
                chosen.append(edge)
        return tuple(sorted(chosen, key=lambda e: e.fact_id))

    @staticmethod
    def _path_to(walk: NeighborhoodWalk, node: UUID) -> PathRecord:
        nodes = [node]
        edges: list[EdgeRecord] = []
        while node in walk.parent:
            node, edge = walk.parent[node]
            nodes.append(node)
            edges.append(edge)
        return PathRecord(entity_ids=tuple(reversed(nodes)), edges=tuple(reversed(edges)))

    async def path(self, query: PathQuery) -> PathAnswer:
        """Up to MAX_PATHS shortest paths of one length between two entities."""
        budget = self._budget()
        async with self._snapshot(budget) as (conn, now):
            walker = Walker(
                self._repository,
                conn,
                namespace=query.namespace,
                predicates=query.predicates,
                clocks=_clocks(query.clocks, now),
                budget=budget,
            )
            ends = (query.from_entity_id, query.to_entity_id)
            try:
                await walker.resolve(ends)
            except OutOfTime:
                return PathAnswer(negative=_time_boundary())
            source, target = (walker.survivor(e) for e in ends)
            if source is None or target is None:
                unknown = [str(e) for e in ends if walker.survivor(e) is None]
                return PathAnswer(
                    negative=NegativeAnswer(
                        kind="unknown_entity",
                        explanation=f"unknown in this namespace: {', '.join(unknown)}",
                        workaround="resolve the names first (ResolveEntity) and use their ids",
                    )
                )
            found = await search_paths(walker, source, target, query.max_hops, MAX_PATHS)
        reasons = [*budget.reasons, *(["result_budget"] if found.more else [])]
        negative = None
        if not found.paths:
            cut = any(r in _BUDGET_REASONS for r in budget.reasons)
            negative = NegativeAnswer(
                kind="boundary" if cut else "known_empty",
                explanation=(
                    f"a budget ({', '.join(budget.reasons)}) stopped the search before a path"
                    if cut
                    else f"no path of at most {query.max_hops} hops under the predicates and clocks"
                    if not found.exhausted
                    else "the two entities are not connected under the predicates and clocks"
                ),
                workaround="narrow with predicates" if cut else "raise max_hops or widen filters",
            )
        return PathAnswer(
            paths=tuple(found.paths),
            truncation=TruncationInfo(
                truncated=bool(reasons),
                returned=len(found.paths),
                estimated_total=len(found.paths) + (1 if found.more else 0),
                total_is_exact=not reasons,
                reasons=tuple(reasons),
            ),
            negative=negative,
        )
