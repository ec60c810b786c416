"""Adjudication use cases: claims → entities → assertions → decisions → facts, and reviews."""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.candidates_repository import (
    ClaimRow,
    claims_by_id,
    load_candidates,
    lock_pending_claims,
    pending_claims_of_version,
    subjects_with_facts,
    vector_literal,
)
from services.adjudicator.domain import Assertion, EntityRef
from services.adjudicator.engines.base import AdjudicationEngine, EngineUnavailable, adjudicate
from services.adjudicator.entities.declared import with_declarations
from services.adjudicator.entities.merges import (
    MergeOutcome,
    ProposalPage,
    UndoOutcome,
    list_merge_proposals,
    merge_entities,
    undo_merge,
)
from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolutionContext
from services.adjudicator.normalization import Normalizer
from services.adjudicator.repository import fact_states
from services.adjudicator.writer import DecisionEntry, FactWriter
from shared.beliefs.locks import lock_entities
from shared.beliefs.slots import settle_slots
from shared.beliefs.support import recount_facts
from shared.db.queue import replay_dead_letters
from shared.embedding import Embedder, embed_async
from shared.errors import NotFound, Unavailable
from shared.pipeline.kinds import ADJUDICATION_KIND_PREFIX
from shared.telemetry.metrics import Metrics

__all__ = [
    "BATCH_CLAIMS",
    "AdjudicationService",
    "ClaimsOutcome",
    "EngineInfo",
    "SupportReview",
]

logger = logging.getLogger(__name__)

_FIRST_PERSON = frozenset({"i", "me", "myself", "we", "us", "ourselves"})
# Claims per transaction: large enough to amortize the per-transaction work (claim locks, one
# resolution call, entity locks, transcripts, recounts), small enough that entity locks are not
# held long against the other workers and a failed batch loses little.
BATCH_CLAIMS = 16
# Postgres SQLSTATEs worth retrying a batch for: two writers crossing locks.
_RETRY_SQLSTATES = frozenset({"40P01", "40001"})
_BATCH_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class EngineInfo:
    engine: str
    model: str
    engine_version: str
    confidence_floor: float
    extension_packs: tuple[str, ...]
    predicates: tuple[str, ...]
    extractor: str


@dataclass(frozen=True, slots=True)
class ClaimsOutcome:
    """Decisions made for a set of claims, and the predicate phrases no vocabulary entry fit."""

    decisions: list[DecisionEntry]
    dropped_predicates: list[str]
    claims_adjudicated: int


@dataclass(frozen=True, slots=True)
class SupportReview:
    reviewed: int
    changed_fact_ids: list[uuid.UUID]


def _sqlstate(exc: DBAPIError) -> str | None:
    orig = exc.orig
    return getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)


def _effective_claim(row: ClaimRow) -> ClaimRow:
    """Fill the subject a claim left implicit: the speaker for first person or none."""
    view = row.view
    subject = view.subject_text
    if subject and subject.strip().lower() in _FIRST_PERSON:
        subject = row.speaker or subject
    if not subject:
        # Without a speaker, "we" (and a clause with no subject at all) is no one a relation
        # could name: "We use Grafyx" on a page titled "Wiki" made "Wiki uses Grafyx". The
        # claim is an observation anchored on the document (`_fallback_mention`).
        subject = row.speaker
    holder = view.holder
    if holder and holder.strip().lower() in _FIRST_PERSON and row.speaker:
        holder = row.speaker
    if subject == view.subject_text and holder == view.holder:
        return row
    return replace(row, view=replace(view, subject_text=subject, holder=holder))


