"""Claim extraction for the ingest service: the interface and the offline and LLM extractors."""

from __future__ import annotations

from services.ingest.extraction.base import (
    ClaimExtractor,
    ExtractedClaim,
    ExtractedRelation,
    ExtractionInput,
    Polarity,
    Span,
    ValidKind,
    ValidPrecision,
)

__all__ = [
    "ClaimExtractor",
    "ExtractedClaim",
    "ExtractedRelation",
    "ExtractionInput",
    "Polarity",
    "Span",
    "ValidKind",
    "ValidPrecision",
]
