"""Placements decided by what the parties name (issue 17): a manager's report, a managed
thing, a rota, a gathering, a price, a unit left for a team, a position under a team, a site at
an address, a post one continues in."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.adjudicator.domain import Assertion, EntityRef, ExtraRelation
from services.adjudicator.normalization import Normalizer, PredicateVocabulary
from tests.services.adjudicator.test_normalization import claim


def between(text: str, subject: str, predicate: str, obj: str) -> list[Assertion]:
    """The assertions of one claim whose subject and object each name an entity of their own
    (the subject resolved by its first word too: "Rosalind" of a sentence about "Yusuf")."""
    refs = {
        subject.lower(): EntityRef("ent-subject", subject),
        obj.lower(): EntityRef("ent-object", obj),
    }
    refs.setdefault(text.split()[0].lower(), refs[subject.lower()])
    return list(
        Normalizer(PredicateVocabulary())
        .normalize_claim(claim(text, subject, predicate, obj), lambda t: refs.get(t.lower()))
        .assertions
    )


@pytest.mark.parametrize(
    ("managed", "manager"),
    [("Brenna Holt", "Ivan Sokolov"), ("Ngozi Eze", "Mei Tan"), ("Siosaia Taufa", "Ravi")],
)
def test_a_person_whose_given_name_the_list_lacks_still_reports_to_their_manager(
    managed: str, manager: str
) -> None:
    # "Brenna Holt reports to Ivan Sokolov" was read as a thing managed ("Ivan Sokolov works
    # on Brenna Holt") because "Brenna" is not in the given-name list.
    refs = {
        managed.lower(): EntityRef("ent-a", managed),
        manager.lower(): EntityRef("ent-b", manager),
    }
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(f"{managed} reports to {manager}.", managed, "reports to", manager),
        lambda text: refs.get(text.lower()),
    )
    assert [a.label for a in result.assertions] == [f"{managed} reports to {manager}"]


@pytest.mark.parametrize("thing", ["Checkout API", "Mobile Platform", "Lisbon Office"])
def test_a_thing_with_a_capitalised_name_is_still_managed_not_a_report(thing: str) -> None:
    refs = {thing.lower(): EntityRef("ent-a", thing), "dana": EntityRef("ent-b", "Dana")}
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(f"Dana manages the {thing}.", "Dana", "manages", thing),
        lambda text: refs.get(text.lower()),
    )
    assert [a.predicate for a in result.assertions] == ["works_on"]


@pytest.mark.parametrize("managed", ["Brenna", "Zephyr", "Ngozi"])
def test_a_single_unlisted_name_that_reports_to_someone_is_a_person(managed: str) -> None:
    # A chat line's speaker ("Brenna: from today I report to Mei Tan") arrived before any full
    # name: read as a thing, the relation became "Mei Tan works on Brenna" in that order only.
    refs = {managed.lower(): EntityRef("ent-a", managed), "mei tan": EntityRef("ent-b", "Mei Tan")}
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(f"{managed} reports to Mei Tan.", managed, "reports to", "Mei Tan"),
        lambda text: refs.get(text.lower()),
    )
    assert [a.predicate for a in result.assertions] == ["reports_to"]


@pytest.mark.parametrize(
    "rota", ["incident-response rota", "on-call rotation", "weekend support roster"]
)
def test_joining_a_rota_is_membership_not_employment(rota: str) -> None:
    refs = {rota: EntityRef("ent-a", rota), "yusuf": EntityRef("ent-b", "Yusuf")}
    result = Normalizer(PredicateVocabulary()).normalize_claim(
        claim(f"Yusuf joined the {rota}.", "Yusuf", "join", f"the {rota}"),
        lambda text: refs.get(text.lower().removeprefix("the ")),
    )
    assert [a.predicate for a in result.assertions] == ["member_of"]


@pytest.mark.parametrize(
    ("sentence", "gathering"),
    [
        ("Rosalind will join Greaves's call on Thursday.", "Greaves's call"),
        ("Yusuf is joining their sprint planning next week.", "their sprint planning"),
        ("Yusuf joined the weekly product sync.", "the weekly product sync"),
        ("Yusuf joined the Lisbon offsite.", "the Lisbon offsite"),
    ],
)
def test_joining_a_gathering_is_attending_it_no_placement(sentence: str, gathering: str) -> None:
    assertions = between(sentence, sentence.split()[0], "join", gathering)
    assert [a.kind for a in assertions] == ["observation"]


@pytest.mark.parametrize("company", ["Summit", "Blue Summit", "Acme Events"])
def test_a_company_named_like_a_gathering_is_still_joined(company: str) -> None:
    assertions = between(f"Yusuf joined {company}.", "Yusuf", "join", company)
    assert [a.predicate for a in assertions] == ["works_for"]


@pytest.mark.parametrize(
    ("left", "joined"),
    [("Search", "Search team"), ("Search", "the Search team"), ("Lisbon", "Search team")],
)
def test_the_unit_left_for_a_team_is_a_team_whatever_its_bare_name_resolves_to(
    left: str, joined: str
) -> None:
    """ "Jin moved from Search to the Payments team": in one arrival order "Search" is the
    Search team's alias already, in the other a name of its own; the membership ends either
    way, and no employment does."""
    names = {"jin": EntityRef("ent-jin", "Jin"), "search": EntityRef("ent-s", "Search")}
    names["search team"] = names["the search team"] = EntityRef("ent-st", "Search team")
    names["lisbon"] = EntityRef("ent-l", "Lisbon")
    item = replace(
        claim(f"Jin moved from {left} to {joined}.", "Jin", "move to", joined),
        extra_relations=(ExtraRelation("Jin", "leave", left),),
    )
    assertions = (
        Normalizer(PredicateVocabulary())
        .normalize_claim(item, lambda t: names.get(t.lower()))
        .assertions
    )
    ended = [a for a in assertions if a.phase == "end"]
    assert [(a.predicate, a.object_name) for a in ended] == [
        ("member_of", names[left.lower()].name)
    ]


@pytest.mark.parametrize("price", ["EUR 26usermonth", "EUR 26 per user per month", "26 USD/seat"])
def test_a_price_moved_to_is_a_value_not_an_employer(price: str) -> None:
    assertions = between(f"Loomwork Pro moves to {price}.", "Loomwork Pro", "move to", price)
    assert [a.kind for a in assertions] == ["observation"]


@pytest.mark.parametrize(
    ("phrase", "whole", "expected"),
    [
        ("sits under", "Discovery group", "member_of"),
        ("falls within", "the Platform group", "member_of"),
        ("sits under", "Finance", "part_of"),
    ],
)
def test_a_position_under_a_team_is_membership_under_an_organisation_part_of(
    phrase: str, whole: str, expected: str
) -> None:
    """ "The Search Relevance team sits under the Discovery group" and "Search Relevance moves
    into the AI Platform group" place it in one slot, so the move closes the first."""
    verb = phrase.replace("sits", "sit").replace("falls", "fall")
    assertions = between(f"Search Relevance {phrase} {whole}.", "Search Relevance", verb, whole)
    assert [a.predicate for a in assertions] == [expected]


