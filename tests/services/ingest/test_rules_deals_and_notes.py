"""Shapes written by others that lost a change (issue 16): a company changing hands written as
a deal that closed, a sale or a purchase from its owner; a note in brackets after an owner
line; a team block's list of members; a comment after a dash on a status line; a clause
spliced on by a comma the parser hangs on the word before it; a changelog headline without its
auxiliary."""

from __future__ import annotations

import pytest

from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract, stated_relations


@pytest.mark.parametrize(
    ("text", "target", "buyer", "seller"),
    [
        (
            "Kestrel Partners completed its acquisition of Fernhill Analytics from Orrin Group"
            " on 12 February 2026.",
            "Fernhill Analytics", "Kestrel Partners", "Orrin Group",
        ),
        (
            "The acquisition of Halvorsen Data by Tessaly Group closed in March.",
            "Halvorsen Data", "Tessaly Group", None,
        ),
        ("Brightwater's purchase of Lumen Optics was finalised on 3 March.",
         "Lumen Optics", "Brightwater", None),
        ("Orrin Group sold Fernhill Analytics to Kestrel Partners last month.",
         "Fernhill Analytics", "Kestrel Partners", "Orrin Group"),
        ("Marlow Holdings bought Quantix Labs from Serra Capital in 2025.",
         "Quantix Labs", "Marlow Holdings", "Serra Capital"),
        # The deal from the seller's side, as a noun.
        ("Kestenholz AG has completed the sale of Brannock Robotics to Sable Ridge Capital.",
         "Brannock Robotics", "Sable Ridge Capital", "Kestenholz AG"),
        ("The sale of Brannock Robotics to Sable Ridge Capital closed on 30 April.",
         "Brannock Robotics", "Sable Ridge Capital", None),
        ("Orrin Group finalised its divestment of Fernhill Analytics to Kestrel Partners.",
         "Fernhill Analytics", "Kestrel Partners", "Orrin Group"),
    ],
)  # fmt: skip
def test_a_company_changing_hands_becomes_part_of_the_buyer_and_leaves_the_seller(
    extractor: RulesExtractor, text: str, target: str, buyer: str, seller: str | None
) -> None:
    relations = stated_relations(extract(extractor, text))
    assert (target, "become part of", buyer) in relations, relations
    if seller is not None:
        assert (target, "cease to be part of", seller) in relations, relations


@pytest.mark.parametrize(
    "text",
    [
        "We sold 40 licences to Harbour Foods last month.",
        "Dana bought a new laptop from Dell.",
        "Orrin Group has agreed to sell Fernhill Analytics to Kestrel Partners.",
        "The acquisition of Fernhill Analytics by Kestrel Partners was blocked by regulators.",
        "We completed the sale of our old laptops to a recycler.",
    ],
)
def test_a_purchase_that_is_not_a_company_changing_hands_places_nothing(
    extractor: RulesExtractor, text: str
) -> None:
    relations = stated_relations(extract(extractor, text))
    assert not any(p == "become part of" for _, p, _ in relations), relations


@pytest.mark.parametrize(
    ("line", "owner", "noted"),
    [
        ("Owner: Sunita Rao (Felix moved to the Growth team)", "Sunita Rao",
         ("Felix", "move to", "the Growth team")),
        ("Lead: Ama Owusu (Kofi left for Hooli in May)", "Ama Owusu",
         ("Kofi", "leave for", "Hooli")),
        ("DRI: Jonas Berg (Marta is on parental leave)", "Jonas Berg", None),
        ("Owner: Omar Haddad (interim)", "Omar Haddad", None),
    ],
)  # fmt: skip
def test_a_bracketed_note_after_an_owner_line_is_a_claim_of_its_own(
    extractor: RulesExtractor, line: str, owner: str, noted: tuple[str, str, str] | None
) -> None:
    claims = extract(extractor, f"{line}\nStatus: amber\n", "Weekly status — Billing revamp")
    relations = stated_relations(claims)
    role = next(c for c in claims if c.subject_text == owner)
    assert role.object_text == "Billing revamp"
    assert "(" not in role.claim_text
    if noted is not None:
        assert noted in relations, relations


@pytest.mark.parametrize(
    ("line", "value", "comment"),
    [
        ("Status: amber — invoice preview slipped to 6 March", "Status: amber",
         "Invoice preview slipped to 6 March"),
        ("Status: green - all milestones are on track", "Status: green",
         "All milestones are on track"),
        ("Health: red – the vendor missed the API drop", "Health: red",
         "The vendor missed the API drop"),
    ],
)  # fmt: skip
def test_a_comment_after_a_dash_on_a_status_line_is_a_statement_of_its_own(
    extractor: RulesExtractor, line: str, value: str, comment: str
) -> None:
    texts = [c.claim_text for c in extract(extractor, f"{line}\n", "Weekly status — Atlas")]
    assert value in texts, texts
    assert any(comment.lower().endswith(t.lower()) for t in texts if t != value), texts


