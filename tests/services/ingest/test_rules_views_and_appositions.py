"""Classes found on text written by others (issue 16): advice someone holds is their view, a
title that only names a kind of document is nothing "it" can mean, a written-out name is not
expanded again, and a name with its role in apposition keeps its verb."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 6, 2, 9, 0, tzinfo=UTC)


def _claims(extractor: RulesExtractor, text: str, title: str = "Notes") -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=title)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("Selma thinks we should delay the launch.", "Selma"),
        ("Omar said we should move the offsite to Porto.", "Omar"),
        ("According to Lina, we need to hire a second designer.", "Lina"),
    ],
)
def test_advice_someone_holds_is_kept_as_their_view(
    extractor: RulesExtractor, text: str, holder: str
) -> None:
    (claim,) = _claims(extractor, text)
    assert (claim.is_attributed, claim.holder) == (True, holder)


@pytest.mark.parametrize(
    "text",
    ["We should delay the launch.", "You should try the new dashboard.", "We need to hire more."],
)
def test_advice_no_one_holds_is_still_dropped(extractor: RulesExtractor, text: str) -> None:
    assert _claims(extractor, text) == []


@pytest.mark.parametrize("title", ["Notes", "Standup notes", "Weekly status", "Ops update"])
def test_a_title_that_names_a_kind_of_document_is_nothing_it_can_mean(
    extractor: RulesExtractor, title: str
) -> None:
    (claim,) = _claims(extractor, "It went live in six warehouses.", title)
    assert not claim.claim_text.startswith(title)


@pytest.mark.parametrize(
    "text",
    [
        "Ben Ortiz has been promoted to VP Engineering at Lattice.",
        "Ben Ortiz joined as VP Engineering.",
        "The new VP Engineering is Ben Ortiz.",
    ],
)
def test_a_name_written_out_is_not_expanded_again(extractor: RulesExtractor, text: str) -> None:
    (claim,) = _claims(extractor, text)
    assert "VP VP" not in claim.claim_text
    assert claim.claim_text == text.rstrip(".")


@pytest.mark.parametrize(
    ("text", "organisation"),
    [
        ("Ben Ortiz, head of engineering at Lattice, left in May.", "Lattice"),
        ("Ines Moreau, chief of staff at Arvo, left in May.", "Arvo"),
        ("Ben Ortiz, VP Engineering at Lattice, left in May.", None),
    ],
)
def test_a_name_with_its_role_in_apposition_is_the_subject_of_the_verb_after(
    extractor: RulesExtractor, text: str, organisation: str | None
) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.subject_text == text.split(",")[0]
    assert claim.predicate_text == "leave"
    assert claim.claim_valid_from == datetime(2026, 5, 1, tzinfo=UTC)
    if organisation is not None:  # the post the apposition names is the one left
        assert claim.object_text == organisation


@pytest.mark.parametrize(
    ("text", "subject", "place"),
    [
        ("Acme's HQ is in Rotterdam.", "Acme", "Rotterdam"),
        ("Veldt Bank's headquarters are in Utrecht.", "Veldt Bank", "Utrecht"),
        ("The Nordic desk is in Oslo.", "The Nordic desk", "Oslo"),
        ("Our support team is in Manila.", "Our support team", "Manila"),
    ],
)
def test_an_organisation_or_unit_in_a_known_place_is_located_there(
    extractor: RulesExtractor, text: str, subject: str, place: str
) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.subject_text is not None and claim.subject_text.lower() == subject.lower()
    assert (claim.predicate_text, claim.object_text) == ("be based in", place)


@pytest.mark.parametrize("text", ["The feature is in beta.", "Kestrel is in talks with Fjord."])
def test_being_in_a_state_is_no_location(extractor: RulesExtractor, text: str) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.predicate_text != "be based in"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("ok so the Lisbon team is now owned by Carla", "The Lisbon team is now owned by Carla"),
        ("anyway, Marta joined the Data team on Monday.", "Marta joined the Data team"),
        ("oh and the offsite moved to Porto.", "The offsite moved to Porto"),
    ],
)
def test_a_chat_opener_is_no_part_of_the_claim(
    extractor: RulesExtractor, text: str, kept: str
) -> None:
    (claim,) = _claims(extractor, text)
    assert claim.claim_text.startswith(kept)
