"""A thing's owner or setting changing hands, in phrasings written apart from the rules.

The owner: "Ownership of X passed to Y", "X was handed over to Y", "Kofi handed X to Priya"
are one relation, X owned by Y from that day, so a new owner supersedes the old whatever the
phrasing. A setting: "Finance cut the travel budget to $2,000", "we increased the Team plan
from $12 to $15" are about the budget and the plan, from that day on, not about who set them.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _main(extractor: RulesExtractor, text: str) -> ExtractedClaim:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert claims, f"no claim from {text!r}"
    return claims[0]


@pytest.mark.parametrize(
    ("text", "thing", "owner"),
    [
        ("Ownership of the billing migration passed to Hana Sato on 30 August.",
         "the billing migration", "Hana Sato"),
        ("Responsibility for the vendor audit moved to Kofi Mensah last week.",
         "the vendor audit", "Kofi Mensah"),
        ("Ownership of the Atlas rollout has transferred to the Platform team.",
         "the Atlas rollout", "the Platform team"),
        ("The vendor portal was handed over to Priya Shah in August.", "The vendor portal",
         "Priya Shah"),
        ("The payroll export was reassigned to Omar Haddad.", "The payroll export",
         "Omar Haddad"),
        ("Last month Kofi handed the onboarding checklist to Lena Fischer.",
         "the onboarding checklist", "Lena Fischer"),
        # The present "moves"/"transfers"/"passes", which the small parser reads as a noun.
        ("Ownership of the ledger service moves to the Platform team on 1 March.",
         "the ledger service", "the Platform team"),
        ("Ownership of the billing repo transfers to the Payments team in March.",
         "the billing repo", "the Payments team"),
        ("Responsibility for the payroll system passes to Ana Ruiz on 1 June.",
         "the payroll system", "Ana Ruiz"),
    ],
)  # fmt: skip
def test_a_thing_passing_to_someone_is_owned_by_them_from_then_on(
    extractor: RulesExtractor, text: str, thing: str, owner: str
) -> None:
    claim = _main(extractor, text)
    stored = VOCABULARY.relation(
        claim.subject_text or "", claim.predicate_text or "", claim.object_text or ""
    )
    assert stored is not None, (claim.subject_text, claim.predicate_text, claim.object_text)
    subject, placed, obj = stored
    # Without the work pack the owner slot is the `other:owned_by` escape (SPEC 4).
    assert (subject, placed.predicate, placed.phase, obj) == (
        thing,
        "other:owned_by",
        "start",
        owner,
    )


@pytest.mark.parametrize(
    "text",
    [
        "Ingrid Berg was transferred to the Ranking team in March.",
        "The payroll report was sent to Omar Haddad.",
        "Ownership of the problem is unclear.",
    ],
)
def test_a_person_moved_or_a_thing_sent_changes_no_owner(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _main(extractor, text)
    assert "ownership" not in (claim.predicate_text or "")


@pytest.mark.parametrize(
    ("text", "subject", "start"),
    [
        ("Finance cut the travel budget to $2,000 on 1 July.", "the travel budget", (2025, 7, 1)),
        ("We increased the Team plan from $12 to $15 per seat on 1 April.", "the Team plan",
         (2025, 4, 1)),
        ("The platform team lowered the build timeout to 20 minutes on 4 August.",
         "the build timeout", (2025, 8, 4)),
        ("On 2 June they doubled the storage quota to 200 GB.", "the storage quota",
         (2025, 6, 2)),
    ],
)  # fmt: skip
def test_a_setting_someone_changed_is_the_setting_s_new_value_from_that_day(
    extractor: RulesExtractor, text: str, subject: str, start: tuple[int, int, int]
) -> None:
    claim = _main(extractor, text)
    assert claim.subject_text == subject
    assert claim.claim_valid_from == datetime(*start, tzinfo=UTC)
    assert claim.claim_valid_until is None


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Acme raised the price to $40 in June.", "Acme"),  # whose price: Acme's
        ("Dana raised the issue with legal.", "Dana"),  # no value set at all
    ],
)
def test_a_named_agent_keeps_a_bare_attribute_or_a_plain_object(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _main(extractor, text).subject_text == subject


@pytest.mark.parametrize(
    "text",
    [
        "The pilot with Ashgrove Clinics runs until March 31.",
        "The contract with Halden Freight runs through June.",
        "The trial for the Pro plan lasts until 14 May.",
    ],
)
def test_a_period_verb_read_as_a_plural_noun_still_ends_the_period(
    extractor: RulesExtractor, text: str
) -> None:
    # "runs" read as a noun under "with" gave no claim at all.
    claim = _main(extractor, text)
    assert claim.claim_valid_until is not None
