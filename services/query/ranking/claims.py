"""How ClaimsAndSourcesContext ranks what its channels nominated: pure functions, no database.

`reads.claims_context` gathers the candidates (four channels, hydrated views, the speakers the
query names) in one snapshot and hands them here; keeping the ranking free of I/O lets a benchmark
re-rank the same candidates under other weights in microseconds (bench/locomo/tune.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar
from uuid import UUID

from services.query.domain import ChunkView, ClaimView
from services.query.ranking.fusion import ordered, weighted_rrf
from services.query.ranking.time_cues import TimeCue


@dataclass(frozen=True)
class RankWeights:
    """Weights of the fused ranking (each multiplies a reciprocal-rank score, constant 60)."""

    # The channels. Once the speakers a question names are out of the lexical query (see
    # lexical_query), its words are the content words, and both channels count alike.
    vector: float = 1.0
    lexical: float = 1.0
    # The speaker ranking (candidates said by a person the query names, in fused order): "what
    # did Dana say about the launch" is mostly answered by Dana's own turns and claims.
    speaker: float = 0.5
    # How much a candidate borrows from its partner layer: a claim from the chunk it was read
    # from, a chunk from its best claim. A claim restates its turn with references resolved, a
    # chunk keeps the words the claim paraphrased away, so each vouches for the other.
    support: float = 0.25
    # A turn's share of its better adjacent turn's score (see with_neighbours), and the larger
    # share a reply takes from the turn before it when that turn ends with a question: the
    # reply answers what the question asked, usually without repeating its words.
    neighbour: float = 0.3
    answer: float = 0.6
    # The time ranking (candidates said in or just after a period the query names, in fused
    # order; see time_cues): "what did Maria donate in December 2023" is answered by what
    # was said then, which the words alone cannot tell from the other donations.
    time: float = 1.0
    # The dated ranking, for a query asking when (candidates stating a time, in fused order):
    # "when did Dana move" is answered by "Dana moved in May", not by the talk about the move.
    dated: float = 0.5


DEFAULT_WEIGHTS = RankWeights()


@dataclass
class Nominated:
    """What the channels of one ClaimsAndSourcesContext read nominated, hydrated and live."""

    claim_vector: list[UUID]
    claim_lexical: list[UUID]
    chunk_vector: list[UUID]
    chunk_lexical: list[UUID]
    # Live views only (non-current testimony and out-of-scope claims are not here), including
    # the chunks every live claim was read from.
    claims: dict[UUID, ClaimView]
    chunks: dict[UUID, ChunkView]
    named: set[str] = field(default_factory=set)
    # Periods the query names, and whether it asks when something happened (see time_cues).
    when: list[TimeCue] = field(default_factory=list)
    asks_when: bool = False


@dataclass(frozen=True)
class Ranked:
    """Claims (one per group, best first) and chunks, every one of them, with final scores."""

    claims: list[ClaimView]
    chunks: list[ChunkView]
    # Nominated ids that did not survive hydration (SPEC §7 `dropped_by_hydration`).
    dropped: int


# A conversation line (SPEC §1): `[<turn-id> | <timestamp>] <speaker>: <text>`.
_TURN_SPEAKER = re.compile(r"^\[[^\]|\n]+\|[^\]\n]*\][ \t]*([^:\n]{1,80}):", re.MULTILINE)
# Trailing bracketed annotations ("[image: ...]") after what a turn says.
_TRAILING_NOTE = re.compile(r"(\s*\[[^\[\]]*\])+\s*$")


V = TypeVar("V", ChunkView, ClaimView)


def _rescored(view: V, score: float) -> V:
    """A copy of `view` with another score. `dataclasses.replace` runs `__init__` over every
    field; for the ~1,600 candidates of a request at 1M facts that was a third of ranking."""
    copy = object.__new__(type(view))
    copy.__dict__.update(view.__dict__)
    copy.score = score
    return copy


def ends_with_question(chunk_text: str) -> bool:
    """The chunk's last words (bracketed annotations aside) ask a question."""
    return _TRAILING_NOTE.sub("", chunk_text).rstrip().endswith("?")


def with_neighbours(
    chunks: list[ChunkView], weights: RankWeights = DEFAULT_WEIGHTS
) -> list[ChunkView]:
    """Copies of the chunks, each also counting a share of its better adjacent candidate's
    score, reordered.

    A reply rarely repeats the words of the question it answers, so the turn before it
    vouches for it (more when that turn asks a question), and a question turn for the reply
    that follows."""
    own = {(c.version_id, c.ordinal): c for c in chunks}
    lifted = []
    for chunk in chunks:
        before = own.get((chunk.version_id, chunk.ordinal - 1))
        after = own.get((chunk.version_id, chunk.ordinal + 1))
        answers = before is not None and ends_with_question(before.text)
        lift = max(
            (weights.answer if answers else weights.neighbour) * (before.score if before else 0.0),
            weights.neighbour * (after.score if after else 0.0),
        )
        lifted.append(_rescored(chunk, chunk.score + lift))
    return sorted(lifted, key=lambda c: (-c.score, str(c.chunk_id)))


def chunk_speakers(chunk_text: str) -> set[str]:
    """Who speaks in a conversation chunk (nobody for prose)."""
    return {name.strip() for name in _TURN_SPEAKER.findall(chunk_text) if name.strip()}


