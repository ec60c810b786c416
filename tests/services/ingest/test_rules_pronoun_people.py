"""Pronouns about people in text written by others (issue 16): "he" means a name that reads
as a person's before one the small NER merely labelled a person, and "their" in a clause
about her is not her own."""

from __future__ import annotations

import pytest

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import SAID


def _claims(extractor: RulesExtractor, text: str, context: str | None = None):  # type: ignore[no-untyped-def]
    passage = ExtractionInput(
        text=text, said_on=SAID, document_title="#vendors", speaker="Roswitha", context=context
    )
    return extractor.extract_batch([passage])[0]


@pytest.mark.parametrize(
    ("text", "person", "company"),
    [
        ("Kasimir Oduya is no longer with Trellisoft, he left them in February",
         "Kasimir Oduya", "Trellisoft"),
        ("Lorcan Pettersen never worked for Brightloom - he was a contractor via Quillnet",
         "Lorcan Pettersen", "Brightloom"),
        ("Ingrid Solbakken quit Vantoria, she left them in March", "Ingrid Solbakken", "Vantoria"),
    ],
)  # fmt: skip
def test_he_and_she_mean_the_person_not_the_company(
    extractor: RulesExtractor, text: str, person: str, company: str
) -> None:
    subjects = {c.subject_text for c in _claims(extractor, text)}
    assert company not in subjects
    assert person in subjects


@pytest.mark.parametrize(
    "text",
    [
        "yep, she's joining their sprint planning next week",
        "she will sit in on their standups from Monday",
        "and she's already in their Slack channel",
    ],
)
def test_their_in_a_clause_about_her_is_not_hers(extractor: RulesExtractor, text: str) -> None:
    context = "[t1] Benedek: fyi Oluwaseun Akintola moved over to the Fraud Signals team on Monday"
    for claim in _claims(extractor, text, context):
        assert "Oluwaseun Akintola's" not in (claim.object_text or "")
        assert "Oluwaseun Akintola's" not in claim.claim_text


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Lorcan Pettersen never worked for Trellisoft - he was a contractor via Brightloom.",
         ("Lorcan Pettersen", "work for", "Trellisoft")),
        ("Dana Kim joined Lumio in May - she leads the data team now.",
         ("Dana Kim", "join", "Lumio")),
        ("Ines Moreau left Kestrel in March – she is at Orrin Group now.",
         ("Ines Moreau", "leave", "Kestrel")),
    ],
)  # fmt: skip
def test_a_clause_before_a_spaced_dash_is_a_claim_of_its_own(
    extractor: RulesExtractor, text: str, first: tuple[str, str, str]
) -> None:
    claims = _claims(extractor, text)
    assert len(claims) == 2
    assert (claims[0].subject_text, claims[0].predicate_text, claims[0].object_text) == first


@pytest.mark.parametrize(
    "text", ["The budget is $80k - down from $100k.", "The plan - agreed on Monday - is to ship."]
)
def test_a_dash_before_a_verbless_phrase_splits_nothing(
    extractor: RulesExtractor, text: str
) -> None:
    assert len(_claims(extractor, text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Discovery itself is unchanged.",
        "The Berlin office itself stays open.",
        "Dana Kim herself approved the budget.",
    ],
)
def test_an_emphatic_reflexive_is_no_second_mention(extractor: RulesExtractor, text: str) -> None:
    context = (
        "[t1] Roswitha: Search Relevance moves into the AI Platform group, led by Thaddeus Mbeki."
    )
    (claim,) = _claims(extractor, text, context)
    assert "Thaddeus" not in claim.claim_text


@pytest.mark.parametrize(
    "log",
    [
        "Morwenna: she's taking the roadmap back from Callum\nIngrid: Good to be back!",
        "Rhiannon: Adaeze Nwachukwu started today\nKofi: welcome Adaeze!!",
        "Tjaša: the Lisbon office closes on Friday\nBjørn: noted, thanks",
    ],
)
def test_every_line_labelled_by_a_name_is_a_chat_log(extractor: RulesExtractor, log: str) -> None:
    """Speakers whose names the given-name list lacks, each speaking once: no label is kept
    in a claim, and no greeting line is one."""
    passage = ExtractionInput(text=log, said_on=SAID, document_title="#general")
    claims = extractor.extract_batch([passage])[0]
    assert len(claims) == 1
    assert ":" not in claims[0].claim_text


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Krol joins NRL from Harwick Ports, where she was head of freight planning.",
         "Harwick Ports"),
        ("Omar moved to Lumio, where he leads the data team.", "Lumio"),
        ("Mirela came from Tessaly, where she ran the Lisbon office.", "Tessaly"),
    ],
)  # fmt: skip
def test_a_pronoun_in_a_where_clause_is_not_the_place_it_describes(
    extractor: RulesExtractor, text: str, place: str
) -> None:
    claims = _claims(extractor, text)
    assert place not in claims[0].claim_text.split(", where ")[-1]


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Ingrid's back as of today.", "be back"),
        ("Dana's out until Friday.", "be out"),
        ("Priya's away until Monday.", "be away"),
    ],
)
def test_a_contracted_is_after_a_name_is_a_copula(
    extractor: RulesExtractor, text: str, predicate: str
) -> None:
    (claim,) = _claims(extractor, text)
    assert (claim.subject_text, claim.predicate_text) == (text.split("'")[0], predicate)
