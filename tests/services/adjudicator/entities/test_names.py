"""Which noun phrases name entities, and the keys and names they get."""

from __future__ import annotations

import pytest

from services.adjudicator.entities.rules import match_kind, takeable
from shared.entities.normalize import display_name, is_bare_head_noun, normalize_name


@pytest.mark.parametrize(
    "text",
    [
        "the system",
        "the app",
        "the team",
        "the meeting",
        "our project",
        "it",
        "team",
        "the old system",
        "the next meeting",
        "our wonderful team",
        "the date of the meeting",
    ],
)
def test_generic_head_alone_or_with_descriptive_adjectives_is_bare(text: str) -> None:
    assert is_bare_head_noun(text)


@pytest.mark.parametrize(
    "text",
    [
        "the billing migration",
        "the payments team",
        "The billing migration cutover",
        "the old invoicing service",
        "the schema change",
        "The cutover for the billing migration",
        "the Head of Product",
        "payments team",
        "python",
        # An adjective of kind names the kind in every document ("the free tier").
        "the free tier",
        "an annual plan",
        "the public API",
        "the weekly meeting",
    ],
)
def test_noun_compound_or_capitalized_phrase_names_an_entity(text: str) -> None:
    assert not is_bare_head_noun(text)


def test_for_complement_and_compound_wordings_share_one_key() -> None:
    assert normalize_name("The cutover for the billing migration") == "billing migration cutover"
    assert normalize_name("the billing migration cutover") == "billing migration cutover"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("the billing migration", "billing migration"),
        ("The billing migration cutover", "billing migration cutover"),
        ("the Head of Product", "Head of Product"),
        ("The Beatles", "The Beatles"),
        ("The Home Depot", "The Home Depot"),
        # a sentence-initial "The" before a name that ends in a common noun
        ("The Ledger service", "Ledger service"),
        ("The Payments team", "Payments team"),
        ("The Atlas rollout", "Atlas rollout"),
        ("Ravi  Patel", "Ravi Patel"),
    ],
)
def test_display_name_drops_a_leading_determiner_unless_it_may_be_part_of_a_name(
    text: str, name: str
) -> None:
    assert display_name(text) == name


@pytest.mark.parametrize(
    ("mention", "candidate"),
    [
        ("billing migration cutover", "billing migration"),
        ("billing migration", "billing migration cutover"),
        ("billing migration spec", "billing migration cutover"),
        ("ravi shah", "ravi patel"),
    ],
)
def test_names_with_shared_modifiers_and_another_head_are_other_heads(
    mention: str, candidate: str
) -> None:
    assert match_kind(mention, candidate, candidate) == "other_head"


def test_near_spelling_of_the_head_stays_fuzzy() -> None:
    assert match_kind("ravi patil", "ravi patel", "ravi patel") == "fuzzy"


@pytest.mark.parametrize(
    ("mention", "alias", "candidate"),
    [
        ("ravi patle", "ravi patel", "ravi patel"),
        ("priyanka ramaswami", "priyanka ramaswamy", "priyanka ramaswamy"),
        ("jon smith", "john smith", "john smith"),
        ("jon's dream", "jon's dreams", "jon's dreams"),
    ],
)
def test_a_misspelling_keeps_the_words_each_spelt_nearly_the_same(
    mention: str, alias: str, candidate: str
) -> None:
    assert match_kind(mention, alias, candidate) == "fuzzy"


@pytest.mark.parametrize(
    ("mention", "alias", "candidate"),
    [
        # LoCoMo phrases a spelling match with related support had merged.
        ("last time", "time", "time flies"),
        ("maria and others all", "john and others all", "john and others all"),
        ("nate fourth video game tournament", "nate first video game tournament", "nate first"),
        ("a competing car maintenance shop", "dave own car maintenance shop", "dave shop"),
    ],
)
def test_other_words_than_a_misspelling_has_are_never_taken(
    mention: str, alias: str, candidate: str
) -> None:
    kind = match_kind(mention, alias, candidate)
    assert kind == "other_words"
    assert not takeable(kind, 0.9, 0.5) and takeable("fuzzy", 0.9, 0.5)
