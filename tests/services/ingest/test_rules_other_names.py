"""Other names of one thing (issue 17, aliases): a former name, an abbreviation in brackets, a
renaming; each is stated as "<the name it goes by now> also known as <the other>", which the
resolver makes one entity (services/ingest/extraction/other_names.py)."""

from __future__ import annotations

import pytest

from services.ingest.extraction.other_names import acronym_of
from services.ingest.extraction.rules import RulesExtractor
from shared.entities import ALSO_KNOWN_AS
from tests.support.extracting import extract, stated_relations


@pytest.mark.parametrize(
    ("text", "name", "other"),
    [
        # A former name beside the name
        (
            "Our logistics partner Harrow Freight, previously Harrow & Sons, raised prices.",
            "Harrow Freight",
            "Harrow & Sons",
        ),
        ("Quillon Health (formerly MedTrace) closed a Series C.", "Quillon Health", "MedTrace"),
        ("Parcelo, formerly known as ShipRight, raised a Series B.", "Parcelo", "ShipRight"),
        # The newer name in brackets after the older one
        ("Fenmore Insurance (now Fenmore Mutual) renewed.", "Fenmore Mutual", "Fenmore Insurance"),
        # An abbreviation, in brackets or named so
        ("We work with the Danish Energy Agency (DEA) on permits.", "Danish Energy Agency", "DEA"),
        ("We met the Metro Transit Authority (MTA) on Monday.", "Metro Transit Authority", "MTA"),
        ("Kestrel Data (also called KD) renewed.", "Kestrel Data", "KD"),
        ("Fennimore & Lusk (F&L) renewed for two years.", "Fennimore & Lusk", "F&L"),
        # Renamings
        ("Halden Group is now called Halden Holdings.", "Halden Holdings", "Halden Group"),
        ("Last year Brightpath rebranded to Lumio.", "Lumio", "Brightpath"),
        ("Corrigan Systems changed its name to Corra in 2025.", "Corra", "Corrigan Systems"),
        ("Ostrava Labs has been renamed Vantor Robotics.", "Vantor Robotics", "Ostrava Labs"),
        (
            "The Atlas team will be known as Platform Foundations from July.",
            "Platform Foundations",
            "The Atlas team",
        ),
    ],
)
def test_another_name_of_one_thing_is_stated(
    extractor: RulesExtractor, text: str, name: str, other: str
) -> None:
    assert (name, ALSO_KNOWN_AS, other) in stated_relations(extract(extractor, text, "Notes"))


@pytest.mark.parametrize(
    "text",
    [
        "Sana Qureshi (Finance) approved the budget.",  # where she works
        "Jun Park (Koto) joined the call.",
        "Marta Ruiz (EMEA) owns the renewal.",  # a region, no abbreviation of her name
        "The new tool is called Pico.",  # a name given, no older one
        "Our biggest customer, Harbourline, renewed.",  # a description and its name
    ],
)
def test_a_bracket_or_apposition_that_is_no_other_name_states_none(
    extractor: RulesExtractor, text: str
) -> None:
    stated = stated_relations(extract(extractor, text, "Notes"))
    assert not [r for r in stated if r[1] == ALSO_KNOWN_AS]


@pytest.mark.parametrize(
    ("short", "name", "abbreviates"),
    [
        ("BWA", "Bluewater Analytics", True),  # a letter inside a word
        ("DEA", "Danish Energy Agency", True),
        ("KD", "Kestrel Data", True),
        ("F&L", "Fennimore & Lusk", True),
        ("EMEA", "Marta Ruiz", False),
        ("AB", "Bluewater Analytics", False),  # must open with the name's first letter
        ("B", "Bluewater Analytics", False),  # too short to be an abbreviation
        ("Dea", "Danish Energy Agency", False),  # not written in capitals
    ],
)
def test_an_abbreviation_follows_the_name_letter_by_letter(
    short: str, name: str, abbreviates: bool
) -> None:
    assert acronym_of(short, name.split()) is abbreviates
