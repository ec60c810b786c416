"""Chat logs written in lower case and Markdown marks written anywhere (issue 16): a channel's
"tavi: kenji is covering …" lines are each their speaker's (one claim per line, the handle its
speaker, the chat's names capitalised for the tagger, "yep"/"ok thx" no content); emphasis
and code marks ("**Headcount:** 8") are layout; a role key's value with a full name's shape is
a person though NER misses the name ("EM: Radomir Pešek")."""

from __future__ import annotations

import pytest

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import SAID, extract


def _chat(extractor: RulesExtractor, text: str, title: str = "#team") -> list[tuple[str, ...]]:
    passage = ExtractionInput(text=text, said_on=SAID, document_title=title)
    return [
        (c.claim_text, c.subject_text or "", c.predicate_text or "")
        for c in extractor.extract_batch([passage])[0]
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "tavi: fyi sam r is out on parental leave from monday till end of aug\n"
            "tavi: kenji is covering legal reviews\n"
            "kenji: yep send contracts my way",
            {("Kenji is covering legal reviews", "Kenji", "cover")},
        ),
        (
            "nadia: the Orbeline Pro plan is now $40 a month\n"
            "tomek: ok thx\n"
            "nadia: and the Basic plan stays at $10",
            {
                ("The Orbeline Pro plan is now $40 a month", "The Orbeline Pro plan", "be"),
                ("And the Basic plan stays at $10", "the Basic plan", "stay at"),
            },
        ),
        (
            "wren: ping bastien for anything on the android app this week\n"
            "bastien: yep i've got the android app until friday",
            {("Bastien has got the android app until friday", "Bastien", "get")},
        ),
    ],
)
def test_each_line_of_a_lower_case_chat_is_its_speaker_s(
    extractor: RulesExtractor, text: str, expected: set[tuple[str, ...]]
) -> None:
    claims = _chat(extractor, text)
    assert expected <= set(claims)
    assert not any(":" in claim_text.split()[0] for claim_text, _, _ in claims)


def test_lower_case_report_keys_are_no_chat(extractor: RulesExtractor) -> None:
    text = "note: the deploy moved to friday\neta: next week for the rest"
    assert all(subject != "Note" for _, subject, _ in _chat(extractor, text, "Deploy notes"))


@pytest.mark.parametrize(
    ("text", "claim_text"),
    [
        ("The **Pro** plan now costs $40 a month.", "The Pro plan now costs $40 a month"),
        ("We rolled back the `strict_tls` flag on Monday.", "We rolled back the strict_tls flag"),
        (
            "_Ingrid Solberg_ joined the Billing team in May.",
            "Ingrid Solberg joined the Billing team",
        ),
    ],
)
def test_emphasis_and_code_marks_are_layout(
    extractor: RulesExtractor, text: str, claim_text: str
) -> None:
    (claim,) = extract(extractor, text)
    assert claim.claim_text.startswith(claim_text)
    assert "*" not in claim.claim_text and "`" not in claim.claim_text


@pytest.mark.parametrize(
    ("line", "person"),
    [
        ("- **EM:** Radomir Pešek", "Radomir Pešek"),
        ("- Engineering manager: Ilse Marwood", "Ilse Marwood"),
        ("TL: Oona Verhoeven", "Oona Verhoeven"),
    ],
)
def test_a_role_key_s_full_name_leads_the_page_s_team(
    extractor: RulesExtractor, line: str, person: str
) -> None:
    (claim,) = extract(extractor, line, "Data Platform team (Kelvane Systems)")
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        person,
        "lead",
        "Data Platform team",
    )


def test_a_bold_attribute_key_is_the_page_s_topic_s(extractor: RulesExtractor) -> None:
    (claim,) = extract(extractor, "- **Headcount:** 8 (6 engineers, 1 EM)", "Data Platform team")
    assert (claim.claim_text, claim.subject_text) == (
        "Headcount: 8 (6 engineers, 1 EM)",
        "Data Platform team",
    )


@pytest.mark.parametrize(
    ("line", "claim_text"),
    [
        ("priya: im ooo from monday\nfatima: ok", "Priya is ooo from monday"),
        ("priya: ive got the invoicing this week\nfatima: ok", "Priya have got the invoicing"),
        ("fatima: i can take primary from wed\npriya: ty", "Fatima can take primary from wed"),
    ],
)
def test_a_chat_contraction_without_its_apostrophe_reads_as_one(
    extractor: RulesExtractor, line: str, claim_text: str
) -> None:
    claims = _chat(extractor, line, "#ops")
    assert any(text.startswith(claim_text) for text, _, _ in claims)
