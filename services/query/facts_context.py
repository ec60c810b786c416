"""FactsContext inside one snapshot: nominate, hydrate, attach contradictions and evidence."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from services.query import repository as repo
from services.query.claims_repository import claims_by_ids
from services.query.domain import (
    MAX_ANCHOR_SET,
    MAX_CLAIMS_PER_FACTS_RESULT,
    EvidenceLink,
    EvidenceTotalView,
    FactsContextQuery,
    FactsContextResult,
    FactView,
    NodeView,
)
from services.query.retrieval import lexical_channel, rrf, vector_channel
from services.query.temporal import scope_params
from shared.proto_convert import NegativeAnswer, TruncationInfo
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


async def facts_context(
    conn: AsyncConnection, q: FactsContextQuery, query_vector: str | None, now: datetime
) -> FactsContextResult:
    params = scope_params(q.scope, now)
    pool = _pool(q.k)
    reasons: list[str] = []
    unknown: list[UUID] = []
    hops: dict[UUID, int] = {}
    if q.entity_ids:
        known = await repo.resolve_entities(conn, q.namespace, q.entity_ids)
        unknown = [entity for entity in q.entity_ids if entity not in known]
        anchors = list(dict.fromkeys(ref.entity_id for ref in known.values()))
        if not anchors:
            return empty_facts_result(q.scope, now, _unknown_negative(unknown))
        if q.scope.expands_graph:
            hops, cut = await repo.expand_anchors(
                conn, q.namespace, anchors, q.hops, MAX_ANCHOR_SET, q.scope, params
            )
            if cut:
                reasons.append("expansion_budget")
        else:
            hops = {anchor: 0 for anchor in anchors}
        rankings = await _rank_in_set(conn, q, hops, params, query_vector, pool)
    else:
        rankings = await _rank_namespace(conn, q, query_vector, pool)

    fused = rrf(rankings)
    hydrated = await repo.hydrate_facts(
        conn, q.namespace, [item for item, _ in fused], q.scope, params
    )
    dropped = len(fused) - len(hydrated)
    qualified: list[FactView] = []
    for item, score in fused:
        fact = hydrated.get(item)
        if fact is not None:
            fact.score = score
            qualified.append(fact)
    facts = qualified[: q.k]
    if len(qualified) > q.k:
        reasons.append("result_budget")
    await repo.attach_contradictions(conn, q.namespace, facts, q.scope, params)
    links, claims_cut = await _sample_links(conn, q, facts)
    if claims_cut and "result_budget" not in reasons:
        reasons.append("result_budget")
    totals = await repo.evidence_totals(conn, q.namespace, [f.fact_id for f in facts])
    claim_ids = list(dict.fromkeys(link.claim_id for link in links))
    claims = await claims_by_ids(conn, q.namespace, claim_ids)
    nodes = await _nodes(conn, q.namespace, hops, facts)

    saturated = any(len(ranking) >= pool for ranking in rankings)
    negative = None
    if unknown:
        negative = _unknown_negative(unknown)
    elif not facts:
        negative = _empty_negative(q)
    return FactsContextResult(
        facts=facts,
        fact_evidence=links,
        evidence_totals=_totals(facts, links, totals),
        claims=[claims[c] for c in claim_ids if c in claims],
        nodes=nodes,
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


async def _rank_in_set(
    conn: AsyncConnection,
    q: FactsContextQuery,
    hops: dict[UUID, int],
    params: dict[str, object],
    query_vector: str | None,
    pool: int,
) -> list[list[UUID]]:
    """Facts touching the anchor set are few: rank them exactly on the authority table."""
    ranked = [
        await repo.rank_facts_in_set(
            conn, q.namespace, hops, q.predicate, q.scope, dict(params), pool
        )
    ]
    if q.query:
        if query_vector is not None:
            ranked.append(
                await repo.rank_facts_in_set(
                    conn,
                    q.namespace,
                    hops,
                    q.predicate,
                    q.scope,
                    dict(params),
                    pool,
                    query_vector=query_vector,
                )
            )
        ranked.append(
            await repo.rank_facts_in_set(
                conn, q.namespace, hops, q.predicate, q.scope, dict(params), pool, query=q.query
            )
        )
        # With a query the structural order only breaks ties; relevance leads.
        ranked = ranked[1:] + ranked[:1]
    return ranked


async def _rank_namespace(
    conn: AsyncConnection, q: FactsContextQuery, query_vector: str | None, pool: int
) -> list[list[UUID]]:
    """Index channels over the namespace plus facts of the entities whose profile matches."""
    where, bind = ("t.predicate = :pred", {"pred": q.predicate}) if q.predicate else ("", {})
    rankings = [
        await lexical_channel(conn, "facts", q.namespace, q.query, pool, where=where, params=bind)
    ]
    if query_vector is not None:
        rankings.insert(
            0,
            await vector_channel(
                conn, "facts", q.namespace, query_vector, pool, where=where, params=bind
            ),
        )
        entities = await repo.profile_channel(conn, q.namespace, query_vector, _PROFILE_ENTITIES)
        rankings.append(
            await repo.facts_of_entities(conn, q.namespace, entities, q.predicate, pool)
        )
    return rankings


async def _sample_links(
    conn: AsyncConnection, q: FactsContextQuery, facts: list[FactView]
) -> tuple[list[EvidenceLink], bool]:
    """Sampled links in fact order, stopping new claims at the per-result claim cap."""
    order = {fact.fact_id: index for index, fact in enumerate(facts)}
    links = await repo.sample_evidence(
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
    return kept, cut


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


async def _nodes(
    conn: AsyncConnection, namespace: str, hops: dict[UUID, int], facts: list[FactView]
) -> list[NodeView]:
    """The anchor set with hop distances; without anchors, the entities of the facts (hop 0)."""
    if hops:
        names = await repo.entity_names(conn, namespace, list(hops))
        return [
            NodeView(e, names.get(e, ""), hop)
            for e, hop in sorted(hops.items(), key=lambda p: p[1])
        ]
    seen: dict[UUID, str] = {}
    for fact in facts:
        seen.setdefault(fact.subject.entity_id, fact.subject.name)
        if fact.object is not None:
            seen.setdefault(fact.object.entity_id, fact.object.name)
    return [NodeView(entity, name, 0) for entity, name in seen.items()]


def _unknown_negative(unknown: list[UUID]) -> NegativeAnswer:
    listed = ", ".join(str(entity) for entity in unknown)
    return NegativeAnswer(
        kind="unknown_entity",
        explanation=f"no entity with id {listed} exists in this namespace",
        workaround="resolve the name with ResolveEntity and pass the returned entity_id",
    )


def _empty_negative(q: FactsContextQuery) -> NegativeAnswer:
    scope = q.scope.kind
    return NegativeAnswer(
        kind="known_empty",
        explanation=f"no fact matches the request in time scope {scope}"
        + (f" with predicate {q.predicate}" if q.predicate else ""),
        workaround="widen the time scope (history), drop the predicate, or search claims with"
        " ClaimsAndSourcesContext",
    )
