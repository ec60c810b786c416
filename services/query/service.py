"""Query use cases: one read snapshot and one database budget per operation, no chat model."""

from __future__ import annotations

import asyncio
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import NoReturn, TypeVar
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from services.query.domain import (
    MAX_TRANSCRIPT_DECISIONS,
    ChunkView,
    ClaimsContextQuery,
    ClaimsContextResult,
    CombinedResult,
    FactListResult,
    FactsContextQuery,
    FactsContextResult,
    HydrateResult,
    LookupObservationsQuery,
    LookupRelationsQuery,
    ResolvedCandidate,
    ResolveEntityResult,
    SearchChunksResult,
    SearchClaimsResult,
    SearchQuery,
    TranscriptResult,
)
from services.query.reads import lookups
from services.query.reads.claims_context import claims_context, search_chunks, search_claims
from services.query.reads.contradictions import MemberPage, attach_contradictions, member_page
from services.query.reads.entity_resolution import resolve_entity
from services.query.reads.facts_context import empty_facts_result, facts_context, search_width
from services.query.sql import claims as claim_rows
from services.query.sql import facts as fact_rows
from services.query.sql.channels import vector_literal
from services.query.sql.collection_sizes import CollectionSizes
from services.query.sql.snapshot import Budget, BudgetExhausted, ef_search_for, read_snapshot
from shared.answers import NegativeAnswer, TruncationInfo
from shared.embedding import Embedder, embed_async
from shared.errors import NotFound, Unavailable
from shared.replica import ReplayClock
from shared.timescope import TimeScope

T = TypeVar("T")

_TIME_REASON = ("time_budget",)
# Query vectors kept for repeated texts (~3.5 kB each as pgvector literals: ~7 MB).
_EMBED_CACHE = 2048
# A read replica that did not replay to believed_at within the wait is a time bound too.
_REPLICA_REASON = _TIME_REASON


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


