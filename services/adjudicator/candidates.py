"""Reads of the adjudicator: pending claims of a version and the candidate facts of an assertion."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import cast as as_type

from sqlalchemy import Float, Text, and_, bindparam, cast, exists, func, literal, or_, select
from sqlalchemy.dialects.postgresql import TSQUERY, distinct_on
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.domain import (
    Assertion,
    CandidateFact,
    ClaimView,
    EvidenceItem,
    Polarity,
    Precision,
    Stance,
    Window,
)
from shared.db.models import Assertion as AssertionRow
from shared.db.models import Claim, Document, Fact, FactEvidence, VersionClaim

__all__ = [
    "MAX_CANDIDATES",
    "ClaimRow",
    "claims_by_id",
    "load_candidates",
    "lock_pending_claim",
    "pending_claims_of_version",
]

MAX_CANDIDATES = 8
# Evidence shown to the engine per candidate: the most recent links are what dates a fact.
_EVIDENCE_PER_CANDIDATE = 8
# Placement predicates: a transition between them ("left Acme, joined the search team") is a
# succession the engine must see, so they are candidates of each other.
_PLACEMENT = ("works_for", "member_of", "works_on", "assigned_to")
# An observation is a candidate when it is this close to the assertion (cosine plus a lexical
# bonus); below it the two statements are about different things and the engine is not asked.
_OBSERVATION_MIN_SCORE = 0.5
_LEXICAL_WEIGHT = 0.3


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """A claim as the pipeline needs it: the engine's view plus what mentions are built from."""

    view: ClaimView
    speaker: str | None
    document_title: str | None
    is_current: bool


def _claim_row(claim: Claim, title: str | None) -> ClaimRow:
    precision = as_type(Precision, claim.claim_valid_precision)
    view = ClaimView(
        claim_id=str(claim.id),
        document_id=str(claim.document_id),
        claim_text=claim.claim_text,
        asserted_at=claim.asserted_at,
        polarity=as_type(Polarity, claim.polarity),
        is_attributed=claim.is_attributed,
        holder=claim.holder,
        subject_text=claim.subject_text,
        predicate_text=claim.predicate_text,
        object_text=claim.object_text,
        window=Window.from_claim_fields(
            claim.claim_valid_from, claim.claim_valid_until, precision, claim.claim_valid_kind
        ),
        window_kind=claim.claim_valid_kind,
    )
    return ClaimRow(view, claim.speaker, title, claim.is_current_testimony)


def _not_adjudicated() -> Any:
    return ~exists().where(
        AssertionRow.namespace == Claim.namespace, AssertionRow.claim_id == Claim.id
    )


