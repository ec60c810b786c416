"""A canonical, order-free dump of one namespace's beliefs, and a printer of what differs.

Read from the authority tables in one snapshot. Nothing in a dump depends on the order things
were written in unless the beliefs themselves do: no ids, no belief-time timestamps, no
surface form an alias happened to be first seen with. Two dumps are equal exactly when the
memory holds the same entities (as a partition of normalized aliases) and the same facts
(label, world window, polarity, kind, support, evidence counts, contradiction group members by
label, successor by label, invalidated or not), each as a multiset.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, astuple, dataclass, fields
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

__all__ = ["BeliefDump", "FactRecord", "diff_dumps", "dumps_json", "read_dump"]

# Every entity with each alias of it and of every entity redirected into it.
_ALIASES = text(
    """
    WITH RECURSIVE root(id, root, depth) AS (
        SELECT id, id, 0 FROM entities WHERE namespace = :ns AND redirect_to IS NULL
        UNION ALL
        SELECT e.id, r.root, r.depth + 1 FROM entities e JOIN root r ON e.redirect_to = r.id
        WHERE e.namespace = :ns AND r.depth < 16
    )
    SELECT r.root, coalesce(a.normalized_alias, e.normalized_name) AS alias
    FROM root r JOIN entities e ON e.id = r.id
    LEFT JOIN entity_aliases a ON a.namespace = :ns AND a.entity_id = r.id
    """
)
_FACTS = text(
    """
    SELECT f.id, f.kind, f.label, f.valid_from, f.valid_until, f.valid_precision, f.valid_kind,
           f.support, f.evidence_count, f.invalidated_at IS NOT NULL AS invalidated,
           f.invalidation_reason, f.contradiction_group_id, g.resolved_at IS NULL AS group_live,
           f.superseded_by_fact_id,
           (SELECT array_agg(DISTINCT a.polarity ORDER BY a.polarity) FROM assertions a
             WHERE a.namespace = :ns AND a.fact_id = f.id AND EXISTS (
               SELECT 1 FROM fact_evidence e WHERE e.fact_id = f.id
                 AND e.claim_id = a.claim_id AND e.stance = 'supports')) AS polarities,
           (SELECT count(DISTINCT e.document_id) FROM fact_evidence e
              JOIN claims c ON c.id = e.claim_id
             WHERE e.fact_id = f.id AND e.stance = 'contradicts' AND c.is_current_testimony)
             AS contradicting_documents
    FROM facts f LEFT JOIN contradiction_groups g ON g.id = f.contradiction_group_id
    WHERE f.namespace = :ns
    """
)


@dataclass(frozen=True)
class FactRecord:
    """One fact as the dump compares it. Windows are ISO-8601 strings (None: unknown)."""

    label: str
    kind: str
    valid_from: str | None
    valid_until: str | None
    valid_precision: str
    valid_kind: str | None
    polarity: str
    support: str
    evidence_count: int
    contradicting_documents: int
    # Labels of every member of the fact's contradiction group (itself included); () if none.
    contradiction_group: tuple[str, ...]
    group_live: bool
    superseded_by: str | None
    invalidated: bool
    invalidation_reason: str | None


@dataclass(frozen=True)
class BeliefDump:
    """Entities as a multiset of alias sets; facts as a multiset of records."""

    entities: Counter[frozenset[str]]
    facts: Counter[FactRecord]

    def summary(self) -> dict[str, int]:
        records = list(self.facts.elements())
        believed = [r for r in records if not r.invalidated]
        return {
            "entities": sum(self.entities.values()),
            "facts": len(records),
            "believed_facts": len(believed),
            "relations": sum(r.kind == "relation" for r in believed),
            "observations": sum(r.kind == "observation" for r in believed),
            "superseded": sum(r.superseded_by is not None for r in believed),
            "in_contradiction_groups": sum(bool(r.contradiction_group) for r in believed),
            "negative": sum(r.polarity == "negative" for r in believed),
            "invalidated": len(records) - len(believed),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "entities": sorted(sorted(group) for group in self.entities.elements()),
            "facts": [asdict(r) for r in sorted(self.facts.elements(), key=_order)],
        }

    def entity_of(self, alias: str) -> list[frozenset[str]]:
        """The entities holding one normalized alias."""
        return sorted((g for g in self.entities if alias in g), key=sorted)


def _order(record: FactRecord) -> str:
    """A total order of records (their fields may be None, which does not compare)."""
    return repr(astuple(record))


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


async def read_dump(engine: AsyncEngine, namespace: str) -> BeliefDump:
    """The dump of `namespace`, read in one repeatable-read snapshot."""
    async with engine.connect() as conn:
        await conn.execution_options(isolation_level="REPEATABLE READ")
        return await _read(conn, namespace)


async def _read(bind: AsyncConnection, namespace: str) -> BeliefDump:
    groups: dict[Any, set[str]] = {}
    for row in await bind.execute(_ALIASES, {"ns": namespace}):
        groups.setdefault(row.root, set()).add(row.alias)
    rows = list(await bind.execute(_FACTS, {"ns": namespace}))
    labels = {row.id: row.label for row in rows}
    members: dict[Any, list[str]] = {}
    for row in rows:
        if row.contradiction_group_id is not None:
            members.setdefault(row.contradiction_group_id, []).append(row.label)
    facts: Counter[FactRecord] = Counter()
    for row in rows:
        group = row.contradiction_group_id
        facts[
            FactRecord(
                label=row.label,
                kind=row.kind,
                valid_from=_iso(row.valid_from),
                valid_until=_iso(row.valid_until),
                valid_precision=row.valid_precision,
                valid_kind=row.valid_kind,
                polarity=",".join(row.polarities or ()) or "none",
                support=row.support,
                evidence_count=row.evidence_count,
                contradicting_documents=row.contradicting_documents,
                contradiction_group=tuple(sorted(members[group])) if group else (),
                group_live=bool(group) and bool(row.group_live),
                superseded_by=labels.get(row.superseded_by_fact_id),
                invalidated=row.invalidated,
                invalidation_reason=row.invalidation_reason,
            )
        ] += 1
    return BeliefDump(Counter(frozenset(g) for g in groups.values()), facts)


def _entity_lines(a: BeliefDump, b: BeliefDump, names: tuple[str, str]) -> list[str]:
    lines = []
    for side, this, other in ((names[0], a, b), (names[1], b, a)):
        extra = this.entities - other.entities
        for group in sorted(extra, key=sorted):
            lines.append(f"entity only in {side} (x{extra[group]}): {sorted(group)}")
    return lines


def _field_changes(x: FactRecord, y: FactRecord) -> str:
    changed = [
        f"{f.name}: {getattr(x, f.name)!r} -> {getattr(y, f.name)!r}"
        for f in fields(FactRecord)
        if getattr(x, f.name) != getattr(y, f.name)
    ]
    return "; ".join(changed)


def diff_dumps(
    a: BeliefDump, b: BeliefDump, names: tuple[str, str] = ("a", "b"), limit: int = 40
) -> list[str]:
    """Human-readable differences, entities first, then facts grouped by label; at most
    `limit` lines plus one saying how many were left out. Empty when the dumps are equal."""
    lines = _entity_lines(a, b, names)
    only_a, only_b = a.facts - b.facts, b.facts - a.facts
    by_label: dict[str, tuple[list[FactRecord], list[FactRecord]]] = {}
    for record in only_a.elements():
        by_label.setdefault(record.label, ([], []))[0].append(record)
    for record in only_b.elements():
        by_label.setdefault(record.label, ([], []))[1].append(record)
    for label, (left, right) in sorted(by_label.items()):
        left.sort(key=_order)
        right.sort(key=_order)
        if len(left) == len(right):
            for x, y in zip(left, right, strict=True):
                lines.append(f"fact {label!r}: {_field_changes(x, y)}")
            continue
        lines.append(
            f"fact {label!r}: {len(left)} only in {names[0]}, {len(right)} only in {names[1]}"
        )
        for side, records in ((names[0], left), (names[1], right)):
            for r in records:
                lines.append(
                    f"    {side}: [{r.valid_from}, {r.valid_until}) {r.valid_precision}"
                    f" {r.polarity} evidence={r.evidence_count} group={len(r.contradiction_group)}"
                    f" superseded_by={r.superseded_by!r} invalidated={r.invalidated}"
                )
    if len(lines) > limit:
        left_out = len(lines) - limit
        lines = [*lines[:limit], f"... and {left_out} more lines"]
    return lines


def dumps_json(dumps: dict[str, BeliefDump]) -> str:
    """Several named dumps as one JSON document (for artifacts a person reads later)."""
    return json.dumps({name: d.to_json() for name, d in dumps.items()}, indent=1)
