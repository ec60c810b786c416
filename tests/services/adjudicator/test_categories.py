"""Statuses and stances as values, in the wordings people use for a change of them."""

from __future__ import annotations

import pytest

from services.adjudicator.engines.categories import Category, find_categories
from services.adjudicator.engines.values import extract_values


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
        ("greta lindahl is now on board", "for"),
        ("after the demo the cfo is on board as well.", "for"),
    ],
)
def test_coming_round_to_or_turning_against_is_a_stance(text: str, direction: str) -> None:
    assert [c for _, c in find_categories(text)] == [Category("stance", direction)]


@pytest.mark.parametrize(
    "text",
    [
        "the red team went to lunch",
        "the team came round to the office",
        "dana moved to berlin",
        "we have 3 people on board the ship",
    ],
)
def test_words_that_only_look_like_a_change_of_status_or_stance_are_none(text: str) -> None:
    assert find_categories(text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the growth plan is 79 dollars a month", (79.0, "$")),
        ("a seat costs 12 euros", (12.0, "€")),
        ("the fee is 40 quid", (40.0, "£")),
    ],
)
def test_an_amount_in_a_currency_said_in_words_is_the_same_value_as_its_symbol(
    text: str, value: tuple[float, str]
) -> None:
    assert extract_values(text) == [value]


def test_a_weight_in_pounds_is_no_money() -> None:
    assert extract_values("3 pounds of flour") == [(3.0, "")]


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("priya nair is sceptical about the snowflake migration", "against"),
        ("the board is wary of a second price rise", "against"),
        ("tomas has serious doubts about the reorg", "against"),
        ("legal is not convinced by the new contract template", "against"),
        ("ines is keen on moving standups to the afternoon", "for"),
        ("finance is now on board with the travel policy", "for"),
        ("jun is enthusiastic about the kafka pilot", "for"),
    ],
)
def test_doubting_or_being_keen_on_a_proposal_is_a_stance(text: str, direction: str) -> None:
    assert [c for _, c in find_categories(text)] == [Category("stance", direction)]


@pytest.mark.parametrize(
    ("text", "direction"),
    [
        ("kwame is fully in favour of the go rewrite", "for"),
        ("omar is now very much in favour of the reorg", "for"),
        ("dana was strongly opposed to the price rise", "against"),
    ],
)
def test_how_firmly_a_stance_is_held_does_not_hide_it(text: str, direction: str) -> None:
    assert [c for _, c in find_categories(text)] == [Category("stance", direction)]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("The Madrid office has twelve engineers.", 12.0),
        ("Madrid now has fifty-five engineers.", 55.0),
        ("We are down to forty two people.", 42.0),
    ],
)
def test_a_count_in_words_is_a_value(text: str, count: float) -> None:
    assert extract_values(text) == [(count, "")]


def test_one_is_too_often_no_count() -> None:
    assert extract_values("One of our customers renewed.") == []


@pytest.mark.parametrize(
    "text",
    [
        "we have called off the tarn 2.0 launch",
        "the lisbon offsite has been cancelled",
        "we're no longer going ahead with the calderwood deal",
        "zephyrine scrapped the postgres migration",
        "scratch that, it's off",
    ],
)
def test_calling_a_thing_off_in_any_voice_is_its_cancelled_status(text: str) -> None:
    assert [c.value for _, c in find_categories(text)] == ["cancelled"]


def test_off_before_more_words_is_no_cancellation() -> None:
    assert find_categories("the offsite is off to a good start") == []


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("The payments gateway is down.", "down"),
        ("The payments gateway is back up.", "up"),
        ("Checkout has been restored for EU customers.", "restored"),
        ("The escalation is resolved.", "resolved"),
    ],
)
def test_a_systems_health_is_a_status(text: str, status: str) -> None:
    assert [c.value for _, c in find_categories(text.lower())] == [status]


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("Hugo Lind is on paternity leave from 2 March.", "on paternity leave"),
        ("Dana is out of office until Friday.", "out of office"),
        ("Omar is off sick today.", "off sick"),
        ("Hugo Lind is back as of today.", "back"),
        ("Priya is back at work from Monday.", "back at work"),
    ],
)
def test_being_away_and_coming_back_are_statuses(text: str, status: str) -> None:
    # So the return ends the absence, whichever is heard first.
    assert [c.value for _, c in find_categories(text.lower())] == [status]


@pytest.mark.parametrize(
    "text", ["Revenue is up 20%.", "The team is down to 14 people.", "Churn is down by 2 points."]
)
def test_an_amount_going_up_or_down_is_no_status(text: str) -> None:
    assert find_categories(text.lower()) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The Harbor CLI is on version 3.1.2.", (0.0, "#3.1.2")),
        ("The VPN gateway address is 10.20.0.5.", (0.0, "#10.20.0.5")),
        ("We pinned the SDK to 2.4.0 last week.", (0.0, "#2.4.0")),
    ],
)
def test_a_dotted_version_or_address_is_one_value_not_a_crash(
    text: str, value: tuple[float, str]
) -> None:
    assert value in extract_values(text)
