"""The jev decision model on scenarios from the adjudication decision table."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.domain import (
    Assertion,
    CandidateFact,
    ClaimView,
    Decision,
    EntityRef,
    EvidenceItem,
    Polarity,
    Window,
)
from services.adjudicator.engines.base import DEFAULT_CONFIDENCE_FLOOR, adjudicate, validate
from services.adjudicator.engines.features import extract_features
from services.adjudicator.engines.jev import JevEngine, PlattCalibration
from services.adjudicator.engines.values import extract_values
from services.adjudicator.normalization import Normalizer, PredicateVocabulary

NAMES = [
    "Ravi",
    "Mei Lin",
    "Oskar",
    "Billing migration",
    "Payments rewrite",
    "Search team",
    "Platform team",
    "Acme",
    "Globex",
    "Initech",
    "Dana",
    "Tomasz",
    "Data team",
    "Berlin",
    "Lisbon",
    "KubeCon",
    "Harbor Robotics",
    "Dana's team",
    "Ledger API",
    "PyData",
]
ENTITIES = {name.lower(): EntityRef(f"ent-{i}", name) for i, name in enumerate(NAMES)}
NORMALIZER = Normalizer(PredicateVocabulary())


def day(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def assertion(
    text: str,
    subject: str,
    predicate: str | None = None,
    obj: str | None = None,
    *,
    window: Window | None = None,
    kind: str | None = None,
    polarity: Polarity = "positive",
    said: datetime | None = None,
) -> Assertion:
    claim = ClaimView(
        claim_id=f"claim-{abs(hash(text)) % 10_000}",
        document_id=f"doc-{abs(hash(text)) % 97}",
        claim_text=text,
        asserted_at=said or day(2026, 2, 2),
        polarity=polarity,
        is_attributed=False,
        holder=None,
        subject_text=subject,
        predicate_text=predicate,
        object_text=obj,
        window=window or Window(),
        window_kind=kind,
    )
    (result,) = NORMALIZER.normalize_claim(claim, lambda t: ENTITIES.get(t.lower())).assertions
    return result


def fact(
    source: Assertion,
    *,
    fact_id: str = "fact-1",
    window: Window | None = None,
    similarity: float = 0.85,
    said: datetime | None = None,
) -> CandidateFact:
    return CandidateFact(
        fact_id=fact_id,
        kind=source.kind,
        subject_entity_id=source.subject_entity_id,
        predicate=source.predicate,
        object_entity_id=source.object_entity_id,
        statement=source.statement,
        label=source.label,
        window=source.window if window is None else window,
        evidence=(
            EvidenceItem(
                source.claim.claim_id,
                source.claim.document_id,
                "supports",
                said or day(2026, 1, 5),
                source.claim.claim_text,
            ),
        ),
        similarity=similarity,
        polarity=source.polarity,
    )


def decide(incoming: Assertion, *candidates: CandidateFact) -> Decision:
    decision = JevEngine().decide_now(incoming, candidates)
    assert validate(decision, incoming, candidates) == []
    return decision


def assert_confident(decision: Decision) -> None:
    assert decision.confidence >= DEFAULT_CONFIDENCE_FLOOR, decision


@pytest.mark.parametrize(
    ("earlier", "later", "subject", "obj"),
    [
        (
            ("Ravi works on the billing migration.", "works on"),
            ("Ravi is still working on the billing migration.", "is working on"),
            "Ravi",
            "Billing migration",
        ),
        (
            ("Mei Lin is employed by Globex.", "is employed by"),
            ("Mei Lin works at Globex.", "works at"),
            "Mei Lin",
            "Globex",
        ),
    ],
)
def test_repeated_relation_is_confirmed(
    earlier: tuple[str, str], later: tuple[str, str], subject: str, obj: str
) -> None:
    existing = fact(assertion(earlier[0], subject, earlier[1], obj))
    decision = decide(assertion(later[0], subject, later[1], obj), existing)
    assert (decision.action, decision.candidate_id, decision.stance) == (
        "confirm",
        "fact-1",
        "supports",
    )
    assert decision.new_window is None
    assert_confident(decision)


def test_reworded_observation_with_equal_value_is_confirmed() -> None:
    window = Window(day(2026, 9, 30), day(2026, 10, 1), "day")
    existing = fact(
        assertion(
            "The payments rewrite deadline is 2026-09-30.",
            "Payments rewrite",
            window=window,
            kind="event_time",
        ),
        similarity=0.9,
    )
    decision = decide(
        assertion(
            "The deadline for the payments rewrite is September 30, 2026.",
            "Payments rewrite",
            window=window,
            kind="event_time",
        ),
        existing,
    )
    assert decision.action == "confirm"
    assert_confident(decision)


def test_same_relation_with_a_start_date_adjusts_the_window() -> None:
    existing = fact(
        assertion(
            "Oskar is a member of the platform team.", "Oskar", "is a member of", "Platform team"
        )
    )
    dated = Window(day(2025, 4), None, "month")
    decision = decide(
        assertion(
            "Oskar has been on the team of the platform team since April 2025.",
            "Oskar",
            "has been on the team of",
            "Platform team",
            window=dated,
            kind="effective_period",
        ),
        existing,
    )
    assert (decision.action, decision.window_action) == ("adjust", "replace")
    assert decision.new_window == Window(day(2025, 4), None, "month")
    assert_confident(decision)


@pytest.mark.parametrize(
    ("original", "correction", "old_window", "expected_start"),
    [
        (
            "The billing migration cutover is scheduled for 2026-06-08.",
            "The billing migration cutover moved from June 8 to June 9.",
            Window(day(2026, 6, 8), day(2026, 6, 9), "day"),
            day(2026, 6, 9),
        ),
        (
            "The Ledger API launch is planned for 5 November 2025.",
            "The Ledger API launch was postponed from 5 November to 6 November.",
            Window(day(2025, 11, 5), day(2025, 11, 6), "day"),
            day(2025, 11, 6),
        ),
    ],
)
def test_correction_moves_the_window_and_keeps_the_fact(
    original: str, correction: str, old_window: Window, expected_start: datetime
) -> None:
    subject = "Billing migration" if "billing" in original else "Ledger API"
    existing = fact(
        assertion(original, subject, window=old_window, kind="event_time"), similarity=0.8
    )
    decision = decide(assertion(correction, subject, said=day(2026, 3, 3)), existing)
    assert (decision.action, decision.candidate_id) == ("adjust", "fact-1")
    assert decision.new_window is not None
    assert decision.new_window.valid_from == expected_start
    assert_confident(decision)


def test_new_employer_later_supersedes_and_closes_at_world_start_not_said_on() -> None:
    existing = fact(
        assertion(
            "Tomasz works for Acme.",
            "Tomasz",
            "works for",
            "Acme",
            window=Window(day(2023, 2), None, "month"),
            kind="effective_period",
        )
    )
    successor_start = day(2026, 3, 1)
    decision = decide(
        assertion(
            "Tomasz joined Initech as an engineer in March 2026.",
            "Tomasz",
            "works for",
            "Initech",
            window=Window(successor_start, None, "month"),
            kind="effective_period",
            said=day(2026, 5, 20),
        ),
        existing,
    )
    assert (decision.action, decision.window_action) == ("supersede", "close")
    assert decision.new_window == Window(day(2023, 2), successor_start, "month")
    assert_confident(decision)


def test_moving_to_another_team_supersedes_the_earlier_assignment() -> None:
    existing = fact(
        assertion("Ravi works on the billing migration.", "Ravi", "works on", "Billing migration"),
        similarity=0.4,
    )
    decision = decide(
        assertion(
            "Ravi moved to the search team in June 2026.",
            "Ravi",
            "moved to",
            "Search team",
            window=Window(day(2026, 6), None, "month"),
            kind="effective_period",
            said=day(2026, 6, 28),
        ),
        existing,
    )
    assert decision.action == "supersede"
    assert decision.new_window is not None
    assert decision.new_window.valid_until == day(2026, 6)
    assert_confident(decision)


def test_changed_value_with_transition_cue_supersedes_observation() -> None:
    existing = fact(
        assertion(
            "Harbor Robotics has 120 employees.",
            "Harbor Robotics",
            window=Window(day(2025, 1), None, "month"),
            kind="effective_period",
        ),
        similarity=0.88,
    )
    decision = decide(
        assertion(
            "Harbor Robotics now has 150 employees.",
            "Harbor Robotics",
            window=Window(day(2026, 1), None, "month"),
            kind="effective_period",
        ),
        existing,
    )
    assert decision.action == "supersede"
    assert decision.new_window == Window(day(2025, 1), day(2026, 1), "month")


def test_ending_a_relation_with_a_date_closes_it_then() -> None:
    """ "no longer … since 2024" is the relation's end, as "moved away in 2024" is: read as a
    negation it disputed the older relation when that arrived after it (order dependence)."""
    existing = fact(
        assertion(
            "Dana lives in Berlin.",
            "Dana",
            "lives in",
            "Berlin",
            window=Window(day(2020, 1), None, "year"),
        )
    )
    decision = decide(
        assertion(
            "Dana no longer lives in Berlin since 2024.",
            "Dana",
            "lives in",
            "Berlin",
            polarity="negative",
            window=Window(day(2024, 1), None, "year"),
        ),
        existing,
    )
    assert decision.action == "adjust"
    assert decision.new_window == Window(day(2020, 1), day(2024, 1), "year")


@pytest.mark.parametrize(
    ("positive", "negative", "subject", "predicate", "obj"),
    [
        (
            "Mei Lin uses the Ledger API.",
            "Mei Lin does not use the Ledger API.",
            "Mei Lin",
            "uses",
            "Ledger API",
        ),
        ("Oskar knows Dana.", "Oskar does not know Dana.", "Oskar", "knows", "Dana"),
    ],
)
def test_negation_of_existing_relation_attaches_as_contradicting_evidence(
    positive: str, negative: str, subject: str, predicate: str, obj: str
) -> None:
    existing = fact(assertion(positive, subject, predicate, obj))
    decision = decide(assertion(negative, subject, predicate, obj, polarity="negative"), existing)
    assert (decision.action, decision.stance, decision.candidate_id) == (
        "contradict_evidence",
        "contradicts",
        "fact-1",
    )
    assert_confident(decision)


def test_negated_observation_attaches_as_contradicting_evidence() -> None:
    existing = fact(assertion("Ravi approved the schema change.", "Ravi"), similarity=0.9)
    decision = decide(
        assertion("Ravi did not approve the schema change.", "Ravi", polarity="negative"),
        existing,
    )
    assert decision.action == "contradict_evidence"
    assert_confident(decision)


def test_different_date_for_same_scheduled_event_forms_contradiction_group() -> None:
    existing = fact(
        assertion(
            "The billing migration cutover is scheduled for 2026-06-08.",
            "Billing migration",
            window=Window(day(2026, 6, 8), day(2026, 6, 9), "day"),
            kind="event_time",
        ),
        similarity=0.95,
    )
    decision = decide(
        assertion(
            "The billing migration cutover is scheduled for 2026-06-15.",
            "Billing migration",
            window=Window(day(2026, 6, 15), day(2026, 6, 16), "day"),
            kind="event_time",
            said=day(2026, 4, 28),
        ),
        existing,
    )
    assert (decision.action, decision.stance) == ("contradict_group", "contradicts")
    assert decision.new_window is None
    assert_confident(decision)


def test_two_managers_at_the_same_time_form_contradiction_group() -> None:
    existing = fact(assertion("Mei Lin reports to Dana.", "Mei Lin", "reports to", "Dana"))
    decision = decide(
        assertion("Mei Lin reports to Oskar.", "Mei Lin", "reports to", "Oskar"), existing
    )
    assert decision.action == "contradict_group"
    assert_confident(decision)


def test_same_win_in_different_years_stays_two_facts() -> None:
    existing = fact(
        assertion(
            "Harbor Robotics won the regional robotics cup in 2023.",
            "Harbor Robotics",
            window=Window(day(2023, 1), day(2024, 1), "year"),
            kind="event_time",
        ),
        similarity=0.96,
    )
    decision = decide(
        assertion(
            "Harbor Robotics won the regional robotics cup in 2025.",
            "Harbor Robotics",
            window=Window(day(2025, 1), day(2026, 1), "year"),
            kind="event_time",
        ),
        existing,
    )
    assert (decision.action, decision.candidate_id) == ("add", None)
    assert_confident(decision)


def test_attending_the_same_conference_in_another_year_is_a_new_fact() -> None:
    existing = fact(
        assertion(
            "Oskar attended KubeCon in May 2024.",
            "Oskar",
            "attended",
            "KubeCon",
            window=Window(day(2024, 5), day(2024, 6), "month"),
            kind="event_time",
        )
    )
    decision = decide(
        assertion(
            "Oskar attended KubeCon in April 2025.",
            "Oskar",
            "attended",
            "KubeCon",
            window=Window(day(2025, 4), day(2025, 5), "month"),
            kind="event_time",
        ),
        existing,
    )
    assert decision.action == "add"


def test_non_functional_predicate_with_another_object_is_a_new_fact() -> None:
    existing = fact(assertion("Tomasz uses the Ledger API.", "Tomasz", "uses", "Ledger API"))
    decision = decide(assertion("Tomasz knows Dana.", "Tomasz", "knows", "Dana"), existing)
    assert decision.action == "add"
    second = decide(
        assertion("Tomasz attended PyData.", "Tomasz", "attended", "PyData"),
        fact(assertion("Tomasz attended KubeCon.", "Tomasz", "attended", "KubeCon")),
    )
    assert second.action == "add"


def test_unrelated_observation_about_same_entity_is_a_new_fact() -> None:
    existing = fact(assertion("Acme has 40 employees.", "Acme"), similarity=0.3)
    decision = decide(assertion("Acme opened an office in Lisbon.", "Acme"), existing)
    assert decision.action == "add"
    assert_confident(decision)


def test_engine_picks_the_matching_candidate_among_several() -> None:
    unrelated = fact(
        assertion("Dana uses the Ledger API.", "Dana", "uses", "Ledger API"), fact_id="fact-a"
    )
    target = fact(
        assertion("Dana reports to Oskar.", "Dana", "reports to", "Oskar"), fact_id="fact-b"
    )
    decision = decide(
        assertion("Dana reports to Oskar.", "Dana", "reports to", "Oskar"), unrelated, target
    )
    assert (decision.action, decision.candidate_id) == ("confirm", "fact-b")


def test_weaker_overlap_gets_lower_confidence_than_clear_repeat() -> None:
    base = assertion("Dana thinks the payments rewrite is understaffed.", "Dana")
    clear = decide(
        assertion("Dana thinks the payments rewrite is understaffed.", "Dana"),
        fact(base, similarity=0.97),
    )
    vague = decide(
        assertion("Dana thinks the payments rewrite needs a new design.", "Dana"),
        fact(base, similarity=0.6),
    )
    assert clear.action == "confirm"
    assert vague.confidence < clear.confidence


async def test_clear_repeat_passes_validation_and_floor_unchanged() -> None:
    incoming = assertion(
        "Ravi works on the billing migration.", "Ravi", "works on", "Billing migration"
    )
    existing = fact(incoming)
    result = await adjudicate(JevEngine(), incoming, [existing])
    assert result.decision.action == "confirm"
    assert result.decision.method == "jev"
    assert result.problems == ()


def test_platt_fit_learns_sharper_map_from_labelled_decisions() -> None:
    # Raw probability 0.7 turns out right 95 % of the time, 0.3 right 5 %: the fitted map
    # must push confidence further from 0.5 than the raw score.
    probabilities = [0.7] * 20 + [0.3] * 20
    correct = [True] * 19 + [False] + [False] * 19 + [True]
    calibration = PlattCalibration.fit(probabilities, correct)
    assert calibration(0.7) == pytest.approx(0.95, abs=0.01)
    assert calibration(0.3) == pytest.approx(0.05, abs=0.01)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("The Billing migration is on track.", "The Billing migration is at risk."),
        (
            "Billing migration status: the billing migration is amber.",
            "The billing migration is now red.",
        ),
        ("The Billing migration was blocked.", "The billing migration is unblocked again."),
        ("Dana opposes the Billing migration.", "Dana now backs the billing migration."),
        (
            "Dana is in favour of the billing migration.",
            "Dana has been against the billing migration.",
        ),
    ],
)
def test_a_new_status_or_stance_is_a_rival_value_of_the_same_attribute(
    earlier: str, later: str
) -> None:
    subject = "Dana" if earlier.startswith("Dana") else "Billing migration"
    existing = fact(assertion(earlier, subject, kind="proposition_validity"))
    features = extract_features(
        assertion(later, subject, window=Window(day(2026, 3), None, "month")), existing
    )
    assert features.rival > 0.4, features
    assert features.same_proposition == 0.0


def test_the_same_status_from_a_stated_date_is_the_same_value() -> None:
    existing = fact(assertion("The Billing migration is green.", "Billing migration"))
    features = extract_features(
        assertion(
            "Since 3 March 2026 the billing migration is green.",
            "Billing migration",
            window=Window(day(2026, 3, 3), None, "day"),
        ),
        existing,
    )
    assert features.rival == 0.0
    assert features.same_proposition > 0.5


def test_a_colour_that_is_not_a_status_is_no_value() -> None:
    assert extract_values("The red team went live in Lisbon.") == []


@pytest.mark.parametrize(
    "later",
    [
        "Correction: the Lisbon offsite is on 14 May 2026, not 12 May as announced.",
        "The Lisbon offsite is on 14 May 2026 instead of 12 May.",
        "The Lisbon offsite takes place on 14 May 2026 rather than 12 May.",
    ],
)
def test_a_date_said_to_replace_the_old_one_is_a_correction(later: str) -> None:
    existing = fact(
        assertion(
            "The Lisbon offsite is on 12 May 2026.",
            "Lisbon",
            window=Window(day(2026, 5, 12), day(2026, 5, 13), "day"),
            kind="event_time",
        )
    )
    features = extract_features(
        assertion(
            later,
            "Lisbon",
            window=Window(day(2026, 5, 14), day(2026, 5, 15), "day"),
            kind="event_time",
        ),
        existing,
    )
    assert features.correction == 1.0
    assert features.correction_target is not None and features.correction_target.day == 14


def test_the_reason_for_a_change_is_not_part_of_the_attribute() -> None:
    existing = fact(assertion("The Billing migration is amber.", "Billing migration"))
    features = extract_features(
        assertion(
            "The billing migration is red because the vendor missed the API drop.",
            "Billing migration",
            window=Window(day(2026, 3), None, "month"),
        ),
        existing,
    )
    assert features.skeleton == 1.0


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "The Acme support plan costs $300.",
            "From March 2026 the Acme support plan costs $350, up from $300.",
        ),
        ("Acme has 40 engineers.", "Starting March 2026 Acme has 35 engineers, down from 40."),
        (
            "Dana supports the Acme merger.",
            "Since the board review in March 2026 Dana opposes the Acme merger.",
        ),
    ],
)
def test_context_beside_a_new_value_does_not_hide_that_it_replaces_the_old(
    earlier: str, later: str
) -> None:
    existing = fact(assertion(earlier, "Acme"))
    decision = decide(
        assertion(
            later, "Acme", window=Window(day(2026, 3), None, "month"), kind="effective_period"
        ),
        existing,
    )
    assert decision.action == "supersede"
    assert_confident(decision)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("From January 2026 Acme paid 3.1% interest.", "From March 2026 Acme pays 2.8% interest."),
        (
            "From January 2026 Acme sold 40 licences a week.",
            "From March 2026 Acme sells 55 licences a week.",
        ),
        ("From January 2026 Acme grew 4% a month.", "From March 2026 Acme grows 2% a month."),
    ],
)
def test_a_value_stated_in_another_tense_is_still_the_same_attribute(
    earlier: str, later: str
) -> None:
    existing = fact(
        assertion(
            earlier, "Acme", window=Window(day(2026, 1), None, "open"), kind="effective_period"
        )
    )
    decision = decide(
        assertion(
            later, "Acme", window=Window(day(2026, 3), None, "open"), kind="effective_period"
        ),
        existing,
    )
    assert decision.action == "supersede"
    assert_confident(decision)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "Dana opposes the move to a four-day week.",
            "Since the pilot results Dana supports the four-day week.",
        ),
        ("Dana opposes the Acme merger.", "After the board review Dana supports the Acme merger."),
        (
            "Dana is against remote-first hiring.",
            "Following the survey Dana is for remote-first hiring.",
        ),
    ],
)
def test_an_adverbial_fronted_before_the_holder_is_not_part_of_the_attribute(
    earlier: str, later: str
) -> None:
    existing = fact(assertion(earlier, "Dana"))
    features = extract_features(
        assertion(
            later, "Dana", window=Window(day(2026, 3), None, "open"), kind="effective_period"
        ),
        existing,
    )
    assert features.rival == 1.0


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        (
            "The code freeze runs from 3 March 2026 through 14 March 2026.",
            "The code freeze was extended through 21 March 2026.",
        ),
        (
            "The Acme trial runs from 3 March 2026 until 14 March 2026.",
            "The Acme trial was prolonged until 21 March 2026.",
        ),
        (
            "The pricing pilot runs from 3 March 2026 to 14 March 2026.",
            "The pricing pilot was extended to 21 March 2026.",
        ),
    ],
)
def test_a_period_whose_end_moved_adjusts_the_end_and_keeps_the_start(
    earlier: str, later: str
) -> None:
    existing = fact(
        assertion(earlier, "Acme", window=Window(day(2026, 3, 3), day(2026, 3, 15), "day"))
    )
    decision = decide(
        assertion(later, "Acme", window=Window(None, day(2026, 3, 22), "day")), existing
    )
    assert decision.action == "adjust"
    assert decision.new_window == Window(day(2026, 3, 3), day(2026, 3, 22), "day")


def test_a_corrected_start_of_a_relation_moves_only_its_start() -> None:
    existing = fact(
        assertion(
            "Dana joined Acme on 1 April 2026.",
            "Dana",
            "joined",
            "Acme",
            window=Window(day(2026, 4, 1), None, "open"),
        )
    )
    decision = decide(
        assertion(
            "Dana's start date at Acme was 7 April 2026, not 1 April.",
            "Dana",
            "join",
            "Acme",
            window=Window(day(2026, 4, 7), None, "open"),
        ),
        existing,
    )
    assert decision.action == "adjust"
    assert decision.new_window is not None
    assert (decision.new_window.valid_from, decision.new_window.valid_until) == (
        day(2026, 4, 7),
        None,
    )


@pytest.mark.parametrize(
    ("target", "rival", "later"),
    [
        (
            ("The Acme cutover is scheduled for 8 June 2026.", day(2026, 6, 8)),
            ("The cutover for Acme is scheduled for 15 June 2026.", day(2026, 6, 15)),
            ("The Acme cutover moved from June 8 to June 9.", day(2026, 6, 9)),
        ),
        (
            ("The Acme launch is planned for 3 May 2026.", day(2026, 5, 3)),
            ("The launch of Acme is planned for 10 May 2026.", day(2026, 5, 10)),
            ("The Acme launch was rescheduled from 3 May to 5 May.", day(2026, 5, 5)),
        ),
        (
            ("The Acme review is on 2 March 2026.", day(2026, 3, 2)),
            ("The review for Acme is on 9 March 2026.", day(2026, 3, 9)),
            ("The Acme review is on 4 March, not 2 March.", day(2026, 3, 4)),
        ),
    ],
)
def test_a_stated_replacement_corrects_the_fact_it_names_not_a_rival_one(
    target: tuple[str, datetime], rival: tuple[str, datetime], later: tuple[str, datetime]
) -> None:
    def event(text: str, when: datetime) -> Window:
        return Window.from_claim_fields(when, when, "day", "event_time")

    named = fact(assertion(target[0], "Acme", window=event(*target), kind="event_time"))
    other = fact(
        assertion(rival[0], "Acme", window=event(*rival), kind="event_time"), fact_id="fact-2"
    )
    incoming = assertion(later[0], "Acme", window=event(*later), kind="event_time")
    for candidates in ((named, other), (other, named)):
        decision = decide(incoming, *candidates)
        assert (decision.action, decision.candidate_id) == ("adjust", "fact-1")


@pytest.mark.parametrize(
    ("positive", "pos_verb", "negative", "neg_verb"),
    [
        ("Ravi is a member of the Platform team.", "is a member of",
         "Ravi is not on the Platform team.", "is on"),
        ("Tomasz is on the Search team.", "is on", "Tomasz is not on the Search team.", "is on"),
    ],
)  # fmt: skip
def test_a_denial_with_not_on_is_no_correction_of_dates(
    positive: str, pos_verb: str, negative: str, neg_verb: str
) -> None:
    # "not on" replaces a value only after one ("is on 14 May, not on 12 May").
    subject = positive.split(" is ")[0]
    team = "Platform team" if "Platform" in positive else "Search team"
    existing = fact(assertion(positive, subject, pos_verb, team))
    incoming = assertion(negative, subject, neg_verb, team, polarity="negative")
    decision = decide(incoming, existing)
    assert decision.action in ("contradict_evidence", "supersede")
    assert decision.window_action != "replace"
    assert_confident(decision)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Dana Okafor is against moving billing to Stripe.", "Dana now backs the Stripe move."),
        ("Dana opposes the Billing migration.", "Dana Okafor has warmed to the migration."),
        ("Dana Okafor is sceptical about the Stripe plan.", "Dana now supports the Stripe plan."),
        (
            "Dana Okafor opposes rewriting the billing service in Go.",
            "After the load test Dana is fully in favour of the Go rewrite.",
        ),
    ],
)
def test_a_stance_changes_whichever_name_and_wording_each_writer_used(
    earlier: str, later: str
) -> None:
    """Both statements are about one holder, named "Dana" by one writer and "Dana Okafor" by
    the other, and one proposal worded differently: another value of one stance."""
    existing = fact(assertion(earlier, "Dana", kind="proposition_validity"))
    features = extract_features(
        assertion(later, "Dana", window=Window(day(2026, 3), None, "month")), existing
    )
    assert features.rival == 1.0, features
    assert features.same_proposition == 0.0