def _name_words(name: str) -> list[str]:
    # Capitalised words only: a name is written capitalised, and "will" or "may" in a question
    # must not name a speaker called Will or May.
    return [w for w in re.findall(r"[^\W\d_][\w'-]*", name) if len(w) > 1 and w[0].isupper()]


def named_speakers(query: str, speakers: Iterable[str]) -> set[str]:
    """The speakers the query names: a word of the name appears in it as a whole word."""
    return {
        name
        for name in set(speakers)
        if any(re.search(rf"\b{re.escape(w)}\b", query) for w in _name_words(name))
    }


def lexical_query(query: str, speakers: Iterable[str]) -> str:
    """The query for the lexical channel without the names of the speakers it names.

    A speaker's name is in every line they say and in the other side's greetings, so as a term it
    ranks by talkativeness; the speaker ranking carries that part of the question instead."""
    words = {w for name in speakers for w in _name_words(name)}
    for word in sorted(words, key=len, reverse=True):
        query = re.sub(rf"\b{re.escape(word)}(?:'s)?\b", " ", query)
    return " ".join(query.split())


@dataclass(frozen=True, slots=True)
class Said:
    """What the cue rankings read of one candidate: who said it, when, and whether it states
    when something happened (a claim with a world time, or a chunk holding one)."""

    speakers: frozenset[str]
    at: datetime | None
    dated: bool


def cue_rankings(
    fused: Sequence[tuple[UUID, float]], said: dict[UUID, Said], n: Nominated, w: RankWeights
) -> list[tuple[list[UUID], float]]:
    """The rankings the query's cues add, each the fused candidates that fit it, in fused
    order: said by a speaker it names, said in (or just after) a period it names, stating a
    time when it asks when."""
    fits: list[tuple[Callable[[Said], bool], float]] = []
    if n.named:
        fits.append((lambda s: not s.speakers.isdisjoint(n.named), w.speaker))
    if n.when:
        fits.append(
            (lambda s: s.at is not None and any(cue.covers(s.at) for cue in n.when), w.time)
        )
    if n.asks_when:
        fits.append((lambda s: s.dated, w.dated))
    return [
        ([item for item, _ in fused if item in said and fit(said[item])], weight)
        for fit, weight in fits
    ]


def _fused(
    rankings: Sequence[tuple[Sequence[UUID], float]],
    said: dict[UUID, Said],
    n: Nominated,
    weights: RankWeights,
) -> dict[UUID, float]:
    """Weighted RRF of the channels and of the rankings the query's cues add."""
    scores = weighted_rrf(rankings)
    cues = cue_rankings(ordered(scores), said, n, weights)
    return weighted_rrf([*rankings, *cues]) if cues else scores


def rank(nominated: Nominated, weights: RankWeights = DEFAULT_WEIGHTS) -> Ranked:
    """Fuse each layer's channels, let the layers vouch for each other, group the claims."""
    n = nominated
    dated_chunks = {c.chunk_id for c in n.claims.values() if c.claim_valid_from is not None}
    claim_scores = _fused(
        [(n.claim_vector, weights.vector), (n.claim_lexical, weights.lexical)],
        {
            c.claim_id: Said(
                frozenset([c.speaker] if c.speaker else []),
                c.asserted_at,
                c.claim_valid_from is not None,
            )
            for c in n.claims.values()
        },
        n,
        weights,
    )
    chunk_scores = _fused(
        [(n.chunk_vector, weights.vector), (n.chunk_lexical, weights.lexical)],
        {
            c.chunk_id: Said(
                frozenset(chunk_speakers(c.text)), c.asserted_at, c.chunk_id in dated_chunks
            )
            for c in n.chunks.values()
        },
        n,
        weights,
    )
    dropped = len(claim_scores.keys() - n.claims.keys())
    dropped += len(chunk_scores.keys() - n.chunks.keys())
    claim_scores = {c: s for c, s in claim_scores.items() if c in n.claims}
    # Each layer borrows from the other: a chunk its best live claim's own score, then its
    # neighbours' share; a claim its chunk's resulting score (a chunk no channel named and
    # holding no candidate claim scores 0).
    best_claim: dict[UUID, float] = {}
    for claim_id, own in claim_scores.items():
        chunk_id = n.claims[claim_id].chunk_id
        best_claim[chunk_id] = max(best_claim.get(chunk_id, 0.0), own)
    fused_chunks = [
        _rescored(n.chunks[chunk_id], score)
        for chunk_id, score in ordered(
            {
                chunk_id: chunk_scores.get(chunk_id, 0.0)
                + weights.support * best_claim.get(chunk_id, 0.0)
                for chunk_id in chunk_scores.keys() | best_claim.keys()
            }
        )
        if chunk_id in n.chunks
    ]
    ranked_chunks = with_neighbours(fused_chunks, weights)
    chunk_final = {chunk.chunk_id: chunk.score for chunk in ranked_chunks}
    fused_claims = ordered(
        {
            claim_id: score + weights.support * chunk_final.get(n.claims[claim_id].chunk_id, 0.0)
            for claim_id, score in claim_scores.items()
        }
    )
    shown: dict[tuple[object, ...], ClaimView] = {}
    for claim_id, score in fused_claims:
        claim = n.claims[claim_id]
        shown.setdefault(claim.group_key(), _rescored(claim, score))
    return Ranked(list(shown.values()), ranked_chunks, dropped)
