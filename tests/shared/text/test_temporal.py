"""Temporal phrase spans and their removal from statements."""

from __future__ import annotations

import pytest

from shared.text.temporal import strip_temporal, temporal_spans


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mel joined the payments team yesterday", "Mel joined the payments team"),
        ("Ravi Patel moved to the search team in June.", "Ravi Patel moved to the search team."),
        (
            "The billing migration cutover is scheduled for 2026-06-08.",
            "The billing migration cutover is scheduled.",
        ),
        (
            "The old invoicing service will be retired in Q3 2026.",
            "The old invoicing service will be retired.",
        ),
        ("The cutover moved from June 8 to June 9.", "The cutover moved."),
        ("Melanie started the rotation last week.", "Melanie started the rotation."),
        ("We shipped it on Friday, 3 days ago.", "We shipped it."),
        ("Yesterday, Mel joined the team.", "Mel joined the team."),
        ("The launch slipped to next week; nobody knew.", "The launch slipped; nobody knew."),
        ("The Ledger API launch is on June 8.", "The Ledger API launch."),
        # "as of" before a bare month, whose atom takes the "of"; a date between commas.
        ("As of March the billing migration is on track.", "The billing migration is on track."),
        ("Nimbus is green as of June.", "Nimbus is green."),
        ("The Basic plan, as of May 2026, costs $40.", "The Basic plan costs $40."),
        # the words that make a date a start go with it ("Effective," was left behind)
        ("Effective 1 June 2026, the Pro plan costs $40.", "The Pro plan costs $40."),
        ("With effect from 3 March the desk opens at 8.", "The desk opens at 8."),
        ("Commencing in April, Ola leads the team.", "Ola leads the team."),
        ("Headcount, since June, is 12.", "Headcount is 12."),
    ],
)
def test_strip_temporal_removes_the_phrase_and_its_preposition(text: str, expected: str) -> None:
    assert strip_temporal(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Dana believes the June date is too tight.",
        "The Q3 launch needs an owner.",
        "Ravi recently joined the team.",
        "It is.",
    ],
)
def test_strip_temporal_keeps_names_modifiers_and_vague_words(text: str) -> None:
    assert strip_temporal(text) == text


def test_text_that_is_only_a_date_is_kept_whole() -> None:
    assert strip_temporal("On 2026-06-08.") == "On 2026-06-08."


def test_range_is_one_span_covering_both_ends_and_the_lead_in() -> None:
    text = "It moved from June 8 to June 9."
    (span,) = temporal_spans(text)
    assert text[span[0] : span[1]] == "from June 8 to June 9"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Budget: $150k (raised on 20 February)", "Budget: $150k"),
        ("Status: amber (since 3 March)", "Status: amber"),
        ("Owner: Mei Lin (from 1 April)", "Owner: Mei Lin"),
        ("Jun Park (Koto Labs) joined in May", "Jun Park (Koto Labs) joined"),
    ],
)
def test_a_bracket_the_date_was_all_of_goes_with_it(text: str, expected: str) -> None:
    assert strip_temporal(text) == expected
