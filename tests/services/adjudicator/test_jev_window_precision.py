"""The precision of a window the engine completes follows the side that dates it."""

from __future__ import annotations

from services.adjudicator.domain import Window
from tests.services.adjudicator.test_jev import assertion, day, decide, fact

UNDATED = "The Payments rewrite uses the Ledger API."
ENDED = "The Payments rewrite used the Ledger API until the end of March."
ENDED_WINDOW = Window(None, day(2026, 4, 1), "month")


def test_an_end_added_to_an_undated_fact_brings_its_precision() -> None:
    existing = fact(assertion(UNDATED, "Payments rewrite", "uses", "Ledger API"))
    incoming = assertion(ENDED, "Payments rewrite", "uses", "Ledger API", window=ENDED_WINDOW)
    decision = decide(incoming, existing)
    assert decision.action == "adjust"
    assert decision.new_window == ENDED_WINDOW  # was precision "unknown" in this order only


def test_the_undated_claim_arriving_second_leaves_the_dated_window() -> None:
    existing = fact(assertion(ENDED, "Payments rewrite", "uses", "Ledger API", window=ENDED_WINDOW))
    decision = decide(assertion(UNDATED, "Payments rewrite", "uses", "Ledger API"), existing)
    assert decision.action == "confirm"