class QueryService:
    """Every read of SPEC §7 except graph traversal."""

    def __init__(
        self,
        engine: AsyncEngine,
        embedder: Embedder,
        *,
        db_budget_seconds: float,
        embed_threads: int | None = None,
        replay_clock: ReplayClock | None = None,
    ) -> None:
        self._engine = engine
        # Set when `engine` is a read replica: reads at a believed_at it has not replayed to
        # wait for it or say so (shared/replica.py).
        self._replay_clock = replay_clock
        self._embedder = embedder
        self._budget_seconds = db_budget_seconds
        # Query embeddings are CPU-bound: one at a time per core, so concurrent requests queue
        # for the model instead of slicing the cores between them (and Postgres).
        self._embed_cache: OrderedDict[str, str] = OrderedDict()
        self._sizes = CollectionSizes()
        self._embed_pool = ThreadPoolExecutor(
            max_workers=embed_threads or max(1, min(4, os.cpu_count() or 1)),
            thread_name_prefix="query-embed",
        )

    def close(self) -> None:
        """Release the embedding threads (the server calls this on stop)."""
        self._embed_pool.shutdown(wait=False, cancel_futures=True)

    async def _replica_behind(self, *scopes: TimeScope | None) -> NegativeAnswer | None:
        """The boundary answer when the replica has not replayed to a scope's believed_at."""
        if self._replay_clock is None:
            return None
        for scope in scopes:
            if scope is not None and scope.kind == "as_of" and scope.believed_at is not None:
                negative = await self._replay_clock.behind(scope.believed_at)
                if negative is not None:
                    return negative
        return None

    async def _vectors(self, texts: Sequence[str]) -> list[str | None]:
        """Query embeddings (the only model work on the read path); empty texts get None.

        Agents ask the same questions again (a retry, a follow-up with the same query, the
        same prompt across sessions), so vectors of recent texts are kept (`_EMBED_CACHE`
        entries, least recently used dropped first): a repeat skips the model's ~5-10 ms of
        CPU, which under load is also time the other reads wait for a core."""
        cache = self._embed_cache
        wanted = list(dict.fromkeys(t for t in texts if t and t not in cache))
        if wanted:
            rows = await embed_async(self._embedder, wanted, executor=self._embed_pool)
            for text, row in zip(wanted, rows, strict=True):
                cache[text] = vector_literal(row)
                if len(cache) > _EMBED_CACHE:
                    cache.popitem(last=False)
        found: list[str | None] = []
        for text in texts:
            if text and text in cache:
                cache.move_to_end(text)
            found.append(cache.get(text) if text else None)
        return found

    async def _vector(self, text: str) -> str | None:
        """One query embedding, for a read that derives a second text from its query."""
        (vector,) = await self._vectors([text])
        return vector

    async def _read_embedding(
        self,
        texts: Sequence[str],
        work: Callable[[AsyncConnection, Callable[[], Awaitable[list[str | None]]]], Awaitable[T]],
        on_budget: Callable[[], T],
        *,
        ef_search: int = ef_search_for(0),
    ) -> T:
        """`_read` while the query embeddings are computed: the snapshot opens (and `work`
        does what needs no vector, such as resolving and expanding anchors) in the meantime,
        then awaits the vectors through the callable it is given."""
        task = asyncio.ensure_future(self._vectors(texts))

        async def vectors() -> list[str | None]:
            return await task

        try:
            return await self._read(
                lambda conn: work(conn, vectors), on_budget, ef_search=ef_search
            )
        finally:
            if not task.done():
                task.cancel()
            # Retrieve a failure nobody awaited (the read ended first), so it is not logged.
            elif not task.cancelled():
                task.exception()

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
        behind = await self._replica_behind(q.scope)
        if behind is not None:
            return empty_facts_result(q.scope, now, behind, _REPLICA_REASON)

        async def work(
            conn: AsyncConnection, vectors: Callable[[], Awaitable[list[str | None]]]
        ) -> FactsContextResult:
            async def vector() -> str | None:
                return (await vectors())[0]

            return await facts_context(conn, q, vector, now, self._sizes)

        return await self._read_embedding(
            [q.query],
            work,
            lambda: empty_facts_result(q.scope, now, _boundary(self._budget_seconds), _TIME_REASON),
            ef_search=search_width(q.k),
        )

    async def claims_and_sources_context(self, q: ClaimsContextQuery) -> ClaimsContextResult:
        now = datetime.now(UTC)
        behind = await self._replica_behind(q.scope)
        if behind is not None:
            return ClaimsContextResult([], [], q.scope, _stopped(), 0, behind, now)

        async def work(
            conn: AsyncConnection, vectors: Callable[[], Awaitable[list[str | None]]]
        ) -> ClaimsContextResult:
            (vector,) = await vectors()
            return await claims_context(conn, q, vector, now, self._vector, self._sizes)

        return await self._read_embedding([q.query], work, lambda: self._claims_stopped(q, now))

    def _claims_stopped(self, q: ClaimsContextQuery, now: datetime) -> ClaimsContextResult:
        return ClaimsContextResult(
            [], [], q.scope, _stopped(), 0, _boundary(self._budget_seconds), now
        )

    async def combined_context(
        self, facts: FactsContextQuery, sources: ClaimsContextQuery
    ) -> CombinedResult:
        """Both halves in one snapshot at one evaluated instant, each in its own envelope."""
        now = datetime.now(UTC)
        behind = await self._replica_behind(facts.scope, sources.scope)
        if behind is not None:
            return CombinedResult(
                empty_facts_result(facts.scope, now, behind, _REPLICA_REASON),
                ClaimsContextResult([], [], sources.scope, _stopped(), 0, behind, now),
                now,
            )

        async def both(
            conn: AsyncConnection, vectors: Callable[[], Awaitable[list[str | None]]]
        ) -> CombinedResult:
            async def facts_vector() -> str | None:
                return (await vectors())[0]

            facts_result = await facts_context(conn, facts, facts_vector, now, self._sizes)
            sources_vector = (await vectors())[1]
            return CombinedResult(
                facts_result,
                await claims_context(conn, sources, sources_vector, now, self._vector, self._sizes),
                now,
            )

        def stopped() -> CombinedResult:
            negative = _boundary(self._budget_seconds)
            return CombinedResult(
                empty_facts_result(facts.scope, now, negative, _TIME_REASON),
                self._claims_stopped(sources, now),
                now,
            )

        return await self._read_embedding([facts.query, sources.query], both, stopped)

    async def lookup_relations(self, q: LookupRelationsQuery) -> FactListResult:
        now = datetime.now(UTC)
        behind = await self._replica_behind(q.scope)
        if behind is not None:
            return FactListResult([], _stopped(), behind)
        return await self._read(
            lambda conn: lookups.lookup_relations(conn, q, now),
            lambda: FactListResult([], _stopped(), _boundary(self._budget_seconds)),
        )

    async def lookup_observations(self, q: LookupObservationsQuery) -> FactListResult:
        now = datetime.now(UTC)
        behind = await self._replica_behind(q.scope)
        if behind is not None:
            return FactListResult([], _stopped(), behind)
        (vector,) = await self._vectors([q.property_query])
        return await self._read(
            lambda conn: lookups.lookup_observations(conn, q, vector, now),
            lambda: FactListResult([], _stopped(), _boundary(self._budget_seconds)),
        )

    async def hydrate_relation(self, namespace: str, fact_id: UUID) -> HydrateResult:
        async def work(conn: AsyncConnection) -> HydrateResult:
            fact = await fact_rows.load_fact(conn, namespace, fact_id)
            if fact is None:
                raise NotFound(f"fact {fact_id} does not exist in namespace {namespace!r}")
            await attach_contradictions(conn, namespace, [fact], TimeScope(kind="history"), {})
            links = await fact_rows.all_evidence(conn, namespace, fact_id)
            claims = await claim_rows.claims_by_ids(
                conn, namespace, [link.claim_id for link in links]
            )
            ordered = [claims[link.claim_id] for link in links if link.claim_id in claims]
            docs = await claim_rows.documents(
                conn, namespace, list(dict.fromkeys(c.doc_id for c in ordered))
            )
            return HydrateResult(fact, links, ordered, docs)

        return await self._read(work, self._budget_error)

    async def transcript_relation(self, namespace: str, fact_id: UUID) -> TranscriptResult:
        async def work(conn: AsyncConnection) -> TranscriptResult:
            if await fact_rows.load_fact(conn, namespace, fact_id) is None:
                raise NotFound(f"fact {fact_id} does not exist in namespace {namespace!r}")
            decisions, total = await fact_rows.transcript(
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
            lambda conn: search_claims(conn, q, vector, self._sizes),
            lambda: SearchClaimsResult([], _stopped(), 0, _boundary(self._budget_seconds)),
        )

    async def search_chunks(self, q: SearchQuery) -> SearchChunksResult:
        (vector,) = await self._vectors([q.query] if q.channel != "lexical" else [""])
        return await self._read(
            lambda conn: search_chunks(conn, q, vector, self._sizes),
            lambda: SearchChunksResult([], _stopped(), 0, _boundary(self._budget_seconds)),
        )

    async def adjacent_chunks(self, namespace: str, chunk_id: UUID, window: int) -> list[ChunkView]:
        async def work(conn: AsyncConnection) -> list[ChunkView]:
            chunks = await claim_rows.adjacent_chunks(conn, namespace, chunk_id, window)
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
