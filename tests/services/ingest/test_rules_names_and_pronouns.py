"""Names the small NER gets wrong and pronouns that depend on them, each class in several
phrasings: a name span across a verb, a given name tagged a place or product, name particles
and organisation words, the reported clause's own subject, and "would" after a verb of saying
(issue 16)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _claims(
    extractor: RulesExtractor, text: str, context: str | None = None
) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, context=context)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("Ahmed joined Cobaltline in 2019.", "Ahmed", "Cobaltline"),
        ("Chen manages Aroha and three designers.", "Chen", "Aroha"),
        ("Hana manages Mateus and four other engineers on Billing.", "Hana", "Mateus"),
    ],
)
def test_a_name_never_spans_the_verb_between_two_names(
    extractor: RulesExtractor, text: str, subject: str, obj: str
) -> None:
    nlp = extractor._pipeline()
    names = {e.text for e in nlp(text).ents}
    assert {subject, obj} <= names
    claim = _claims(extractor, text)[0]
    assert (claim.subject_text, claim.object_text) == (subject, obj)


def test_a_name_cut_at_its_verb_keeps_the_full_name_the_document_used(
    extractor: RulesExtractor,
) -> None:
    context = "The Data Platform team reports into Ahmed Al-Sayed, Cobaltline's VP of Data."
    claim = _claims(
        extractor, "Ahmed joined Cobaltline in 2019 after eight years at Oracle.", context
    )[0]
    assert (claim.subject_text, claim.object_text) == ("Ahmed Al-Sayed", "Cobaltline")


@pytest.mark.parametrize(
    ("text", "person"),
    [
        # The small NER tags these given names GPE, PRODUCT and WORK_OF_ART.
        ("Kenji joined Umbrella after Globex. He leads search there.", "Kenji"),
        ("Ines manages Pablo. She started in May.", "Ines"),
        ("Yusuf met Orla Brennan in Dublin. He booked the follow-up.", "Yusuf"),
    ],
)
def test_a_given_name_that_acts_as_a_person_is_the_pronouns_antecedent(
    extractor: RulesExtractor, text: str, person: str
) -> None:
    claims = _claims(extractor, text)
    assert claims[-1].subject_text == person


@pytest.mark.parametrize(
    ("text", "person"),
    [
        (
            "Our main contact is Sanne de Vries, the head of digital at Ferrovia. "
            "She took over the account in April.",
            "Sanne de Vries",
        ),
        (
            "The new liaison is Joost van Dijk, the director of operations at Maasport. "
            "He signed the pilot in May.",
            "Joost van Dijk",
        ),
        (
            "Talk to Bruno da Silva, the lead engineer at Fiora. He owns the integration.",
            "Bruno da Silva",
        ),
    ],
)
def test_a_name_with_a_particle_and_a_role_is_a_person(
    extractor: RulesExtractor, text: str, person: str
) -> None:
    context = "Ferrovia is a division of the Dutch group Van Leeuwen Holding."
    claims = _claims(extractor, text, context)
    assert claims[-1].subject_text == person


@pytest.mark.parametrize(
    ("text", "reported"),
    [
        ("Yusuf met Orla Brennan in Dublin. He said she was keen.", "Orla Brennan was keen"),
        ("Lena met Ravi Patel at the summit. She said he was ready.", "Ravi Patel was ready"),
        ("Tomas called Aisha Bello on Monday. He thinks she is leaving.", "Aisha Bello is leaving"),
    ],
)
def test_a_reported_clauses_subject_is_not_the_speaker_it_follows(
    extractor: RulesExtractor, text: str, reported: str
) -> None:
    assert reported in _claims(extractor, text)[-1].claim_text


@pytest.mark.parametrize(
    "text",
    [
        "Lena said Ravi would join Globex in June.",
        "Tom told us the vendor would cut prices in Q3.",
        "Maya thought the launch would slip to August.",
    ],
)
def test_would_after_a_past_verb_of_saying_is_a_reported_future(
    extractor: RulesExtractor, text: str
) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.is_attributed


@pytest.mark.parametrize(
    "text",
    [
        "Lena said Ravi would join if the budget passes.",
        "Ravi would join Globex.",
        "I would love to join Globex.",
    ],
)
def test_would_elsewhere_stays_hypothetical(extractor: RulesExtractor, text: str) -> None:
    assert _claims(extractor, text) == []


def _relations(claim: ExtractedClaim) -> set[tuple[str, str, str]]:
    main = {(claim.subject_text or "", claim.predicate_text or "", claim.object_text or "")}
    return main | {(r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations}


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        (
            "Ferrovia Freight is a rail operator based in Rotterdam, and a division of the "
            "Dutch group Van Leeuwen Holding.",
            ("Ferrovia Freight", "division of", "Van Leeuwen Holding"),
        ),
        (
            "Nimbus, a subsidiary of Halden Group, is based in Oslo.",
            ("Nimbus", "subsidiary of", "Halden Group"),
        ),
        (
            "Tallis Labs is a small biotech and an affiliate of Moreau Pharma.",
            ("Tallis Labs", "affiliate of", "Moreau Pharma"),
        ),
    ],
)
def test_a_description_states_the_whole_its_subject_is_part_of(
    extractor: RulesExtractor, text: str, relation: tuple[str, str, str]
) -> None:
    assert relation in _relations(_claims(extractor, text)[0])


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        (
            "Ferrovia Freight is a rail logistics operator based in Rotterdam.",
            ("Ferrovia Freight", "be based in", "Rotterdam"),
        ),
        ("Brightwave is a Warsaw-based analytics firm.", ("Brightwave", "be based in", "Warsaw")),
        (
            "Kora Health is a clinic group headquartered in Lagos.",
            ("Kora Health", "be based in", "Lagos"),
        ),
    ],
)
def test_a_description_states_where_its_subject_is(
    extractor: RulesExtractor, text: str, relation: tuple[str, str, str]
) -> None:
    assert relation in _relations(_claims(extractor, text)[0])


@pytest.mark.parametrize(
    ("text", "worker", "org"),
    [
        ("I look after enterprise accounts at Vantablue.", "Carmen Ruiz", "Vantablue"),
        ("Omar runs supply chain analytics at Fresco Markets.", "Omar", "Fresco Markets"),
        ("Lin handles payroll at Quantix.", "Lin", "Quantix"),
    ],
)
def test_work_done_at_an_organisation_places_the_worker_there(
    extractor: RulesExtractor, text: str, worker: str, org: str
) -> None:
    inp = ExtractionInput(text=text, said_on=SAID, speaker="Carmen Ruiz")
    (claim,) = extractor.extract_batch([inp])[0]
    assert (worker, "work at", org) in _relations(claim)


@pytest.mark.parametrize(
    "text",
    [
        "Mina met Ravi at Globex.",
        "I met the new CFO at Globex.",
        "Tom visited the team at Quantix.",
    ],
)
def test_meeting_someone_at_an_organisation_is_no_placement(
    extractor: RulesExtractor, text: str
) -> None:
    for claim in _claims(extractor, text):
        assert not any(r.predicate_text == "work at" for r in claim.extra_relations)


@pytest.mark.parametrize(
    ("context", "text"),
    [
        ("Orion went live last week.\n\nDid anyone confirm the freight rates?",
         "They expect the remaining sites to switch in July."),
        ("Somebody asked about the Lisbon move.", "It slipped to the autumn."),
        ("Everyone signed the new rota.", "They start on Monday."),
    ],
)  # fmt: skip
def test_an_indefinite_pronoun_is_never_what_a_later_pronoun_means(
    extractor: RulesExtractor, context: str, text: str
) -> None:
    for claim in _claims(extractor, text, context=context):
        words = {claim.subject_text or "", claim.holder or "", claim.claim_text}
        assert not any(w.lower().startswith(("anyone", "somebody", "everyone")) for w in words), (
            claim
        )


@pytest.mark.parametrize(
    ("context", "text", "subject"),
    [
        ("Halden Foods acquired Brightline Retail in 2021.",
         "It operates 14 distribution centres.", "Halden Foods"),
        ("Lumen Pharmaceuticals bought Vireo Labs last year.", "It now employs 900 people.",
         "Lumen Pharmaceuticals"),
        ("Orbit Systems signed Kestrel Dynamics as a customer in May.",
         "It has offices in Oslo and Riga.", "Orbit Systems"),
    ],
)  # fmt: skip
def test_a_company_whose_name_reads_as_a_plural_is_the_subject_it_continues(
    extractor: RulesExtractor, context: str, text: str, subject: str
) -> None:
    assert _claims(extractor, text, context=context)[0].subject_text == subject


@pytest.mark.parametrize(
    ("title", "context", "text", "owner"),
    [
        ("Kestrel Dynamics", "The firm was spun out of Tartu University in 2017.",
         "Its robotics unit belongs to the Industrial division.", "Kestrel Dynamics"),
        ("Halden Foods — account profile", "The company was founded in Bergen in 1998.",
         "Its largest site is in Oslo.", "Halden Foods"),
        ("Orbit Systems", "The startup raised a seed round from Northzone last year.",
         "Its headcount is 40.", "Orbit Systems"),
    ],
)  # fmt: skip
def test_a_pronoun_after_a_bare_subject_means_what_the_document_is_about(
    extractor: RulesExtractor, title: str, context: str, text: str, owner: str
) -> None:
    inp = ExtractionInput(text=text, said_on=SAID, context=context, document_title=title)
    claims = extractor.extract_batch([inp])[0]
    assert claims and claims[0].claim_text.startswith(f"{owner}'s")
