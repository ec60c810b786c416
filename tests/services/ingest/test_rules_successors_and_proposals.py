"""Successors, proposals, hyphenated things and attribute owners, in phrasings written apart
from the rules (issue 16 classes 1, 3 and 6; issue 17 class 1).

- "Tom Reyes stepped down as CEO of Arbor Health in June; Lena Park took over": the successor
  joins the organisation the other left, from then (was the observation "Lena Park took over").
- "Kenji Mori now backs moving the API gateway to Kubernetes": a view about a proposal; the
  gateway does not use Kubernetes (was "API gateway uses Kubernetes", and the stance was lost).
- "Omar Haddad owns the on-call rota": a hyphenated modifier names the thing as a compound
  would, so ownership is a relation (the object was dropped).
- "we doubled the public API limit": the public API's limit, as "The public API is limited to"
  says (was "API", another entity).
- "Back in 2024 the Pro plan was $15": "Back" goes with the date (the label was "Back the Pro
  plan was $15").
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from shared.text.temporal import strip_temporal

SAID = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _claims(extractor: RulesExtractor, text: str) -> list[ExtractedClaim]:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert claims, f"no claim from {text!r}"
    return claims


def _relations(claims: list[ExtractedClaim]) -> set[tuple[str, str, str, str]]:
    found = set()
    for c in claims:
        if not c.object_text:
            continue
        stored = VOCABULARY.relation(
            c.subject_text or "", c.predicate_text or "", c.object_text or ""
        )
        if stored is not None:
            subject, placed, obj = stored
            found.add((subject, placed.predicate, placed.phase or "", obj))
    return found


@pytest.mark.parametrize(
    ("text", "successor", "organisation", "month"),
    [
        ("Ingrid Falk retired as chair of Solvik Group in April, and Jonas Berg took over.",
         "Jonas Berg", "Solvik Group", 4),
        ("Paolo Conti quit Veradyne in March. Mira Sato has replaced him.", "Mira Sato",
         "Veradyne", 3),
        ("Kwame Asante resigned from Brightpath on 2 May; Lucy Tran succeeded him.", "Lucy Tran",
         "Brightpath", 5),
        ("Marco Bell resigned as head of sales at Pinecrest on 3 March, and Ana Ruiz stepped in.",
         "Ana Ruiz", "Pinecrest", 3),
    ],
)  # fmt: skip
def test_a_successor_joins_where_the_other_left_from_when_they_left(
    extractor: RulesExtractor, text: str, successor: str, organisation: str, month: int
) -> None:
    claims = _claims(extractor, text)
    assert (successor, "works_for", "start", organisation) in _relations(claims)
    joined = next(c for c in claims if c.subject_text == successor)
    assert joined.claim_valid_from is not None and joined.claim_valid_from.month == month


@pytest.mark.parametrize(
    "text",
    [
        "Tom Hale left Acme in May. Jo Reed took over the Berlin office.",  # a post of its own
        "Tom Hale left Acme in May. He took over the Berlin office.",  # the one who left
        "Tom Hale left Acme in May. Jo Reed said nothing about it.",  # no succession
    ],
)
def test_a_clause_that_names_its_own_post_or_no_succession_is_left_alone(
    extractor: RulesExtractor, text: str
) -> None:
    claims = _claims(extractor, text)
    assert not any(r[1] == "works_for" and r[2] == "start" for r in _relations(claims))


def test_a_departure_dated_with_a_role_adds_no_one_day_employment(
    extractor: RulesExtractor,
) -> None:
    claims = _claims(extractor, "Marco Bell resigned as head of sales at Pinecrest on 3 March.")
    assert _relations(claims) == {("Marco Bell", "works_for", "end", "Pinecrest")}
    assert not any(claim.extra_relations for claim in claims)


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Kenji Mori now backs moving the API gateway to Kubernetes.", "Kenji Mori"),
        ("Hana Sato favours migrating the billing service to Postgres.", "Hana Sato"),
        ("Marta Silva opposes moving the data warehouse to Snowflake.", "Marta Silva"),
        ("Omar Haddad suggested switching the Payments team to Linear.", "Omar Haddad"),
    ],
)
def test_a_view_of_a_proposed_move_is_the_holder_s_not_the_move(
    extractor: RulesExtractor, text: str, holder: str
) -> None:
    claims = _claims(extractor, text)
    assert _relations(claims) == set()
    assert [c.subject_text for c in claims] == [holder]


@pytest.mark.parametrize(
    ("text", "thing", "owner"),
    [
        ("Omar Haddad owns the on-call rota.", "on-call rota", "Omar Haddad"),
        ("Lena Park owns the self-serve portal.", "self-serve portal", "Lena Park"),
        ("The follow-up survey is owned by Priya Nair.", "follow-up survey", "Priya Nair"),
    ],
)
def test_a_thing_named_by_a_hyphenated_modifier_has_an_owner(
    extractor: RulesExtractor, text: str, thing: str, owner: str
) -> None:
    ((subject, predicate, _, obj),) = _relations(_claims(extractor, text))
    assert (subject.removeprefix("the ").removeprefix("The "), predicate, obj) == (
        thing,
        "other:owned_by",
        owner,
    )


@pytest.mark.parametrize(
    "text",
    [
        "Marlowe & Finch moved to an in-house tool.",  # indefinite: no thing of its own
        "The team booked a two-hour slot.",
    ],
)
def test_an_indefinite_or_measured_hyphenated_phrase_names_nothing(
    extractor: RulesExtractor, text: str
) -> None:
    assert _relations(_claims(extractor, text)) == set()


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        ("On 3 February we doubled the public API limit to 2,000 requests per hour.",
         "public API"),
        ("The public Search API limit is 600 requests per minute.", "public Search API"),
        ("We cut the legacy Billing API quota to 40 calls a second.", "legacy Billing API"),
    ],
)  # fmt: skip
def test_an_attribute_belongs_to_its_owner_with_the_owner_s_modifiers(
    extractor: RulesExtractor, text: str, owner: str
) -> None:
    assert [c.subject_text for c in _claims(extractor, text)] == [owner]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Back in 2024 the Pro plan was $15 per month.", "The Pro plan was $15 per month."),
        ("Way back in March, the office had 40 desks.", "The office had 40 desks."),
        ("The fee was $10, but back in 2023 it was $8.", "The fee was $10, but it was $8."),
        ("He came back in May.", "He came back."),  # the verb's, not the date's
    ],
)
def test_back_before_a_date_at_a_clause_opening_goes_with_the_date(text: str, label: str) -> None:
    assert strip_temporal(text) == label


@pytest.mark.parametrize(
    ("text", "organisation", "dated"),
    [
        ("Dr. Helga Brandt, head of research at Novalis Pharma, will join Quanta Bio as chief "
         "scientist from 1 September.", "Novalis Pharma", False),
        ("Kira Watts, the CTO of Lumio, spoke at the Nordic summit on 3 May.", "Lumio", False),
        ("On 12 March, Arjun Mehta, VP of sales at Corvane, signed the renewal.", "Corvane",
         False),
        ("Mina Park, previously at Larkspur, joined Northgate on 1 April.", "Larkspur", True),
    ],
)  # fmt: skip
def test_a_role_an_apposition_describes_is_not_dated_by_the_clause_s_event(
    extractor: RulesExtractor, text: str, organisation: str, dated: bool
) -> None:
    # "head of research at Novalis Pharma … will join Quanta Bio from 1 September" placed her
    # at Novalis from 1 September, beside Quanta: a conflict the text never states. A role
    # given up ("previously at Larkspur") ended by the clause's date, so it keeps it.
    (claim,) = _claims(extractor, text)
    (role,) = [r for r in claim.extra_relations if r.object_text == organisation]
    assert role.dated is dated


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("The Nimbus launch is now 12 May, not 5 May.", "The Nimbus launch is now."),
        ("The review moved to 14 March, not 7 March.", "The review moved."),
        ("Heads up: the demo is on 3 June, not on 27 May.", "Heads up: the demo."),
    ],
)
def test_the_date_a_correction_rejects_goes_with_the_dates(text: str, label: str) -> None:
    # "The Nimbus launch is now, not": the rejected date's "not" was left behind.
    assert strip_temporal(text) == label


@pytest.mark.parametrize(
    ("text", "person", "organisation"),
    [
        ("Olivia Grant heads product at Tidewater.", "Olivia Grant", "Tidewater"),
        ("Kofi Mensah leads engineering at Orbit Systems.", "Kofi Mensah", "Orbit Systems"),
        ("Tom Hale oversees finance at Kestrel Group.", "Tom Hale", "Kestrel Group"),
        ("Mei Lin heads up sales for Northwind.", "Mei Lin", "Northwind"),
    ],
)
def test_leading_a_function_at_an_organisation_is_working_there(
    extractor: RulesExtractor, text: str, person: str, organisation: str
) -> None:
    # The parser hung "heads"/"oversees" on the function as a compound (no subject left) or
    # read "engineering" as a gerund ("lead to engineer at Orbit Systems").
    assert (person, "works_for", "state", organisation) in _relations(_claims(extractor, text))


@pytest.mark.parametrize(
    "text", ["Ravi Shah leads the Search team.", "Dana Wu runs the Helios project."]
)
def test_leading_a_team_or_project_is_no_employment(extractor: RulesExtractor, text: str) -> None:
    assert not any(r[1] == "works_for" for r in _relations(_claims(extractor, text)))


@pytest.mark.parametrize(
    ("text", "person", "organisation"),
    [
        ("Ines Moreau, chief of staff at Arvo, left in May.", "Ines Moreau", "Arvo"),
        ("Ben Ortiz, head of engineering at Lattice, stepped down on Friday.", "Ben Ortiz",
         "Lattice"),
        ("Noor Aziz, a senior designer at Pallas, resigned last week.", "Noor Aziz", "Pallas"),
    ],
)  # fmt: skip
def test_a_departure_with_no_object_leaves_the_post_its_apposition_names(
    extractor: RulesExtractor, text: str, person: str, organisation: str
) -> None:
    # The employment ends; the apposition's post is not a second one held beside it.
    (claim,) = _claims(extractor, text)
    assert _relations([claim]) == {(person, "works_for", "end", organisation)}
    assert not claim.extra_relations


@pytest.mark.parametrize(
    "text",
    [
        "Corvane named Piotr Zielinski as chief executive on 1 April 2026.",
        "Corvane appointed Piotr Zielinski CEO in April.",
        "Corvane appointed Piotr Zielinski as head of risk on 2 March.",
    ],
)
def test_an_organisation_appointing_a_person_employs_them(
    extractor: RulesExtractor, text: str
) -> None:
    # The parser hangs the person as an object predicate or as the role's compound.
    claims = _claims(extractor, text)
    assert ("Piotr Zielinski", "works_for", "start", "Corvane") in _relations(claims)
