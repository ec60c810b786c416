"""Query use cases: one read snapshot and one database budget per operation, no chat model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NoReturn, TypeVar
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from services.query import claims_repository as claims_repo
from services.query import repository as repo
from services.query.claims_context import claims_context, search_chunks, search_claims
from services.query.contradictions import MemberPage, attach_contradictions, member_page
from services.query.domain import (
    MAX_TRANSCRIPT_DECISIONS,
    ChunkView,
    ClaimsContextQuery,
    ClaimsContextResult,
    CombinedResult,
    FactListResult,
    FactsContextQuery,
    FactsContextResult,
    FactView,
    HydrateResult,
    LookupObservationsQuery,
    LookupRelationsQuery,
    SearchChunksResult,
    SearchClaimsResult,
    SearchQuery,
    TranscriptResult,
    untruncated,
)
from services.query.facts_context import empty_facts_result, facts_context, search_width
from services.query.retrieval import (
    Budget,
    BudgetExhausted,
    ef_search_for,
    read_snapshot,
    vector_literal,
)
from services.query.temporal import scope_params
from shared.embedding import Embedder, embed_async
from shared.errors import NotFound, Unavailable
from shared.proto_convert import NegativeAnswer, TruncationInfo
from shared.timescope import TimeScope

T = TypeVar("T")

_TIME_REASON = ("time_budget",)


def _boundary(seconds: float) -> NegativeAnswer:
    return NegativeAnswer(
        kind="boundary",
        explanation=f"the read exceeded its database budget of {seconds:g} s",
        workaround="narrow the query (fewer anchors, smaller k, a tighter time scope) and retry",
    )


def _stopped(returned: int = 0) -> TruncationInfo:
    return TruncationInfo(
        truncated=True,
        returned=returned,
        estimated_total=0,
        total_is_exact=False,
        reasons=_TIME_REASON,
    )


@dataclass(frozen=True)
class ResolvedCandidate:
    """One ResolveEntity candidate, as the entity-resolution module reports it."""

    entity_id: UUID
    canonical_name: str
    matched_alias: str
    tier: str
    score: float
    profile: str
    context_boosted: bool


@dataclass(frozen=True)
class ResolveEntityResult:
    candidates: list[ResolvedCandidate]
    truncation: TruncationInfo
    negative: NegativeAnswer | None


class QueryService:
    """Every read of SPEC §7 except graph traversal."""

    def __init__(
        self, engine: AsyncEngine, embedder: Embedder, *, db_budget_seconds: float
    ) -> None:
        self._engine = engine
        self._embedder = embedder
        self._budget_seconds = db_budget_seconds

    async def _vectors(self, texts: Sequence[str]) -> list[str | None]:
        """Query embeddings (the only model work on the read path); empty texts get None."""
        wanted = [t for t in texts if t]
        if not wanted:
            return [None] * len(texts)
        rows = iter(await embed_async(self._embedder, wanted))
        return [vector_literal(next(rows)) if t else None for t in texts]

    async def _read(
        self,
        work: Callable[[AsyncConnection], Awaitable[T]],
        on_budget: Callable[[], T],
        *,
        ef_search: int = ef_search_for(0),
    ) -> T:
        try:
            budget = Budget(self._budget_seconds)
            async with read_snapshot(self._engine, budget, ef_search=ef_search) as conn:
                return await work(conn)
        except BudgetExhausted:
            return on_budget()

    async def resolve_entity(
        self, namespace: str, name: str, context_entity_ids: Sequence[UUID], limit: int
    ) -> ResolveEntityResult:
        # The entity-resolution module is owned by the entities work; import at call time so
        # the rest of the service runs while it is absent.
        from services.query.entity_resolution import resolve_entity

        async with AsyncSession(self._engine) as session:
            result = await resolve_entity(
                session, namespace, name, list(context_entity_ids), limit, self._embedder
            )
        candidates = [
            ResolvedCandidate(
                c.entity_id,
                c.canonical_name,
                c.matched_alias,
                c.tier,
                c.score,
                c.profile,
                c.context_boosted,
            )
            for c in result.candidates
        ]
        truncation = TruncationInfo(
            truncated=result.truncated,
            returned=len(candidates),
            estimated_total=result.total,
            total_is_exact=True,
            reasons=("resolve_candidate_limit",) if result.truncated else (),
        )
        negative = result.negative
        if not candidates and negative is None:
            negative = NegativeAnswer(
                kind="unknown_entity",
                explanation=f"no entity is known by a name like {name!r}",
                workaround="check the spelling, try another alias, or search claims instead",
            )
        return ResolveEntityResult(candidates, truncation, negative)

    async def facts_context(self, q: FactsContextQuery) -> FactsContextResult:
        now = datetime.now(UTC)
        (vector,) = await self._vectors([q.query])
        return await self._read(
            lambda conn: facts_context(conn, q, vector, now),
            lambda: empty_facts_result(q.scope, now, _boundary(self._budget_seconds), _TIME_REASON),
            ef_search=search_width(q.k),
        )

    async def claims_and_sources_context(self, q: ClaimsContextQuery) -> ClaimsContextResult:
        now = datetime.now(UTC)
        (vector,) = await self._vectors([q.query])
        return await self._read(
            lambda conn: claims_context(conn, q, vector, now),
            lambda: self._claims_stopped(q, now),
        )

    def _claims_stopped(self, q: ClaimsContextQuery, now: datetime) -> ClaimsContextResult:
        return ClaimsContextResult(
            [], [], q.scope, _stopped(), 0, _boundary(self._budget_seconds), now
        )

    async def combined_context(
        self, facts: FactsContextQuery, sources: ClaimsContextQuery
    ) -> CombinedResult:
        """Both halves in one snapshot at one evaluated instant, each in its own envelope."""
        now = datetime.now(UTC)
        facts_vector, sources_vector = await self._vectors([facts.query, sources.query])

        async def both(conn: AsyncConnection) -> CombinedResult:
            return CombinedResult(
                await facts_context(conn, facts, facts_vector, now),
                await claims_context(conn, sources, sources_vector, now),
                now,
            )

        def stopped() -> CombinedResult:
            negative = _boundary(self._budget_seconds)
            return CombinedResult(
                empty_facts_result(facts.scope, now, negative, _TIME_REASON),
                self._claims_stopped(sources, now),
                now,
            )

        return await self._read(both, stopped)

    async def lookup_relations(self, q: LookupRelationsQuery) -> FactListResult:
        now = datetime.now(UTC)
        conditions = ["f.kind = 'relation'"]
        bind: dict[str, object] = {}
        for column, value in (
            ("subject_entity_id", q.subject_entity_id),
            ("predicate", q.predicate),
            ("object_entity_id", q.object_entity_id),
        ):
            if value is not None:
                conditions.append(f"f.{column} = :{column}")
                bind[column] = value
        entities = [e for e in (q.subject_entity_id, q.object_entity_id) if e is not None]

        async def work(conn: AsyncConnection) -> FactListResult:
            known = await repo.resolve_entities(conn, q.namespace, entities)
            missing = [e for e in entities if e not in known]
            if missing:
                return FactListResult([], untruncated(0), _unknown(missing))
            for column in ("subject_entity_id", "object_entity_id"):
                if column in bind:
                    bind[column] = known[bind[column]].entity_id  # type: ignore[index]
            params = {**bind, **scope_params(q.scope, now)}
            facts, total = await repo.lookup_facts(
                conn, q.namespace, " AND ".join(conditions), params, q.scope, q.k
            )
            await attach_contradictions(conn, q.namespace, facts, q.scope, params)
            return _fact_list(facts, total, "lookup_k_limit", "relation")

        return await self._read(
            work, lambda: FactListResult([], _stopped(), _boundary(self._budget_seconds))
        )

    async def lookup_observations(self, q: LookupObservationsQuery) -> FactListResult:
        now = datetime.now(UTC)
        (vector,) = await self._vectors([q.property_query])

        async def work(conn: AsyncConnection) -> FactListResult:
            known = await repo.resolve_entities(conn, q.namespace, [q.entity_id])
            if q.entity_id not in known:
                return FactListResult([], untruncated(0), _unknown([q.entity_id]))
            params: dict[str, object] = {
                "entity": known[q.entity_id].entity_id,
                **scope_params(q.scope, now),
            }
            order = "f.evidence_count DESC, f.ingested_at DESC, f.id"
            if vector is not None:
                params["qvec"] = vector
                order = "f.embedding <=> CAST(CAST(:qvec AS text) AS vector) NULLS LAST, " + order
            facts, total = await repo.lookup_facts(
                conn,
                q.namespace,
                "f.kind = 'observation' AND f.subject_entity_id = :entity",
                params,
                q.scope,
                q.k,
                order=order,
            )
            await attach_contradictions(conn, q.namespace, facts, q.scope, params)
            return _fact_list(facts, total, "lookup_k_limit", "observation")

        return await self._read(
            work, lambda: FactListResult([], _stopped(), _boundary(self._budget_seconds))
        )

    async def hydrate_relation(self, namespace: str, fact_id: UUID) -> HydrateResult:
        async def work(conn: AsyncConnection) -> HydrateResult:
            fact = await repo.load_fact(conn, namespace, fact_id)
            if fact is None:
                raise NotFound(f"fact {fact_id} does not exist in namespace {namespace!r}")
            await attach_contradictions(conn, namespace, [fact], TimeScope(kind="history"), {})
            links = await repo.all_evidence(conn, namespace, fact_id)
            claims = await claims_repo.claims_by_ids(
                conn, namespace, [link.claim_id for link in links]
            )
            ordered = [claims[link.claim_id] for link in links if link.claim_id in claims]
            docs = await claims_repo.documents(
                conn, namespace, list(dict.fromkeys(c.doc_id for c in ordered))
            )
            return HydrateResult(fact, links, ordered, docs)

        return await self._read(work, self._budget_error)

    async def transcript_relation(self, namespace: str, fact_id: UUID) -> TranscriptResult:
        async def work(conn: AsyncConnection) -> TranscriptResult:
            if await repo.load_fact(conn, namespace, fact_id) is None:
                raise NotFound(f"fact {fact_id} does not exist in namespace {namespace!r}")
            decisions, total = await repo.transcript(
                conn, namespace, fact_id, MAX_TRANSCRIPT_DECISIONS
            )
            cut = total > len(decisions)
            truncation = TruncationInfo(
                truncated=cut,
                returned=len(decisions),
                estimated_total=total,
                total_is_exact=True,
                reasons=("result_budget",) if cut else (),
            )
            return TranscriptResult(decisions, truncation)

        return await self._read(work, self._budget_error)

    async def search_claims(self, q: SearchQuery) -> SearchClaimsResult:
        (vector,) = await self._vectors([q.query] if q.channel != "lexical" else [""])
        return await self._read(
            lambda conn: search_claims(conn, q, vector),
            lambda: SearchClaimsResult([], _stopped(), 0, _boundary(self._budget_seconds)),
        )

    async def search_chunks(self, q: SearchQuery) -> SearchChunksResult:
        (vector,) = await self._vectors([q.query] if q.channel != "lexical" else [""])
        return await self._read(
            lambda conn: search_chunks(conn, q, vector),
            lambda: SearchChunksResult([], _stopped(), 0, _boundary(self._budget_seconds)),
        )

    async def adjacent_chunks(self, namespace: str, chunk_id: UUID, window: int) -> list[ChunkView]:
        async def work(conn: AsyncConnection) -> list[ChunkView]:
            chunks = await claims_repo.adjacent_chunks(conn, namespace, chunk_id, window)
            if chunks is None:
                raise NotFound(
                    f"chunk {chunk_id} does not exist in a live document of {namespace!r}"
                )
            return chunks

        return await self._read(work, self._budget_error)

    async def list_contradiction_members(
        self, namespace: str, group_id: UUID, offset: int, page_size: int
    ) -> MemberPage:
        """A page of the group's members believed now, from `offset` in the group's order."""

        async def work(conn: AsyncConnection) -> MemberPage:
            page = await member_page(conn, namespace, group_id, offset, page_size)
            if page is None:
                raise NotFound(
                    f"contradiction group {group_id} does not exist in namespace {namespace!r}"
                )
            return page

        return await self._read(work, self._budget_error)

    def _budget_error(self) -> NoReturn:
        # Single-resource reads have no negative in their contract; a timeout there is a
        # dependency failure the caller may retry.
        raise Unavailable(f"the read exceeded its database budget of {self._budget_seconds:g} s")


def _unknown(missing: Sequence[UUID]) -> NegativeAnswer:
    return NegativeAnswer(
        kind="unknown_entity",
        explanation="no entity with id "
        + ", ".join(map(str, missing))
        + " exists in this namespace",
        workaround="resolve the name with ResolveEntity and pass the returned entity_id",
    )


def _fact_list(facts: list[FactView], total: int, reason: str, what: str) -> FactListResult:
    cut = total > len(facts)
    negative = None
    if not facts:
        negative = NegativeAnswer(
            kind="known_empty",
            explanation=f"no {what} matches the request in this time scope",
            workaround="widen the time scope (history) or relax the filters",
        )
    truncation = TruncationInfo(
        truncated=cut,
        returned=len(facts),
        estimated_total=total,
        total_is_exact=True,
        reasons=(reason,) if cut else (),
    )
    return FactListResult(facts, truncation, negative)
