"""Common given names: a lone given name is shared by many people, other lone names are not."""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["is_given_name"]

_DATA = Path(__file__).resolve().parent / "data" / "given_names.txt"


@functools.cache
def _names() -> frozenset[str]:
    lines = _DATA.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def is_given_name(normalized: str) -> bool:
    """Whether a normalized one-word name is a common given name ("dana", "ravi", "mel"), as
    opposed to the name of a company, product or place ("globex", "orion", "lisbon")."""
    return " " not in normalized and normalized in _names()
