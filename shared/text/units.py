"""Nouns that name units of people, shared by the extractor and the normalizer."""

from __future__ import annotations

__all__ = ["TEAM_HEADS", "is_team_head"]

# Heads that name a unit of people: joining one is membership, joining a company employment.
TEAM_HEADS = frozenset(
    {
        "team", "teams", "group", "squad", "department", "dept", "unit", "crew", "guild",
        "chapter", "committee", "board", "council", "tribe", "pod", "taskforce", "task-force",
        "circle", "practice", "desk", "cell",
    }
)  # fmt: skip


def is_team_head(text: str) -> bool:
    """Whether a phrase names a unit of people ("the payments team", "Data Guild")."""
    words = text.lower().replace("'s", "").replace("’s", "").split()
    return bool(words) and words[-1].strip(".,;:") in TEAM_HEADS
