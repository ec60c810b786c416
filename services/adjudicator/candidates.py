"""Reads of the adjudicator: pending claims of a version and the candidate facts of an assertion."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from typing import cast as as_type

from sqlalchemy import (
    Float,
    Text,
    and_,
    bindparam,
    cast,
    exists,
    func,
    literal,
    literal_column,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import TSQUERY
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
from shared.db.models import Claim, Document, Fact, VersionClaim

__all__ = [
    "MAX_CANDIDATES",
    "ClaimRow",
    "claims_by_id",
    "load_candidates",
    "lock_pending_claims",
    "pending_claims_of_version",
    "subjects_with_facts",
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
# Per candidate row of `{t}` (the facts table or the scored subquery): its polarity, that of
# the assertion that created it (a fact stores none), and its most recent current testimony.
# Both are subqueries of the outer select, which Postgres evaluates only for the rows left after
# ORDER BY ... LIMIT.
_POLARITY_SQL = (
    "(SELECT a.polarity FROM assertions a WHERE a.namespace = {t}.namespace"
    " AND a.fact_id = {t}.id ORDER BY a.created_at, a.id LIMIT 1)"
)
_EVIDENCE_SQL = (
    "(SELECT json_agg(json_build_array(e.claim_id, e.document_id, e.stance, e.asserted_at,"
    " e.claim_text)) FROM (SELECT fe.claim_id, fe.document_id, fe.stance, c.asserted_at,"
    " c.claim_text FROM fact_evidence fe JOIN claims c ON c.id = fe.claim_id"
    " WHERE fe.namespace = {t}.namespace AND fe.fact_id = {t}.id AND c.is_current_testimony"
    f" ORDER BY fe.linked_at DESC LIMIT {_EVIDENCE_PER_CANDIDATE}) e)"
)


def _attached(table: str) -> list[Any]:
    return [
        literal_column(_POLARITY_SQL.format(t=table)).label("polarity"),
        literal_column(_EVIDENCE_SQL.format(t=table)).label("evidence"),
    ]


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """A claim as the pipeline needs it: the engine's view plus what mentions are built from."""

    view: ClaimView
    speaker: str | None
    document_title: str | None
    is_current: bool
    # The ingest service's embedding of the claim text (same model), reused for observations.
    embedding: Sequence[float] | None = None


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
    embedding = None if claim.embedding is None else [float(x) for x in claim.embedding]
    return ClaimRow(view, claim.speaker, title, claim.is_current_testimony, embedding)


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


async def lock_pending_claims(
    session: AsyncSession, namespace: str, claim_ids: Sequence[uuid.UUID]
) -> set[uuid.UUID]:
    """Row-lock the claims (in id order); return those still current and not yet adjudicated.

    Two writers (a worker and a direct AdjudicateClaims call) can reach the same claim; the lock
    makes the second wait. The check is a second statement so that it reads the first writer's
    committed assertions: a row lock taken on an unchanged row does not refresh the snapshot of
    the statement that took it.
    """
    if not claim_ids:
        return set()
    ids = sorted(set(claim_ids))
    await session.execute(
        select(Claim.id)
        .where(Claim.namespace == namespace, Claim.id.in_(ids))
        .order_by(Claim.id)
        .with_for_update(key_share=True)
    )
    found = await session.execute(
        select(Claim.id).where(
            Claim.namespace == namespace,
            Claim.id.in_(ids),
            Claim.is_current_testimony,
            _not_adjudicated(),
        )
    )
    return set(found.scalars())


async def subjects_with_facts(
    session: AsyncSession, namespace: str, subject_ids: Sequence[uuid.UUID]
) -> set[tuple[str, str]]:
    """(subject id, kind) pairs that have believed facts: the others have no candidates."""
    if not subject_ids:
        return set()
    rows = await session.execute(
        select(Fact.subject_entity_id, Fact.kind)
        .where(
            Fact.namespace == namespace,
            Fact.subject_entity_id.in_(sorted(set(subject_ids))),
            Fact.invalidated_at.is_(None),
        )
        .distinct()
    )
    return {(str(row.subject_entity_id), row.kind) for row in rows}


def _window(row: Any) -> Window:
    return Window(row.valid_from, row.valid_until, as_type(Precision, row.valid_precision))


def _candidate_columns(cosine: Any) -> list[Any]:
    # Only what the engine sees: loading the stored embedding of every candidate costs more
    # than the query itself.
    return [
        Fact.id,
        Fact.namespace,
        Fact.kind,
        Fact.subject_entity_id,
        Fact.predicate,
        Fact.object_entity_id,
        Fact.statement,
        Fact.label,
        Fact.valid_from,
        Fact.valid_until,
        Fact.valid_precision,
        Fact.contradiction_group_id,
        Fact.created_at,
        cosine.label("similarity"),
    ]


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
            select(*_candidate_columns(cosine), *_attached("facts"))
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
        inner = select(*_candidate_columns(cosine), score).where(*base).subquery("scored")
        statement = (
            select(inner, *_attached("scored"))
            .where(inner.c.score >= _OBSERVATION_MIN_SCORE)
            .order_by(inner.c.score.desc(), inner.c.created_at.desc())
            .limit(MAX_CANDIDATES)
        )
    params = {"stmt": assertion.statement} if assertion.kind == "observation" else {}
    rows = (await session.execute(statement, params)).all()
    if not rows:
        return []
    return [
        CandidateFact(
            fact_id=str(row.id),
            kind=row.kind,
            subject_entity_id=str(row.subject_entity_id),
            predicate=row.predicate,
            object_entity_id=str(row.object_entity_id) if row.object_entity_id else None,
            statement=row.statement,
            label=row.label,
            window=_window(row),
            evidence=_evidence_items(row.evidence),
            contradiction_group_id=(
                str(row.contradiction_group_id) if row.contradiction_group_id else None
            ),
            similarity=max(0.0, min(1.0, float(row.similarity))),
            polarity=as_type(Polarity, row.polarity or "positive"),
        )
        for row in rows
    ]


def _evidence_items(raw: list[list[Any]] | None) -> tuple[EvidenceItem, ...]:
    return tuple(
        EvidenceItem(
            claim_id=claim_id,
            document_id=document_id,
            stance=as_type(Stance, stance),
            asserted_at=datetime.fromisoformat(asserted_at) if asserted_at else None,
            claim_text=claim_text,
        )
        for claim_id, document_id, stance, asserted_at, claim_text in raw or ()
    )
