"""An email announcing a move, as people write it (issue 16): the sign-off names the writer
however it thanks ("Thanks for everything,"), a marker with two qualifiers ("Quick personal
news:") is no content, and "My last day will be …" ends the placement the passage says is
being left."""

from __future__ import annotations

import pytest

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from services.ingest.extraction.signatures import author
from tests.support.extracting import SAID, extract, stated_relations


@pytest.mark.parametrize(
    "closing",
    ["Thanks for everything,", "Thank you for all your support!", "Thanks for the great years,"],
)
def test_a_thankful_sign_off_names_the_writer(closing: str) -> None:
    text = f"Hi all,\n\nI'm leaving Belvane Foods in March.\n\n{closing}\nMarguerite Oyelaran\n"
    assert author(text) == "Marguerite Oyelaran"


@pytest.mark.parametrize(
    "marker", ["Quick personal news:", "Big team update:", "Small personal note:"]
)
def test_a_marker_with_two_qualifiers_is_no_subject(extractor: RulesExtractor, marker: str) -> None:
    (claim,) = extract(extractor, f"{marker} Dana Kim is joining Lumio in July.")
    assert claim.subject_text == "Dana Kim"


@pytest.mark.parametrize(
    "text",
    [
        "I'm leaving Belvane Foods. My last day will be Friday 26 June.",
        "After four years I am leaving Belvane Foods; my last day is 26 June.",
        "I have resigned from Belvane Foods. My final day is 26 June.",
    ],
)
def test_the_last_day_ends_the_placement_being_left(extractor: RulesExtractor, text: str) -> None:
    passage = ExtractionInput(
        text=text, said_on=SAID, document_title="Personal news", author="Marguerite Oyelaran"
    )
    claims = extractor.extract_batch([passage])[0]
    dated = [c for c in claims if c.claim_valid_from is not None]
    assert [(c.subject_text, c.object_text) for c in dated] == [
        ("Marguerite Oyelaran", "Belvane Foods")
    ]
    assert ("Marguerite Oyelaran", "leave", "Belvane Foods") in stated_relations(claims) or any(
        c.predicate_text and c.predicate_text.startswith("resign") for c in claims
    )


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("Kasimir Oduya is our account manager at Trellisoft.", "Trellisoft"),
        ("Dana Kim is Noor's product manager at Lumio.", "Lumio"),
        ("Ines Moreau is the engineering manager at Kestrel.", "Kestrel"),
    ],
)
def test_a_manager_by_trade_at_a_company_works_there(
    extractor: RulesExtractor, text: str, employer: str
) -> None:
    (claim,) = extract(extractor, text)
    assert (claim.predicate_text, claim.object_text) == ("work for", employer)


@pytest.mark.parametrize(
    ("text", "managed"),
    [("Noor's manager is Dana Kim.", "Noor"), ("Her line manager will be Omar Said.", None)],
)
def test_someones_manager_is_still_a_reporting_line(
    extractor: RulesExtractor, text: str, managed: str | None
) -> None:
    (claim,) = extract(extractor, text)
    assert (claim.subject_text, claim.predicate_text) == (managed, "report to")


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Tomasz Wierzbicki steps up as acting VP of Sales at Halvorsen Mobility.", "join"),
        ("Mira Lund stepped in as interim CFO at Lumio in March.", "join"),
        ("Rosalind Achterberg stepped down as CTO of Velloran.", "leave"),
        ("Dana Kim steps aside as CEO of Kestrel Partners.", "leave"),
    ],
)
def test_stepping_up_takes_a_post_and_stepping_down_leaves_it(
    extractor: RulesExtractor, text: str, predicate: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.predicate_text == predicate


@pytest.mark.parametrize(
    "text",
    [
        "Adaeze Obi, VP of Sales, will present the plan.",
        "Adaeze Obi, our head of Marketing, approved it.",
        "Adaeze Obi, director of Engineering, signed off.",
        # a department with English words before it, under a leader of a part
        "Their main contact is Dana Whitcombe, Head of Fleet Ops.",
        "Yusuf Demir, Head of Claims, is very enthusiastic.",
        "Priya Shah, VP of Customer Success, joined the call.",
    ],
)
def test_a_function_after_of_is_no_employer(extractor: RulesExtractor, text: str) -> None:
    relations = stated_relations(extract(extractor, text))
    assert not any(p in ("work for", "work at") for _, p, _ in relations), relations


def test_a_company_named_after_a_function_is_still_the_employer(extractor: RulesExtractor) -> None:
    (claim,) = extract(extractor, "Ola Berg stepped down as CTO of Fjord Analytics.")
    assert (claim.predicate_text, claim.object_text) == ("leave", "Fjord Analytics")
    relations = stated_relations(extract(extractor, "Tomas Berg, Head of Harrowgate Labs, signed."))
    assert ("Tomas Berg", "work for", "Harrowgate Labs") in relations


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Effective 1 May, Hyun-woo will report to Declan Mahoney.", "Hyun-woo"),
        ("Anne-Marie left the Risk team in March.", "Anne-Marie"),
        ("From Monday Jean-Luc owns the billing runbook.", "Jean-Luc"),
        # NER may take only the surname after it ("Bae", a place).
        ("- Hyun-woo Bae reports to Marisa Quintero.", "Hyun-woo Bae"),
    ],
)
def test_a_hyphenated_given_name_is_one_name(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.subject_text == subject


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("I'm delighted to share that Priyanka Venkataraman has been promoted to Staff Engineer.",
         "Priyanka Venkataraman"),
        ("We are pleased to announce that Kestrel Partners has acquired Fernhill Analytics.",
         "Kestrel Partners"),
        ("I am very happy to let you know that Omar Haddad joins the Risk team on 1 July.",
         "Omar Haddad"),
    ],
)  # fmt: skip
def test_the_writers_pleasure_frames_the_news_it_announces(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.subject_text == subject and not claim.is_attributed


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("Marisa Quintero continues to lead Platform.", "continue to lead"),
        ("Dana Kim will continue to run the Berlin office.", "continue to run"),
        ("Omar Haddad was promoted to lead the Observability team.", "join"),
    ],
)
def test_continuing_in_a_post_keeps_the_verb_that_holds_it(
    extractor: RulesExtractor, text: str, predicate: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.predicate_text == predicate
