"""Synthetic power-law relation graphs for the graph benchmark (numpy only, seeded)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["PREDICATES", "SyntheticGraph", "generate", "random_walk_pairs"]

PREDICATES = (
    "works_at",
    "knows",
    "member_of",
    "located_in",
    "part_of",
    "reports_to",
    "owns",
    "related_to",
)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class SyntheticGraph:
    """Edges as node indices; ``expired``/``retracted`` edges do not hold now."""

    nodes: int
    subjects: IntArray
    objects: IntArray
    predicates: IntArray
    expired: BoolArray
    retracted: BoolArray
    hubs: IntArray

    @property
    def edges(self) -> int:
        return int(self.subjects.size)

    def current(self) -> BoolArray:
        return ~(self.expired | self.retracted)


def generate(edges: int, *, hubs: int, hub_degree: int, seed: int = 7) -> SyntheticGraph:
    """A heavy-tailed graph: ``hubs`` nodes of degree ``hub_degree`` plus a Zipf-like tail.

    Tail endpoints are drawn with weight (rank + 10)^-0.7, which gives a maximum tail degree of
    a few thousand and a median degree of a handful, like an entity graph extracted from text.
    """
    rng = np.random.default_rng(seed)
    nodes = max(edges // 4, 100)
    hub_ids = np.arange(hubs, dtype=np.int64)
    hub_edges = min(hubs * hub_degree, edges // 2)
    weights = (np.arange(nodes, dtype=np.float64) + 10.0) ** -0.7
    weights[:hubs] = 0.0
    weights /= weights.sum()
    tail = edges - hub_edges
    subjects = np.empty(edges, dtype=np.int64)
    objects = np.empty(edges, dtype=np.int64)
    subjects[:hub_edges] = np.repeat(hub_ids, hub_edges // max(hubs, 1) + 1)[:hub_edges]
    objects[:hub_edges] = rng.integers(hubs, nodes, size=hub_edges)
    subjects[hub_edges:] = rng.choice(nodes, size=tail, p=weights)
    objects[hub_edges:] = rng.choice(nodes, size=tail, p=weights)
    loops = subjects == objects
    objects[loops] = (objects[loops] + 1 + hubs) % nodes
    # Shuffle ranks so hub-ness does not correlate with id order (ids are random UUIDs anyway).
    return SyntheticGraph(
        nodes=nodes,
        subjects=subjects,
        objects=objects,
        predicates=rng.integers(0, len(PREDICATES), size=edges),
        expired=rng.random(edges) < 0.08,
        retracted=rng.random(edges) < 0.04,
        hubs=hub_ids,
    )


def _adjacency(graph: SyntheticGraph) -> tuple[IntArray, IntArray]:
    """CSR adjacency over current edges, both directions."""
    keep = graph.current()
    src = np.concatenate([graph.subjects[keep], graph.objects[keep]])
    dst = np.concatenate([graph.objects[keep], graph.subjects[keep]])
    order = np.argsort(src, kind="stable")
    offsets = np.zeros(graph.nodes + 1, dtype=np.int64)
    np.add.at(offsets, src + 1, 1)
    return np.cumsum(offsets), dst[order]


def random_walk_pairs(
    graph: SyntheticGraph, count: int, steps: int, *, seed: int = 11
) -> list[tuple[int, int]]:
    """(start, end) pairs joined by a hub-free walk of ``steps`` current edges."""
    rng = np.random.default_rng(seed)
    offsets, targets = _adjacency(graph)
    hubs = set(graph.hubs.tolist())
    pairs: list[tuple[int, int]] = []
    attempts = 0
    while len(pairs) < count and attempts < count * 50:
        attempts += 1
        node = int(rng.integers(len(hubs), graph.nodes))
        visited = {node}
        start = node
        for _ in range(steps):
            lo, hi = offsets[node], offsets[node + 1]
            if hi == lo:
                break
            node = int(targets[rng.integers(lo, hi)])
            if node in hubs or node in visited:
                break
            visited.add(node)
        if len(visited) == steps + 1:
            pairs.append((start, node))
    return pairs
