"""Cutting a deterministic neighbourhood walk into pages: node order, edges, paths per page."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Mapping
from uuid import UUID

from services.graph.continuation import Cursor
from services.graph.domain import EdgeRecord, PathRecord
from services.graph.repository import EdgeKey
from services.graph.traversal import KeyPath, NeighborhoodWalk

__all__ = ["edge_keys_for_page", "page_nodes", "path_keys", "with_details"]


def page_nodes(walk: NeighborhoodWalk, cursor: Cursor | None, limit: int) -> tuple[list[UUID], int]:
    """The nodes of this page in (hop, entity id) order and how many remain after it."""
    skip = 0
    if cursor is not None:
        done = walk.layers[: cursor.last_hop]
        skip = sum(len(layer) for layer in done)
        if cursor.last_hop < len(walk.layers):
            skip += bisect.bisect_right(walk.layers[cursor.last_hop], cursor.last_entity_id)
    page = list(itertools.islice(itertools.chain.from_iterable(walk.layers), skip, skip + limit))
    return page, len(walk.hop) - skip - len(page)


def edge_keys_for_page(
    walk: NeighborhoodWalk, survivor: Callable[[UUID], UUID | None], page: set[UUID]
) -> list[EdgeKey]:
    """Edges among reached nodes, each sent once per chain: with its later endpoint's page."""
    chosen: list[EdgeKey] = []
    for key in walk.edges.values():
        ends = (survivor(key[1]), survivor(key[2]))
        order = [(walk.hop[e], e) for e in ends if e is not None and e in walk.hop]
        if len(order) == 2 and max(order)[1] in page:
            chosen.append(key)
    return sorted(chosen)


def path_keys(walk: NeighborhoodWalk, node: UUID) -> KeyPath:
    """The path that first reached ``node``, start first."""
    nodes = [node]
    edges: list[EdgeKey] = []
    while node in walk.parent:
        node, edge = walk.parent[node]
        nodes.append(node)
        edges.append(edge)
    return tuple(reversed(nodes)), tuple(reversed(edges))


def with_details(path: KeyPath, details: Mapping[UUID, EdgeRecord]) -> PathRecord | None:
    """A path with full edges, or None when an edge vanished (never a shortened path)."""
    edges = [details.get(key[0]) for key in path[1]]
    if any(edge is None for edge in edges):
        return None
    return PathRecord(entity_ids=path[0], edges=tuple(e for e in edges if e is not None))
