"""A departure that names no employer ends the employment open before it, in either arrival
order (services/adjudicator/departures.py, the vacancy read by shared/beliefs/slots.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run

HIRED = ("Priya Raman works at Halvorsen Freight.", "Priya Raman", "work at", "Halvorsen Freight")


async def _beliefs(
    adj_service: AdjudicationService,
    corpus: Any,
    said: list[tuple[tuple[str, str, str, str | None], datetime, dict[str, Any]]],
    reverse: bool,
) -> list[dict[str, Any]]:
    docs = []
    for (text, subject, predicate, obj), when, dated in reversed(said) if reverse else said:
        doc = await corpus.document("HR update")
        await corpus.claim(doc, text, subject, predicate, obj, said=when, **dated)
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    return [f for f in await corpus.facts() if f["invalidated_at"] is None]


def _employment(facts: list[dict[str, Any]], employer: str = "Halvorsen Freight") -> dict[str, Any]:
    return next(f for f in facts if f["kind"] == "relation" and employer in f["label"])


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize(
    ("departure", "dated", "ends"),
    [
        (("Priya Raman has left the company.", "Priya Raman", "leave", None), {}, day(2026, 2, 16)),
        (("Priya Raman has retired.", "Priya Raman", "retire", None), {}, day(2026, 2, 16)),
        (
            ("Priya Raman is no longer with us.", "Priya Raman", "be with", None),
            {"polarity": "negative"},
            day(2026, 2, 16),
        ),
        (
            ("Today is Priya Raman's last day.", "Priya Raman", "leave", None),
            {
                "valid_from": day(2026, 2, 16),
                "valid_until": day(2026, 2, 16),
                "precision": "day",
                "kind": "event_time",
            },
            day(2026, 2, 17),
        ),
    ],
)
async def test_a_departure_naming_no_employer_ends_the_employment(
    adj_service: AdjudicationService,
    corpus: Any,
    reverse: bool,
    departure: tuple[str, str, str, str | None],
    dated: dict[str, Any],
    ends: datetime,
) -> None:
    facts = await _beliefs(
        adj_service,
        corpus,
        [(HIRED, day(2026, 1, 10), {}), (departure, day(2026, 2, 16), dated)],
        reverse,
    )
    employment = _employment(facts)
    left = next(f for f in facts if f["kind"] == "observation")
    assert employment["valid_until"] is not None and employment["valid_until"].date() == ends.date()
    assert employment["superseded_by_fact_id"] == left["id"]


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize(
    "other",
    [
        ("Priya Raman has left the call.", "Priya Raman", "leave", None),  # not her employer
        ("Priya Raman is leaving the company.", "Priya Raman", "leave", None),  # not yet
        ("Priya Raman left the building early.", "Priya Raman", "leave", None),
    ],
)
async def test_leaving_something_else_or_not_yet_ends_nothing(
    adj_service: AdjudicationService,
    corpus: Any,
    reverse: bool,
    other: tuple[str, str, str, str | None],
) -> None:
    facts = await _beliefs(
        adj_service, corpus, [(HIRED, day(2026, 1, 10), {}), (other, day(2026, 2, 16), {})], reverse
    )
    employment = _employment(facts)
    assert (employment["valid_until"], employment["superseded_by_fact_id"]) == (None, None)


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
async def test_a_later_employer_after_the_departure_holds(
    adj_service: AdjudicationService, corpus: Any, reverse: bool
) -> None:
    joined = ("Priya Raman joined Lumen Health.", "Priya Raman", "join", "Lumen Health")
    facts = await _beliefs(
        adj_service,
        corpus,
        [
            (HIRED, day(2026, 1, 10), {}),
            (
                ("Priya Raman has left the company.", "Priya Raman", "leave", None),
                day(2026, 2, 16),
                {},
            ),
            (
                joined,
                day(2026, 4, 1),
                {"valid_from": day(2026, 3, 30), "precision": "day", "kind": "event_time"},
            ),
        ],
        reverse,
    )
    assert _employment(facts)["valid_until"] is not None
    lumen = _employment(facts, "Lumen Health")
    assert (lumen["valid_until"], lumen["superseded_by_fact_id"]) == (None, None)
