"""Hypothesis strategies for small dated worlds: sentences whose claims carry known windows.

Every sentence is one the rules extractor reads with its dates ("has worked for X since March
2026", "lived in Lisbon between January 2024 and December 2026", "presented at the Berlin
summit on 4 May 2026", "costs $45 per month in Q3 2026"), so a world's facts get windows of
every shape: none, open start, closed, a day, a month, a quarter, a year; states and records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from hypothesis import strategies as st

__all__ = ["SAID_ON", "World", "WorldDocument", "render", "worlds"]

PEOPLE = ("Ravi Patel", "Dana Kim", "Priya Shah")
ORGS = ("Contoso Analytics", "Fabrikam Industries", "Tailspin Toys")
CITIES = ("Lisbon", "Berlin", "Oslo")
EVENTS = ("the Berlin summit", "the Oslo meetup")
SAID_ON = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class WorldDocument:
    sentences: tuple[str, ...]

    @property
    def body(self) -> str:
        return " ".join(self.sentences) + "\n"


@dataclass(frozen=True)
class World:
    documents: tuple[WorldDocument, ...]
    # Index of a document deleted after the world was built, or None.
    deleted: int | None

    def reproduction(self) -> str:
        lines = [f"doc {i}: {d.body.strip()}" for i, d in enumerate(self.documents)]
        if self.deleted is not None:
            lines.append(f"then DeleteDocument(doc {self.deleted})")
        return "\n".join(lines)


def _month(offset: int) -> date:
    """Offsets 0..59 are the months January 2024 .. December 2028."""
    return date(2024 + offset // 12, offset % 12 + 1, 1)


def _m(offset: int) -> str:
    return f"{_month(offset):%B %Y}"


def _d(offset: int, day: int) -> str:
    return f"{day} {_month(offset):%B %Y}"


_STATES = {
    "works_for": (
        "{p} works for {o}.",
        "{p} has worked for {o} since {a}.",
        "{p} is employed by {o} since {da}.",
        "{p} worked for {o} from {a} until {b}.",
        "{p} worked for {o} until {db}.",
    ),
    "lives_in": (
        "{p} lives in {c}.",
        "{p} has lived in {c} since {a}.",
        "{p} lived in {c} between {a} and {b}.",
        "{p} lived in {c} until {db}.",
    ),
    "reports_to": (
        "{p} reports to {q}.",
        "{p} reports to {q} since {a}.",
        "{p} reported to {q} until {db}.",
    ),
}


@st.composite
def _sentence(draw: st.DrawFn) -> str:
    person, other = draw(st.permutations(PEOPLE))[:2]
    a = draw(st.integers(0, 58))
    b = draw(st.integers(a + 1, 59))
    values = {
        "p": person,
        "q": other,
        "o": draw(st.sampled_from(ORGS)),
        "c": draw(st.sampled_from(CITIES)),
        "a": _m(a),
        "b": _m(b),
        "da": _d(a, draw(st.integers(1, 28))),
        "db": _d(b, draw(st.integers(1, 28))),
        "e": draw(st.sampled_from(EVENTS)),
        "n": draw(st.integers(20, 90)),
        "q4": draw(st.integers(1, 4)),
        "y": 2024 + a // 12,
    }
    kind = draw(st.sampled_from(("state", "state", "state", "event", "visit", "price")))
    if kind == "state":
        template = draw(st.sampled_from(_STATES[draw(st.sampled_from(sorted(_STATES)))]))
    elif kind == "event":
        template = draw(
            st.sampled_from(("{p} presented at {e} on {da}.", "{p} presented at {e} in {a}."))
        )
    elif kind == "visit":
        template = draw(st.sampled_from(("{p} visited {o} on {da}.", "{p} visited {o} in {y}.")))
    else:
        template = draw(
            st.sampled_from(
                (
                    "The Basic plan costs ${n} per month in Q{q4} {y}.",
                    "The Basic plan costs ${n} per month in {a}.",
                )
            )
        )
    return template.format(**values)


@st.composite
def worlds(draw: st.DrawFn) -> World:
    documents = draw(
        st.lists(
            st.lists(_sentence(), min_size=1, max_size=3, unique=True).map(
                lambda s: WorldDocument(tuple(s))
            ),
            min_size=1,
            max_size=3,
        )
    )
    deleted = draw(st.one_of(st.none(), st.integers(0, len(documents) - 1)))
    return World(tuple(documents), deleted)


def render(world: World, index: int) -> tuple[str, datetime]:
    """The text of one document and its said-on time (before every query's now)."""
    return world.documents[index].body, SAID_ON + timedelta(days=index)
