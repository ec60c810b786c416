"""Which capitalised names have a person's shape, for names the given-name list lacks."""

from __future__ import annotations

import pytest

from shared.text.units import person_shaped


@pytest.mark.parametrize("name", ["Brenna Holt", "Ngozi Eze", "Jean-Luc Moreau", "Siosaia Taufa"])
def test_a_full_name_of_capitalised_words_has_a_person_s_shape(name: str) -> None:
    assert person_shaped(name)


@pytest.mark.parametrize(
    "name",
    ["Castell Bank", "Payments Team", "Checkout API", "Atlas Project", "Corvane", "the Holt",
     "Quanta Bio", "EMEA HQ", "Brenna Holt Van Der Berg"],
)  # fmt: skip
def test_organisations_units_things_and_single_words_do_not(name: str) -> None:
    assert not person_shaped(name)
