"""Settings of the ingest service: the writing services' ones plus document, chunking and
model-batch knobs."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from shared.config import WriterSettings, settings_with

__all__ = ["IngestSettings", "load_settings"]


_MIB = 1024 * 1024


class IngestSettings(WriterSettings):
    """Settings of the writing services plus what only the ingest pipeline reads."""

    max_document_bytes: int = Field(
        default=10 * _MIB, gt=0, description="Largest document ingest accepts, in bytes."
    )
    chunk_max_chars: int = Field(
        default=1200, ge=200, le=20000, description="Longest chunk, in characters of stored text."
    )
    conversation_chunk_max_chars: int = Field(
        default=240,
        ge=1,
        le=20000,
        description=(
            "Longest chunk of a conversation document; small, so a chunk is about one turn and"
            " a retrieved source points at what was said rather than at a stretch of talk."
        ),
    )
    embedder_threads: int = Field(
        default=1, ge=1, le=16, description="onnxruntime threads of the packaged embedder."
    )
    embed_batch_size: int = Field(
        default=8,
        ge=1,
        le=512,
        description="Texts per onnxruntime batch; long chunks make big batches slow and large.",
    )
    llm_max_tokens: int = Field(
        default=1024, ge=16, le=32768, description="Answer token cap of one LLM extraction call."
    )
    extract_context_chars: int = Field(
        default=2000,
        ge=0,
        le=20000,
        description="Preceding document text given to the extractor to resolve references.",
    )


def load_settings(**overrides: Any) -> IngestSettings:
    """Read settings from the environment; keyword overrides win (tests, CLI flags), and those
    naming another service's knobs are left to that service."""
    return settings_with(IngestSettings, overrides)
