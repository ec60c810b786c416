"""Appointments by an organisation, statuses entered, systems switched, and dates before names,
in phrasings written apart from the rules (issue 16 classes 1, 3 and 4).

- "Acme appointed Rita Diaz as CFO": Rita Diaz starts working for Acme (was an observation
  about Acme); "replaced Greta Olsen as CEO of Fjordline" ends Greta's placement there.
- "status changed to green on 30 April", "turned red on 3 May": the status holds from that
  day on (was a one-day window, so a later "is amber" could never be placed after it).
- "The Ledger service switched from PostgreSQL to CockroachDB": the service uses the new
  system and stops using the old (was "works for PostgreSQL").
- "As of 1 March Marco Bellini …": the month is no part of the name.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _claims(extractor: RulesExtractor, text: str) -> list[ExtractedClaim]:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert claims, f"no claim from {text!r}"
    return claims


def _relations(extractor: RulesExtractor, text: str) -> set[tuple[str, str, str, str]]:
    claims = _claims(extractor, text)
    triples = [(c.subject_text, c.predicate_text, c.object_text) for c in claims]
    triples += [
        (r.subject_text, r.predicate_text, r.object_text) for c in claims for r in c.extra_relations
    ]
    found = set()
    for subject_text, predicate_text, object_text in triples:
        stored = VOCABULARY.relation(subject_text or "", predicate_text or "", object_text or "")
        if stored is not None:
            subject, placed, obj = stored
            found.add((subject, placed.predicate, placed.phase or "", obj))
    return found


@pytest.mark.parametrize(
    ("text", "person", "organisation"),
    [
        ("Acme appointed Rita Diaz as CFO in May.", "Rita Diaz", "Acme"),
        ("Fjordline has named Petter Aas as its new CEO.", "Petter Aas", "Fjordline"),
        ("Kestrel Mills named Sofia Lind as chief operating officer in March.", "Sofia Lind",
         "Kestrel Mills"),
        ("Last week Brightwave appointed Tomasz Nowak as general counsel.", "Tomasz Nowak",
         "Brightwave"),
    ],
)  # fmt: skip
def test_an_organisation_appointing_someone_to_a_role_employs_them(
    extractor: RulesExtractor, text: str, person: str, organisation: str
) -> None:
    assert (person, "works_for", "start", organisation) in _relations(extractor, text)


@pytest.mark.parametrize(
    ("text", "successor", "predecessor", "organisation"),
    [
        ("Petter Aas replaced Greta Olsen as CEO of Fjordline on 1 February.", "Petter Aas",
         "Greta Olsen", "Fjordline"),
        ("Nadia Karim succeeded Omar Said as CFO of Tessera Bank.", "Nadia Karim", "Omar Said",
         "Tessera Bank"),
    ],
)  # fmt: skip
def test_a_role_handed_on_starts_the_successor_and_ends_the_predecessor(
    extractor: RulesExtractor, text: str, successor: str, predecessor: str, organisation: str
) -> None:
    found = _relations(extractor, text)
    assert (successor, "works_for", "start", organisation) in found
    assert (predecessor, "works_for", "end", organisation) in found


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Project Kestrel status changed to green on 30 April.", (2025, 4, 30)),
        ("The Orion launch turned red on 3 May.", (2025, 5, 3)),
        ("On 12 June the Atlas migration went from amber to red.", (2025, 6, 12)),
        # the parser reads "to amber" as an infinitive and hangs the date on it
        ("Project Lynx moved to amber on 6 March: the data vendor is late.", (2025, 3, 6)),
    ],
)
def test_a_status_entered_on_a_day_holds_from_that_day_on(
    extractor: RulesExtractor, text: str, start: tuple[int, int, int]
) -> None:
    claim = _claims(extractor, text)[0]
    assert claim.claim_valid_from == datetime(*start, tzinfo=UTC)
    assert claim.claim_valid_until is None
    assert claim.claim_valid_precision == "open"


def test_a_meeting_that_went_to_a_place_enters_no_status(extractor: RulesExtractor) -> None:
    claim = _claims(extractor, "The team went to Lisbon on 3 May.")[0]
    assert claim.claim_valid_until is not None  # a trip on a day, not a state from then on


@pytest.mark.parametrize(
    ("text", "thing", "new", "old"),
    [
        ("In March the Ledger service switched from PostgreSQL to CockroachDB.",
         "the Ledger service", "CockroachDB", "PostgreSQL"),
        ("The Payments team switched from Jira to Linear last quarter.", "The Payments team",
         "Linear", "Jira"),
        ("Our billing stack migrated from Stripe to Adyen in 2024.", "Our billing stack", "Adyen",
         "Stripe"),
    ],
)  # fmt: skip
def test_a_thing_that_switches_systems_uses_the_new_one_and_stops_using_the_old(
    extractor: RulesExtractor, text: str, thing: str, new: str, old: str
) -> None:
    found = _relations(extractor, text)
    assert (thing, "uses", "start", new) in found
    assert (thing, "uses", "end", old) in found
    assert not any(predicate == "works_for" for _, predicate, _, _ in found)


def test_a_person_who_switches_employers_still_changes_jobs(extractor: RulesExtractor) -> None:
    found = _relations(extractor, "Dana Kim switched from Acme to Globex in June.")
    assert ("Dana Kim", "works_for", "start", "Globex") in found


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("As of 1 March Marco Bellini no longer supports the rewrite.", "Marco Bellini"),
        ("Since June Dana Kim leads the Growth team.", "Dana Kim"),
        ("Since 2 March Priya Shah has led the Growth team.", "Priya Shah"),
        ("May Chen joined Lumen Bio.", "May Chen"),  # a given name that is also a month
    ],
)
def test_a_month_before_a_name_is_no_part_of_it(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claims(extractor, text)[0].subject_text == subject


@pytest.mark.parametrize(
    ("text", "subject", "place"),
    [
        ("Priya Nair works out of the London office.", "Priya Nair", "the London office"),
        ("The support team operates out of Lagos.", "The support team", "Lagos"),
        ("Dana Kim is based out of Austin.", "Dana Kim", "Austin"),
    ],
)
def test_working_out_of_a_place_is_being_located_there(
    extractor: RulesExtractor, text: str, subject: str, place: str
) -> None:
    assert (subject, "located_in", "state", place) in _relations(extractor, text)
