"""Graph use cases: a neighbourhood page and shortest paths, each in one read-only snapshot."""

from __future__ import annotations

from collections.abc import Collection
from contextlib import AbstractAsyncContextManager
from datetime import datetime
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from services.graph.config import GraphSettings
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
from services.graph.pages import edge_keys_for_page, page_nodes, path_keys, with_details
from services.graph.repository import EdgeKey, EntityRow, GraphRepository
from services.graph.traversal import Budget, OutOfTime, Walker, search_paths, walk_neighborhood
from shared.answers import NegativeAnswer, TruncationInfo
from shared.replica import ReplayClock

__all__ = ["MAX_PATHS", "GraphService"]

MAX_PATHS = 10
_BUDGET_REASONS = ("expansion_budget", "frontier_budget", "time_budget")
# Reading the details of at most a page of edges after the walk's own budget ran out.
_DETAILS_TIMEOUT_MS = 1000


def _clocks(requested: Clocks | None, snapshot: datetime) -> Clocks:
    # A chain never sees beliefs newer than its first page, whatever believed_at asks for.
    if requested is None:
        return Clocks(valid_at=snapshot, believed_at=snapshot)
    return Clocks(valid_at=requested.valid_at, believed_at=min(requested.believed_at, snapshot))


def _cut(reasons: Collection[str]) -> bool:
    return any(r in _BUDGET_REASONS for r in reasons)


def _time_boundary() -> NegativeAnswer:
    return NegativeAnswer(
        kind="boundary",
        explanation="the time budget ran out before the start entity was resolved",
        workaround="retry, or narrow the request with predicates",
    )


def _unknown(ids: Collection[UUID]) -> NegativeAnswer:
    return NegativeAnswer(
        kind="unknown_entity",
        explanation=f"unknown in this namespace: {', '.join(str(i) for i in ids)}",
        workaround="resolve the name first (ResolveEntity) and use its id",
    )


