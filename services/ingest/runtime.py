"""The extractor and embedder of one process: built once, loaded lazily, one call at a time."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.ingest.config import IngestSettings
from services.ingest.extraction.base import ClaimExtractor, ExtractedClaim, ExtractionInput
from shared.embedding import Embedder, OnnxMiniLmEmbedder, create_embedder

__all__ = ["ExtractionOutcome", "ModelRuntime", "build_extractor"]

logger = logging.getLogger(__name__)


def build_extractor(settings: IngestSettings) -> ClaimExtractor:
    """The configured extractor; nothing heavy loads until its first batch."""
    if settings.claim_extractor == "llm":
        from services.ingest.extraction.llm import LlmExtractor

        def client() -> Any:
            from openai import OpenAI

            key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else "unused"
            return OpenAI(base_url=settings.llm_base_url, api_key=key)

        assert settings.llm_model is not None  # Settings refuses llm without a model
        return LlmExtractor(
            client,
            settings.llm_model,
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            max_tokens=settings.llm_max_tokens,
        )
    from services.ingest.extraction.rules import load_rules_extractor

    return load_rules_extractor()


@dataclass(frozen=True)
class ExtractionOutcome:
    """Claims per input, plus what a grounding gate dropped (LLM extractor only)."""

    claims: list[list[ExtractedClaim]]
    drops: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0


class ModelRuntime:
    """Owns the extractor and the embedder of one ingest process.

    Each model runs in a worker thread so the gRPC loop stays responsive, and under its own
    lock: spaCy pipelines are not meant to be shared across threads, and one extraction next
    to one embedding already keeps two cores busy.
    """

    def __init__(
        self,
        settings: IngestSettings,
        *,
        extractor: ClaimExtractor | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self._settings = settings
        self._extractor = extractor
        self._embedder = embedder
        self._extract_lock = threading.Lock()
        self._embed_lock = threading.Lock()

    @property
    def extractor(self) -> ClaimExtractor:
        if self._extractor is None:
            self._extractor = build_extractor(self._settings)
        return self._extractor

    @property
    def extractor_key(self) -> tuple[str, str]:
        """(name, version) stored on every claim; read per work item, never cached."""
        return self.extractor.name, self.extractor.version

    def _embedder_instance(self) -> Embedder:
        if self._embedder is None:
            s = self._settings
            if s.embedder == "onnx":
                self._embedder = OnnxMiniLmEmbedder.load(
                    threads=s.embedder_threads,
                    batch_size=s.embed_batch_size,
                    int8_compute=s.embedder_int8_compute,
                )
                return self._embedder
            self._embedder = create_embedder(
                s.embedder,
                base_url=s.embedding_base_url,
                model=s.embedding_model,
                api_key=s.llm_api_key.get_secret_value() if s.llm_api_key else None,
                timeout=s.llm_timeout_seconds,
                threads=s.embedder_threads,
            )
        return self._embedder

    def _extract(self, inputs: Sequence[ExtractionInput]) -> ExtractionOutcome:
        with self._extract_lock:
            started = time.perf_counter()
            extractor = self.extractor
            claims = extractor.extract_batch(inputs)
            drops = [
                {"reason": d.reason, "claim_text": d.claim_text, "source_span": d.source_span}
                for d in getattr(extractor, "last_drops", ())
            ]
            seconds = time.perf_counter() - started
        return ExtractionOutcome(claims, drops, seconds)

    def _embed(self, texts: Sequence[str]) -> tuple[list[list[float]], float]:
        with self._embed_lock:
            started = time.perf_counter()
            matrix = self._embedder_instance().embed(list(texts))
            seconds = time.perf_counter() - started
        rows: list[list[float]] = matrix.tolist()
        return rows, seconds

    async def extract(self, inputs: Sequence[ExtractionInput]) -> ExtractionOutcome:
        if not inputs:
            return ExtractionOutcome([])
        return await asyncio.to_thread(self._extract, list(inputs))

    async def embed(self, texts: Sequence[str]) -> tuple[list[list[float]], float]:
        """Rows in input order, and the seconds the model ran (waiting for it excluded)."""
        if not texts:
            return [], 0.0
        return await asyncio.to_thread(self._embed, list(texts))

    def warm(self) -> None:
        """Load both models now (run in a background thread at start-up)."""
        try:
            self._embed(["warm up"])
            if self._settings.claim_extractor == "rules":
                self._extract([ExtractionInput(text="Warm up the pipeline.")])
        except Exception:
            # A broken model shows up again, with its error, on the first real work item.
            logger.exception("ingest: warming the models failed")
