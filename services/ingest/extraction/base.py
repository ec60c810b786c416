"""The claim-extractor interface: passages in, grounded self-contained claims out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

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

ValidPrecision = Literal["unknown", "instant", "day", "month", "quarter", "year", "open"]
ValidKind = Literal["event_time", "effective_period", "measurement_period", "proposition_validity"]
Polarity = Literal["positive", "negative"]


@dataclass(frozen=True)
class ExtractionInput:
    """One passage (a paragraph or one conversation turn's text) and what surrounds it."""

    text: str
    said_on: datetime | None = None
    speaker: str | None = None
    document_title: str | None = None
    context: str | None = None
    base_offset: int = 0
    # Who wrote the document (an email's signature or "From:" line): whom "I" and "my" mean
    # in a passage that has no speaker of its own.
    author: str | None = None
    # The Markdown headings above the passage, outermost first ("Payments Platform",
    # "People"): what the lines under them are about, when a heading names a thing.
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Span:
    """A half-open character range in the stored document and the exact text it covers."""

    char_start: int
    char_end: int
    text: str


@dataclass(frozen=True)
class ExtractedRelation:
    """A further (subject, predicate phrase, object) one claim states besides its main one:
    "Dana Whitfield, the CTO of Northwind, approved the budget" also places Dana at Northwind;
    "was hired by Umbrella from Hooli" also ends a placement at Hooli."""

    subject_text: str
    predicate_text: str
    object_text: str
    # False for a role an apposition describes ("Helga Brandt, head of research at Novalis,
    # will join Quanta from 1 September"): held when said, not dated by the clause's event.
    dated: bool = True


@dataclass(frozen=True)
class ExtractedClaim:
    """One self-contained statement; offsets are absolute in the stored document and
    `claim_valid_until` is the inclusive end as stated (the last day, or the instant)."""

    claim_text: str
    char_start: int
    char_end: int
    source_span: str
    evidence_spans: tuple[Span, ...]
    claim_valid_from: datetime | None
    claim_valid_until: datetime | None
    claim_valid_precision: ValidPrecision
    claim_valid_kind: ValidKind | None
    is_attributed: bool
    holder: str | None
    polarity: Polarity
    subject_text: str | None
    predicate_text: str | None
    object_text: str | None
    extra_relations: tuple[ExtractedRelation, ...] = ()


class ClaimExtractor(Protocol):
    """Anything that turns passages into claims; one result list per input, same order."""

    name: str
    version: str

    def extract_batch(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        """Extract claims from each input."""
        ...