def _mentions(row: ClaimRow, normalizer: Normalizer) -> list[Mention]:
    """The names a claim's assertions need resolved. An object is resolved only when the
    predicate before it maps onto the vocabulary: otherwise the claim is an observation on its
    subject and the object phrase ("so happy for you", "a lot") would only be a junk entity."""
    view = row.view
    claim_id = uuid.UUID(view.claim_id)
    document_id = uuid.UUID(view.document_id)
    named: list[tuple[str, str]] = []
    if view.is_attributed:
        if view.holder:
            named.append((view.holder, "holder"))
    else:
        if view.subject_text:
            named.append((view.subject_text, "subject"))
        if view.object_text and normalizer.relation_predicate(view.predicate_text):
            named.append((view.object_text, "object"))
    for subject_text, predicate_text, object_text, _ in view.extra_relations:
        if normalizer.relation_predicate(predicate_text):
            for text, role in ((subject_text, "subject"), (object_text, "object")):
                if (text, role) not in named and all(text != t for t, _ in named):
                    named.append((text, role))
    texts = [t for t, _ in named]
    # What a holder talked about is not resolved, but it is the context that tells which
    # "Ravi" said it ("Ravi said the billing migration is on track").
    if view.is_attributed:
        texts += [t for t in (view.subject_text, view.object_text) if t]
    found = [
        Mention(
            text=t,
            role=role,  # type: ignore[arg-type]
            claim_id=claim_id,
            document_id=document_id,
            speaker=row.speaker,
            co_mentions=tuple(other for other in texts if other != t),
        )
        for t, role in named
    ]
    base = Mention("", "object", claim_id, document_id, row.speaker, tuple(texts))
    relations = [(s, p, o) for s, p, o, _ in view.extra_relations]
    return with_declarations(found, relations, base)


def _fallback_mention(row: ClaimRow, names: dict[str, EntityRef]) -> Mention | None:
    """The speaker or document to anchor a claim on when its subject (or, for an attributed
    claim, its holder: "according to the spec") names no entity."""
    view = row.view
    text = row.speaker or row.document_title
    anchor = view.holder if view.is_attributed else view.subject_text
    if not text or anchor in names or text in names:
        return None
    return Mention(text, "subject", uuid.UUID(view.claim_id), uuid.UUID(view.document_id))


