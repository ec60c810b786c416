"""World time of value changes and stances (issue 16, class 4), in phrasings written apart
from the sentences the rules were built on: a value someone sets holds from the day it was
set, open-ended; a stance is held now, whatever date the proposal it is about names."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)


def _main(extractor: RulesExtractor, text: str) -> ExtractedClaim:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert claims, f"no claim from {text!r}"
    return claims[0]


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("The rate limit was raised to 250 requests per second on 1 May 2025.", (2025, 5, 1)),
        ("On 3 February the team increased the storage quota to 2 TB.", (2025, 2, 3)),
        ("The seat price was cut to $18 on 12 June 2025.", (2025, 6, 12)),
        ("Support lowered the first-response target to 4 hours on 2 July 2025.", (2025, 7, 2)),
    ],
)
def test_a_value_set_on_a_day_holds_from_that_day_on(
    extractor: RulesExtractor, text: str, start: tuple[int, int, int]
) -> None:
    claim = _main(extractor, text)
    assert claim.claim_valid_from == datetime(*start, tzinfo=UTC)
    assert claim.claim_valid_until is None
    assert claim.claim_valid_precision == "open"


@pytest.mark.parametrize(
    "text",
    [
        "The warehouse temperature rose to 9 degrees on 4 August 2025.",
        "Sales grew to 1,200 units in July 2025.",
    ],
)
def test_a_measurement_that_moved_by_itself_keeps_its_own_period(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _main(extractor, text)
    assert claim.claim_valid_from is not None
    assert claim.claim_valid_until is not None


@pytest.mark.parametrize(
    "text",
    [
        "Dana Whitfield supports moving the launch to June.",
        "Priya opposes shifting the audit to next March.",
        "Omar is against delaying the release until Q3.",
        "Marta favours pushing the migration to 1 October.",
    ],
)
def test_a_stance_is_not_dated_by_the_proposal_it_is_about(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _main(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (None, None)


def test_a_plan_is_dated_by_what_it_plans(extractor: RulesExtractor) -> None:
    claim = _main(extractor, "Helen wants to roll the feature out from 1 December 2025.")
    assert claim.claim_valid_from == datetime(2025, 12, 1, tzinfo=UTC)


def test_a_verb_misread_as_an_auxiliary_is_the_clause_verb(extractor: RulesExtractor) -> None:
    claim = _main(extractor, "I oppose moving the launch to 14 July.")
    assert claim.subject_text == "I"
    assert claim.predicate_text is not None
    assert claim.predicate_text.startswith("oppose")
    assert claim.claim_valid_from is None


@pytest.mark.parametrize(
    ("text", "anchor"),
    [
        ("The Exports API allows 60 requests per minute.", "Exports API"),
        ("The Exports API rate limit is 60 requests per minute.", "Exports API"),
        ("We lowered the Exports API limit to 30 requests per minute on 2 April 2025.",
         "Exports API"),
        ("The Exports API limit was lowered to 30 requests per minute.", "Exports API"),
        ("They raised the Pro plan price to $40 in May.", "Pro plan"),
        ("The Pro plan price is $40 per month.", "Pro plan"),
        ("The Lisbon office headcount is 64.", "Lisbon office"),
    ],
)  # fmt: skip
def test_a_quantity_of_a_named_thing_is_anchored_on_the_thing_however_it_is_phrased(
    extractor: RulesExtractor, text: str, anchor: str
) -> None:
    # So successive values said as "allows", "the limit is" or "we lowered the limit to" are
    # statements about one entity and can supersede each other.
    assert _main(extractor, text).subject_text == anchor


def test_an_unnamed_quantity_and_a_rescheduled_event_keep_their_own_subjects(
    extractor: RulesExtractor,
) -> None:
    assert _main(extractor, "The rate limit is 10 requests per second.").subject_text == (
        "The rate limit"
    )
    assert _main(extractor, "I oppose moving the launch to 14 July.").subject_text == "I"


@pytest.mark.parametrize(
    "text",
    [
        "The Ledger migration is blocked by a vendor issue.",
        "The claims dashboards are owned by Amara Okafor.",
        "The export job is paused until further notice.",
    ],
)
def test_a_present_tense_passive_without_a_date_is_a_state_not_an_event(
    extractor: RulesExtractor, text: str
) -> None:
    # An event kind made "is blocked" and a later "was completed on 31 January" two separate
    # occurrences when the completion arrived first, so the order changed the beliefs.
    assert _main(extractor, text).claim_valid_kind != "event_time"


def test_a_past_passive_stays_an_event(extractor: RulesExtractor) -> None:
    assert _main(extractor, "The contract was signed by Acme.").claim_valid_kind == "event_time"


@pytest.mark.parametrize(
    "text",
    [
        "The Orion beta has 1,200 active users, up from 800 in April.",
        "Churn is 2.1%, down from 3.4% in Q1.",
        "We now run 40 stores, compared with 28 in 2024.",
    ],
)
def test_the_date_of_the_value_compared_with_is_not_the_claims(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _main(extractor, text)
    assert claim.claim_valid_from is None and claim.claim_valid_until is None


def test_a_change_dated_before_its_comparison_keeps_its_date(extractor: RulesExtractor) -> None:
    claim = _main(extractor, "The price rose to $18 in March, up from $15.")
    assert claim.claim_valid_from is not None and claim.claim_valid_from.month == 3


@pytest.mark.parametrize(
    ("text", "new_day"),
    [
        ("The Heron go-live was pushed back to 14 October.", (2025, 10, 14)),
        ("The vendor review has been postponed until 3 November.", (2025, 11, 3)),
        ("The kickoff is moved to Thursday 9 October.", (2025, 10, 9)),
        ("Our design review got rescheduled for 22 September.", (2025, 9, 22)),
        ("The launch was brought forward to 5 September.", (2025, 9, 5)),
    ],
)
def test_a_date_something_moved_to_is_the_day_it_now_falls_on(
    extractor: RulesExtractor, text: str, new_day: tuple[int, int, int]
) -> None:
    # Not the end of a state ("until"), not a value set from then on ("to 9"), and ahead or
    # behind as the calendar says whatever the tense of "was pushed".
    claim = _main(extractor, text)
    assert claim.claim_valid_from == datetime(*new_day, tzinfo=UTC)
    assert claim.claim_valid_precision == "day"
    assert claim.claim_valid_until == datetime(*new_day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "new_day"),
    [
        # Told as news (present or perfect), a move is a new plan: its date lies ahead, even
        # when the same day last year is nearer to the telling.
        ("The Gemma release has been moved up to 16 March.", (2026, 3, 16)),
        ("We've brought the Orchid beta forward to 21 March.", (2026, 3, 21)),
        ("The audit slips to 10 March.", (2026, 3, 10)),
        ("The team has pulled the pilot forward to 12 March.", (2026, 3, 12)),
        # Narrated in the simple past, the nearest reading stands.
        ("The demo was moved to 20 March.", (2025, 3, 20)),
    ],
)
def test_a_move_told_as_news_lies_ahead(
    extractor: RulesExtractor, text: str, new_day: tuple[int, int, int]
) -> None:
    claim = _main(extractor, text)
    assert claim.claim_valid_from == datetime(*new_day, tzinfo=UTC)
    assert claim.claim_valid_until == datetime(*new_day, tzinfo=UTC)
