"""FactsContext inside one snapshot: nominate, hydrate, attach contradictions and evidence."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import (
    MAX_ANCHOR_SET,
    MAX_CLAIMS_PER_FACTS_RESULT,
    EvidenceLink,
    EvidenceTotalView,
    FactsContextQuery,
    FactsContextResult,
    FactView,
    NodeView,
    unknown_entity_negative,
)
from services.query.ranking.fusion import rrf
from services.query.reads.contradictions import attach_contradictions
from services.query.sql import facts as fact_rows
from services.query.sql.claims import claims_by_ids
from services.query.sql.collection_sizes import CollectionSizes
from services.query.sql.entities import expand_anchors, resolve_entities
from services.query.sql.fact_nomination import nominate_in_namespace, nominate_in_set
from services.query.sql.snapshot import ef_search_for
from services.query.sql.time_scope import scope_params
from shared.answers import NegativeAnswer, TruncationInfo
from shared.timescope import TimeScope

_PROFILE_ENTITIES = 10
_STANCES = ("supports", "contradicts")


def empty_facts_result(
    scope: TimeScope, now: datetime, negative: NegativeAnswer, reasons: tuple[str, ...] = ()
) -> FactsContextResult:
    """A result with nothing in it, explained by `negative`."""
    return FactsContextResult(
        facts=[],
        fact_evidence=[],
        evidence_totals=[],
        claims=[],
        nodes=[],
        scope=scope,
        truncation=TruncationInfo(
            truncated=bool(reasons),
            returned=0,
            estimated_total=0,
            total_is_exact=not reasons,
            reasons=reasons,
        ),
        dropped_by_hydration=0,
        negative=negative,
        evaluated_at=now,
    )


def _pool(k: int) -> int:
    """Candidates nominated per channel: enough that hydration drops rarely starve k."""
    return max(4 * k, 60)


def search_width(k: int) -> int:
    """The HNSW search width a FactsContext of `k` facts uses (set when its snapshot opens)."""
    return ef_search_for(_pool(k))


def _per_entity(pool: int) -> int:
    """Qualifying facts per anchor-set entity and direction in the ranking pool: every fact of
    an ordinary entity; for a hub, the vector and lexical channels add its relevant ones."""
    return pool


async def facts_context(
    conn: AsyncConnection,
    q: FactsContextQuery,
    query_vector: Callable[[], Awaitable[str | None]],
    now: datetime,
    sizes: CollectionSizes | None = None,
) -> FactsContextResult:
    """`query_vector` is awaited only when the search needs it, so anchor resolution and
    expansion overlap the query embedding; `sizes` keeps the namespace's fact count, which
    decides the lexical channel's selective terms (counted here when not given)."""
    params = scope_params(q.scope, now)
    pool = _pool(q.k)
    reasons: list[str] = []
    unknown: list[UUID] = []
    hops: dict[UUID, tuple[int, str]] = {}
    if q.entity_ids:
        known = await resolve_entities(conn, q.namespace, q.entity_ids)
        unknown = [entity for entity in q.entity_ids if entity not in known]
        anchors = {ref.entity_id: (0, ref.name) for ref in known.values()}
        if not anchors:
            return empty_facts_result(q.scope, now, unknown_entity_negative(unknown))
        hops = anchors
        if q.scope.expands_graph:
            reached, cut = await expand_anchors(
                conn, q.namespace, list(anchors), q.hops, MAX_ANCHOR_SET, q.scope, params
            )
            hops = {**reached, **anchors}
            if cut:
                reasons.append("expansion_budget")
        nominated = await nominate_in_set(
            conn,
            q.namespace,
            {entity: hop for entity, (hop, _) in hops.items()},
            q.query,
            await query_vector(),
            q.predicate,
            q.scope,
            params,
            pool,
            _per_entity(pool),
        )
    else:
        nominated = await nominate_in_namespace(
            conn,
            q.namespace,
            q.query,
            await query_vector(),
            q.predicate,
            q.scope,
            params,
            pool,
            _PROFILE_ENTITIES,
            await (sizes or CollectionSizes()).size(conn, "facts", q.namespace),
        )

    fused = rrf(nominated.rankings)
    qualified = [(item, score) for item, score in fused if nominated.qualifies(item)]
    dropped = len(fused) - len(qualified)
    facts: list[FactView] = []
    for item, score in qualified[: q.k]:
        fact = nominated.view(item)
        fact.score = score
        facts.append(fact)
    if len(qualified) > q.k:
        reasons.append("result_budget")
    await attach_contradictions(conn, q.namespace, facts, q.scope, params)
    links, totals, claims_cut = await _sample_links(conn, q, facts)
    if claims_cut and "result_budget" not in reasons:
        reasons.append("result_budget")
    claim_ids = list(dict.fromkeys(link.claim_id for link in links))
    claims = await claims_by_ids(conn, q.namespace, claim_ids)

    saturated = any(len(ranking) >= pool for ranking in nominated.rankings)
    negative = None
    if unknown:
        negative = unknown_entity_negative(unknown)
    elif not facts:
        negative = _empty_negative(q)
    return FactsContextResult(
        facts=facts,
        fact_evidence=links,
        evidence_totals=_totals(facts, links, totals),
        claims=[claims[c] for c in claim_ids if c in claims],
        nodes=_nodes(hops, facts),
        scope=q.scope,
        truncation=TruncationInfo(
            truncated=bool(reasons),
            returned=len(facts),
            estimated_total=len(qualified),
            total_is_exact=not saturated and "expansion_budget" not in reasons,
            reasons=tuple(reasons),
        ),
        dropped_by_hydration=dropped,
        negative=negative,
        evaluated_at=now,
    )


