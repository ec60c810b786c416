"""Who a turn speaks of: speaker labels are no mentions, a possessive's owner, names the small
NER cuts short or calls places, "us" as an object, and verbs coordinated in a turn."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2025, 5, 20, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _claims(
    extractor: RulesExtractor, text: str, speaker: str | None = None, context: str | None = None
) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, speaker=speaker, context=context)
    return extractor.extract_batch([inp])[0]


def _relations(claims: list[ExtractedClaim]) -> set[tuple[str | None, str, str | None]]:
    found = set()
    for claim in claims:
        stored = VOCABULARY.relation(
            claim.subject_text or "", claim.predicate_text or "", claim.object_text or ""
        )
        placed = stored[1] if stored is not None else None
        if placed is not None and claim.object_text:
            found.add((claim.subject_text, placed.predicate, claim.object_text))
    return found


@pytest.mark.parametrize(
    ("context", "text", "owner"),
    [
        (
            "[t1] Sofia Greco: did you hear Tomasz is leaving?\n[t2] Raj Iyer: no way, where to?",
            "Palantir I think. his last day is Friday",
            "Tomasz",
        ),
        (
            "[t1] Maya Chen: Omar Haddad got the offer\n[t2] Ilya Petrov: nice",
            "yes, his start date is 1 June",
            "Omar Haddad",
        ),
        (
            "[t1] Ana Ruiz: Lena Berg is moving on\n[t2] Bo Chan: oh no",
            "her final day is 30 May",
            "Lena Berg",
        ),
    ],
)
def test_a_speaker_label_is_no_mention_and_a_milestone_is_its_owner_s(
    extractor: RulesExtractor, context: str, text: str, owner: str
) -> None:
    claims = _claims(extractor, text, speaker="Sofia Greco", context=context)
    dated = [c for c in claims if c.claim_valid_from is not None]
    assert [c.subject_text for c in dated] == [owner]
    assert f"{owner}'s " in dated[0].claim_text, dated[0].claim_text


@pytest.mark.parametrize(
    ("text", "full"),
    [
        ("Tomasz Nowak is leaving. His last day is Friday.", "Tomasz Nowak"),
        ("Ana Lima is leaving us. Her last day is 30 May.", "Ana Lima"),
        ("Jonas Weber resigned. His last day is 6 June.", "Jonas Weber"),
    ],
)
def test_a_given_name_the_ner_leaves_out_of_a_name_is_part_of_it(
    extractor: RulesExtractor, text: str, full: str
) -> None:
    claims = _claims(extractor, text)
    assert claims[-1].subject_text == full
    assert claims[-1].claim_text.startswith(f"{full}'s"), claims[-1].claim_text


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Sofia moved to Lima. She loves it.", "Sofia"),
        ("Carlos moved to Florence in May. He likes the office.", "Carlos"),
        ("Mei relocated to Victoria last year. She runs the data team now.", "Mei"),
    ],
)
def test_she_or_he_is_no_place_that_is_also_a_given_name(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claims(extractor, text)[-1].subject_text == subject


@pytest.mark.parametrize(
    "text",
    [
        "Kwame Boateng starts with us on 1 June as SRE lead.",
        "Ana Lima is leaving us at the end of May.",
        "Bo Chan joined us from Globex in March.",
    ],
)
def test_us_as_an_object_is_no_entity(extractor: RulesExtractor, text: str) -> None:
    assert all(c.object_text is None for c in _claims(extractor, text, speaker="Maya Chen"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Kwame will sit in the platform team and report to me",
            {
                ("Kwame", "member_of", "the platform team"),
                ("Kwame", "reports_to", "Beatriz Santos"),
            },
        ),
        (
            "Kwame joined the platform team and reports to Ilya Petrov.",
            {
                ("Kwame", "member_of", "the platform team"),
                ("Kwame", "reports_to", "Ilya Petrov"),
            },
        ),
        (
            "Hao will join the search team and work with me",
            {("Hao", "member_of", "the search team")},
        ),
    ],
)
def test_a_verb_coordinated_in_a_turn_is_a_claim_of_its_own(
    extractor: RulesExtractor, text: str, expected: set[tuple[str, str, str]]
) -> None:
    found = _relations(_claims(extractor, text, speaker="Beatriz Santos"))
    assert expected <= found, found
    assert len(_claims(extractor, text, speaker="Beatriz Santos")) == 2


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("Ana Lima joined Globex. Tom Berg hired her in May.", "Tom Berg", "Ana Lima"),
        ("Omar Said joined in May. Dana Kim manages him.", "Dana Kim", "Omar Said"),
        ("Lena Berg starts Monday. Ravi Shah will mentor her.", "Ravi Shah", "Lena Berg"),
    ],
)
def test_an_object_pronoun_is_never_its_own_clause_s_subject(
    extractor: RulesExtractor, text: str, subject: str, obj: str
) -> None:
    last = _claims(extractor, text)[-1]
    assert (last.subject_text, last.object_text) == (subject, obj)


@pytest.mark.parametrize(
    "text",
    [
        "Engineering can't make it.",
        "Bo Chan reviews them weekly.",
        "Support will handle it.",
    ],
)
def test_a_pronoun_object_nothing_names_is_no_entity(extractor: RulesExtractor, text: str) -> None:
    assert all(c.object_text is None for c in _claims(extractor, text))


def test_a_line_ending_a_sentence_and_a_capitalised_line_are_two_statements(
    extractor: RulesExtractor,
) -> None:
    text = (
        "Ticket volume was 1,240 this week.\n"
        "Average first reply time improved to 3h 10m.\n"
        "Zendesk will be replaced by Intercom on 1 August."
    )
    assert len(_claims(extractor, text)) == 3
    wrapped = "Amara Okafor has left Tessellate\nInsurance and joined Corvid Health."
    assert len([c for c in _claims(extractor, wrapped) if "Corvid" in c.claim_text]) == 1


@pytest.mark.parametrize(
    ("text", "subject", "start"),
    [
        ("From 1 March 2025 Diego Ramos reports to Ivan Petrov.", "Diego Ramos", (2025, 3, 1)),
        ("From 2 June 2025 Ana Lima works for Globex.", "Ana Lima", (2025, 6, 2)),
        ("From 1 March Diego Ramos reports to Ivan Petrov instead.", "Diego Ramos", (2025, 3, 1)),
    ],
)
def test_a_name_after_a_fronted_date_without_a_comma_is_the_subject(
    extractor: RulesExtractor, text: str, subject: str, start: tuple[int, int, int]
) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.subject_text == subject
    assert claim.claim_valid_from == datetime(*start, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("The team behind it is based in Leeds.", "The team behind the team"),
        ("Mira Holm leads Atlas. The team behind it sits in Oslo.", "The team behind the team"),
        ("The people at Kite like it.", "The people at Kite like the people"),
    ],
)
def test_a_pronoun_never_means_the_phrase_it_is_inside(
    extractor: RulesExtractor, text: str, wrong: str
) -> None:
    assert all(wrong not in c.claim_text for c in _claims(extractor, text))


@pytest.mark.parametrize(
    "text",
    [
        "Phew! Glad it all worked out.",
        "Wow! Thrilled it went so well.",
        "Challenges will come. They make you stronger.",
    ],
)
def test_a_common_word_opening_a_sentence_is_no_name_a_pronoun_means(
    extractor: RulesExtractor, text: str
) -> None:
    first = text.split("!")[-1].split()[0] if "!" in text else text.split()[0]
    for claim in _claims(extractor, text, speaker="Maya Chen"):
        assert f"{first} {first}" not in claim.claim_text, claim.claim_text
        assert not claim.claim_text.startswith(f"{first} make"), claim.claim_text


@pytest.mark.parametrize(
    "text",
    [
        "Challenges will come, but believe in yourself and keep going.",
        "It was hard, but stay positive and keep at it.",
        "Sounds fun, go for it and enjoy.",
    ],
)
def test_a_short_coordinated_phrase_naming_no_one_is_still_a_nod(
    extractor: RulesExtractor, text: str
) -> None:
    texts = [c.claim_text.lower() for c in _claims(extractor, text, speaker="Maya Chen")]
    assert not any(t.endswith(("keep going", "keep at it", "enjoy")) for t in texts), texts