async def pending_claims_of_version(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> list[ClaimRow]:
    """Current claims of the version with no assertions yet, in document order."""
    rows = await session.execute(
        select(Claim, Document.title)
        .join(VersionClaim, VersionClaim.claim_id == Claim.id)
        .join(Document, Document.id == Claim.document_id)
        .where(
            VersionClaim.namespace == namespace,
            VersionClaim.version_id == version_id,
            Claim.namespace == namespace,
            Claim.is_current_testimony,
            _not_adjudicated(),
        )
        .order_by(Claim.char_start, Claim.char_end, Claim.id)
    )
    return [_claim_row(claim, title) for claim, title in rows]


async def claims_by_id(
    session: AsyncSession, namespace: str, claim_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, tuple[ClaimRow, bool]]:
    """The named claims with whether each was adjudicated already; unknown ids are absent."""
    adjudicated = exists().where(
        AssertionRow.namespace == Claim.namespace, AssertionRow.claim_id == Claim.id
    )
    rows = await session.execute(
        select(Claim, Document.title, adjudicated)
        .join(Document, Document.id == Claim.document_id)
        .where(Claim.namespace == namespace, Claim.id.in_(list(claim_ids)))
    )
    return {claim.id: (_claim_row(claim, title), bool(done)) for claim, title, done in rows}


async def lock_pending_claim(session: AsyncSession, namespace: str, claim_id: uuid.UUID) -> bool:
    """Row-lock the claim; True when it is still current testimony and not yet adjudicated.

    Two writers (a worker and a direct AdjudicateClaims call) can reach the same claim; the lock
    makes the second wait and then see the first one's assertions.
    """
    found = await session.execute(
        select(Claim.id)
        .where(
            Claim.namespace == namespace,
            Claim.id == claim_id,
            Claim.is_current_testimony,
            _not_adjudicated(),
        )
        .with_for_update(key_share=True)
    )
    return found.scalar_one_or_none() is not None


def _window(row: Any) -> Window:
    return Window(row.valid_from, row.valid_until, as_type(Precision, row.valid_precision))


async def load_candidates(
    session: AsyncSession,
    namespace: str,
    assertion: Assertion,
    embedding: Sequence[float] | None,
) -> list[CandidateFact]:
    """Believed facts of the assertion's subject that may be the same proposition or rival it."""
    subject = uuid.UUID(assertion.subject_entity_id)
    cosine: Any = (
        literal(0.0, Float)
        if embedding is None
        else func.coalesce(1.0 - Fact.embedding.cosine_distance(list(embedding)), 0.0)
    )
    base = [
        Fact.namespace == namespace,
        Fact.subject_entity_id == subject,
        Fact.kind == assertion.kind,
        Fact.invalidated_at.is_(None),
    ]
    if assertion.kind == "relation":
        predicate = assertion.predicate or ""
        related = [predicate, *(_PLACEMENT if predicate in _PLACEMENT else ())]
        obj = uuid.UUID(assertion.object_entity_id) if assertion.object_entity_id else None
        same = and_(Fact.predicate == predicate, Fact.object_entity_id == obj)
        statement = (
            select(Fact, cosine.label("similarity"))
            .where(*base, or_(Fact.predicate.in_(related), Fact.object_entity_id == obj))
            .order_by(same.desc(), Fact.created_at.desc())
            .limit(MAX_CANDIDATES)
        )
    else:
        # Any shared stem counts lexically: the plain query's AND becomes an OR.
        any_stem = cast(
            func.replace(
                cast(func.plainto_tsquery("english", bindparam("stmt")), Text), " & ", " | "
            ),
            TSQUERY,
        )
        lexical = func.ts_rank(Fact.tsv, any_stem)
        score = (cosine + _LEXICAL_WEIGHT * func.least(lexical * 10.0, 1.0)).label("score")
        inner = select(Fact, cosine.label("similarity"), score).where(*base).subquery()
        statement = (
            select(inner)
            .where(inner.c.score >= _OBSERVATION_MIN_SCORE)
            .order_by(inner.c.score.desc(), inner.c.created_at.desc())
            .limit(MAX_CANDIDATES)
        )
    params = {"stmt": assertion.statement} if assertion.kind == "observation" else {}
    rows = (await session.execute(statement, params)).all()
    if not rows:
        return []
    facts = [_fact_fields(row) for row in rows]
    ids = [f["id"] for f in facts]
    evidence = await _evidence(session, namespace, ids)
    polarity = await _polarities(session, namespace, ids)
    return [
        CandidateFact(
            fact_id=str(f["id"]),
            kind=f["kind"],
            subject_entity_id=str(f["subject_entity_id"]),
            predicate=f["predicate"],
            object_entity_id=str(f["object_entity_id"]) if f["object_entity_id"] else None,
            statement=f["statement"],
            label=f["label"],
            window=f["window"],
            evidence=evidence.get(f["id"], ()),
            contradiction_group_id=(
                str(f["contradiction_group_id"]) if f["contradiction_group_id"] else None
            ),
            similarity=max(0.0, min(1.0, float(f["similarity"]))),
            polarity=polarity.get(f["id"], "positive"),
        )
        for f in facts
    ]


def _fact_fields(row: Any) -> dict[str, Any]:
    mapping = row._mapping
    fact = mapping.get(Fact)
    source: Any = fact if fact is not None else row
    return {
        "id": source.id,
        "kind": source.kind,
        "subject_entity_id": source.subject_entity_id,
        "predicate": source.predicate,
        "object_entity_id": source.object_entity_id,
        "statement": source.statement,
        "label": source.label,
        "window": _window(source),
        "contradiction_group_id": source.contradiction_group_id,
        "similarity": mapping["similarity"],
    }


async def _evidence(
    session: AsyncSession, namespace: str, fact_ids: list[uuid.UUID]
) -> dict[uuid.UUID, tuple[EvidenceItem, ...]]:
    ranked = (
        select(
            FactEvidence.fact_id,
            FactEvidence.claim_id,
            FactEvidence.document_id,
            FactEvidence.stance,
            Claim.asserted_at,
            Claim.claim_text,
            func.row_number()
            .over(partition_by=FactEvidence.fact_id, order_by=FactEvidence.linked_at.desc())
            .label("rank"),
        )
        .join(Claim, Claim.id == FactEvidence.claim_id)
        .where(
            FactEvidence.namespace == namespace,
            FactEvidence.fact_id.in_(fact_ids),
            Claim.is_current_testimony,
        )
        .subquery()
    )
    rows = await session.execute(select(ranked).where(ranked.c.rank <= _EVIDENCE_PER_CANDIDATE))
    out: dict[uuid.UUID, list[EvidenceItem]] = {}
    for row in rows:
        out.setdefault(row.fact_id, []).append(
            EvidenceItem(
                claim_id=str(row.claim_id),
                document_id=str(row.document_id),
                stance=as_type(Stance, row.stance),
                asserted_at=row.asserted_at,
                claim_text=row.claim_text,
            )
        )
    return {fact_id: tuple(items) for fact_id, items in out.items()}


async def _polarities(
    session: AsyncSession, namespace: str, fact_ids: list[uuid.UUID]
) -> dict[uuid.UUID, Polarity]:
    # A fact stores no polarity; it is that of its first assertion (the one that created it).
    rows = await session.execute(
        select(AssertionRow.fact_id, AssertionRow.polarity)
        .where(
            AssertionRow.namespace == namespace,
            AssertionRow.fact_id.in_(fact_ids),
        )
        .ext(distinct_on(AssertionRow.fact_id))
        .order_by(AssertionRow.fact_id, AssertionRow.created_at)
    )
    return {row.fact_id: as_type(Polarity, row.polarity) for row in rows}
