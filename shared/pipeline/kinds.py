"""Work item kinds of the document pipeline, one definition each."""

from __future__ import annotations

from typing import Final

__all__ = [
    "ADJUDICATE_KIND",
    "ADJUDICATION_KIND_PREFIX",
    "EMBED_KIND",
    "EXTRACT_KIND",
    "INGEST_KINDS",
]

EXTRACT_KIND: Final = "ingest.extract"
"""Convert, chunk and extract claims of one version (ingest)."""
EMBED_KIND: Final = "ingest.embed"
"""Embed a version's new chunks and claims, then hand the version to the adjudicator (ingest)."""
ADJUDICATE_KIND: Final = "adjudicate.version"
"""Adjudicate a version's claims and retire the testimony it replaced (adjudicator)."""
INGEST_KINDS: Final = (EXTRACT_KIND, EMBED_KIND)
"""What ingest workers take."""
ADJUDICATION_KIND_PREFIX: Final = "adjudicate."
"""Every adjudicator kind starts so (tests and benchmarks run private `adjudicate.*` kinds);
`ReplayDeadLetters` of the adjudicator replays the items of all of them."""
