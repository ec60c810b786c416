"""Well-known place names: "moved to Denver" is where someone lives, "moved to Globex" is not."""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["is_known_place"]

_DATA = Path(__file__).resolve().parent / "data" / "places.txt"


@functools.cache
def _places() -> frozenset[str]:
    lines = _DATA.read_text(encoding="utf-8").splitlines()
    return frozenset(line.casefold() for line in lines if line and not line.startswith("#"))


def is_known_place(name: str) -> bool:
    """Whether `name` is a large city, a country or a US state ("Lisbon", "Cape Town")."""
    return " ".join(name.split()).casefold() in _places()
