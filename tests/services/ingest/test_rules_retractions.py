"""Corrections and retractions as people write them (issue 16): the alternative a correction
rejects (", not Marta") is no name of what holds, a cleft ("it was Maria who signed") states
its relative clause, and a retraction ("Scratch that:", "Please ignore my last email -")
opens the statement that holds instead."""

from __future__ import annotations

import pytest

from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract, stated_relations


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        (
            "Correction: it was Maria Kowalczyk, not Marta, who signed the contract.",
            "Maria Kowalczyk",
        ),
        ("It was Omar Said, not Omar Haddad, who approved the budget.", "Omar Said"),
        ("Sorry, it's Fenwick, not Halden, that owns the gateway.", "Fenwick"),
    ],
)
def test_a_cleft_with_a_rejected_alternative_is_about_the_name_that_holds(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    (claim,) = extract(extractor, text, "Email")
    assert claim.subject_text == subject


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("Lucia Ferraro is Head of Research, not Design.", "Design"),
        ("Omar Said joined Halden, not Fenwick.", "Fenwick"),
        ("The contract was signed by Maria Kowalczyk, not Marta Kowalski.", "Marta Kowalski"),
        ("Priya Raman - not Priya Shah - is taking over the Lisbon office.", "Priya Shah"),
    ],
)
def test_the_rejected_alternative_is_no_argument(
    extractor: RulesExtractor, text: str, wrong: str
) -> None:
    claims = extract(extractor, text, "Email")
    assert claims
    named = {c.subject_text for c in claims} | {c.object_text for c in claims}
    named |= {name for r in stated_relations(claims) for name in (r[0], r[2])}
    assert wrong not in named


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Please ignore my last email - Ben Hollis is not leaving.", "Ben Hollis is not leaving"),
        ("Scratch that: Ben Hollis is staying at Quarry Lane.", "Ben Hollis is staying at"),
        ("Disregard my previous message — the offsite is still on.", "The offsite is still on"),
        ("Small fix: the demo is on Thursday.", "The demo is on Thursday"),
        ("Apologies, one fix: the demo is on Thursday.", "The demo is on Thursday"),
    ],
)
def test_a_retraction_opens_the_statement_that_holds(
    extractor: RulesExtractor, text: str, holds: str
) -> None:
    (claim,) = extract(extractor, text, "Email")
    assert claim.claim_text.startswith(holds)


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("Heads up: we've pushed the Tern app release back by a week.", "the Tern app release"),
        ("We've postponed the board offsite until 3 June.", "the board offsite"),
        ("I've delayed the demo by two days.", "the demo"),
    ],
)
def test_a_thing_the_writers_rescheduled_is_the_claims_subject(
    extractor: RulesExtractor, text: str, thing: str
) -> None:
    (claim,) = extract(extractor, text, "Update")
    assert claim.subject_text == thing


def test_a_named_agent_or_a_move_to_a_place_keeps_its_subject(extractor: RulesExtractor) -> None:
    (moved,) = extract(extractor, "We moved the payments API to the Dublin region.", "Update")
    assert (moved.subject_text, moved.object_text) == ("the payments API", "the Dublin region")
    (pushed,) = extract(extractor, "Acme pushed the launch to May.", "Update")
    assert pushed.subject_text == "Acme"


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("Mira Chen no longer manages the Tallis account as of 1 June.", "the Tallis account"),
        ("Omar stopped running the Harbor account as of last week.", "the Harbor account"),
        ("As of 1 May Dana no longer owns the Lisbon office budget.", "the Lisbon office budget"),
    ],
)
def test_what_someone_no_longer_does_keeps_its_object(
    extractor: RulesExtractor, text: str, obj: str
) -> None:
    (claim,) = extract(extractor, text, "Update")
    assert claim.object_text == obj


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "Correction - Anil Mehra joined Pelican Freight, not Pelican Air, in January.",
            "Pelican Freight",
        ),
        ("Sorry: Dana Kim works for Harbor Logistics, not Harbor Health.", "Harbor Logistics"),
        ("Omar Said joined Northwind Bank, not Northwind Air, last year.", "Northwind Bank"),
    ],
)
def test_a_name_sharing_a_word_with_the_rejected_one_keeps_its_own_words(
    extractor: RulesExtractor, text: str, where: str
) -> None:
    # "Pelican" was read as a short form of the other name: "Pelican Air Freight".
    assert where in {c.object_text for c in extract(extractor, text, "Email")}