async def _sample_links(
    conn: AsyncConnection, q: FactsContextQuery, facts: list[FactView]
) -> tuple[list[EvidenceLink], dict[tuple[UUID, str], int], bool]:
    """Sampled links in fact order, stopping new claims at the per-result claim cap, and the
    exact totals per fact and stance."""
    order = {fact.fact_id: index for index, fact in enumerate(facts)}
    links, totals = await fact_rows.sampled_evidence(
        conn, q.namespace, [f.fact_id for f in facts], q.evidence_per_fact
    )
    links.sort(key=lambda link: order[link.fact_id])
    kept: list[EvidenceLink] = []
    claims: set[UUID] = set()
    cut = False
    for link in links:
        if link.claim_id not in claims and len(claims) >= MAX_CLAIMS_PER_FACTS_RESULT:
            cut = True
            continue
        claims.add(link.claim_id)
        kept.append(link)
    return kept, totals, cut


def _totals(
    facts: list[FactView], links: list[EvidenceLink], totals: dict[tuple[UUID, str], int]
) -> list[EvidenceTotalView]:
    returned: dict[tuple[UUID, str], int] = {}
    for link in links:
        key = (link.fact_id, link.stance)
        returned[key] = returned.get(key, 0) + 1
    views = []
    for fact in facts:
        for stance in _STANCES:
            total = totals.get((fact.fact_id, stance), 0)
            if total:
                views.append(
                    EvidenceTotalView(
                        fact.fact_id, stance, returned.get((fact.fact_id, stance), 0), total
                    )
                )
    return views


def _nodes(hops: dict[UUID, tuple[int, str]], facts: list[FactView]) -> list[NodeView]:
    """The anchor set with hop distances; without anchors, the entities of the facts (hop 0)."""
    if hops:
        return [
            NodeView(entity, name, hop)
            for entity, (hop, name) in sorted(hops.items(), key=lambda p: p[1][0])
        ]
    seen: dict[UUID, str] = {}
    for fact in facts:
        seen.setdefault(fact.subject.entity_id, fact.subject.name)
        if fact.object is not None:
            seen.setdefault(fact.object.entity_id, fact.object.name)
    return [NodeView(entity, name, 0) for entity, name in seen.items()]


def _empty_negative(q: FactsContextQuery) -> NegativeAnswer:
    scope = q.scope.kind
    return NegativeAnswer(
        kind="known_empty",
        explanation=f"no fact matches the request in time scope {scope}"
        + (f" with predicate {q.predicate}" if q.predicate else ""),
        workaround="widen the time scope (history), drop the predicate, or search claims with"
        " ClaimsAndSourcesContext",
    )
