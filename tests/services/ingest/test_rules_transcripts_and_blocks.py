"""Shapes of text written by others that lost or misplaced claims (issue 16): a greeting on a
line of its own, transcripts whose speakers are not in the given-name list, a status block
whose topic is a "Project:" line, and "for <name> starting <date>" misread by the parser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from services.ingest.extraction.speaker_labels import speaker_label, speaker_lines

SAID = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)


def _claims(extractor: RulesExtractor, text: str) -> list[ExtractedClaim]:
    return extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]


def _triples(claims: list[ExtractedClaim]) -> set[tuple[str | None, str | None, str | None]]:
    return {(c.subject_text, c.predicate_text, c.object_text) for c in claims}


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Hi all,\nquick correction: the Team plan costs $55 per month.", "The Team plan"),
        ("Dear Marta,\nThe contract with Lindholm was signed on 3 May.", "The contract"),
        ("Hello team,\nthe rollout finished on Tuesday.", "The rollout finished"),
        ("Hey folks -\nKira Lenz joined the Growth team last week.", "Kira Lenz joined"),
    ],
)  # fmt: skip
def test_a_greeting_on_its_own_line_does_not_swallow_the_sentence_after_it(
    extractor: RulesExtractor, text: str, kept: str
) -> None:
    claims = _claims(extractor, text)
    assert [c.claim_text for c in claims if c.claim_text.startswith(kept)], claims
    assert not any(c.claim_text.lower().startswith(("hi", "dear", "hello", "hey")) for c in claims)


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("Interviewer: So where are you now?\nHamid Rahimi: Since June I've been on the Risk team.",
         "Hamid Rahimi", "the Risk team"),
        ("Q: Who runs data at Medlink?\nA: Tomasz Wojcik.\nQ: And you?\nNgozi Eze: I joined Arbor"
         " Health in 2024.", "Ngozi Eze", "Arbor Health"),
        ("Ngozi Eze: I joined Arbor Health in 2024.\nTomasz Wojcik: And before that?\nNgozi Eze: "
         "I was at Medlink for six years.\nTomasz Wojcik: Fair enough.", "Ngozi Eze", "Medlink"),
    ],
)  # fmt: skip
def test_each_transcript_line_is_said_by_its_labelled_speaker(
    extractor: RulesExtractor, text: str, subject: str, obj: str
) -> None:
    claims = _claims(extractor, text)
    assert any(c.subject_text == subject and c.object_text == obj for c in claims), claims
    assert not any(":" in c.claim_text for c in claims)  # no label left in a claim


def test_key_value_lines_are_not_read_as_a_transcript() -> None:
    inp = ExtractionInput(text="Project: Kite\nOwner: Ivo Petrov\nStatus: green", said_on=SAID)
    (piece,) = speaker_lines(inp)
    assert piece.speaker is None and piece.text == inp.text


@pytest.mark.parametrize(
    ("text", "holder", "topic"),
    [
        ("Project: Data retention\nOwner: Ivo Petrov\nStatus: green", "Ivo Petrov",
         "Data retention"),
        ("Client: Harbour Foods\nAccount lead: Mia Kovac\nNext review: 1 October", "Mia Kovac",
         "Harbour Foods"),
        ("Service: Checkout API\nOwner: Camille Roux\nHealth: degraded", "Camille Roux",
         "Checkout API"),
    ],
)  # fmt: skip
def test_a_topic_key_line_names_what_the_block_under_it_is_about(
    extractor: RulesExtractor, text: str, holder: str, topic: str
) -> None:
    claims = _claims(extractor, text)
    assert any(c.subject_text == holder and c.object_text == topic for c in claims), claims
    assert not any(c.claim_text.startswith(text.split(":")[0]) for c in claims)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Payroll export\nOwner: Camille Roux (took over from Ivo on 9 February)\nStatus: amber",
         datetime(2026, 2, 9, tzinfo=UTC)),
        ("Payroll export\nOwner: Dana Iqbal (replacing Tom in March)\nStatus: on track",
         datetime(2026, 3, 1, tzinfo=UTC)),
        ("Payroll export\nOwner: Mei Lin (from 1 April)\nStatus: green",
         datetime(2026, 4, 1, tzinfo=UTC)),
    ],
)  # fmt: skip
def test_a_dated_parenthesis_after_a_holder_opens_the_holding(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    (owner,) = [c for c in _claims(extractor, text) if c.predicate_text == "own"]
    assert owner.object_text == "Payroll export"
    assert (owner.claim_valid_from, owner.claim_valid_until) == (start, None)


@pytest.mark.parametrize(
    ("text", "triple"),
    [
        ("Marek is also consulting part-time for Ostrava Robotics starting this month.",
         ("Marek", "consult for", "Ostrava Robotics")),
        ("Ivo will work for Halden Group starting 1 July.", ("Ivo", "work for", "Halden Group")),
        ("Nina is moving to Castor Bank starting in August.", ("Nina", "move to", "Castor Bank")),
        ("Lena works with Brightwave Media beginning in June.",
         ("Lena", "work with", "Brightwave Media")),
    ],
)  # fmt: skip
def test_a_start_clause_after_a_name_leaves_the_name_to_the_preposition(
    extractor: RulesExtractor, text: str, triple: tuple[str, str, str]
) -> None:
    (claim,) = _claims(extractor, text)
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == triple
    assert claim.claim_valid_from is not None and claim.claim_valid_until is None


@pytest.mark.parametrize(
    ("text", "entered"),
    [
        ("Project Falcon slipped to at risk on 13 March.", datetime(2026, 3, 13, tzinfo=UTC)),
        ("The Nimbus rollout moved to on hold on 2 April.", datetime(2026, 4, 2, tzinfo=UTC)),
        ("The data migration fell to off track on 5 May.", datetime(2026, 5, 5, tzinfo=UTC)),
        ("Orion slipped to amber on 9 May.", datetime(2026, 5, 9, tzinfo=UTC)),
        ("The vendor review slid to behind schedule on 20 April.",
         datetime(2026, 4, 20, tzinfo=UTC)),
    ],
)  # fmt: skip
def test_a_status_entered_on_a_date_holds_from_then(
    extractor: RulesExtractor, text: str, entered: datetime
) -> None:
    (claim,) = _claims(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (entered, None)
    assert claim.claim_valid_kind == "effective_period"


@pytest.mark.parametrize(
    ("text", "speaker"),
    [
        ("Brenna Holt: from today I report to Mei Tan.", "Brenna Holt"),
        ("Brenna: I moved to the Risk team.", "Brenna"),
        ("Zephyr: my last day is Friday.", "Zephyr"),
    ],
)
def test_a_label_the_name_list_lacks_is_a_speaker_by_its_shape_or_its_first_person(
    text: str, speaker: str
) -> None:
    found = speaker_label(text)
    assert found is not None and found[0] == speaker


@pytest.mark.parametrize(
    "text",
    ["Status: I think we are fine.", "Update: I moved to the Risk team.", "Owner: Lucia Moreno"],
)
def test_a_line_key_is_no_speaker_even_before_a_first_person_line(text: str) -> None:
    assert speaker_label(text) is None


@pytest.mark.parametrize(
    "text",
    ["Attendees: Leo Whitaker, Leo Santos, Maya Cole", "Present: Ana, Ben, Chloe",
     "Apologies: Dev Patel", "Participants: Omar Haddad, Lina Berg"],
)  # fmt: skip
def test_a_meeting_s_header_line_is_no_claim(extractor: RulesExtractor, text: str) -> None:
    assert _claims(extractor, text) == []


@pytest.mark.parametrize(
    ("line", "start"),
    [
        ("Budget: $150k (raised on 20 February)", datetime(2026, 2, 20, tzinfo=UTC)),
        ("Status: amber (since 3 March)", datetime(2026, 3, 3, tzinfo=UTC)),
        ("Headcount: 12 (changed in April)", datetime(2026, 4, 1, tzinfo=UTC)),
    ],
)
def test_a_value_line_s_dating_parenthesis_opens_the_value(
    extractor: RulesExtractor, line: str, start: datetime
) -> None:
    (claim,) = _claims(extractor, f"Project: Atlas\n{line}\nOwner: Mei Lin")[:1]
    assert claim.subject_text == "Atlas"
    assert claim.claim_text == line  # the bracket it opened is closed
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)
    assert claim.claim_valid_kind == "effective_period"


@pytest.mark.parametrize(
    ("text", "topic", "place"),
    [
        ("Corvane\nFounded: 2014\nHeadquarters: Oslo\nCEO: Hana Sato", "Corvane", "Oslo"),
        ("Client: Harbour Foods\nHQ: Cape Town\nAccount lead: Mia Kovac", "Harbour Foods",
         "Cape Town"),
        ("Vendor: Lumio\nLocation: Monterrey\nOwner: Ivo Petrov", "Lumio", "Monterrey"),
    ],
)  # fmt: skip
def test_an_infobox_place_line_locates_the_topic(
    extractor: RulesExtractor, text: str, topic: str, place: str
) -> None:
    assert (topic, "be based in", place) in _triples(_claims(extractor, text))


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Just confirming Nadia signed the MSA with Brightwave yesterday.",
         "Nadia signed the MSA with Brightwave yesterday"),
        ("Turns out the outage was caused by an expired certificate.",
         "The outage was caused by an expired certificate"),
        ("So the plan is that Ben takes over billing from Marta in August.",
         "Ben takes over billing from Marta in August"),
        ("confirming that the Leeds warehouse opened on Tuesday",
         "The Leeds warehouse opened on Tuesday"),
    ],
)  # fmt: skip
def test_a_subjectless_frame_around_the_news_is_no_part_of_the_claim(
    extractor: RulesExtractor, text: str, kept: str
) -> None:
    assert [c.claim_text for c in _claims(extractor, text)] == [kept]


@pytest.mark.parametrize(
    "text",
    [
        "Not sure if Dana still runs the Berlin office.",
        "We will check whether the certificate expired.",
        "No idea if Omar has left Lumio yet.",
    ],
)
def test_a_question_asked_without_a_question_mark_is_no_claim(
    extractor: RulesExtractor, text: str
) -> None:
    assert _claims(extractor, text) == []


def test_what_someone_knows_is_still_their_claim(extractor: RulesExtractor) -> None:
    (claim,) = _claims(extractor, "Dana knows that Omar left Lumio.")
    assert (claim.subject_text, claim.predicate_text, claim.holder) == ("Omar", "leave", "Dana")
