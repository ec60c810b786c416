"""A seeded document set whose beliefs must not depend on the order it arrives in (issue 17).

One small organisation over 2025: people with employers, teams, managers and cities; a product
plan with a price; a company's headcount; a project's owner, status and cutover date; a
person's stance on an office move. The timeline changes these (supersessions: a new employer,
team, manager, owner, and successive values of one attribute), two sources disagree about the
same period (contradictions), one person holds two employers at once on purpose (a compatible
pair), later documents restate earlier facts (confirmations) under other names (aliases: full
name, given name, nickname, surname; company full and short name), and some documents are
deleted after they arrived. Documents come in several registers (meeting notes, chat, email,
status report, announcement, CRM note, wiki page in HTML).

`operations(corpus, seed)` is one arrival order: every document ingested once, in a seeded
permutation, and every deleted document's delete placed somewhere after its own ingest.
Everything derives from `(size, seed)`: the same arguments give byte-identical documents.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Literal

__all__ = [
    "CONVERSATION",
    "BeliefCorpus",
    "CorpusDocument",
    "Operation",
    "generate_belief_corpus",
    "operations",
]

CONVERSATION = "text/x-rememberstack-conversation"
_YEAR = 2025
# given name, surname, nickname (None: the given name is used instead)
_PEOPLE: tuple[tuple[str, str, str | None], ...] = (
    ("Melanie", "Ortiz", "Mel"),
    ("Robert", "Lindqvist", "Bob"),
    ("Katherine", "Osei", "Kate"),
    ("Daniel", "Brennan", "Dan"),
    ("Samantha", "Reyes", "Sam"),
    ("Thomas", "Varga", "Tom"),
    ("Jennifer", "Haddad", "Jen"),
    ("Michael", "Tanaka", "Mike"),
)
_COMPANIES = (
    ("Northwind Logistics", "Northwind"),
    ("Contoso Analytics", "Contoso"),
    ("Fabrikam Industries", "Fabrikam"),
    ("Tailspin Toys", "Tailspin"),
)
_TEAMS = ("payments team", "search team", "growth team", "platform team")
_PROJECTS = ("checkout rewrite", "billing migration")
_CITIES = ("Lisbon", "Berlin", "Toronto", "Dublin")
_FILLER = (
    "Let's sync again next week.",
    "Any blockers?",
    "Thanks, everyone.",
    "Can someone share the dashboard link?",
    "Nothing else from me.",
    "Who is taking notes today?",
)

Role = Literal["first", "change", "conflict", "compatible", "confirm"]


@dataclass(frozen=True)
class CorpusDocument:
    """One document as the ingest API receives it, with what it states (for reports)."""

    index: int
    source_ref: str
    title: str
    media_type: str
    body: str
    said_on: datetime
    # (topic, beat number, role) of every statement: the beat number names one statement of
    # the timeline (its first statement and every repeat share it).
    statements: tuple[tuple[str, int, Role], ...]


@dataclass(frozen=True)
class Operation:
    """One step of an arrival order: ingest or delete document `index`."""

    kind: Literal["ingest", "delete"]
    index: int


@dataclass(frozen=True)
class BeliefCorpus:
    documents: tuple[CorpusDocument, ...]
    deleted: tuple[int, ...]
    # Who is who: every surface form the corpus uses for one person or company.
    alias_groups: dict[str, frozenset[str]]
    # The document holding many statements (more than one adjudication batch).
    long_document: int


@dataclass
class _Person:
    given: str
    surname: str
    nickname: str | None

    @property
    def full(self) -> str:
        return f"{self.given} {self.surname}"


@dataclass
class _Beat:
    """One statement of the world at a world date, and how often later documents repeat it."""

    topic: str
    role: Role
    world: date
    render: Callable[[_Mentions, random.Random], str]
    repeats: int = 0
    people: tuple[_Person, ...] = ()


@dataclass
class _Mentions:
    """How one document names people and companies: the first mention in the whole corpus is
    the full name, later ones vary (given name, nickname, surname; short company name)."""

    introduced: set[str]
    rng: random.Random
    used: dict[str, set[str]] = field(default_factory=dict)

    def person(self, person: _Person) -> str:
        if person.full not in self.introduced:
            self.introduced.add(person.full)
            form = person.full
        else:
            form = self.rng.choices(
                (person.full, person.given, person.nickname or person.given, person.surname),
                weights=(5, 2, 2, 1),
            )[0]
        self.used.setdefault(person.full, set()).add(form)
        return form

    def company(self, full: str, short: str) -> str:
        if full not in self.introduced:
            self.introduced.add(full)
            form = full
        else:
            form = self.rng.choice((full, short))
        self.used.setdefault(full, set()).add(form)
        return form


def _on(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def _month(day: date) -> str:
    return f"{day:%B %Y}"


def _day(rng: random.Random, month: int) -> date:
    return date(_YEAR, month, rng.randint(1, 26))


def _beats(rng: random.Random) -> list[_Beat]:
    """Every statement of the timeline, in world order of its own thread."""
    people = [_Person(*p) for p in rng.sample(_PEOPLE, len(_PEOPLE))]
    companies = rng.sample(_COMPANIES, len(_COMPANIES))
    teams = rng.sample(_TEAMS, len(_TEAMS))
    cities = rng.sample(_CITIES, len(_CITIES))
    project, other = rng.sample(_PROJECTS, 2)
    beats: list[_Beat] = []

    def beat(topic: str, role: Role, world: date, *templates: str, **named: object) -> None:
        who = tuple(v for v in named.values() if isinstance(v, _Person))

        def render(m: _Mentions, r: random.Random) -> str:
            values = {
                k: m.person(v)
                if isinstance(v, _Person)
                else m.company(*v)
                if isinstance(v, tuple)
                else v
                for k, v in named.items()
            }
            return r.choice(templates).format(**values)

        beats.append(_Beat(topic, role, world, render, rng.randint(0, 3), who))

    works = (
        "{p} has worked for {c} since {m}.",
        "{p} is employed by {c} since {d}.",
        "Since {m}, {p} works for {c}.",
    )
    # Employers: four start somewhere, two of them move on; one is disputed; one holds two.
    for i, person in enumerate(people[:4]):
        start = _day(rng, rng.randint(1, 3))
        company = companies[i % 3]
        beat(
            f"employer:{person.full}",
            "first",
            start,
            *works,
            p=person,
            c=company,
            m=_month(start),
            d=_on(start),
        )
        if i < 2:
            moved = _day(rng, rng.randint(5, 9))
            beat(
                f"employer:{person.full}",
                "change",
                moved,
                *works,
                p=person,
                c=companies[(i + 1) % 3],
                m=_month(moved),
                d=_on(moved),
            )
    disputed, start = people[4], _day(rng, 3)
    for company in companies[2:4]:
        beat(
            f"employer:{disputed.full}",
            "conflict",
            start,
            *works,
            p=disputed,
            c=company,
            m=_month(start),
            d=_on(start),
        )
    both = people[5]
    start = _day(rng, 2)
    beat(
        f"employer:{both.full}",
        "first",
        start,
        *works,
        p=both,
        c=companies[3],
        m=_month(start),
        d=_on(start),
    )
    beat(
        f"employer:{both.full}",
        "compatible",
        start + timedelta(days=40),
        "{p} also works for {c} part-time.",
        "{p} works for {c} part-time as well.",
        p=both,
        c=companies[1],
    )
    # Teams: everyone starts on one; three move, one of them twice (three successive values).
    team_starts = (
        "{p} joined the {t} on {d}.",
        "{p} has been a member of the {t} since {m}.",
    )
    moves = ("{p} moved to the {t} in {m}.", "{p} transferred to the {t} on {d}.")
    for i, person in enumerate(people[:6]):
        start = _day(rng, rng.randint(1, 2))
        beat(
            f"team:{person.full}",
            "first",
            start,
            *team_starts,
            p=person,
            t=teams[i % 4],
            m=_month(start),
            d=_on(start),
        )
        for step, month in enumerate((4, 9)[: 2 if i == 2 else 1 if i in (1, 3) else 0]):
            moved = _day(rng, month + rng.randint(0, 1))
            beat(
                f"team:{person.full}",
                "change",
                moved,
                *moves,
                p=person,
                t=teams[(i + step + 1) % 4],
                m=_month(moved),
                d=_on(moved),
            )
    # A manager change.
    report, first_boss, second_boss = people[3], people[6], people[7]
    for role, month, boss in (("first", 2, first_boss), ("change", 8, second_boss)):
        when = _day(rng, month)
        beat(
            f"manager:{report.full}",
            role,
            when,
            "{p} reports to {b} since {m}.",
            "Since {m}, {p} reports to {b}.",
            p=report,
            b=boss,
            m=_month(when),
        )
    # A relocation.
    mover = people[4]
    beat(
        f"city:{mover.full}",
        "first",
        date(_YEAR, 1, 2),
        "{p} lives in {x}.",
        "{p} is based in {x}.",
        p=mover,
        x=cities[0],
    )
    moved = _day(rng, 10)
    beat(
        f"city:{mover.full}",
        "change",
        moved,
        "{p} relocated to {x} in {m}.",
        p=mover,
        x=cities[1],
        m=_month(moved),
    )
    # An owner change of a project (an attribute of the project).
    for role, month, owner in (("first", 3, people[0]), ("change", 7, people[3])):
        when = _day(rng, month)
        beat(
            f"owner:{project}",
            role,
            when,
            "The {j} is owned by {p} since {m}.",
            "Since {m} the {j} has been owned by {p}.",
            j=project,
            p=owner,
            m=_month(when),
        )
    # A price: three successive values and a same-period rival.
    for role, month, price in (("first", 1, 40), ("change", 4, 45), ("change", 10, 50)):
        when = date(_YEAR, month, 1)
        beat(
            "price:basic",
            role,
            when,
            "The Basic plan costs ${v} per month from {m}.",
            "From {m} the Basic plan costs ${v} per month.",
            v=price,
            m=_month(when),
        )
    beat(
        "price:basic",
        "conflict",
        date(_YEAR, 4, 1),
        "The Basic plan costs $48 per month from April 2025.",
    )
    # A headcount per quarter.
    counted = companies[0]
    for role, quarter, count in (("first", 1, 120), ("change", 2, 135), ("change", 3, 150)):
        beat(
            f"headcount:{counted[0]}",
            role,
            date(_YEAR, 3 * quarter, 28),
            "{c} had {n} employees in Q{q} 2025.",
            c=counted,
            n=count,
            q=quarter,
        )
    # A status that goes back and forth.
    for role, month, status in (
        ("first", 3, "on track"),
        ("change", 5, "at risk"),
        ("change", 7, "on track"),
    ):
        when = _day(rng, month)
        beat(
            f"status:{other}",
            role,
            when,
            "As of {m} the {j} is {s}.",
            "The {j} has been {s} since {d}.",
            j=other,
            s=status,
            m=_month(when),
            d=_on(when),
        )
    # A stance that turns.
    holder = people[2]
    beat(
        f"stance:{holder.full}",
        "first",
        date(_YEAR, 2, 10),
        "{p} opposes the office move.",
        p=holder,
    )
    when = _day(rng, 5)
    beat(
        f"stance:{holder.full}",
        "change",
        when,
        "{p} has supported the office move since {m}.",
        p=holder,
        m=_month(when),
    )
    # Two sources disagree on one date.
    for day in (8, 15):
        beat(
            f"cutover:{other}",
            "conflict",
            date(_YEAR, 5, 20),
            "The {j} cutover is scheduled for {d}.",
            j=other,
            d=_on(date(_YEAR, 6, day)),
        )
    return beats


def _said_on_dates(size: int, rng: random.Random) -> list[datetime]:
    """Working days from mid-January 2025 to the end of January 2026, in order."""
    start = datetime(_YEAR, 1, 15, 9, 0, tzinfo=UTC)
    span = (datetime(_YEAR + 1, 1, 31, tzinfo=UTC) - start).days
    days = sorted(rng.sample(range(span), size))
    return [start + timedelta(days=d, minutes=rng.randint(0, 480)) for d in days]


def _place(
    beats: list[_Beat], said: list[datetime], long_doc: int, rng: random.Random
) -> list[list[tuple[_Beat, Role]]]:
    """Which document states what: a beat's own statement in one of the first documents
    written after it happened, its repeats in later ones; the long document repeats every
    beat that had happened by then."""
    slots: list[list[tuple[_Beat, Role]]] = [[] for _ in said]
    for beat in beats:
        after = [i for i, s in enumerate(said) if s.date() > beat.world and i != long_doc]
        if not after:
            continue
        if beat.role == "conflict":
            # A rival value comes from another source, never from the same document.
            after = [i for i in after if all(b.topic != beat.topic for b, _ in slots[i])]
        first = rng.choice(after[:3])
        slots[first].append((beat, beat.role))
        later = [i for i in after if i > first]
        for i in rng.sample(later, min(len(later), beat.repeats)):
            slots[i].append((beat, "confirm"))
    happened = {
        b.topic: b for b in beats if b.world < said[long_doc].date() and b.role != "conflict"
    }
    slots[long_doc] = [(b, "confirm") for b in happened.values()]
    slots[long_doc] += [
        (b, "confirm") for b in beats if b.role == "compatible" and b.world < said[long_doc].date()
    ]
    return slots


def _body(
    register: str,
    title: str,
    said: datetime,
    lines: list[str],
    speakers: list[str],
    rng: random.Random,
) -> tuple[str, str]:
    """The document text in its register, and its media type."""
    text = " ".join(lines)
    if register == "chat":
        turns, moment = [], said
        for index, line in enumerate(lines, start=1):
            moment += timedelta(seconds=rng.randint(20, 300))
            stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
            turns.append(f"[T{index} | {stamp}] {speakers[index % len(speakers)]}: {line}")
        return "\n".join(turns) + "\n", CONVERSATION
    if register == "meeting":
        half = max(1, len(lines) // 2)
        body = (
            f"# {title}\n\nAttendees: {', '.join(speakers)}.\n\n## Updates\n\n"
            + " ".join(lines[:half])
            + "\n\n## Changes\n\n"
            + (" ".join(lines[half:]) or rng.choice(_FILLER))
            + "\n"
        )
        return body, "text/markdown"
    if register == "email":
        return (
            f"Subject: {title}\n\nHi all,\n\n{text}\n\nThanks,\n{speakers[0]}\n",
            "text/plain",
        )
    if register == "announcement":
        return f"# {title}\n\n{text}\n", "text/markdown"
    if register == "wiki":
        paragraphs = "".join(f"<p>{line}</p>" for line in lines)
        return f"<html><body><h1>{title}</h1>{paragraphs}</body></html>\n", "text/html"
    # status report and CRM note: plain paragraphs of up to three sentences.
    paragraphs = [" ".join(lines[i : i + 3]) for i in range(0, len(lines), 3)]
    return f"{title}.\n\n" + "\n\n".join(paragraphs) + "\n", "text/plain"


_REGISTERS = ("meeting", "chat", "email", "status", "announcement", "crm", "wiki")
_TITLES = {
    "meeting": "Weekly sync {d:%d %B %Y}",
    "chat": "Team channel {d:%Y-%m-%d}",
    "email": "Update for {d:%B %d}",
    "status": "Status report, week of {d:%d %B %Y}",
    "announcement": "People and org changes, {d:%B %Y}",
    "crm": "Account notes {d:%Y-%m-%d}",
    "wiki": "Project page revision {d:%Y-%m-%d}",
}


def _deletions(
    documents: list[CorpusDocument], long_doc: int, rng: random.Random
) -> tuple[int, ...]:
    """A few documents of each kind that matters when removed: the only source of a fact,
    a document of confirmations only, one carrying a change, one carrying a rival value."""
    counts: dict[int, int] = {}
    for doc in documents:
        for _, number, _ in doc.statements:
            counts[number] = counts.get(number, 0) + 1
    candidates = [d for d in documents if d.index != long_doc and d.statements]
    kinds = (
        lambda d: any(role != "confirm" and counts[n] == 1 for _, n, role in d.statements),
        lambda d: all(role == "confirm" for _, _, role in d.statements),
        lambda d: any(role == "change" for _, _, role in d.statements),
        lambda d: any(role == "conflict" for _, _, role in d.statements),
    )
    chosen: list[int] = []
    for wanted, fits in zip((2, 2, 1, 1), kinds, strict=True):
        pool = [d.index for d in candidates if fits(d) and d.index not in chosen]
        chosen += rng.sample(pool, min(wanted, len(pool)))
    return tuple(sorted(chosen))


def generate_belief_corpus(size: int = 60, seed: int = 17) -> BeliefCorpus:
    """`size` (at least 30) documents, oldest first."""
    if size < 30:
        raise ValueError("the timeline needs at least 30 documents")
    rng = random.Random(f"belief:{seed}:{size}")
    beats = _beats(rng)
    said = _said_on_dates(size, rng)
    long_doc = int(size * 0.7)
    slots = _place(beats, said, long_doc, rng)
    mentions = _Mentions(set(), rng)
    numbers = {id(beat): number for number, beat in enumerate(beats)}
    everyone = sorted({p.full: p for b in beats for p in b.people}.values(), key=lambda p: p.full)
    documents: list[CorpusDocument] = []
    for index, (day, placed) in enumerate(zip(said, slots, strict=True)):
        if not placed:
            known = [b for b in beats if b.world < day.date() and b.role != "conflict"]
            placed = [(rng.choice(known), "confirm")] if known else []
        rng.shuffle(placed)
        lines = list(dict.fromkeys(beat.render(mentions, rng) for beat, _ in placed))
        if len(lines) < 3:
            lines.append(rng.choice(_FILLER))
        register = _REGISTERS[index % len(_REGISTERS)]
        people = {p.full: p for beat, _ in placed for p in beat.people}
        speakers = [
            (p.nickname or p.given) for p in (list(people.values()) or rng.sample(everyone, 2))
        ]
        if len(speakers) < 2:
            speakers.append(rng.choice(everyone).given)
        title = _TITLES[register].format(d=day)
        body, media_type = _body(register, title, day, lines, speakers, rng)
        documents.append(
            CorpusDocument(
                index=index,
                source_ref=f"belief/{seed}/{index:03d}",
                title=title,
                media_type=media_type,
                body=body,
                said_on=day,
                statements=tuple((beat.topic, numbers[id(beat)], role) for beat, role in placed),
            )
        )
    return BeliefCorpus(
        documents=tuple(documents),
        deleted=_deletions(documents, long_doc, rng),
        alias_groups={name: frozenset(forms) for name, forms in sorted(mentions.used.items())},
        long_document=long_doc,
    )


def operations(corpus: BeliefCorpus, seed: int | None) -> tuple[Operation, ...]:
    """One arrival order. `None`: documents oldest first, then the deletes in index order;
    a seed: a seeded permutation with each delete at a random place after its ingest."""
    order = [d.index for d in corpus.documents]
    if seed is None:
        ingests = [Operation("ingest", i) for i in order]
        return (*ingests, *(Operation("delete", i) for i in corpus.deleted))
    rng = random.Random(f"order:{seed}")
    rng.shuffle(order)
    steps = [Operation("ingest", i) for i in order]
    for index in corpus.deleted:
        after = next(p for p, op in enumerate(steps) if op.index == index) + 1
        steps.insert(rng.randint(after, len(steps)), Operation("delete", index))
    return tuple(steps)
