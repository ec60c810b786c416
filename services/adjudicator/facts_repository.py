"""SQL of the fact writer: the statements that write facts, evidence links, assertions,
contradiction groups and decision transcripts (what to write is decided in `writer.py`)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import ContradictionGroup, Fact

__all__ = [
    "Write",
    "contradiction_group_of",
    "insert_transcripts",
    "write_decision",
]

Write = tuple[str, dict[str, Any]]
"""One write of a decision: the fragment's name (`fact`, `link`, `window`, `assertion`,
`slot`) and its parameters, each named with the fragment's prefix."""

# The writes of one decision, as fixed SQL text (see candidates_repository.py for why not SQLAlchemy
# constructs). Each fragment has its own parameter prefix so that several combine into one
# statement: the first is the statement, the others its CTEs, and foreign keys are checked at
# the end of the statement, when all of them are in.
_FACT = (
    "INSERT INTO facts (id, namespace, kind, subject_entity_id, predicate, object_entity_id,"
    " statement, label, valid_from, valid_until, valid_precision, valid_kind, embedding,"
    " contradiction_group_id, slot_id, created_at) VALUES (:f_id, :ns, :f_kind, :f_subject,"
    " :f_predicate, :f_object, :f_statement, :f_label, :f_from, :f_until, :f_precision,"
    " :f_valid_kind, CAST(:f_vector AS vector), :f_group, :f_slot, clock_timestamp())"
)
_LINK = (
    "INSERT INTO fact_evidence (namespace, fact_id, claim_id, document_id, stance, linked_at)"
    " VALUES (:ns, :l_fact, :l_claim, :l_document, :l_stance, clock_timestamp())"
    " ON CONFLICT ON CONSTRAINT uq_fact_evidence_link DO NOTHING"
)
_WINDOW = (
    "UPDATE facts SET valid_from = :w_from, valid_until = :w_until,"
    " valid_precision = :w_precision, updated_at = now(),"
    " superseded_by_fact_id = coalesce(:w_successor, superseded_by_fact_id)"
    " WHERE namespace = :ns AND id = :w_fact"
)
_ASSERTION = (
    "INSERT INTO assertions (id, namespace, claim_id, kind, subject_entity_id, predicate,"
    " object_entity_id, statement, polarity, valid_from, valid_until, valid_precision,"
    " fact_id, outcome, dedupe_key, phase, concurrent, created_at) VALUES (:a_id, :ns,"
    " :a_claim, :a_kind, :a_subject, :a_predicate, :a_object, :a_statement, :a_polarity,"
    " :a_from, :a_until, :a_precision, :a_fact, :a_outcome, :a_key, :a_phase, :a_concurrent,"
    " clock_timestamp())"
)
_SLOT = (
    "UPDATE facts SET slot_id = :s_slot, updated_at = now()"
    " WHERE namespace = :ns AND id = :s_fact AND slot_id IS NULL"
)
_FRAGMENTS = {
    "fact": _FACT,
    "link": _LINK,
    "window": _WINDOW,
    "assertion": _ASSERTION,
    "slot": _SLOT,
}
_STATEMENTS: dict[tuple[str, ...], Any] = {}
# The transcripts of a batch in one statement; clock_timestamp() per row keeps their order.
_TRANSCRIPTS = text(
    "INSERT INTO decision_transcripts (id, namespace, fact_id, related_fact_id, assertion_id,"
    " claim_id, outcome, action, method, engine, model, confidence, rationale, window_before,"
    " window_after, decided_by, decided_at)"
    " SELECT r.id, :ns, r.fact_id, r.related_fact_id, r.assertion_id, r.claim_id, r.outcome,"
    " r.action, r.method, r.engine, r.model, r.confidence, r.rationale,"
    # SQLAlchemy's JSON type stored None as JSON null, not SQL NULL; kept so for readers.
    " coalesce(r.window_before, 'null'), coalesce(r.window_after, 'null'),"
    " :decided_by, clock_timestamp() FROM jsonb_array_elements(CAST(:rows AS jsonb))"
    " WITH ORDINALITY AS e(row, n), jsonb_to_record(e.row) AS r(id uuid, fact_id uuid,"
    " related_fact_id uuid, assertion_id uuid, claim_id uuid, outcome text, action text,"
    " method text,"
    " engine text, model text, confidence float8, rationale text, window_before jsonb,"
    " window_after jsonb) ORDER BY e.n"
    " RETURNING id, decided_at"
)


def _statement(parts: tuple[str, ...]) -> Any:
    """The one statement of these fragments, built once per combination."""
    statement = _STATEMENTS.get(parts)
    if statement is None:
        main, *others = parts
        ctes = ", ".join(f"w{i} AS ({_FRAGMENTS[name]})" for i, name in enumerate(others))
        sql = f"WITH {ctes} {_FRAGMENTS[main]}" if ctes else _FRAGMENTS[main]
        statement = _STATEMENTS[parts] = text(sql)
    return statement


async def write_decision(session: AsyncSession, namespace: str, writes: Sequence[Write]) -> None:
    """Every write of one decision in one round trip: the first is the statement, the others
    its CTEs."""
    params: dict[str, Any] = {"ns": namespace}
    for _, values in writes:
        params.update(values)
    await session.execute(_statement(tuple(name for name, _ in writes)), params)


async def insert_transcripts(
    session: AsyncSession, namespace: str, decided_by: str, rows: Sequence[dict[str, Any]]
) -> dict[uuid.UUID, datetime]:
    """Insert the transcript rows in their order; each row's id with its `decided_at`."""
    return {
        row.id: row.decided_at
        for row in await session.execute(
            _TRANSCRIPTS,
            {"ns": namespace, "decided_by": decided_by, "rows": json.dumps(list(rows))},
        )
    }


async def contradiction_group_of(
    session: AsyncSession, namespace: str, fact_id: uuid.UUID
) -> uuid.UUID:
    """The fact's live contradiction group, created (and the fact placed in it) if none."""
    row = (
        await session.execute(
            select(Fact.contradiction_group_id, ContradictionGroup.resolved_at)
            .outerjoin(ContradictionGroup, ContradictionGroup.id == Fact.contradiction_group_id)
            .where(Fact.namespace == namespace, Fact.id == fact_id)
        )
    ).one()
    if row.contradiction_group_id is not None and row.resolved_at is None:
        group: uuid.UUID = row.contradiction_group_id
        return group
    group = (
        await session.execute(
            insert(ContradictionGroup).values(namespace=namespace).returning(ContradictionGroup.id)
        )
    ).scalar_one()
    await session.execute(
        update(Fact)
        .where(Fact.namespace == namespace, Fact.id == fact_id)
        .values(contradiction_group_id=group, updated_at=func.now())
    )
    return group
