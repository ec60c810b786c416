"""An email's writer from its signature or "From:" line, and the post the signature gives,
in sign-offs written apart from the rules (issue 16 class 5: "I" in an email named no one)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from services.ingest.extraction.signatures import author, passage_writer, signature

SAID = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "name", "organisation"),
    [
        ("Great to meet you.\n\nBest,\nNadia Rahman\nHead of Partnerships, Tessel Labs",
         "Nadia Rahman", "Tessel Labs"),
        ("Numbers attached.\n\nThanks all,\nJonas Berg\nCFO | Kavli Partners", "Jonas Berg",
         "Kavli Partners"),
        ("See you Monday.\n\nCheers,\nMira Sato\nSenior Engineer at Orbit Systems", "Mira Sato",
         "Orbit Systems"),
        ("Deck below.\n\nKind regards,\nTom Hale\nVP Sales\nNorthwind Logistics", "Tom Hale",
         "Northwind Logistics"),
        ("Reports to me from Monday.\n\nBest, Aoife", "Aoife", None),
        ("All good.\n\nThanks,\nPriya", "Priya", None),
    ],
)  # fmt: skip
def test_a_signature_names_the_writer_and_where_they_work(
    text: str, name: str, organisation: str | None
) -> None:
    found = signature(text)
    assert found is not None and (found.name, found.organisation) == (name, organisation)
    assert author(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "Thanks for the update. Best of luck with the launch!",
        "Thanks, everyone",
        "Thanks,\nThe Platform Team\nOrbit Systems",  # a team signs, no person
        "Regards to the whole team in Lisbon, and see you in May.",
    ],
)
def test_text_without_a_signed_name_has_no_signature(text: str) -> None:
    assert signature(text) is None


def test_a_from_line_names_the_writer_when_no_signature_does() -> None:
    text = "From: Lena Vogt <lena@orbit.io>\nSubject: update\n\nI moved to Berlin in May."
    assert author(text) == "Lena Vogt"


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("I joined the Platform team on 1 June.", "Lena Vogt"),
        ("My manager is now Dana Kim.", "Lena Vogt"),
        ("We moved the cutover to 14 July.", None),  # "we" is the writers and others
    ],
)
def test_first_person_words_in_an_email_paragraph_are_its_writer(
    extractor: RulesExtractor, text: str, subject: str | None
) -> None:
    inp = ExtractionInput(text=text, said_on=SAID, document_title="Update", author="Lena Vogt")
    (claim,) = extractor.extract_batch([inp])[0]
    if subject is None:
        assert claim.subject_text != "Lena Vogt"
    else:
        assert claim.subject_text == subject or claim.claim_text.startswith(subject)


def test_the_signature_block_yields_the_post_and_no_other_claim(extractor: RulesExtractor) -> None:
    text = "Best,\nNadia Rahman\nHead of Partnerships, Tessel Labs"
    (claim,) = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        "Nadia Rahman",
        "work for",
        "Tessel Labs",
    )
    assert text[claim.char_start : claim.char_end] == "Head of Partnerships, Tessel Labs"


_REPLY = "From: Grace Tan <grace@fenwick.io>\n\nSounds good, see you there.\n\n"


@pytest.mark.parametrize(
    ("quote", "writer"),
    [
        (
            "On Mon, 2 Mar 2026 at 09:12, Omar Haddad <omar@fenwick.io> wrote:\n"
            "> I'm moving to our Berlin office in May.\n",
            "Omar Haddad",
        ),
        ("Omar Haddad wrote:\n\n> I'm moving to our Berlin office in May.\n", "Omar Haddad"),
        ("> I'm moving to our Berlin office in May.\n> Best, O.\n", None),
    ],
)
def test_quoted_lines_are_the_quoted_writers_words_not_the_replys(
    quote: str, writer: str | None
) -> None:
    text = _REPLY + quote
    start = text.index("> I")
    assert passage_writer(text, start, text[start:], "Grace Tan") == writer
    assert passage_writer(text, 0, "Sounds good, see you there.", "Grace Tan") == "Grace Tan"


@pytest.mark.parametrize(
    ("text", "name", "organisation"),
    [
        (
            "I lead partnerships at Fenwick.\n\nRosa Delgado\nPartnerships Lead, Fenwick",
            "Rosa Delgado",
            "Fenwick",
        ),
        (
            "I've moved to the Lisbon office.\n\nBest,\nTom | Head of Sales, Fenwick",
            "Tom",
            "Fenwick",
        ),
        (
            "Happy to help with the audit.\n\nAmara Osei\nSenior Analyst\nBrightwater Analytics",
            "Amara Osei",
            "Brightwater Analytics",
        ),
    ],
)
def test_a_signature_without_a_closing_word_or_with_its_post_on_the_name_line(
    text: str, name: str, organisation: str
) -> None:
    signed = signature(text)
    assert signed is not None and (signed.name, signed.organisation) == (name, organisation)
    assert author(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "Notes from the call.\nDana Kim\nOmar Said",
        "The launch is on Friday.\n\nSee you there.",
        "Attendees:\nDana Kim\nProduct Manager",
    ],
)
def test_names_at_the_end_without_a_post_at_an_organisation_sign_nothing(text: str) -> None:
    assert signature(text) is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # A name and a post with no organisation, no closing word
        (
            "Hi Rafael,\n\nI've escalated #48213 to our integrations team.\n\nJo Adebayo\n"
            "Support Engineer\n",
            "Jo Adebayo",
        ),
        ("All set on our side.\n\nMarta Silva\nAccount Manager", "Marta Silva"),
        # A reply signed with a name alone on its last line
        ("Hi Rafael,\n\nI'm marking #48213 as resolved.\n\nJo\n", "Jo"),
        ("Sorry, we're seeing the 401s again. Reopening the ticket.\n\nRafael", "Rafael"),
        ("Can't make Thursday, I'm out sick.\n\nPriya Raman\n", "Priya Raman"),
    ],
)
def test_a_reply_signed_without_a_closing_word_names_its_writer(text: str, name: str) -> None:
    assert author(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "The launch moved to May.\nPriya",  # no blank line: a hard-wrapped line
        "Agenda\n\nReview the roadmap.\n\nMarketing",  # no given name
        "# Owners\n\nDana Kim",  # a heading, not a sentence, above it
        "Attendees:\nDana Kim\nProduct Manager",
    ],
)
def test_a_last_line_that_is_no_sign_off_names_no_writer(text: str) -> None:
    assert author(text) is None


@pytest.mark.parametrize(
    ("text", "addressee"),
    [
        ("Jo, sorry, we're seeing the 401s again since about 7am today.", "Jo"),
        ("Tom Keller, I've attached the signed order form.", "Tom Keller"),
        ("Priya, we reopened the ticket this morning.", "Priya"),
    ],
)
def test_a_name_the_sentence_opens_by_addressing_is_not_its_subject(
    extractor: RulesExtractor, text: str, addressee: str
) -> None:
    (claim,) = extractor.extract_batch([ExtractionInput(text=text)])[0]
    assert claim.subject_text != addressee