@pytest.mark.parametrize("site", ["Berlin office", "Lyon warehouse", "Oslo HQ"])
def test_a_site_at_an_address_is_located_there(site: str) -> None:
    assertions = between(f"Our {site} is at Torstrasse 109.", site, "be at", "Torstrasse 109")
    assert [a.predicate for a in assertions] == ["located_in"]


@pytest.mark.parametrize("phrase", ["continue to lead", "continue to run"])
def test_continuing_to_lead_a_unit_is_leading_it(phrase: str) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None and (directed.predicate, directed.leads) == ("member_of", True)


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "obj", "expected"),
    [
        # A company moving to a tool or plan takes it up; a person moving to one is hired.
        ("F&L moved to Salesforce.", "F&L", "move to", "Salesforce", "uses"),
        ("Dunmore Labs switched to the Enterprise plan.", "Dunmore Labs", "switch to",
         "Enterprise plan", "uses"),
        ("Harrow & Sons moved over to Zendesk.", "Harrow & Sons", "move over to", "Zendesk",
         "uses"),
        ("Priya Raman moved to Salesforce.", "Priya Raman", "move to", "Salesforce",
         "works_for"),
    ],
)  # fmt: skip
def test_a_company_that_moves_to_something_uses_it(
    text: str, subject: str, predicate: str, obj: str, expected: str
) -> None:
    assert [a.predicate for a in between(text, subject, predicate, obj)] == [expected]


@pytest.mark.parametrize(
    "customer",
    ["Ashgrove Schools", "Brightwater Dental", "Corbin Textiles", "Pinecrest Credit Union"],
)
def test_a_customer_named_by_its_trade_is_managed_not_a_report(customer: str) -> None:
    # Two capitalised words read as a person's name: "Ashgrove Schools reports to Tom Keller".
    (managed,) = between(f"Tom Keller manages {customer}.", "Tom Keller", "manages", customer)
    assert (managed.predicate, managed.subject_name) == ("works_on", "Tom Keller")
