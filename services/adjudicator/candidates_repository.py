"""Reads of the adjudicator: pending claims of a version and the candidate facts of an assertion."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from typing import cast as as_type

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.domain import (
    Assertion,
    CandidateFact,
    ClaimView,
    EvidenceItem,
    ExtraRelation,
    Polarity,
    Precision,
    Stance,
    Window,
)

__all__ = [
    "MAX_CANDIDATES",
    "ClaimRow",
    "claims_by_id",
    "load_candidates",
    "lock_pending_claims",
    "pending_claims_of_version",
    "subjects_with_facts",
    "vector_literal",
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

# Every statement of the hot path is fixed text with array parameters (`= ANY(:ids)`), never an
# expanded IN list or a statement built per call: building and compiling SQLAlchemy constructs
# cost more Python time than Postgres spent running them, and a stable text lets the driver
# reuse its prepared statement and Postgres its generic plan. Vectors travel as pgvector text
# literals (see `vector_literal`), formatted once per text instead of once per statement.

# Per candidate row of `{t}` (the facts table or the scored subquery): its polarity, that of
# the assertion that created it (a fact stores none), and its most recent current testimony.
# Both are subqueries of the outer select, which Postgres evaluates only for the rows left after
# ORDER BY ... LIMIT.
_ATTACHED = (
    "(SELECT a.polarity FROM assertions a WHERE a.namespace = {t}.namespace"
    " AND a.fact_id = {t}.id ORDER BY a.created_at, a.id LIMIT 1) AS polarity,"
    " (SELECT json_agg(json_build_array(e.claim_id, e.document_id, e.stance, e.asserted_at,"
    " e.claim_text)) FROM (SELECT fe.claim_id, fe.document_id, fe.stance, c.asserted_at,"
    " c.claim_text FROM fact_evidence fe JOIN claims c ON c.id = fe.claim_id"
    " WHERE fe.namespace = {t}.namespace AND fe.fact_id = {t}.id AND c.is_current_testimony"
    f" ORDER BY fe.linked_at DESC LIMIT {_EVIDENCE_PER_CANDIDATE}) e) AS evidence"
)
# Only what the engine sees: loading the stored embedding of every candidate costs more than
# the query itself. The float8 constants keep the arithmetic of the scores exactly as before.
_COLUMNS = (
    "f.id, f.namespace, f.kind, f.subject_entity_id, f.predicate, f.object_entity_id,"
    " f.statement, f.label, f.valid_from, f.valid_until, f.valid_precision,"
    " f.contradiction_group_id, f.slot_id, f.valid_kind, f.created_at,"
    " coalesce(CAST(1.0 AS float8) - (f.embedding <=> CAST(:vector AS vector)),"
    " CAST(0.0 AS float8)) AS similarity"
)
_BASE = (
    "f.namespace = :ns AND f.subject_entity_id = :subject AND f.kind = :kind"
    " AND f.invalidated_at IS NULL"
)
_RELATION_CANDIDATES = text(
    f"SELECT {_COLUMNS}, {_ATTACHED.format(t='f')} FROM facts f"
    f" WHERE {_BASE} AND (f.predicate = ANY(:related) OR f.object_entity_id = :object)"
    " ORDER BY (f.predicate = :predicate AND f.object_entity_id = :object) DESC,"
    f" f.created_at DESC LIMIT {MAX_CANDIDATES}"
)
# Any shared stem counts lexically: the plain query's AND becomes an OR.
_ANY_STEM = (
    "CAST(replace(CAST(plainto_tsquery('english', :stmt) AS text), ' & ', ' | ') AS tsquery)"
)
_OBSERVATION_CANDIDATES = text(
    f"SELECT scored.*, {_ATTACHED.format(t='scored')} FROM (SELECT {_COLUMNS},"
    " coalesce(CAST(1.0 AS float8) - (f.embedding <=> CAST(:vector AS vector)),"
    f" CAST(0.0 AS float8)) + CAST({_LEXICAL_WEIGHT} AS float8)"
    f" * least(ts_rank(f.tsv, {_ANY_STEM}) * CAST(10.0 AS float8), CAST(1.0 AS float8))"
    f" AS score FROM facts f WHERE {_BASE}) scored"
    f" WHERE scored.score >= CAST({_OBSERVATION_MIN_SCORE} AS float8)"
    f" ORDER BY scored.score DESC, scored.created_at DESC LIMIT {MAX_CANDIDATES}"
)
_CLAIM_COLUMNS = (
    "c.id, c.document_id, c.claim_text, c.asserted_at, c.polarity, c.is_attributed, c.holder,"
    " c.subject_text, c.predicate_text, c.object_text, c.extra_relations,"
    " c.claim_valid_from, c.claim_valid_until,"
    " c.claim_valid_precision, c.claim_valid_kind, c.speaker, c.is_current_testimony,"
    " CAST(c.embedding AS text) AS vector, d.title"
)
_ADJUDICATED = (
    "EXISTS (SELECT 1 FROM assertions a WHERE a.namespace = c.namespace AND a.claim_id = c.id)"
)
_PENDING_OF_VERSION = text(
    f"SELECT {_CLAIM_COLUMNS} FROM version_claims vc JOIN claims c ON c.id = vc.claim_id"
    " JOIN documents d ON d.id = c.document_id"
    " WHERE vc.namespace = :ns AND vc.version_id = :version AND c.namespace = :ns"
    f" AND c.is_current_testimony AND NOT {_ADJUDICATED}"
    " ORDER BY c.char_start, c.char_end, c.id"
)
_BY_ID = text(
    f"SELECT {_CLAIM_COLUMNS}, {_ADJUDICATED} AS adjudicated FROM claims c"
    " JOIN documents d ON d.id = c.document_id WHERE c.namespace = :ns AND c.id = ANY(:ids)"
)
_LOCK_CLAIMS = text(
    "SELECT c.id FROM claims c WHERE c.namespace = :ns AND c.id = ANY(:ids)"
    " ORDER BY c.id FOR KEY SHARE"
)
_STILL_PENDING = text(
    "SELECT c.id FROM claims c WHERE c.namespace = :ns AND c.id = ANY(:ids)"
    f" AND c.is_current_testimony AND NOT {_ADJUDICATED}"
)
_SUBJECTS_WITH_FACTS = text(
    "SELECT DISTINCT f.subject_entity_id, f.kind FROM facts f WHERE f.namespace = :ns"
    " AND f.subject_entity_id = ANY(:subjects) AND f.invalidated_at IS NULL"
)


def vector_literal(values: Sequence[float]) -> str:
    """The pgvector text form of an embedding (what pgvector's own SQLAlchemy type sends)."""
    return "[" + ",".join(map(repr, values)) + "]"


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """A claim as the pipeline needs it: the engine's view plus what mentions are built from."""

    view: ClaimView
    speaker: str | None
    document_title: str | None
    is_current: bool
    # The ingest service's embedding of the claim text (same model) as a pgvector literal,
    # reused for observations, whose label is the claim text.
    vector: str | None = None


def _claim_row(row: Any) -> ClaimRow:
    precision = as_type(Precision, row.claim_valid_precision)
    view = ClaimView(
        claim_id=str(row.id),
        document_id=str(row.document_id),
        claim_text=row.claim_text,
        asserted_at=row.asserted_at,
        polarity=as_type(Polarity, row.polarity),
        is_attributed=row.is_attributed,
        holder=row.holder,
        subject_text=row.subject_text,
        predicate_text=row.predicate_text,
        object_text=row.object_text,
        extra_relations=_extra_relations(row.extra_relations),
        window=Window.from_claim_fields(
            row.claim_valid_from, row.claim_valid_until, precision, row.claim_valid_kind
        ),
        window_kind=row.claim_valid_kind,
    )
    return ClaimRow(view, row.speaker, row.title, row.is_current_testimony, row.vector)


async def pending_claims_of_version(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> list[ClaimRow]:
    """Current claims of the version with no assertions yet, in document order."""
    rows = await session.execute(_PENDING_OF_VERSION, {"ns": namespace, "version": version_id})
    return [_claim_row(row) for row in rows]


async def claims_by_id(
    session: AsyncSession, namespace: str, claim_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, tuple[ClaimRow, bool]]:
    """The named claims with whether each was adjudicated already; unknown ids are absent."""
    rows = await session.execute(_BY_ID, {"ns": namespace, "ids": list(claim_ids)})
    return {row.id: (_claim_row(row), bool(row.adjudicated)) for row in rows}


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
    params = {"ns": namespace, "ids": sorted(set(claim_ids))}
    await session.execute(_LOCK_CLAIMS, params)
    return set((await session.execute(_STILL_PENDING, params)).scalars())


async def subjects_with_facts(
    session: AsyncSession, namespace: str, subject_ids: Sequence[uuid.UUID]
) -> set[tuple[str, str]]:
    """(subject id, kind) pairs that have believed facts: the others have no candidates."""
    if not subject_ids:
        return set()
    rows = await session.execute(
        _SUBJECTS_WITH_FACTS, {"ns": namespace, "subjects": sorted(set(subject_ids))}
    )
    return {(str(row.subject_entity_id), row.kind) for row in rows}


def _extra_relations(raw: Any) -> tuple[ExtraRelation, ...]:
    items = json.loads(raw) if isinstance(raw, str) else raw
    return tuple(
        ExtraRelation(
            r["subject_text"], r["predicate_text"], r["object_text"], r.get("dated", True)
        )
        for r in items or ()
        if r.get("subject_text") and r.get("predicate_text") and r.get("object_text")
    )


def _window(row: Any) -> Window:
    return Window(row.valid_from, row.valid_until, as_type(Precision, row.valid_precision))


async def load_candidates(
    session: AsyncSession,
    namespace: str,
    assertion: Assertion,
    vector: str | None,
) -> list[CandidateFact]:
    """Believed facts of the assertion's subject that may be the same proposition or rival it.

    `vector` is the assertion's embedding as a pgvector literal (None: no similarity).
    """
    params: dict[str, Any] = {
        "ns": namespace,
        "subject": uuid.UUID(assertion.subject_entity_id),
        "kind": assertion.kind,
        "vector": vector,
    }
    if assertion.kind == "relation":
        predicate = assertion.predicate or ""
        params["predicate"] = predicate
        params["related"] = [predicate, *(_PLACEMENT if predicate in _PLACEMENT else ())]
        params["object"] = (
            uuid.UUID(assertion.object_entity_id) if assertion.object_entity_id else None
        )
        statement = _RELATION_CANDIDATES
    else:
        params["stmt"] = assertion.statement
        statement = _OBSERVATION_CANDIDATES
    rows = (await session.execute(statement, params)).all()
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
            slot_id=str(row.slot_id) if row.slot_id else None,
            valid_kind=row.valid_kind,
        )
        for row in rows
    ]


def _evidence_items(raw: Any) -> tuple[EvidenceItem, ...]:
    # asyncpg hands json back as text; SQLAlchemy's typed column used to decode it.
    items = json.loads(raw) if isinstance(raw, str) else raw
    return tuple(
        EvidenceItem(
            claim_id=claim_id,
            document_id=document_id,
            stance=as_type(Stance, stance),
            asserted_at=datetime.fromisoformat(asserted_at) if asserted_at else None,
            claim_text=claim_text,
        )
        for claim_id, document_id, stance, asserted_at, claim_text in items or ()
    )