class AdjudicationService:
    """The pipeline of SPEC §4, in transactions of `BATCH_CLAIMS` claims in document order.

    A batch's transaction row-locks its claims (skipping those adjudicated meanwhile), resolves
    all their mentions in one resolver call, normalizes them, locks every subject entity of the
    batch at once (sorted, so writers never deadlock on them), and then, claim after claim, loads
    candidates, asks the engine (through the validator and the floor) and writes the decision;
    later claims of the batch see the facts the earlier ones wrote. A killed worker therefore
    leaves whole batches or nothing, and a retried item skips the claims already adjudicated.
    """

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        *,
        engine: AdjudicationEngine,
        engine_version: str,
        resolver: EntityResolver,
        embedder: Embedder,
        normalizer: Normalizer,
        confidence_floor: float,
        extractor: str,
        metrics: Metrics | None = None,
    ) -> None:
        self._metrics = metrics or Metrics.noop()
        self._factory = session_factory
        self._engine = engine
        self._engine_version = engine_version
        self._resolver = resolver
        self._embedder = embedder
        self._normalizer = normalizer
        self._floor = confidence_floor
        self._extractor = extractor

    def engine_info(self) -> EngineInfo:
        vocabulary = self._normalizer.vocabulary
        return EngineInfo(
            engine=self._engine.name,
            model=self._engine.model or "",
            engine_version=self._engine_version,
            confidence_floor=self._floor,
            extension_packs=vocabulary.packs,
            predicates=tuple(sorted(vocabulary.predicates)),
            extractor=self._extractor,
        )

    async def adjudicate_version(
        self, namespace: str, version_id: uuid.UUID, *, decided_by: str
    ) -> ClaimsOutcome:
        """Adjudicate every current claim of the version not adjudicated yet, in document order."""
        async with self._factory() as session:
            rows = await pending_claims_of_version(session, namespace, version_id)
        return await self._adjudicate_rows(namespace, rows, decided_by)

    async def adjudicate_claims(
        self, namespace: str, claim_ids: Sequence[uuid.UUID], *, decided_by: str
    ) -> ClaimsOutcome:
        """Adjudicate the named claims now; already adjudicated or retired ones are skipped."""
        async with self._factory() as session:
            found = await claims_by_id(session, namespace, claim_ids)
        missing = [str(cid) for cid in claim_ids if cid not in found]
        if missing:
            raise NotFound(f"unknown claim(s): {', '.join(missing)}")
        rows = [
            found[cid][0] for cid in claim_ids if not found[cid][1] and found[cid][0].is_current
        ]
        try:
            return await self._adjudicate_rows(namespace, rows, decided_by)
        except EngineUnavailable as exc:
            # A direct call has no retry behind it: the caller sees UNAVAILABLE and may retry.
            raise Unavailable(f"the adjudication engine is unavailable: {exc}") from exc

    async def _adjudicate_rows(
        self, namespace: str, rows: Sequence[ClaimRow], decided_by: str
    ) -> ClaimsOutcome:
        effective = [_effective_claim(row) for row in rows]
        cache = await self._embed_predicted(effective)
        decisions: list[DecisionEntry] = []
        dropped: list[str] = []
        done = 0
        for start in range(0, len(effective), BATCH_CLAIMS):
            batch = effective[start : start + BATCH_CLAIMS]
            entries, lost, adjudicated = await self._batch_with_retry(
                namespace, batch, cache, decided_by
            )
            decisions.extend(self._metrics.record_decisions(entries))
            dropped.extend(lost)
            done += adjudicated
        return ClaimsOutcome(decisions, dropped, done)

    async def _embed_predicted(self, rows: Sequence[ClaimRow]) -> dict[str, str]:
        """Embed every label the claims will likely produce, in one batch.

        An observation's label is its claim's text, which the ingest service embedded with the
        same model; those vectors are reused. Other labels depend on resolved names, known only
        once a batch resolved them; predicting them with the surface names gets almost all of
        them, and the rest are embedded then. Vectors are kept as pgvector literals: they are
        only ever sent to Postgres.
        """
        cache: dict[str, str] = {
            row.view.claim_text: row.vector
            for row in rows
            if row.vector is not None and row.view.claim_text == row.view.claim_text.strip()
        }
        labels: list[str] = []
        for row in rows:
            predicted = self._normalizer.normalize_claim(row.view, lambda t: EntityRef(t, t))
            labels.extend(a.label or a.statement for a in predicted.assertions)
        return await self._embed(list(dict.fromkeys(labels)), cache)

    async def _embed(self, texts: Sequence[str], cache: dict[str, str]) -> dict[str, str]:
        missing = [t for t in texts if t not in cache]
        if missing:
            matrix = await embed_async(self._embedder, missing)
            for label, vector in zip(missing, np.asarray(matrix).tolist(), strict=True):
                cache[label] = vector_literal(vector)
        return cache

    async def _batch_with_retry(
        self,
        namespace: str,
        rows: Sequence[ClaimRow],
        cache: dict[str, str],
        decided_by: str,
    ) -> tuple[list[DecisionEntry], list[str], int]:
        for attempt in range(_BATCH_ATTEMPTS):
            try:
                async with self._factory() as session, session.begin():
                    return await self._batch(session, namespace, rows, cache, decided_by)
            except DBAPIError as exc:
                if _sqlstate(exc) not in _RETRY_SQLSTATES or attempt == _BATCH_ATTEMPTS - 1:
                    raise
                logger.info("claim batch: retrying after %s", _sqlstate(exc))
                # Apart, the two transactions that collided rarely collide again.
                await asyncio.sleep(random.uniform(0.02, 0.1) * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    async def _batch(
        self,
        session: AsyncSession,
        namespace: str,
        rows: Sequence[ClaimRow],
        cache: dict[str, str],
        decided_by: str,
    ) -> tuple[list[DecisionEntry], list[str], int]:
        """Adjudicate claims in document order in one transaction; see the class docstring."""
        pending = await lock_pending_claims(
            session, namespace, [uuid.UUID(row.view.claim_id) for row in rows]
        )
        rows = [row for row in rows if uuid.UUID(row.view.claim_id) in pending]
        if not rows:
            return [], [], 0
        mentions = [_mentions(row, self._normalizer) for row in rows]
        context = ResolutionContext(session, namespace)
        await context.lock_names_ahead(
            [m.text for claim in mentions for m in claim]
            + [text for row in rows if (text := row.speaker or row.document_title)]
        )
        resolved = iter(
            self._metrics.record_resolutions(
                await self._resolver.resolve_mentions(
                    session, namespace, [m for claim in mentions for m in claim], context=context
                )
            )
        )
        names_of: list[dict[str, EntityRef]] = []
        for claim_mentions in mentions:
            names: dict[str, EntityRef] = {}
            for r in (next(resolved) for _ in claim_mentions):
                if r.entity_id is not None:
                    names[r.mention.text] = EntityRef(
                        str(r.entity_id), r.canonical_name or r.mention.text
                    )
            names_of.append(names)
        # The anchors of claims whose subject named no entity, resolved in one call too (in
        # claim order, as they were one call each before).
        fallbacks = [
            _fallback_mention(row, names) for row, names in zip(rows, names_of, strict=True)
        ]
        anchors = iter(
            self._metrics.record_resolutions(
                await self._resolver.resolve_mentions(
                    session, namespace, [f for f in fallbacks if f is not None], context=context
                )
            )
        )
        dropped: list[str] = []
        assertions: list[Assertion] = []
        for row, names, fallback in zip(rows, names_of, fallbacks, strict=True):
            if fallback is not None:
                anchor = next(anchors)
                if anchor.entity_id is not None:
                    names[fallback.text] = EntityRef(
                        str(anchor.entity_id), anchor.canonical_name or fallback.text
                    )
            result = self._normalizer.normalize_claim(
                row.view, names.get, names.get(fallback.text) if fallback else None
            )
            assertions.extend(result.assertions)
            dropped.extend(result.dropped_predicates)
        if not assertions:
            return [], dropped, len(rows)
        # Labels the prediction missed are embedded before the locks are taken: the model call
        # needs no lock, and other workers may be waiting for these subjects.
        await self._embed([a.label or a.statement for a in assertions], cache)
        subjects = [uuid.UUID(a.subject_entity_id) for a in assertions]
        await lock_entities(session, namespace, subjects)
        known = await subjects_with_facts(session, namespace, subjects)
        writer = FactWriter(session, namespace, decided_by)
        for assertion in assertions:
            vector = cache[assertion.label or assertion.statement]
            key = (assertion.subject_entity_id, assertion.kind)
            candidates = (
                await load_candidates(session, namespace, assertion, vector) if key in known else []
            )
            decided = await adjudicate(self._engine, assertion, candidates, self._floor)
            await writer.apply(assertion, decided.decision, candidates, vector)
            known.add(key)
        # Where each value of a changed slot stands follows from the whole slot, whatever
        # order its facts arrived in (shared/beliefs/timeline.py).
        await settle_slots(session, namespace, sorted(writer.slots, key=str), decided_by=decided_by)
        return await writer.flush(), dropped, len(rows)

    async def review_support(
        self, namespace: str, fact_ids: Sequence[uuid.UUID], *, decided_by: str
    ) -> SupportReview:
        """Recount evidence and support of the given (or all believed) facts; report changes."""
        async with self._factory() as session, session.begin():
            before = await fact_states(session, namespace, list(fact_ids) or None)
            missing = [str(f) for f in fact_ids if f not in before]
            if missing:
                raise NotFound(f"unknown fact(s): {', '.join(missing)}")
            await lock_entities(session, namespace, [v[2] for v in before.values()])
            ids = list(before)
            await recount_facts(session, namespace, ids, decided_by=decided_by)
            after = await fact_states(session, namespace, ids)
        changed = sorted((f for f in ids if before[f] != after.get(f)), key=str)
        return SupportReview(reviewed=len(ids), changed_fact_ids=changed)

    async def replay_dead_letters(self, namespace: str, work_item_ids: Sequence[uuid.UUID]) -> int:
        """Make dead-lettered adjudication items of the namespace runnable again."""
        async with self._factory() as session, session.begin():
            return await replay_dead_letters(
                session,
                namespace,
                ids=list(work_item_ids) or None,
                kind_prefix=ADJUDICATION_KIND_PREFIX,
            )

    async def merge(
        self, namespace: str, survivor: uuid.UUID, absorbed: uuid.UUID, decided_by: str
    ) -> MergeOutcome:
        async with self._factory() as session, session.begin():
            outcome = await merge_entities(session, namespace, survivor, absorbed, decided_by)
        self._metrics.record_merge("merge")
        return outcome

    async def undo_merge(self, namespace: str, merge_id: uuid.UUID, decided_by: str) -> UndoOutcome:
        async with self._factory() as session, session.begin():
            undone = await undo_merge(session, namespace, merge_id, decided_by)
        self._metrics.record_merge("undo")
        return undone

    async def merge_proposals(self, namespace: str, page_size: int, token: str) -> ProposalPage:
        async with self._factory() as session:
            return await list_merge_proposals(session, namespace, page_size, token)
