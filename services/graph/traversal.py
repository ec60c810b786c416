"""Budgeted walks over relations: frontier expansion, neighbourhood BFS, bidirectional paths."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from services.graph.domain import Clocks
from services.graph.repository import (
    MAX_REDIRECT_DEPTH,
    EdgeKey,
    EntityRow,
    GraphRepository,
    is_statement_timeout,
)

__all__ = [
    "Budget",
    "KeyPath",
    "NeighborhoodWalk",
    "OutOfTime",
    "PathSearch",
    "Walker",
    "search_paths",
    "walk_neighborhood",
]

Step = tuple[UUID, UUID, EdgeKey, UUID]
"""(from survivor, fact id, relation, to survivor): one undirected use of a relation."""

KeyPath = tuple[tuple[UUID, ...], tuple[EdgeKey, ...]]
"""Entities from start to end and the relations between them, before details are read."""


class OutOfTime(Exception):
    """The walk's time budget ran out (before a query, or a query hit its timeout)."""


class Budget:
    """Edges, frontier size and wall-clock time one walk may spend; records every bound hit."""

    def __init__(
        self,
        *,
        max_edges: int,
        max_frontier: int,
        time_budget_ms: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_edges = max_edges
        self.max_frontier = max_frontier
        self._clock = clock
        self._deadline = clock() + time_budget_ms / 1000
        # How far one statement may run past the deadline before its timeout is re-armed.
        self.timeout_slack_ms = max(20, time_budget_ms // 10)
        self.edges_used = 0
        self.reasons: list[str] = []

    @property
    def remaining_edges(self) -> int:
        return self.max_edges - self.edges_used

    def remaining_ms(self) -> int:
        return int((self._deadline - self._clock()) * 1000)

    def check_time(self) -> None:
        if self.remaining_ms() <= 0:
            raise OutOfTime

    def hit(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)


class Walker:
    """Expands frontiers of survivor entities inside one transaction, following redirects."""

    def __init__(
        self,
        repository: GraphRepository,
        conn: AsyncConnection,
        *,
        namespace: str,
        predicates: Sequence[str],
        clocks: Clocks,
        budget: Budget,
        statement_timeout_ms: int,
    ) -> None:
        self._repo = repository
        self.statement_timeout_ms = statement_timeout_ms
        self._conn = conn
        self._namespace = namespace
        self._predicates = tuple(predicates)
        self._clocks = clocks
        self.budget = budget
        self._survivor: dict[UUID, UUID | None] = {}
        self.names: dict[UUID, str] = {}

    def survivor(self, entity_id: UUID) -> UUID | None:
        """The survivor an already resolved id stands for (None: unknown)."""
        return self._survivor.get(entity_id)

    async def resolve(self, ids: Collection[UUID], rows: Sequence[EntityRow] | None = None) -> None:
        """Learn the survivor and name of every id, following redirect chains. ``rows``, when
        given, are the entity rows of ``ids`` already read."""
        pending = {i for i in ids if i not in self._survivor}
        redirect: dict[UUID, UUID | None] = {}
        for _ in range(MAX_REDIRECT_DEPTH + 1):
            if not pending:
                break
            if rows is None:
                async with self._query():
                    rows = await self._repo.entities(self._conn, self._namespace, pending)
            for row in rows:
                redirect[row.entity_id] = row.redirect_to
                if row.redirect_to is None:
                    self.names[row.entity_id] = row.name
            pending = {
                r.redirect_to
                for r in rows
                if r.redirect_to is not None
                and r.redirect_to not in redirect
                and r.redirect_to not in self._survivor
            }
            rows = None
        for entity_id in list(redirect):
            self._survivor[entity_id] = self._follow(entity_id, redirect)
        for entity_id in ids:
            self._survivor.setdefault(entity_id, None)

    def _follow(self, entity_id: UUID, redirect: dict[UUID, UUID | None]) -> UUID | None:
        current: UUID | None = entity_id
        for _ in range(MAX_REDIRECT_DEPTH + 1):
            if current is None:
                return None
            if current in self._survivor and current != entity_id:
                return self._survivor[current]
            if current not in redirect:
                return None
            target = redirect[current]
            if target is None:
                return current
            current = target
        return None

    async def expand(self, frontier: Sequence[UUID], *, ordered: bool) -> list[Step]:
        """One hop from ``frontier`` within the edge budget; records expansion_budget if cut."""
        remaining = self.budget.remaining_edges
        async with self._query():
            await self._arm_timeout()
            rows = await self._repo.edges(
                self._conn,
                self._namespace,
                frontier,
                predicates=self._predicates,
                clocks=self._clocks,
                limit=remaining + 1,
                ordered=ordered,
            )
        if ordered and len(rows) > remaining:
            rows.sort(key=itemgetter(0))
        # One pass over a hop's rows (thousands for a hub): learn the far ends the query
        # resolved (redirected ones are left to ``resolve``) and dedupe by fact id.
        survivor, names = self._survivor, self.names
        unique: dict[UUID, EdgeKey] = {}
        for fact_id, subject, obj, far, found, redirect_to, name in rows:
            if far not in survivor:
                if not found:
                    survivor[far] = None
                elif redirect_to is None:
                    survivor[far] = far
                    names[far] = name or ""
            if fact_id not in unique:
                unique[fact_id] = (fact_id, subject, obj)
        edges = list(unique.values())
        if len(rows) > remaining:
            self.budget.hit("expansion_budget")
            edges = edges[:remaining]
        self.budget.edges_used += len(edges)
        await self.resolve({i for e in edges for i in (e[1], e[2]) if i not in survivor})
        in_frontier = set(frontier)
        steps: list[Step] = []
        for edge in edges:
            head, tail = survivor.get(edge[1]), survivor.get(edge[2])
            if head is None or tail is None or head == tail:
                continue
            if head in in_frontier:
                steps.append((head, edge[0], edge, tail))
            if tail in in_frontier:
                steps.append((tail, edge[0], edge, head))
        # (origin, fact id) is unique, so the plain tuple sort never compares further.
        steps.sort()
        return steps

    async def leads_beyond(self, frontier: Sequence[UUID]) -> bool:
        """Whether the last layer has relations to entities not reached (conservative: an id
        merged into a reached entity but never resolved counts as outside)."""
        async with self._query():
            await self._arm_timeout()
            return await self._repo.leads_outside(
                self._conn,
                self._namespace,
                frontier,
                self._survivor.keys(),
                predicates=self._predicates,
                clocks=self._clocks,
            )

    async def _arm_timeout(self) -> None:
        remaining = self.budget.remaining_ms()
        # Re-arming the timeout costs a round trip; do it only once it could overrun the
        # deadline by more than the slack.
        if remaining + self.budget.timeout_slack_ms < self.statement_timeout_ms:
            await self._repo.set_timeout(self._conn, remaining)
            self.statement_timeout_ms = remaining

    @asynccontextmanager
    async def _query(self) -> AsyncIterator[None]:
        """Refuse to start a query once time is spent; a statement timeout means the same."""
        self.budget.check_time()
        try:
            yield
        except Exception as exc:
            if is_statement_timeout(exc):
                raise OutOfTime from exc
            raise


@dataclass
class NeighborhoodWalk:
    """What a neighbourhood walk reached: hop per node, the edge that first reached it, and
    the nodes of each hop in id order (the page order, kept so pages need no re-sort)."""

    hop: dict[UUID, int]
    layers: list[list[UUID]]
    parent: dict[UUID, tuple[UUID, EdgeKey]] = field(default_factory=dict)
    edges: dict[UUID, EdgeKey] = field(default_factory=dict)


async def walk_neighborhood(walker: Walker, start: UUID, hops: int) -> NeighborhoodWalk:
    """Breadth-first, one query per hop; deterministic for a fixed snapshot and budgets."""
    budget = walker.budget
    walk = NeighborhoodWalk(hop={start: 0}, layers=[[start]])
    frontier = [start]
    try:
        for hop in range(1, hops + 1):
            if len(frontier) > budget.max_frontier:
                budget.hit("frontier_budget")
                frontier = frontier[: budget.max_frontier]
            if budget.remaining_edges <= 0:
                budget.hit("expansion_budget")
                break
            reached: list[UUID] = []
            for origin, _, edge, target in await walker.expand(frontier, ordered=True):
                walk.edges[edge[0]] = edge
                if target not in walk.hop:
                    walk.hop[target] = hop
                    walk.parent[target] = (origin, edge)
                    reached.append(target)
            frontier = sorted(reached)
            walk.layers.append(frontier)
            if not frontier or "expansion_budget" in budget.reasons:
                break
        else:
            if not budget.reasons and frontier and await walker.leads_beyond(frontier):
                budget.hit("depth_budget")
    except OutOfTime:
        budget.hit("time_budget")
    return walk


@dataclass
class PathSearch:
    """Shortest paths found (at most the cap) and whether more of that length exist."""

    paths: list[KeyPath]
    more: bool = False
    exhausted: bool = False


def _halves(
    preds: dict[UUID, list[tuple[UUID, EdgeKey]]], node: UUID
) -> Iterator[tuple[list[UUID], list[EdgeKey]]]:
    """Every shortest half path from the side's root to ``node``, root first."""
    if not preds[node]:
        yield [node], []
        return
    for previous, edge in preds[node]:
        for nodes, edges in _halves(preds, previous):
            yield [*nodes, node], [*edges, edge]


def _join(
    preds: tuple[dict[UUID, list[tuple[UUID, EdgeKey]]], ...], meets: Sequence[UUID]
) -> Iterator[KeyPath]:
    for meet in meets:
        for left_nodes, left_edges in _halves(preds[0], meet):
            for right_nodes, right_edges in _halves(preds[1], meet):
                yield (
                    tuple(left_nodes + right_nodes[-2::-1]),
                    tuple(left_edges + right_edges[::-1]),
                )


async def search_paths(
    walker: Walker, source: UUID, target: UUID, max_hops: int, max_paths: int
) -> PathSearch:
    """Bidirectional BFS that expands the smaller frontier a whole layer at a time."""
    if source == target:
        return PathSearch(paths=[((source,), ())])
    budget = walker.budget
    dist: tuple[dict[UUID, int], dict[UUID, int]] = ({source: 0}, {target: 0})
    preds: tuple[dict[UUID, list[tuple[UUID, EdgeKey]]], ...] = ({source: []}, {target: []})
    frontiers = [[source], [target]]
    depth = [0, 0]
    try:
        while depth[0] + depth[1] < max_hops:
            side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
            frontier = frontiers[side]
            if len(frontier) > budget.max_frontier:
                budget.hit("frontier_budget")
                frontier = frontier[: budget.max_frontier]
            if budget.remaining_edges <= 0:
                budget.hit("expansion_budget")
                break
            level = depth[side] + 1
            seen, back = dist[side], preds[side]
            reached: list[UUID] = []
            for origin, _, edge, node in await walker.expand(frontier, ordered=False):
                if node not in seen:
                    seen[node] = level
                    back[node] = []
                    reached.append(node)
                if seen[node] == level:
                    back[node].append((origin, edge))
            depth[side] = level
            other = dist[1 - side]
            meets = [n for n in reached if n in other]
            if meets:
                shortest = min(other[n] for n in meets)
                found = list(
                    itertools.islice(
                        _join(preds, sorted(n for n in meets if other[n] == shortest)),
                        max_paths + 1,
                    )
                )
                return PathSearch(paths=found[:max_paths], more=len(found) > max_paths)
            frontiers[side] = sorted(reached)
            if not reached:
                return PathSearch(paths=[], exhausted=not budget.reasons)
            if "expansion_budget" in budget.reasons:
                break
        else:
            if not budget.reasons:
                budget.hit("depth_budget")
    except OutOfTime:
        budget.hit("time_budget")
    return PathSearch(paths=[])
