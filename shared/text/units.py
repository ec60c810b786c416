"""Nouns naming units of people and pieces of work, for the extractor and the normalizer."""

from __future__ import annotations

__all__ = ["PROJECT_HEADS", "TEAM_HEADS", "is_project_head", "is_team_head"]

# Heads that name a unit of people: joining one is membership, joining a company employment.
TEAM_HEADS = frozenset(
    {
        "team", "teams", "group", "squad", "department", "dept", "unit", "crew", "guild",
        "chapter", "committee", "board", "council", "tribe", "pod", "taskforce", "task-force",
        "circle", "practice", "desk", "cell",
    }
)  # fmt: skip


def _words(text: str) -> list[str]:
    return [w.strip(".,;:") for w in text.lower().replace("'s", "").replace("’s", "").split()]


# Heads that, capitalised in a name, name a company: "Halden Group", "Kestrel Group" employ
# people; "the Commerce group" is a unit of one.
_COMPANY_WHEN_CAPITALISED = frozenset({"group"})


def is_team_head(text: str) -> bool:
    """Whether a phrase names a unit of people ("the payments team", "Data Guild")."""
    words = _words(text)
    if not words or words[-1] not in TEAM_HEADS:
        return False
    last = text.split()[-1]
    return not (words[-1] in _COMPANY_WHEN_CAPITALISED and last[:1].isupper() and words[0] != "the")


# Heads that name a piece of work: joining one is working on it, not employment.
PROJECT_HEADS = frozenset(
    {
        "project", "projects", "initiative", "programme", "program", "workstream", "rollout",
        "migration", "rewrite", "launch", "pilot", "effort", "epic",
    }
)  # fmt: skip


def is_project_head(text: str) -> bool:
    """Whether a phrase names a piece of work ("the Atlas project", "the billing migration")."""
    words = _words(text)
    return len(words) >= 2 and words[-1] in PROJECT_HEADS
