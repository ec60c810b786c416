"""Budgeted walks over relations: frontier expansion, neighbourhood BFS, bidirectional paths."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from services.graph.domain import Clocks
from services.graph.repository import (
    MAX_REDIRECT_DEPTH,
    EdgeKey,
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

# A depth probe reads this many edges of the last layer before assuming more lies beyond.
_PROBE_EDGES = 1000

Step = tuple[UUID, EdgeKey, UUID]
"""(from survivor, relation, to survivor): one undirected use of a relation."""

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

    async def resolve(self, ids: Collection[UUID]) -> None:
        """Learn the survivor and name of every id, following redirect chains."""
        pending = {i for i in ids if i not in self._survivor}
        redirect: dict[UUID, UUID | None] = {}
        for _ in range(MAX_REDIRECT_DEPTH + 1):
            if not pending:
                break
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
        rows = await self._edges(frontier, limit=remaining + 1, ordered=ordered)
        edges = list({e[0]: e for e in rows}.values())
        if len(rows) > remaining:
            self.budget.hit("expansion_budget")
            edges = edges[:remaining]
        self.budget.edges_used += len(edges)
        await self.resolve({i for e in edges for i in (e[1], e[2])})
        in_frontier = set(frontier)
        steps: list[Step] = []
        for edge in edges:
            subject = self._survivor.get(edge[1])
            obj = self._survivor.get(edge[2])
            if subject is None or obj is None or subject == obj:
                continue
            if subject in in_frontier:
                steps.append((subject, edge, obj))
            if obj in in_frontier:
                steps.append((obj, edge, subject))
        steps.sort(key=lambda s: (s[0], s[1][0]))
        return steps

    async def leads_beyond(self, frontier: Sequence[UUID]) -> bool:
        """Whether the last layer has relations to entities not reached (conservative)."""
        rows = await self._edges(frontier, limit=_PROBE_EDGES, ordered=False)
        known = self._survivor.keys()
        outside = any(e[1] not in known or e[2] not in known for e in rows)
        return outside or len(rows) >= _PROBE_EDGES

    async def _edges(self, frontier: Sequence[UUID], *, limit: int, ordered: bool) -> list[EdgeKey]:
        async with self._query():
            remaining = self.budget.remaining_ms()
            # Re-arming the timeout costs a round trip; do it only once it could overrun the
            # deadline by more than the slack.
            if remaining + self.budget.timeout_slack_ms < self.statement_timeout_ms:
                await self._repo.set_timeout(self._conn, remaining)
                self.statement_timeout_ms = remaining
            return await self._repo.edge_keys(
                self._conn,
                self._namespace,
                frontier,
                predicates=self._predicates,
                clocks=self._clocks,
                limit=limit,
                ordered=ordered,
            )

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
    """What a neighbourhood walk reached: hop per node, the edge that first reached it."""

    hop: dict[UUID, int]
    parent: dict[UUID, tuple[UUID, EdgeKey]] = field(default_factory=dict)
    edges: dict[UUID, EdgeKey] = field(default_factory=dict)


async def walk_neighborhood(walker: Walker, start: UUID, hops: int) -> NeighborhoodWalk:
    """Breadth-first, one query per hop; deterministic for a fixed snapshot and budgets."""
    budget = walker.budget
    walk = NeighborhoodWalk(hop={start: 0})
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
            for origin, edge, target in await walker.expand(frontier, ordered=True):
                walk.edges[edge[0]] = edge
                if target not in walk.hop:
                    walk.hop[target] = hop
                    walk.parent[target] = (origin, edge)
                    reached.append(target)
            frontier = sorted(reached)
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
            for origin, edge, node in await walker.expand(frontier, ordered=False):
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