@pytest.mark.parametrize(
    "line",
    ["Next milestone: invoice preview - 20 Feb\n", "Budget: $120k — down from $150k\n"],
)
def test_a_dash_before_a_bare_phrase_stays_in_the_value(
    extractor: RulesExtractor, line: str
) -> None:
    texts = [c.claim_text for c in extract(extractor, line, "Weekly status — Atlas")]
    assert texts == [line.strip()], texts


@pytest.mark.parametrize(
    ("text", "first", "second"),
    [
        (
            "Rhea Kapoor is against moving the cluster to Frankfurt, latency for APAC will"
            " suffer.",
            "Rhea Kapoor is against moving the cluster to Frankfurt",
            "Latency for APAC will suffer",
        ),
        ("Selma wants to delay the launch to July, the vendor has not shipped the SDK yet.",
         "Selma wants to delay the launch to July", "The vendor has not shipped the SDK yet"),
        ("We signed the lease for the Porto office, the team moves in on 1 June.",
         "We signed the lease for the Porto office", "The team moves in on 1 June"),
    ],
)  # fmt: skip
def test_a_clause_spliced_on_by_a_comma_is_a_claim_of_its_own(
    extractor: RulesExtractor, text: str, first: str, second: str
) -> None:
    texts = [c.claim_text for c in extract(extractor, text)]
    assert first in texts and second in texts, texts


def test_a_spliced_clause_the_parser_hangs_the_first_one_under_is_split_too(
    extractor: RulesExtractor,
) -> None:
    """The parser makes "I'm against …" a complement of the later "will suffer", with the
    comma on "Frankfurt": the first clause still ends at the comma."""
    text = "Rhea Kapoor: I'm against moving the cluster to Frankfurt, latency for APAC will suffer."
    texts = [c.claim_text for c in extract(extractor, text, "#infra chat")]
    assert "Rhea Kapoor is against moving the cluster to Frankfurt" in texts, texts
    assert "Latency for APAC will suffer" in texts, texts


@pytest.mark.parametrize(
    ("block", "team", "members"),
    [
        ("Search team\nLead: Farah Haddad\nMembers: Jin Park, Lea Novak\n", "Search team",
         ["Jin Park", "Lea Novak"]),
        ("Project: Atlas\nTeam members: Ama Owusu, Kofi Boateng and Ines Moreau\n", "Atlas",
         ["Ama Owusu", "Kofi Boateng", "Ines Moreau"]),
        ("Data Guild\nPeople: Noor Aziz & Tomasz Nowak\n", "Data Guild",
         ["Noor Aziz", "Tomasz Nowak"]),
    ],
)  # fmt: skip
def test_a_list_of_members_under_a_heading_places_each_in_it(
    extractor: RulesExtractor, block: str, team: str, members: list[str]
) -> None:
    relations = stated_relations(extract(extractor, block, "Team page"))
    for member in members:
        assert (member, "member of", team) in relations, relations


def test_a_list_that_is_not_all_names_is_no_membership(extractor: RulesExtractor) -> None:
    block = "Search team\nMembers: Jin Park, two contractors and an intern\n"
    relations = stated_relations(extract(extractor, block, "Team page"))
    assert not any(p == "member of" for _, p, _ in relations), relations


@pytest.mark.parametrize(
    ("text", "subject", "predicate"),
    [
        ("Exports API limit lowered to 200 requests per minute from 1 May.", "Exports API",
         "lower to"),
        ("Orders API timeout raised to 30 seconds.", "Orders API", "raise"),
        ("The SSO API quota was cut to 500 calls.", "SSO API", "cut to"),
        ("Vendor contract approved by Legal on 3 June.", "Vendor contract", "approve by"),
    ],
)  # fmt: skip
def test_a_changelog_headline_without_its_auxiliary_is_a_passive_of_the_named_thing(
    extractor: RulesExtractor, text: str, subject: str, predicate: str
) -> None:
    """A headline drops the article and the auxiliary ("Exports API limit lowered to 200"):
    the parser hangs the verb on the noun and tags the name as common nouns; the value is the
    named thing's, as in "the Exports API limit was lowered to 200"."""
    (claim,) = extract(extractor, text, "Changelog")
    assert claim.subject_text == subject
    assert (claim.predicate_text or "").startswith(predicate), claim
