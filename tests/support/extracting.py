"""Running the rules extractor over one passage in tests, and reading what it stated."""

from __future__ import annotations

from datetime import UTC, datetime

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

# The said-on time of the passages (a Tuesday): relative dates resolve against it.
SAID = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)

Triple = tuple[str | None, str | None, str | None]


def extract(extractor: RulesExtractor, text: str, title: str = "") -> list[ExtractedClaim]:
    """The claims of `text` said on `SAID` in a document titled `title`."""
    passage = ExtractionInput(text=text, said_on=SAID, document_title=title)
    return extractor.extract_batch([passage])[0]


def stated_relations(claims: list[ExtractedClaim]) -> set[Triple]:
    """Every (subject, predicate, object) the claims state, their further relations too."""
    found = {(c.subject_text, c.predicate_text, c.object_text) for c in claims}
    for claim in claims:
        found |= {(r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations}
    return found
