"""Skeletons of statements about one subject, however each writer named it (issue 17)."""

from __future__ import annotations

import pytest

from services.adjudicator.engines.skeletons import content_tokens, without_subject


def _skeleton(text: str, subject: str) -> frozenset[str]:
    return content_tokens(without_subject(text, subject), skeleton=True)


@pytest.mark.parametrize(
    ("first", "second", "subject"),
    [
        # Word order: the subject's words spread through the statement.
        ("The billing migration cutover is scheduled for 8 June.",
         "The cutover for the billing migration is scheduled for 15 June.",
         "billing migration cutover"),
        # An alias opening the statement, or after a fronted adverbial.
        ("Rhea Kapoor is against the Frankfurt move.", "Rhea now backs the Frankfurt move.",
         "Rhea Kapoor"),
        ("Dana Okafor opposes the Stripe plan.",
         "After the pilot Dana is in favour of the Stripe plan.", "Dana"),
        # The subject is the attribute: it stays a shared word.
        ("2025 churn ended up at 4%.", "2025 churn was 6%.", "2025 churn"),
    ],
)  # fmt: skip
def test_one_subject_named_two_ways_leaves_one_attribute(
    first: str, second: str, subject: str
) -> None:
    a, b = _skeleton(first, subject), _skeleton(second, subject)
    assert "subject" in a and "subject" in b
    assert a <= b or b <= a, (a, b)


def test_another_entitys_name_is_not_the_subject() -> None:
    assert "globex" in _skeleton("Dana Okafor moved to Globex.", "Dana")


@pytest.mark.parametrize(
    ("first", "second", "subject"),
    [
        ("The support team had 14 people.", "Support headcount grew to 19.", "support team"),
        ("The Payments team has 9 engineers.", "The payments team reached 15 people.",
         "Payments team"),
        ("The steering committee has 5 members.", "The steering committee headcount is 7.",
         "steering committee"),
        ("Lumio employs 120 people.", "Lumio has 140 employees.", "Lumio"),
    ],
)  # fmt: skip
def test_a_headcount_in_any_of_its_words_is_one_attribute(
    first: str, second: str, subject: str
) -> None:
    assert _skeleton(first, subject) == _skeleton(second, subject) == {"subject", "staff"}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The first-response SLA for Enterprise tickets is 4 hours.",
         "The Enterprise first-response SLA drops to 2 hours."),
        ("The retention period is 30 days.", "The retention period was extended to 90 days."),
        ("The Pro plan discount is 20%.", "The Pro plan discount was cut to 10%."),
    ],
)  # fmt: skip
def test_how_a_setting_moved_is_no_part_of_the_attribute(first: str, second: str) -> None:
    a, b = _skeleton(first, "SLA"), _skeleton(second, "SLA")
    assert a <= b or b <= a, (a, b)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Loomwork Pro costs EUR 24 per user per month, billed annually.",
         "Loomwork Pro moves to EUR 26/user/month, so your renewal quote will reflect that."),
        ("The Team plan is $40 per seat per year.", "The Team plan is now $45 a seat a year."),
        ("Loomwork Pro is 79 dollars a month.", "Pricing update: Loomwork Pro is EUR 29 per user."),
    ],
)  # fmt: skip
def test_a_prices_unit_and_what_follows_from_it_are_no_part_of_the_attribute(
    first: str, second: str
) -> None:
    a, b = _skeleton(first, "Loomwork Pro Team plan"), _skeleton(second, "Loomwork Pro Team plan")
    assert a <= b or b <= a, (a, b)
