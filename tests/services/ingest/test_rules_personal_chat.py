"""What people tell an assistant about their lives (issue 16): a large city is a place however
the small NER labels it ("Jess moved to Glasgow" was employment at Glasgow, "My sister Jess
moved to Glasgow" Glasgow taking ownership of Jess), and a possessive her/his continues its
clause's she/he rather than the nearest name."""

from __future__ import annotations

import pytest

from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract, stated_relations


@pytest.mark.parametrize(
    ("text", "who", "where"),
    [
        ("Jess moved to Glasgow in May.", "Jess", "Glasgow"),
        ("Jess Kerr moved to Glasgow.", "Jess Kerr", "Glasgow"),
        ("My sister Jess moved to Glasgow in March.", "Jess", "Glasgow"),
        ("My brother Tom moved to Dublin last year.", "Tom", "Dublin"),
    ],
)
def test_moving_to_a_large_city_is_relocating_there(
    extractor: RulesExtractor, text: str, who: str, where: str
) -> None:
    (claim,) = extract(extractor, text, "Chat")
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        who,
        "relocate to",
        where,
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "Jess Kerr messaged me. She has moved to Glasgow with her cousin.",
            "Jess Kerr has moved to Glasgow with Jess Kerr's cousin",
        ),
        ("Jess moved to Glasgow with her partner.", "Jess moved to Glasgow with Jess's partner"),
        (
            "Ana Ruiz called. She told Tom about her promotion.",
            "Ana Ruiz told Tom about Ana Ruiz's promotion",
        ),
    ],
)
def test_a_possessive_continues_its_clauses_subject(
    extractor: RulesExtractor, text: str, says: str
) -> None:
    assert says in [c.claim_text for c in extract(extractor, text, "Chat")]


def test_a_possessive_whose_subject_means_no_one_named_stays_a_pronoun(
    extractor: RulesExtractor,
) -> None:
    (claim,) = extract(extractor, "She told Tom about her promotion.", "Chat")
    assert claim.claim_text == "She told Tom about her promotion"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "User: hi! I am Tomasz Wrobel.\nAssistant: Nice to meet you.\n"
            "User: I started at Halden Labs in March.\n",
            "Tomasz Wrobel started at Halden Labs in March",
        ),
        (
            "Customer: Hello, this is Dr. Aaron Whitfield from Corvane.\n"
            "Agent: How can I help?\nCustomer: I run the imaging lab there.\n",
            "Aaron Whitfield runs the imaging lab there",
        ),
        (
            "Caller: my name is Ana Ruiz.\nAgent: Thanks Ana.\nCaller: I moved to Porto in May.\n",
            "Ana Ruiz moved to Porto in May",
        ),
        (
            "Customer: Hi, this is Bartholomew Quaye.\nAgent: Hello!\n"
            "Customer: I moved to Leeds in May.\n",
            "Bartholomew Quaye moved to Leeds in May",
        ),
        (
            "User: ok so. My name's Kwame Mensah.\nAssistant: Hi Kwame.\n"
            "User: I work at Halden Labs.\n",
            "Kwame Mensah works at Halden Labs",
        ),
    ],
)
def test_a_conversation_part_that_introduces_itself_is_that_person(
    extractor: RulesExtractor, text: str, says: str
) -> None:
    claims = extract(extractor, text, "Chat")
    assert says in [c.claim_text for c in claims]
    # The introduction itself states nothing ("Tomasz Wrobel is Tomasz Wrobel").
    assert not [c for c in claims if c.subject_text and c.subject_text == c.object_text]


def test_a_part_that_names_no_one_stays_no_one(extractor: RulesExtractor) -> None:
    claims = extract(
        extractor, "User: this is Monday again.\nAssistant: Sure.\nUser: I moved to Porto.\n"
    )
    assert "I moved to Porto" in [c.claim_text for c in claims]


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("Alexandra 'Sasha' Petrov joined Fenwick in May.", "Alexandra Petrov"),
        ('Robert "Bob" Lane leads the Data team.', "Robert Lane"),
        ("Katherine (Kate) Moss is our new CFO.", "Katherine Moss"),
        ("Robert 'Bobby' Okafor works for Halden.", "Robert Okafor"),
    ],
)
def test_a_nickname_inside_a_full_name_leaves_the_full_name(
    extractor: RulesExtractor, text: str, who: str
) -> None:
    # The quotes split the name: it was stored as "SashaPetrov".
    (claim,) = extract(extractor, text, "Email")
    assert claim.subject_text == who


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("Maeve Doyle works at St Brigid's Hospice.", "St Brigid's Hospice"),
        ("Tom Hale works at Halloran's Bakery now.", "Halloran's Bakery"),
        ("Ana Ruiz joined St Aldric's Hospital in May.", "St Aldric's Hospital"),
    ],
)
def test_a_possessive_inside_an_establishments_name_is_part_of_it(
    extractor: RulesExtractor, text: str, where: str
) -> None:
    # It was "Hospice", "Bakery", "St AldricHospital".
    (claim,) = extract(extractor, text, "Chat")
    assert claim.object_text == where


def test_an_organisations_role_keeps_its_owner(extractor: RulesExtractor) -> None:
    # A role is no establishment: "Acme's CEO" is not read as one name of a place.
    (claim,) = extract(extractor, "Dana Kim met Acme's CEO on Monday.", "Chat")
    assert claim.object_text == "Acme's CEO"


def test_a_word_left_out_of_a_name_keeps_its_spacing(extractor: RulesExtractor) -> None:
    # The quotes around "Falcon" are no part of the name; it was "Project FalconReview".
    (claim,) = extract(extractor, "Project 'Falcon' Review is on Monday.", "Plan")
    assert claim.subject_text == "Project Falcon Review"


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        (
            "Please welcome Dev Patel 🎉 Dev joins the Payments team as a backend engineer.",
            ("Dev Patel", "join", "the Payments team"),
        ),
        (
            "Congrats to Mina Cho 👏 she now leads the Ads team.",
            ("Mina Cho", "lead", "the Ads team"),
        ),
        (
            "Big news 🚀🚀 Halden Group acquired Fernhill Analytics.",
            ("Halden Group", "acquire", "Fernhill Analytics"),
        ),
        ("Omar Said joined Corvane ❤️ Welcome Omar!", ("Omar Said", "join", "Corvane")),
    ],
)
def test_an_emoji_after_a_word_ends_its_sentence_and_is_no_part_of_a_name(
    extractor: RulesExtractor, text: str, stated: tuple[str, str, str]
) -> None:
    assert stated in stated_relations(extract(extractor, text, "#general"))