class GraphService:
    """Bitemporal neighbourhood and path reads under the configured graph budgets."""

    def __init__(
        self,
        engine: AsyncEngine,
        repository: GraphRepository,
        settings: GraphSettings,
        *,
        replay_clock: ReplayClock | None = None,
    ) -> None:
        self._engine = engine
        # Set when `engine` is a read replica: a walk at a believed_at it has not replayed to
        # waits for it or says so (shared/replica.py).
        self._replay_clock = replay_clock
        self._repository = repository
        self._settings = settings

    async def _replica_behind(self, clocks: Clocks | None) -> NegativeAnswer | None:
        if self._replay_clock is None or clocks is None:
            return None
        return await self._replay_clock.behind(clocks.believed_at)

    def _budget(self) -> Budget:
        return Budget(
            max_edges=self._settings.graph_max_edges,
            max_frontier=self._settings.graph_max_frontier,
            time_budget_ms=self._settings.graph_time_budget_ms,
        )

    def _snapshot(
        self, timeout_ms: int, namespace: str, ids: Collection[UUID] = ()
    ) -> AbstractAsyncContextManager[tuple[AsyncConnection, datetime, list[EntityRow]]]:
        return self._repository.snapshot(self._engine, timeout_ms, namespace, ids)

    async def _details(
        self, conn: AsyncConnection, namespace: str, budget: Budget, keys: Collection[EdgeKey]
    ) -> dict[UUID, EdgeRecord]:
        ids = {k[0] for k in keys}
        if not ids:
            return {}
        if "time_budget" not in budget.reasons:
            await self._repository.set_timeout(conn, _DETAILS_TIMEOUT_MS)
            return await self._repository.edge_details(conn, namespace, ids)
        # A cancelled statement aborted the walk's transaction; fact rows are never deleted,
        # so a fresh one reads the same relations.
        async with self._snapshot(_DETAILS_TIMEOUT_MS, namespace) as (fresh, _, _):
            return await self._repository.edge_details(fresh, namespace, ids)

    def _walker(
        self,
        conn: AsyncConnection,
        query: NeighborhoodQuery | PathQuery,
        clocks: Clocks,
        budget: Budget,
        timeout_ms: int,
    ) -> Walker:
        return Walker(
            self._repository,
            conn,
            namespace=query.namespace,
            predicates=query.predicates,
            clocks=clocks,
            budget=budget,
            statement_timeout_ms=timeout_ms,
        )

    async def neighborhood(self, query: NeighborhoodQuery) -> NeighborhoodPage:
        """One page of the nodes within ``query.hops`` of the start entity."""
        # Before the budget starts: waiting for replay is not the walk's time.
        behind = await self._replica_behind(query.clocks)
        if behind is not None:
            return NeighborhoodPage(negative=behind)
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
                        workaround="repeat the request without page_token to start a new chain",
                    )
                )
        timeout_ms = budget.remaining_ms()
        async with self._snapshot(timeout_ms, query.namespace, [query.entity_id]) as (
            conn,
            now,
            start_rows,
        ):
            snapshot = cursor.snapshot if cursor else now
            walker = self._walker(conn, query, _clocks(query.clocks, snapshot), budget, timeout_ms)
            try:
                await walker.resolve([query.entity_id], start_rows)
            except OutOfTime:
                return NeighborhoodPage(negative=_time_boundary())
            start = walker.survivor(query.entity_id)
            if start is None:
                return NeighborhoodPage(negative=_unknown([query.entity_id]))
            walk = await walk_neighborhood(walker, start, query.hops)
            page, more = page_nodes(walk, cursor, query.limit)
            edges: tuple[EdgeRecord, ...] = ()
            paths: tuple[PathRecord, ...] = ()
            if query.include_paths:
                edge_keys = edge_keys_for_page(walk, walker.survivor, set(page))
                key_paths = [path_keys(walk, n) for n in page]
                wanted = {*edge_keys, *(k for p in key_paths for k in p[1])}
                details = await self._details(conn, query.namespace, budget, wanted)
                edges = tuple(details[k[0]] for k in edge_keys if k[0] in details)
                paths = tuple(p for p in (with_details(k, details) for k in key_paths) if p)
        reasons = [*budget.reasons, *(["result_budget"] if more else [])]
        continuation = ""
        if more:
            last = page[-1]
            continuation = encode_cursor(query, Cursor(snapshot, walk.hop[last], last))
        negative = None
        if cursor is None and len(walk.hop) == 1:
            cut = _cut(budget.reasons)
            negative = NegativeAnswer(
                kind="boundary" if cut else "known_empty",
                explanation=(
                    f"a budget ({', '.join(budget.reasons)}) stopped the walk before any relation"
                    if cut
                    else "no relation reaches this entity under the given predicates and clocks"
                ),
                workaround="narrow with predicates" if cut else "widen predicates or clocks",
            )
        return NeighborhoodPage(
            nodes=tuple(NodeRecord(n, walker.names.get(n, ""), walk.hop[n]) for n in page),
            edges=edges,
            paths=paths,
            truncation=TruncationInfo(
                truncated=bool(reasons),
                returned=len(page),
                estimated_total=len(walk.hop),
                total_is_exact=not _cut(budget.reasons),
                reasons=tuple(reasons),
                continuation=continuation,
            ),
            negative=negative,
        )

    async def path(self, query: PathQuery) -> PathAnswer:
        """Up to MAX_PATHS shortest paths of one length between two entities."""
        behind = await self._replica_behind(query.clocks)
        if behind is not None:
            return PathAnswer(negative=behind)
        budget = self._budget()
        timeout_ms = budget.remaining_ms()
        ends = (query.from_entity_id, query.to_entity_id)
        async with self._snapshot(timeout_ms, query.namespace, ends) as (conn, now, end_rows):
            walker = self._walker(conn, query, _clocks(query.clocks, now), budget, timeout_ms)
            try:
                await walker.resolve(ends, end_rows)
            except OutOfTime:
                return PathAnswer(negative=_time_boundary())
            source, target = (walker.survivor(e) for e in ends)
            if source is None or target is None:
                return PathAnswer(negative=_unknown([e for e in ends if not walker.survivor(e)]))
            found = await search_paths(walker, source, target, query.max_hops, MAX_PATHS)
            details = await self._details(
                conn, query.namespace, budget, {k for p in found.paths for k in p[1]}
            )
        paths = tuple(p for p in (with_details(k, details) for k in found.paths) if p)
        reasons = [*budget.reasons, *(["result_budget"] if found.more else [])]
        negative = None
        if not paths:
            cut = _cut(budget.reasons)
            negative = NegativeAnswer(
                kind="boundary" if cut else "known_empty",
                explanation=(
                    f"a budget ({', '.join(budget.reasons)}) stopped the search before a path"
                    if cut
                    else "the two entities are not connected under the predicates and clocks"
                    if found.exhausted
                    else f"no path of at most {query.max_hops} hops under the predicates and clocks"
                ),
                workaround="narrow with predicates" if cut else "raise max_hops or widen filters",
            )
        return PathAnswer(
            paths=paths,
            truncation=TruncationInfo(
                truncated=bool(reasons),
                returned=len(paths),
                estimated_total=len(paths) + (1 if found.more else 0),
                total_is_exact=not reasons,
                reasons=tuple(reasons),
            ),
            negative=negative,
        )
