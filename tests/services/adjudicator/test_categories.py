"""Statuses and stances as values, in the wordings people use for a change of them."""

from __future__ import annotations

import pytest

from services.adjudicator.engines.categories import Category, find_categories


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("project kestrel status changed to green on 30 april", "green"),
        ("the atlas migration went from amber to red", "red"),
        ("the orion launch was downgraded to at risk", "at risk"),
        ("nimbus flipped to amber after the vendor slipped", "amber"),
    ],
)
def test_a_status_entered_is_a_status_value(text: str, status: str) -> None:
    assert Category("status", status) in [c for _, c in find_categories(text)]


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("lena vogt has come round to splitting the monolith", "for"),
        ("after the pilot marek came around to the idea of a four-day week", "for"),
        ("ayesha has warmed to the hybrid-work policy", "for"),
        ("harriet turned against outsourcing the night shift", "against"),
        ("the cfo has soured on the rebrand", "against"),
    ],
)
def test_coming_round_to_or_turning_against_is_a_stance(text: str, direction: str) -> None:
    assert [c for _, c in find_categories(text)] == [Category("stance", direction)]


@pytest.mark.parametrize(
    "text",
    ["the red team went to lunch", "the team came round to the office", "dana moved to berlin"],
)
def test_words_that_only_look_like_a_change_of_status_or_stance_are_none(text: str) -> None:
    assert find_categories(text) == []
