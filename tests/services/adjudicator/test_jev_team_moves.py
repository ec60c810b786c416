"""A new team is no new employer (issue 17 class 1): "moved from Payments to the Platform team"
keeps the employment it happens inside, in either arrival order, while a new employer still
ends the old placement, whatever kind it was."""

from __future__ import annotations

import pytest

from services.adjudicator.domain import Window
from tests.services.adjudicator.test_jev import assertion, day, decide, fact

EMPLOYED = "Dana works at Acme."


@pytest.mark.parametrize(
    ("text", "predicate", "team"),
    [
        ("Dana moved to the search team in June 2026.", "moved to", "Search team"),
        ("Dana joined the Platform team in June 2026.", "joined", "Platform team"),
        ("Dana switched to the Data team in June 2026.", "switched to", "Data team"),
    ],
)
def test_a_team_move_does_not_end_the_employment(text: str, predicate: str, team: str) -> None:
    existing = fact(assertion(EMPLOYED, "Dana", "works at", "Acme"), similarity=0.4)
    moved = assertion(
        text,
        "Dana",
        predicate,
        team,
        window=Window(day(2026, 6), None, "month"),
        kind="effective_period",
        said=day(2026, 6, 28),
    )
    assert decide(moved, existing).action != "supersede"
    # The other way round: the employment said before the move is no rival of the team.
    team_fact = fact(moved, similarity=0.4)
    assert decide(assertion(EMPLOYED, "Dana", "works at", "Acme"), team_fact).action not in (
        "supersede",
        "contradict_group",
    )


def test_a_new_employer_still_ends_a_team_of_the_old_one() -> None:
    existing = fact(assertion("Dana is on the search team.", "Dana", "is on", "Search team"))
    decision = decide(
        assertion(
            "Dana joined Globex in June 2026.",
            "Dana",
            "joined",
            "Globex",
            window=Window(day(2026, 6), None, "month"),
            kind="event_time",
            said=day(2026, 6, 28),
        ),
        existing,
    )
    assert decision.action == "supersede"
