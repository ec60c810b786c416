"""Graph read model: traversal requests, relation edges, nodes, paths and their answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from shared.answers import NegativeAnswer, TruncationInfo

__all__ = [
    "Clocks",
    "EdgeRecord",
    "NeighborhoodPage",
    "NeighborhoodQuery",
    "NodeRecord",
    "PathAnswer",
    "PathQuery",
    "PathRecord",
]


@dataclass(frozen=True)
class Clocks:
    """The bitemporal point a walk is evaluated at: world instant and belief instant."""

    valid_at: datetime
    believed_at: datetime


@dataclass(frozen=True)
class EdgeRecord:
    """A relation fact as traversed; direction is kept even though walks ignore it."""

    fact_id: UUID
    subject_entity_id: UUID
    predicate: str
    object_entity_id: UUID
    label: str
    evidence_count: int
    valid_from: datetime | None
    valid_until: datetime | None
    valid_precision: str
    ingested_at: datetime
    invalidated_at: datetime | None
    support: str


@dataclass(frozen=True)
class NodeRecord:
    """An entity reached by a walk with its hop distance from the start."""

    entity_id: UUID
    name: str
    hop: int


@dataclass(frozen=True)
class PathRecord:
    """Entities from start to end and the relations between consecutive ones."""

    entity_ids: tuple[UUID, ...]
    edges: tuple[EdgeRecord, ...]


@dataclass(frozen=True)
class NeighborhoodQuery:
    """A validated GraphNeighborhood request. ``clocks`` None means current."""

    namespace: str
    entity_id: UUID
    hops: int
    predicates: tuple[str, ...]
    clocks: Clocks | None
    limit: int
    continuation: str
    include_paths: bool


@dataclass(frozen=True)
class PathQuery:
    """A validated GraphPath request. ``clocks`` None means current."""

    namespace: str
    from_entity_id: UUID
    to_entity_id: UUID
    max_hops: int
    predicates: tuple[str, ...]
    clocks: Clocks | None


@dataclass(frozen=True)
class NeighborhoodPage:
    """One page of a neighbourhood; edges and paths are empty unless asked for."""

    nodes: tuple[NodeRecord, ...] = ()
    edges: tuple[EdgeRecord, ...] = ()
    paths: tuple[PathRecord, ...] = ()
    truncation: TruncationInfo = field(default_factory=lambda: TruncationInfo(False, 0, 0, True))
    negative: NegativeAnswer | None = None


@dataclass(frozen=True)
class PathAnswer:
    """Shortest paths of one length, with the bounds that applied."""

    paths: tuple[PathRecord, ...] = ()
    truncation: TruncationInfo = field(default_factory=lambda: TruncationInfo(False, 0, 0, True))
    negative: NegativeAnswer | None = None
