"""Work-item handlers: `ingest.extract` (convert, chunk, extract) and `ingest.embed`.

Each handler runs in its work item's transaction. Stage rows show `running` from a separate,
immediately committed transaction; when a handler fails, its transaction rolls back and
`record_failure` (the queue worker's failure hook) marks the stage rows failed or
dead-lettered in the transaction that records the retry or dead letter on the item.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ingest import claims_repository as claims_repo
from services.ingest import repository as repo
from services.ingest.chunking import (
    ChunkSpan,
    chunk_conversation,
    chunk_prose,
    section_headings,
)
from services.ingest.config import IngestSettings
from services.ingest.domain import normalize_claim_text, stored_text
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.signatures import author, passage_writer
from services.ingest.formats import Turn, classify, normalize_media_type, parse_turns
from services.ingest.runtime import ModelRuntime
from services.ingest.segments import segments
from shared.db.models import Chunk, Claim, Document, DocumentVersion, WorkItem, claim_dedupe_key
from shared.db.queue import enqueue, oldest_runnable, record_result
from shared.pipeline.kinds import ADJUDICATE_KIND, EMBED_KIND, EXTRACT_KIND
from shared.pipeline.payloads import (
    AdjudicatePayload,
    EmbedPayload,
    ExtractPayload,
    MalformedPayload,
)
from shared.pipeline.retirement import RetirementReason
from shared.pipeline.stage_repository import record_stage_failure, set_stages
from shared.pipeline.stages import UNFINISHED_STATUSES, failure_text
from shared.telemetry.metrics import Metrics

__all__ = ["Pipeline", "prefer_embedding", "work_dedupe_key"]

logger = logging.getLogger(__name__)

_EXTRACT_STAGES = ("convert", "chunk", "extract")
_TURN_PREFIX = re.compile(r"(?m)^\[[^\]\n]*\] ")
_MARKUP_TYPES = frozenset(
    {"text/markdown", "text/x-markdown", "text/html", "application/xhtml+xml"}
)

# A handler body gets the item's payload decoded: extraction's or embedding's, which say the same.
Body = Callable[[AsyncSession, WorkItem, ExtractPayload | EmbedPayload], Awaitable[None]]


def work_dedupe_key(version_id: uuid.UUID, extractor: tuple[str, str]) -> str:
    """One item of each kind per version and extractor version, whoever enqueues it."""
    return f"{version_id}:{extractor[0]}/{extractor[1]}"


async def prefer_embedding(session: AsyncSession, kinds: Collection[str]) -> uuid.UUID | None:
    """The oldest runnable embed item: what an ingest worker claims before another extraction.

    The two models take turns otherwise: every extract item of a backlog was queued before
    any embed item (those appear as extractions finish), so in queue order every worker takes
    extractions, which run one at a time under the extractor's lock, and embedding starts when
    the last one is done. Embedding first keeps one worker on each model, one core each (the
    ONNX run releases the GIL), and a version reaches the adjudicator as soon as its own two
    stages are done rather than after everyone's extraction.
    """
    if EMBED_KIND not in kinds:
        return None
    return await oldest_runnable(session, (EMBED_KIND,))


@dataclass
class _Passage:
    """One extraction input and where its claims go."""

    chunk_index: int
    input: ExtractionInput
    turn: Turn | None


class Pipeline:
    """The ingest worker's handler; `handle` dispatches on the work item's kind."""

    def __init__(
        self,
        factory: async_sessionmaker[AsyncSession],
        runtime: ModelRuntime,
        settings: IngestSettings,
        metrics: Metrics | None = None,
    ) -> None:
        self._factory = factory
        self._runtime = runtime
        self._settings = settings
        self._metrics = metrics or Metrics.noop()

    async def handle(self, session: AsyncSession, item: WorkItem) -> None:
        if item.kind == EXTRACT_KIND:
            payload: ExtractPayload | EmbedPayload = ExtractPayload.decode(item.payload)
            await self._guarded(session, item, payload, _EXTRACT_STAGES, self._extract)
        elif item.kind == EMBED_KIND:
            payload = EmbedPayload.decode(item.payload)
            await self._guarded(session, item, payload, ("embed",), self._embed)
        else:
            raise ValueError(f"ingest cannot handle work item kind {item.kind!r}")

    async def _guarded(
        self,
        session: AsyncSession,
        item: WorkItem,
        payload: ExtractPayload | EmbedPayload,
        stages: Sequence[str],
        body: Body,
    ) -> None:
        version_id = payload.version_id
        async with self._factory() as marker, marker.begin():
            await set_stages(
                marker,
                item.namespace,
                version_id,
                dict.fromkeys(stages, "running"),
                attempts=item.attempts,
                only_from=UNFINISHED_STATUSES,
            )
        await body(session, item, payload)

    async def record_failure(
        self, session: AsyncSession, item: WorkItem, status: str, exc: BaseException
    ) -> None:
        """The queue worker's failure hook: the failed item's stages say why."""
        stages = _EXTRACT_STAGES if item.kind == EXTRACT_KIND else ("embed",)
        try:
            version_id = ExtractPayload.decode(item.payload).version_id
        except MalformedPayload:
            return  # no version to mark: the payload itself was what failed
        await record_stage_failure(
            session,
            item.namespace,
            version_id,
            stages,
            status,
            attempts=item.attempts,
            error=failure_text(exc),
        )

    async def _load(
        self, session: AsyncSession, item: WorkItem, version_id: uuid.UUID
    ) -> tuple[DocumentVersion, Document] | None:
        """The version and its document, under the identity lock; None when there is
        nothing to do any more (unknown version, deleted document)."""
        namespace = item.namespace
        version = await repo.get_version(session, namespace, version_id)
        if version is None:
            logger.warning("ingest: %s for unknown version %s", item.kind, item.payload)
            return None
        document = await repo.get_document(session, namespace, version.document_id)
        assert document is not None
        await repo.lock_identity(session, namespace, document.identity_key)
        await repo.reload(session, document)
        if document.deleted_at is not None or version.parked:
            await set_stages(
                session,
                namespace,
                version.id,
                {"convert": "skipped", "chunk": "skipped", "extract": "skipped"}
                | {"embed": "skipped", "adjudicate": "skipped"},
                only_from=UNFINISHED_STATUSES,
            )
            return None
        return version, document

    async def _extract(
        self, session: AsyncSession, item: WorkItem, payload: ExtractPayload | EmbedPayload
    ) -> None:
        loaded = await self._load(session, item, payload.version_id)
        if loaded is None:
            return
        version, document = loaded
        namespace, timings = item.namespace, {}
        started = time.perf_counter()
        text = version.content_text
        if text is None:
            text = stored_text(version.content, version.media_type)
            version.content_text = text
        kind = classify(version.media_type, text)
        timings["convert"] = time.perf_counter() - started

        started = time.perf_counter()
        turns = parse_turns(text) if kind == "conversation" else []
        chunks = (
            chunk_conversation(text, turns, self._settings.conversation_chunk_max_chars)
            if kind == "conversation"
            else chunk_prose(text, version.media_type, self._settings.chunk_max_chars)
        )
        chunk_ids = await claims_repo.upsert_chunks(session, namespace, document.id, chunks)
        await claims_repo.link_version_chunks(session, namespace, version.id, chunks, chunk_ids)
        timings["chunk"] = time.perf_counter() - started

        started = time.perf_counter()
        extractor = self._runtime.extractor_key
        result: dict[str, Any] = {"chunks": len(chunks), "format": kind}
        if kind in ("prose", "conversation"):
            result |= await self._extract_claims(
                session, item, version, document, text, chunks, chunk_ids, turns
            )
            version.extractor_name, version.extractor_version = extractor
        timings["extract"] = time.perf_counter() - started

        await enqueue(
            session,
            namespace,
            EMBED_KIND,
            EmbedPayload(version.id, payload.reextract).encode(),
            dedupe_key=work_dedupe_key(version.id, extractor),
            version_id=version.id,
        )
        if "extract_model_seconds" in result:
            timings["extract_model"] = result.pop("extract_model_seconds")
        self._metrics.record_claims_extracted(extractor[0], result.get("claims_new", 0))
        await self._finish(session, item, result | {"seconds": timings})
        statuses = {"convert": "succeeded", "chunk": "succeeded"}
        statuses["extract"] = "succeeded" if kind in ("prose", "conversation") else "skipped"
        await set_stages(session, namespace, version.id, statuses, attempts=item.attempts)

    async def _extract_claims(
        self,
        session: AsyncSession,
        item: WorkItem,
        version: DocumentVersion,
        document: Document,
        text: str,
        chunks: Sequence[ChunkSpan],
        chunk_ids: Sequence[uuid.UUID],
        turns: Sequence[Turn],
    ) -> dict[str, Any]:
        namespace = item.namespace
        extractor = self._runtime.extractor_key
        done = await claims_repo.chunks_already_extracted(
            session, namespace, version.id, chunk_ids, extractor
        )
        todo: list[int] = []
        seen = set(done)
        for index, chunk_id in enumerate(chunk_ids):
            if chunk_id not in seen:
                seen.add(chunk_id)
                todo.append(index)
        passages = self._passages(version, document, text, chunks, todo, turns)
        outcome = await self._runtime.extract([p.input for p in passages])
        rows: dict[str, dict[str, Any]] = {}
        for passage, claims in zip(passages, outcome.claims, strict=True):
            chunk, chunk_id = chunks[passage.chunk_index], chunk_ids[passage.chunk_index]
            for claim in claims:
                row = _claim_row(
                    namespace, version, document, text, chunk, chunk_id, passage, claim
                )
                if row is not None:
                    row["extractor_name"], row["extractor_version"] = extractor
                    row["dedupe_key"] = claim_dedupe_key(
                        chunk_id,
                        extractor[1],
                        row["chunk_char_start"],
                        row["chunk_char_end"],
                        row["claim_text"],
                    )
                    rows.setdefault(row["dedupe_key"], row)
        new_ids = await claims_repo.insert_claims(session, list(rows.values()))
        await claims_repo.add_testimony_events(session, namespace, new_ids, "asserted", version.id)
        await claims_repo.link_version_claims(session, namespace, version.id, chunk_ids, extractor)
        restored: list[uuid.UUID] = []
        if document.versioning_mode == "living":
            restored = await claims_repo.restore_superseded_claims(session, namespace, version.id)
        return {
            "chunks_reused": len(set(chunk_ids) & done),
            "passages": len(passages),
            "claims_new": len(new_ids),
            "claims_restored": len(restored),
            "grounding_drops": outcome.drops[:50],
            "extract_model_seconds": outcome.seconds,
        }

    def _passages(
        self,
        version: DocumentVersion,
        document: Document,
        text: str,
        chunks: Sequence[ChunkSpan],
        todo: Sequence[int],
        turns: Sequence[Turn],
    ) -> list[_Passage]:
        context_chars = self._settings.extract_context_chars
        markup = normalize_media_type(version.media_type) in _MARKUP_TYPES

        def context(start: int) -> str | None:
            return text[max(0, start - context_chars) : start] or None

        passages: list[_Passage] = []
        writer = None if turns else author(text)  # whom "I" means in an email's paragraphs
        for index in todo:
            chunk = chunks[index]
            if turns:
                for turn in turns:
                    inside = chunk.char_start <= turn.line_start and turn.line_end <= chunk.char_end
                    if not inside or not turn.text:
                        continue
                    for start, end in segments(turn.text):
                        inp = ExtractionInput(
                            text=turn.text[start:end],
                            said_on=turn.timestamp or version.source_modified_time,
                            speaker=turn.speaker,
                            document_title=document.title,
                            context=context(turn.char_start + start if start else turn.line_start),
                            base_offset=turn.char_start + start,
                        )
                        passages.append(_Passage(index, inp, turn))
                continue
            for paragraph_start, paragraph_end in chunk.paragraphs:
                passage = text[paragraph_start:paragraph_end]
                # Headings and code blocks state nothing a claim could hold.
                if markup and passage.lstrip().startswith(("#", "```", "~~~")):
                    continue
                for start, end in segments(passage):
                    inp = ExtractionInput(
                        text=passage[start:end],
                        said_on=version.source_modified_time,
                        document_title=document.title,
                        context=context(paragraph_start + start),
                        base_offset=paragraph_start + start,
                        author=passage_writer(text, paragraph_start, passage, writer),
                        headings=section_headings(chunk.section_path),
                    )
                    passages.append(_Passage(index, inp, None))
        return passages

    async def _embed(
        self, session: AsyncSession, item: WorkItem, payload: ExtractPayload | EmbedPayload
    ) -> None:
        namespace = item.namespace
        version = await repo.get_version(session, namespace, payload.version_id)
        if version is None:
            return
        started = time.perf_counter()
        kind = classify(version.media_type, version.content_text)
        chunk_rows = await claims_repo.unembedded_chunks(session, namespace, version.id)
        claim_rows = await claims_repo.unembedded_claims(session, namespace, version.id)
        chunk_texts = [t for _, t in chunk_rows]
        if kind == "conversation":
            # Turn ids and timestamps carry no meaning and would eat the 256-token window.
            chunk_texts = [_TURN_PREFIX.sub("", t) for t in chunk_texts]
        vectors, model_seconds = await self._runtime.embed(chunk_texts + [t for _, t in claim_rows])
        split = len(chunk_rows)
        pairs = list(zip((i for i, _ in chunk_rows), vectors[:split], strict=True))
        await claims_repo.set_embeddings(session, Chunk, pairs)
        pairs = list(zip((i for i, _ in claim_rows), vectors[split:], strict=True))
        await claims_repo.set_embeddings(session, Claim, pairs)
        elapsed = time.perf_counter() - started

        loaded = await self._load(session, item, payload.version_id)
        if loaded is None:
            return
        version, document = loaded
        extractor = self._runtime.extractor_key
        extractable = kind in ("prose", "conversation")
        retire: list[uuid.UUID] = []
        reason: RetirementReason | None = None
        if payload.reextract:
            retire = await claims_repo.reextracted_claims(session, namespace, version.id, extractor)
            reason = "reextracted"
        elif document.versioning_mode == "living":
            retire = await claims_repo.superseded_claims(
                session, namespace, document.id, version.version_number
            )
            reason = "version_superseded"
        statuses = {"embed": "succeeded"}
        if extractable or retire:
            queued = await enqueue(
                session,
                namespace,
                ADJUDICATE_KIND,
                AdjudicatePayload(version.id, tuple(retire), reason if retire else None).encode(),
                dedupe_key=work_dedupe_key(version.id, extractor),
                version_id=version.id,
            )
            # An existing item (same version and extractor) owns the stage already.
            if queued is not None:
                statuses["adjudicate"] = "pending"
        counts = {"chunks_embedded": len(chunk_rows), "claims_embedded": len(claim_rows)}
        seconds = {"embed": elapsed, "embed_model": model_seconds}
        await self._finish(session, item, counts | {"seconds": seconds})
        await set_stages(session, namespace, version.id, statuses, attempts=item.attempts)

    async def _finish(self, session: AsyncSession, item: WorkItem, result: dict[str, Any]) -> None:
        """Keep what the item did (counts, stage seconds) on the item for benchmarks and ops."""
        self._metrics.record_stages(result["seconds"])
        await record_result(session, item.id, result)


def _claim_row(
    namespace: str,
    version: DocumentVersion,
    document: Document,
    text: str,
    chunk: ChunkSpan,
    chunk_id: uuid.UUID,
    passage: _Passage,
    claim: ExtractedClaim,
) -> dict[str, Any] | None:
    start, end = claim.char_start, claim.char_end
    if not claim.claim_text.strip() or not 0 <= start <= end <= len(text):
        logger.warning("ingest: dropping a claim with bad offsets %d..%d", start, end)
        return None
    said_on: datetime | None = passage.input.said_on
    return {
        "namespace": namespace,
        "document_id": document.id,
        "first_version_id": version.id,
        "chunk_id": chunk_id,
        "claim_text": claim.claim_text,
        "normalized_text": normalize_claim_text(claim.claim_text),
        # The stored text is the authority for the span, whatever the extractor echoed.
        "source_span": text[start:end],
        "char_start": start,
        "char_end": end,
        "chunk_char_start": start - chunk.char_start,
        "chunk_char_end": end - chunk.char_start,
        "evidence_spans": [
            {"char_start": s.char_start, "char_end": s.char_end, "text": s.text}
            for s in claim.evidence_spans
        ],
        "asserted_at": said_on,
        "claim_valid_from": claim.claim_valid_from,
        "claim_valid_until": claim.claim_valid_until,
        "claim_valid_precision": claim.claim_valid_precision,
        "claim_valid_kind": claim.claim_valid_kind,
        "is_attributed": claim.is_attributed,
        "holder": claim.holder,
        "polarity": claim.polarity,
        "subject_text": claim.subject_text,
        "predicate_text": claim.predicate_text,
        "object_text": claim.object_text,
        "extra_relations": [
            {
                "subject_text": r.subject_text,
                "predicate_text": r.predicate_text,
                "object_text": r.object_text,
                "dated": r.dated,
            }
            for r in claim.extra_relations
        ],
        "speaker": passage.turn.speaker if passage.turn else None,
        "turn_id": passage.turn.turn_id if passage.turn else None,
    }
