"""Subjects the parser lost in sentences written by others (issue 16): a role phrase closed by
the holder's name before the verb ("The head of legal at Orrin Group, Pavel Novak, left in
March", "Our new VP of Sales, Camila Reyes, starts on Monday"), and an unfamiliar name read as a
modifier of the adverb after it ("Sven now reports to …")."""

from __future__ import annotations

import pytest

from services.ingest.extraction.base import ExtractedClaim
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract


def _claim(extractor: RulesExtractor, text: str) -> ExtractedClaim:
    (claim,) = extract(extractor, text)
    return claim


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("The head of legal at Orrin Group, Pavel Novak, left in March.",
         ("Pavel Novak", "leave", "Orrin Group")),
        ("The CFO of Halden Group, Lina Ek, resigned last week.",
         ("Lina Ek", "resign", None)),
        ("The chief of staff at Arvo, Ines Moreau, departed in May.",
         ("Ines Moreau", "depart", None)),
    ],
)  # fmt: skip
def test_a_role_closed_by_its_holders_name_is_the_subject_of_the_verb_after_it(
    extractor: RulesExtractor, text: str, triple: tuple[str, str, str | None]
) -> None:
    claim = _claim(extractor, text)
    assert claim.subject_text == triple[0], claim
    assert claim.predicate_text == triple[1], claim
    if triple[2] is not None:
        assert claim.object_text == triple[2], claim


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Our new VP of Sales, Camila Reyes, starts on Monday.", "Camila Reyes"),
        ("The head of design, Lea Novak, is leaving in June.", "Lea Novak"),
        ("Our director of finance, Tomasz Nowak, approved the budget.", "Tomasz Nowak"),
    ],
)
def test_a_role_named_by_its_holder_is_the_holder(
    extractor: RulesExtractor, text: str, holder: str
) -> None:
    assert _claim(extractor, text).subject_text == holder


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Sven now reports to the COO, Maria Lopez.", "Sven"),
        ("Ilse now leads the Berlin office.", "Ilse"),
        ("Bruno still owns the release checklist.", "Bruno"),
    ],
)
def test_an_unfamiliar_name_before_an_adverb_is_the_subject(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claim(extractor, text).subject_text == subject


@pytest.mark.parametrize(
    ("text", "person", "organisation"),
    [
        ("The board of Corvane appointed Piotr Zielinski as CEO.", "Piotr Zielinski", "Corvane"),
        ("Corvane's board named Hana Sato chief executive on 3 March.", "Hana Sato", "Corvane"),
        ("The board of Halden Group has appointed Lina Ek as CFO.", "Lina Ek", "Halden Group"),
    ],
)
def test_a_board_appointing_someone_places_them_at_the_organisation_it_governs(
    extractor: RulesExtractor, text: str, person: str, organisation: str
) -> None:
    claim = _claim(extractor, text)
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        person,
        "join",
        organisation,
    )


@pytest.mark.parametrize(
    ("text", "person", "organisation"),
    [
        ("- Congrats to Yara Haddad, promoted to Director of Engineering at Lumio from 1 May.",
         "Yara Haddad", "Lumio"),
        ("Congratulations to Omar Haddad, appointed head of risk at Norrsken.", "Omar Haddad",
         "Norrsken"),
        ("Kudos to Ines Moreau, named VP of Sales at Arbor Labs this week.", "Ines Moreau",
         "Arbor Labs"),
    ],
)  # fmt: skip
def test_a_congratulation_states_the_news_it_congratulates_on(
    extractor: RulesExtractor, text: str, person: str, organisation: str
) -> None:
    claim = _claim(extractor, text)
    # a promotion holds the employment as a further, undated relation
    employers = {claim.object_text} | {r.object_text for r in claim.extra_relations}
    assert claim.subject_text == person and organisation in employers, claim
    assert not claim.claim_text.lower().startswith(("congrat", "kudos")), claim


@pytest.mark.parametrize(
    ("text", "organisation"),
    [
        ("Ana Lima is Director of Engineering at Lumio.", "Lumio"),
        ("Rita is head of Sales at Corvid.", "Corvid"),
        ("Jonas Berg is VP of Product at Halden Group.", "Halden Group"),
    ],
)
def test_a_role_of_a_function_at_an_organisation_is_held_at_the_organisation(
    extractor: RulesExtractor, text: str, organisation: str
) -> None:
    claim = _claim(extractor, text)
    assert (claim.predicate_text, claim.object_text) == ("work for", organisation), claim


@pytest.mark.parametrize(
    ("text", "relations"),
    [
        ("Founded in 2009 by Maren Aas and Olu Bello, Quillfeather builds payroll software.",
         {("Quillfeather", "found by", "Maren Aas"), ("Quillfeather", "found by", "Olu Bello")}),
        ("Acquired by Kestrel Partners in 2024, Fernhill now sells telemetry tools.",
         {("Fernhill", "acquire by", "Kestrel Partners")}),
        ("Set up by Ruth Okafor in 2015, Lumio makes scheduling tools.",
         {("Lumio", "set up by", "Ruth Okafor")}),
    ],
)  # fmt: skip
def test_a_fronted_participle_states_its_relation_and_keeps_its_date(
    extractor: RulesExtractor, text: str, relations: set[tuple[str, str, str]]
) -> None:
    claim = _claim(extractor, text)
    found = {(r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations}
    assert relations <= found, found
    assert claim.claim_valid_from is None, claim  # the year is the founding's, not the sales'
