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


@pytest.mark.parametrize(
    ("old", "old_window", "new", "new_window"),
    [
        (
            "In 2024 the Acme Pro plan was $15 per month.",
            Window(day(2024, 1, 1), day(2025, 1, 1), "year"),
            "From 1 June the Acme Pro plan is $25 a month.",
            Window(day(2026, 6, 1), None, "open"),
        ),
        (
            "The Acme office had 40 desks in March 2025.",
            Window(day(2025, 3, 1), day(2025, 4, 1), "month"),
            "Since January 2026 the Acme office has 65 desks.",
            Window(day(2026, 1, 1), None, "open"),
        ),
        (
            "During Q1 2025 the Acme API allowed 500 requests per minute.",
            Window(day(2025, 1, 1), day(2025, 4, 1), "quarter"),
            "As of 2 March 2026 the Acme API allows 900 requests per minute.",
            Window(day(2026, 3, 2), None, "open"),
        ),
    ],
)
def test_another_value_in_a_disjoint_period_is_a_successive_value_not_another_occurrence(
    old: str, old_window: Window, new: str, new_window: Window
) -> None:
    # The same state in two disjoint periods is two stretches of it; another value of the
    # attribute is its next value, whichever arrives first.
    stored = fact(assertion(old, "Acme", window=old_window), said=day(2026, 7, 1))
    later = assertion(new, "Acme", window=new_window, said=day(2026, 6, 2))
    assert decide(later, stored).action in ("supersede", "contradict_group")
    stored_new = fact(assertion(new, "Acme", window=new_window), said=day(2026, 6, 2))
    earlier = assertion(old, "Acme", window=old_window, said=day(2026, 7, 1))
    assert decide(earlier, stored_new).action in ("supersede", "contradict_group")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Status: amber", "Status: green"),
        ("Health - at risk", "Health - on track"),
        ("RAG status: red", "RAG status: amber"),
    ],
)
def test_two_status_lines_of_one_thing_are_values_of_its_status(old: str, new: str) -> None:
    # A status line under a heading says nothing but the value: its skeleton is empty, so
    # the two looked unrelated and neither grouped nor ordered.
    stored = fact(assertion(old, "Acme"), said=day(2026, 3, 2))
    decision = decide(assertion(new, "Acme", said=day(2026, 4, 6)), stored)
    assert (decision.action, decision.candidate_id) == ("contradict_group", "fact-1")
    assert decide(assertion(old, "Acme", said=day(2026, 4, 6)), stored).action == "confirm"
