"""Reciprocal-rank fusion: how the nomination channels' rankings become one order."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from services.query.domain import RRF_CONSTANT

__all__ = ["ordered", "rrf", "single_channel_scores", "weighted_rrf"]


def rrf(
    rankings: Sequence[Sequence[UUID]], constant: int = RRF_CONSTANT
) -> list[tuple[UUID, float]]:
    """Reciprocal-rank fusion: sum of 1/(constant + rank) over the lists naming an id."""
    scores: dict[UUID, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (constant + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))


def single_channel_scores(ranking: Sequence[UUID]) -> list[tuple[UUID, float]]:
    """Scores for one channel on the same scale as fusion, so callers treat both alike."""
    return [(item, 1.0 / (RRF_CONSTANT + rank)) for rank, item in enumerate(ranking, start=1)]


def weighted_rrf(rankings: Sequence[tuple[Sequence[UUID], float]]) -> dict[UUID, float]:
    """Reciprocal-rank fusion (the scale facts are fused on) where each ranking counts with
    its weight."""
    scores: dict[UUID, float] = {}
    for ranking, weight in rankings:
        for item, score in single_channel_scores(ranking):
            scores[item] = scores.get(item, 0.0) + weight * score
    return scores


def ordered(scores: dict[UUID, float]) -> list[tuple[UUID, float]]:
    """Best first; ties broken by id so a ranking is reproducible."""
    return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))
