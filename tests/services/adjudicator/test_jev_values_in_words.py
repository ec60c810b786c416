"""A value said in words in one source and with a symbol in another is one attribute's value."""

from __future__ import annotations

import pytest

from services.adjudicator.domain import Window
from tests.services.adjudicator.test_jev import assertion, day, decide, fact


@pytest.mark.parametrize(
    "spoken",
    [
        "The Acme Growth plan is 79 dollars a month right now.",
        "The Acme Growth plan is 79 bucks a month.",
        "Right now the Acme Growth plan is 79 USD a month.",
    ],
)
def test_a_price_said_in_words_is_superseded_by_the_dated_new_price(spoken: str) -> None:
    said = fact(assertion(spoken, "Acme", said=day(2026, 1, 20)), said=day(2026, 1, 20))
    new_price = assertion(
        "Starting 1 April 2026, the Acme Growth plan costs $89 per month.",
        "Acme",
        window=Window(day(2026, 4, 1), None, "open"),
        said=day(2026, 4, 2),
    )
    decision = decide(new_price, said)
    assert (decision.action, decision.candidate_id) == ("supersede", "fact-1")


def test_the_same_price_in_words_and_symbol_is_confirmed() -> None:
    said = fact(assertion("The Acme Growth plan is 79 dollars a month.", "Acme"))
    decision = decide(assertion("The Acme Growth plan costs $79 per month.", "Acme"), said)
    assert decision.action == "confirm"
