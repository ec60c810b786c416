"""A dated thing whose date moves, said without the old date, and heard in either order.

"The launch slipped to 19 November" corrects the launch planned for 5 November just as "moved
from 5 to 19 November" does (SPEC 4: corrections move dates). Heard the other way round, the
older source's date is support for the same launch, not a rival date: both orders end with one
fact dated 19 November.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from services.adjudicator.domain import EntityRef, Window
from tests.services.adjudicator.test_jev import (
    ENTITIES,
    assert_confident,
    assertion,
    day,
    decide,
    fact,
)

PLANNED = "The Ledger API launch is planned for 5 November 2025."
PLANNED_WINDOW = Window(day(2025, 11, 5), day(2025, 11, 6), "day")
MOVED_WINDOW = Window(day(2025, 11, 19), day(2025, 11, 20), "day")


def _planned(said_day: int = 1) -> object:
    return assertion(
        PLANNED,
        "Ledger API",
        window=PLANNED_WINDOW,
        kind="event_time",
        said=day(2025, 10, said_day),
    )


@pytest.mark.parametrize(
    "moved",
    [
        "The Ledger API launch has slipped to 19 November.",
        "The Ledger API launch was pushed back to 19 November.",
        "The Ledger API launch has been postponed until 19 November.",
        "The Ledger API launch got rescheduled for 19 November.",
    ],
)
def test_a_date_moved_without_the_old_date_corrects_the_dated_fact(moved: str) -> None:
    existing = fact(_planned(), similarity=0.8)
    incoming = assertion(moved, "Ledger API", window=MOVED_WINDOW, said=day(2025, 10, 20))
    decision = decide(incoming, existing)
    assert (decision.action, decision.candidate_id) == ("adjust", "fact-1")
    assert decision.new_window is not None
    assert decision.new_window.valid_from == day(2025, 11, 19)
    assert_confident(decision)


def test_a_date_brought_forward_corrects_it_too() -> None:
    existing = fact(_planned(), similarity=0.8)
    incoming = assertion(
        "The Ledger API launch was brought forward to 3 November.",
        "Ledger API",
        window=Window(day(2025, 11, 3), day(2025, 11, 4), "day"),
        said=day(2025, 10, 20),
    )
    decision = decide(incoming, existing)
    assert decision.action == "adjust"
    assert decision.new_window is not None and decision.new_window.valid_from == day(2025, 11, 3)


@pytest.mark.parametrize(
    "moved",
    [
        "The Ledger API launch has slipped to 19 November.",
        "The Ledger API launch moved from 5 November to 19 November.",
        "The Ledger API launch was postponed from 5 to 19 November.",
        "The Ledger API launch is now 19 November, not 5 November.",
        "The Ledger API launch is on 19 November instead of 5 November.",
        "The Ledger API launch will be 19 November, not on 5 November.",
    ],
)
def test_the_replaced_date_arriving_last_supports_the_moved_fact(moved: str) -> None:
    moved_fact = fact(
        assertion(moved, "Ledger API", window=MOVED_WINDOW, said=day(2025, 10, 20)),
        similarity=0.8,
        said=day(2025, 10, 20),
    )
    decision = decide(_planned(said_day=1), moved_fact)
    assert (decision.action, decision.stance) == ("confirm", "supports")
    assert decision.new_window is None  # the fact keeps the date it was moved to
    assert_confident(decision)


def test_the_old_date_said_after_the_move_is_a_disagreement() -> None:
    moved_fact = fact(
        assertion(
            "The Ledger API launch has slipped to 19 November.",
            "Ledger API",
            window=MOVED_WINDOW,
            said=day(2025, 10, 20),
        ),
        similarity=0.8,
        said=day(2025, 10, 20),
    )
    decision = decide(_planned(said_day=25), moved_fact)
    assert decision.action == "contradict_group"


def test_another_dated_thing_moving_corrects_nothing() -> None:
    existing = fact(_planned(), similarity=0.6)
    incoming = assertion(
        "The Ledger API security review was pushed back to 19 November.",
        "Ledger API",
        window=MOVED_WINDOW,
        said=day(2025, 10, 20),
    )
    assert decide(incoming, existing).action != "adjust"


@pytest.mark.parametrize(
    "raised",
    [
        "We increased the Acme Team plan from $12 to $15 per seat on 1 April.",
        "Acme raised the Team plan from $12 to $15 per seat on 1 April.",
        "On 1 April the Acme Team plan went up from $12 to $15 per seat.",
    ],
)
def test_a_set_value_raised_from_the_old_to_a_new_one_is_a_successor_not_a_correction(
    raised: str,
) -> None:
    # Corrections move dates, not statements: "from $12 to $15" is the price changing.
    existing = fact(assertion("The Acme Team plan costs $12 per seat.", "Acme"), similarity=0.8)
    incoming = assertion(
        raised, "Acme", window=Window(day(2026, 4, 1), None, "open"), said=day(2026, 3, 20)
    )
    decision = decide(incoming, existing)
    assert (decision.action, decision.candidate_id) == ("supersede", "fact-1")
    assert decision.new_window is not None and decision.new_window.valid_until == day(2026, 4, 1)
    assert_confident(decision)


_MARCH_ON = Window(day(2026, 3, 1), None, "day")


@pytest.mark.parametrize(
    "corrected",
    [
        "Quick correction: the Acme Team plan costs $55 per month from 1 March 2026, not $59.",
        "From 1 March 2026 the Acme Team plan is $55 a month instead of $59.",
        "The Acme Team plan costs $55 per month from 1 March 2026 rather than $59.",
    ],
)
@pytest.mark.parametrize("corrected_first", [False, True], ids=["fact first", "correction first"])
def test_a_value_said_to_replace_the_fact_s_value_is_a_disagreement_not_its_support(
    corrected: str, corrected_first: bool
) -> None:
    # "$55, not $59" names $59 to reject it: the $59 fact gains no support from it, and the
    # two values of one period conflict whichever arrives first.
    stated = assertion(
        "The Acme Team plan costs $59 per month from 1 March 2026.",
        "Acme",
        window=_MARCH_ON,
        kind="measurement_period",
        said=day(2026, 3, 1),
    )
    correction = assertion(
        corrected, "Acme", window=_MARCH_ON, kind="measurement_period", said=day(2026, 3, 10)
    )
    first, second = (correction, stated) if corrected_first else (stated, correction)
    decision = decide(second, fact(first, similarity=0.85))
    assert decision.action == "contradict_group"


@pytest.mark.parametrize(
    ("entered", "on"),
    [
        ("The Acme rollout slipped to at risk on 13 March.", day(2026, 3, 13)),
        ("The Acme rollout moved to amber on 13 March.", day(2026, 3, 13)),
        ("The Acme rollout was pushed to on hold on 20 March.", day(2026, 3, 20)),
    ],
)
def test_a_status_entered_with_a_verb_of_moving_corrects_no_date(
    entered: str, on: datetime
) -> None:
    # "slipped to at risk on 13 March" is a status from 13 March, not the rollout's date
    # moved: against the later "back on track" it is an earlier status, never its correction.
    back = assertion(
        "Since 3 April, the Acme rollout is back on track.",
        "Acme",
        window=Window(day(2026, 4, 3), None, "day"),
        kind="effective_period",
        said=day(2026, 4, 6),
    )
    incoming = assertion(
        entered, "Acme", window=Window(on, None, "day"), kind="effective_period", said=on
    )
    assert decide(incoming, fact(back, similarity=0.8)).action != "adjust"


@pytest.mark.parametrize(
    "planned",
    [
        "The Acme quarterly review is on 12 June at 14:00 CET.",
        "The Acme quarterly review is on 12 June at 9am.",
        "The Acme quarterly review is on Friday 12 June at 16:30 (UTC+2).",
    ],
)
def test_the_replaced_date_with_a_clock_time_arriving_last_supports_the_moved_fact(
    planned: str,
) -> None:
    # "at 14:00 CET" was read as the values 14 and 0 beside the date, and "CET" as a word of
    # the attribute: the older source's date became a rival date in that arrival order only.
    moved = assertion(
        "The Acme quarterly review is on 19 June, not 12 June.",
        "Acme",
        window=Window(day(2026, 6, 19), day(2026, 6, 20), "day"),
        kind="event_time",
        said=day(2026, 5, 5),
    )
    older = assertion(
        planned,
        "Acme",
        window=Window(day(2026, 6, 12), day(2026, 6, 13), "day"),
        kind="event_time",
        said=day(2026, 5, 2),
    )
    decision = decide(older, fact(moved, similarity=0.8, said=day(2026, 5, 5)))
    assert (decision.action, decision.stance) == ("confirm", "supports")


@pytest.mark.parametrize(
    ("original", "corrected", "thing"),
    [
        ("The Tarnwick 3.0 launch is scheduled for 5 June.",
         "The Tarnwick 3.0 launch is on 12 June, not 5 June.", "Tarnwick 3.0 launch"),
        ("The iOS 17.2 rollout starts on 5 June.",
         "The iOS 17.2 rollout starts on 12 June, not 5 June.", "iOS 17.2 rollout"),
        ("The Helios 2.1 release is due on 5 June.",
         "Correction: the Helios 2.1 release is due on 12 June, not 5 June.",
         "Helios 2.1 release"),
    ],
)  # fmt: skip
def test_a_version_in_the_name_is_no_value_beside_the_corrected_date(
    monkeypatch: pytest.MonkeyPatch, original: str, corrected: str, thing: str
) -> None:
    """The correction arrived first; the older date arriving late supports the thing and
    keeps the corrected date, as the other order does (the version number had counted as a
    second value, so the date the correction replaced was not recognised)."""
    monkeypatch.setitem(ENTITIES, thing.lower(), EntityRef("ent-thing", thing))
    existing = fact(
        assertion(
            corrected,
            thing,
            window=Window(day(2026, 6, 12), day(2026, 6, 12), "day"),
            kind="event_time",
            said=day(2026, 2, 5),
        ),
        said=day(2026, 2, 5),
    )
    late = assertion(
        original,
        thing,
        window=Window(day(2026, 6, 5), day(2026, 6, 5), "day"),
        kind="event_time",
        said=day(2026, 2, 2),
    )
    decision = decide(late, existing)
    assert decision.action == "confirm", decision.rationale
    assert decision.new_window is None


@pytest.mark.parametrize(
    ("stated", "corrected"),
    [
        ("Dana is Head of Design.", "Dana is Head of Research, not Design."),
        (
            "Dana's job title is Principal Designer.",
            "Dana's job title is Staff Researcher, not Principal Designer.",
        ),
        (
            "Dana is based in the Lyon office.",
            "Dana is based in the Paris office rather than the Lyon office.",
        ),
    ],
)
@pytest.mark.parametrize("corrected_first", [False, True], ids=["fact first", "correction first"])
def test_a_correction_naming_the_facts_words_to_reject_them_does_not_repeat_it(
    stated: str, corrected: str, corrected_first: bool
) -> None:
    # The rejected words are no part of what the correction says: it never confirms the fact.
    said = assertion(stated, "Dana", said=day(2026, 4, 10))
    correction = assertion(corrected, "Dana", said=day(2026, 4, 12))
    first, second = (correction, said) if corrected_first else (said, correction)
    decision = decide(second, fact(first, similarity=0.85))
    assert decision.action != "confirm"


@pytest.mark.parametrize(
    ("shift", "moved_to"),
    [
        ("The Ledger API launch has been pushed back a week.", day(2025, 11, 12)),
        ("The Ledger API launch is postponed by two days.", day(2025, 11, 7)),
        ("The Ledger API launch was brought forward by 3 days.", day(2025, 11, 2)),
        ("We've delayed the Ledger API launch by another week.", day(2025, 11, 12)),
    ],
)
@pytest.mark.parametrize("shift_first", [False, True], ids=["plan first", "shift first"])
def test_a_date_moved_by_a_stretch_moves_the_dated_fact_by_it(
    shift: str, moved_to: datetime, shift_first: bool
) -> None:
    planned = _planned()
    shifted = assertion(shift, "Ledger API", said=day(2025, 10, 20))
    first, second = (shifted, planned) if shift_first else (planned, shifted)
    decision = decide(second, fact(first, similarity=0.8))
    assert (decision.action, decision.candidate_id) == ("adjust", "fact-1")
    assert decision.new_window is not None
    assert decision.new_window.valid_from == moved_to


@pytest.mark.parametrize(
    "older",
    [
        "The Acme hiring freeze runs through February.",
        "The Acme hiring freeze is in effect until the end of February.",
        "The Acme hiring freeze lasts until 28 February.",
    ],
)
def test_an_end_heard_after_its_extension_supports_the_extended_fact(older: str) -> None:
    extended = assertion(
        "The Acme hiring freeze has been extended to the end of April.",
        "Acme",
        window=Window(None, day(2026, 4, 30), "day"),
        said=day(2025, 12, 28),
    )
    earlier = assertion(
        older, "Acme", window=Window(None, day(2026, 2, 28), "day"), said=day(2025, 12, 1)
    )
    decision = decide(earlier, fact(extended, similarity=0.8))
    # Said before the extension, the old end is the thing's support, not another fact.
    assert (decision.action, decision.candidate_id) == ("confirm", "fact-1")


def test_a_day_that_ended_a_period_moves_with_its_extension() -> None:
    ends = assertion(
        "The Acme pilot ends on 31 March.",
        "Acme",
        window=Window(day(2026, 3, 31), day(2026, 4, 1), "day"),
        said=day(2026, 3, 2),
    )
    extended = assertion(
        "The Acme pilot has been extended to the end of May.",
        "Acme",
        window=Window(None, day(2026, 5, 31), "day"),
        said=day(2026, 3, 25),
    )
    decision = decide(extended, fact(ends, similarity=0.8))
    assert decision.action == "adjust" and decision.new_window is not None
    assert (decision.new_window.valid_from, decision.new_window.valid_until) == (
        None,
        day(2026, 5, 31),
    )


@pytest.mark.parametrize(
    "moved_again",
    [
        "The Ledger API launch has been pushed again, to 3 December.",
        "The Ledger API launch slipped further to 3 December.",
        "The Ledger API launch has been delayed once more, to 3 December.",
    ],
)
def test_an_earlier_move_arriving_after_a_later_one_supports_the_later_date(
    moved_again: str,
) -> None:
    """Three notes (planned, pushed, pushed again) heard newest first: the middle one's date
    was moved on from, so it keeps the newest date instead of moving it back."""
    later = fact(
        assertion(
            moved_again,
            "Ledger API",
            window=Window(day(2025, 12, 3), day(2025, 12, 4), "day"),
            said=day(2025, 10, 28),
        ),
        similarity=0.8,
        said=day(2025, 10, 28),
    )
    earlier_move = assertion(
        "The Ledger API launch has slipped to 19 November.",
        "Ledger API",
        window=MOVED_WINDOW,
        said=day(2025, 10, 20),
    )
    decision = decide(earlier_move, later)
    assert (decision.action, decision.stance) == ("confirm", "supports")
    assert decision.new_window is None
    # Heard in order, the later move corrects the earlier one's date.
    moved = decide(
        assertion(
            moved_again,
            "Ledger API",
            window=Window(day(2025, 12, 3), day(2025, 12, 4), "day"),
            said=day(2025, 10, 28),
        ),
        fact(earlier_move, similarity=0.8, said=day(2025, 10, 20)),
    )
    assert moved.action == "adjust"
    assert moved.new_window is not None and moved.new_window.valid_from == day(2025, 12, 3)


@pytest.mark.parametrize(
    "moved",
    [
        "We've brought the Ledger API launch forward to 3 November.",
        "We have moved the Ledger API launch up to 3 November.",
        "The team pulled the Ledger API launch forward to 3 November.",
    ],
)
def test_a_move_told_by_the_ones_who_made_it_corrects_the_plan_in_either_order(
    moved: str,
) -> None:
    window = Window(day(2025, 11, 3), day(2025, 11, 4), "day")
    incoming = assertion(moved, "Ledger API", window=window, said=day(2025, 10, 20))
    decision = decide(incoming, fact(_planned(), similarity=0.8))
    assert decision.action == "adjust"
    assert decision.new_window is not None and decision.new_window.valid_from == day(2025, 11, 3)
    late = decide(_planned(), fact(incoming, similarity=0.8, said=day(2025, 10, 20)))
    assert (late.action, late.new_window) == ("confirm", None)
