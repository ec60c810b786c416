"""Bulleted and numbered lists in notes, and settings changed by "we", in phrasings written
apart from the rules (issue 16 classes 1 and 6).

- "- Chloe Martin to own the vendor shortlist" / "- Budget for Q2 is $80k": the bullets are
  masked to spaces before the parse, and the items ran together into one claim ("Chloe Martin
  to own the vendor shortlist Budget is $80k"); each item is now a statement of its own.
- "We raised the free tier to 5 projects": the free tier's value (was anchored on nothing, so
  it never met "The free tier allows 3 projects").
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)


def _claims(extractor: RulesExtractor, text: str, title: str = "Sync") -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=title)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("Attendees: Ana, Ben\n- Ben Okoro will draft the RFP\n- the budget for Q2 is $80k",
         ["Ben Okoro will draft the RFP", "The budget for Q2 is $80k"]),
        ("Decisions\n* Ana Ruiz joins the Data team on 3 March\n* Vendrix stays our supplier",
         ["Ana Ruiz joins the Data team on 3 March", "Vendrix stays our supplier"]),
        ("Next steps:\n1. Lena Vogt moves to Berlin in May\n2. Omar Said leads the Atlas rollout",
         ["Lena Vogt moves to Berlin in May", "Omar Said leads the Atlas rollout"]),
        ("• Kofi Mensah signed the Fjord Air renewal\n• churn for January was 2.1%",
         ["Kofi Mensah signed the Fjord Air renewal", "Churn for January was 2.1%"]),
    ],
)  # fmt: skip
def test_each_item_of_a_list_is_a_statement_of_its_own(
    extractor: RulesExtractor, text: str, statements: list[str]
) -> None:
    texts = [c.claim_text for c in _claims(extractor, text)]
    assert all(statement in texts for statement in statements), texts
    assert all("\n" not in t for t in texts)


def test_a_hard_wrapped_item_runs_on_to_its_indented_next_line(extractor: RulesExtractor) -> None:
    text = "- Lena Vogt will review the contract with\n  the legal team of Orbit"
    texts = [c.claim_text for c in _claims(extractor, text)]
    assert len(texts) == 1 and texts[0].startswith("Lena Vogt will review the contract with")


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        ("We raised the free tier to 5 projects on 9 February.", "the free tier"),
        ("They bumped the premium tier to 50 seats.", "the premium tier"),
        ("We cut the annual discount to 10% in March.", "the annual discount"),
    ],
)
def test_a_described_setting_someone_changed_is_what_changed(
    extractor: RulesExtractor, text: str, setting: str
) -> None:
    (claim,) = _claims(extractor, text, title="Changelog")
    assert claim.subject_text == setting


@pytest.mark.parametrize(
    "text", ["Churn for January was 2.1%", "Margin rose to 31%", "Uptime in May was 99.95%"]
)
def test_a_percentage_at_a_line_end_keeps_its_sign(extractor: RulesExtractor, text: str) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.claim_text.endswith("%")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Standup\n- Ana Ruiz: I moved to the Data team on Monday\n- Ben Okoro: I'm on the Search"
         " team",
         [("Ana Ruiz", "Data team"), ("Ben Okoro", "Search team")]),
        ("Selam: I joined the Payments team this week\nMarco: I'm leaving Acme in June",
         [("Selam", "Payments team"), ("Marco", "Acme")]),
        ("* Priya Das: I report to Dana Kim now\n* Tomasz: I work for Orbit Labs",
         [("Priya Das", "Dana Kim"), ("Tomasz", "Orbit Labs")]),
    ],
)  # fmt: skip
def test_each_labelled_line_of_notes_is_its_speaker_s(
    extractor: RulesExtractor, text: str, expected: list[tuple[str, str]]
) -> None:
    # Only a passage's opening label was read, so the second speaker's "I" was the first's.
    claims = _claims(extractor, text)
    found = [(c.subject_text, (c.object_text or "").removeprefix("the ")) for c in claims]
    assert [pair for pair in found if pair[1]] == expected
    for claim in claims:
        assert text[claim.char_start : claim.char_end] == claim.source_span
