"""A deterministic synthetic work corpus: meeting notes, team chats and status updates.

The documents describe one simulated organisation over time: people on teams, leads they report
to, projects they work on, the tools each project uses, the cities people are based in and the
cutover date each project is scheduled for. As the timeline advances the state changes (people
move teams, relocate, switch projects; projects adopt new tools; cutovers are rescheduled), so the
same facts are restated by later documents (confirmations), replaced (supersession), and now and
then disputed by an attributed opinion (contradiction) — the adjudicator gets real work, not one
`add` per claim. Everything derives from `(size, seed)`: the same arguments give byte-identical
documents, on any machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

__all__ = ["CONVERSATION", "SyntheticDocument", "generate"]

CONVERSATION = "text/x-rememberstack-conversation"
_START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_WOMEN = _words(
    "Amara Dana Elena Farah Grace Hana Ines Julia Keiko Leila Maya Nadia Olga Priya Rosa Sofia "
    "Tara Uma Vera Yara Zoe Chloe Ingrid Lucia"
)
_MEN = _words(
    "Arjun Bruno Carlos Daniel Emeka Felix Goran Hugo Ivan Jonas Kenji Luca Marco Nikhil Omar "
    "Pavel Ravi Samir Tomas Viktor Wei Yusuf Anders Diego"
)
_LAST = _words(
    "Patel Kim Novak Okafor Silva Tanaka Berg Costa Haddad Ivanova Jensen Kowalski Larsen Moreau "
    "Nakamura Oliveira Petrov Quinn Rossi Schmidt Torres Varga Weber Yilmaz Zhang Fischer Brennan "
    "Dubois Eriksen Hoffman Lindqvist Marsh"
)
_TEAMS = (
    "payments", "search", "growth", "infrastructure", "mobile", "data platform", "security",
    "identity", "billing", "support tooling", "checkout", "observability",
)  # fmt: skip
_PROJECT_HEADS = _words(
    "billing ledger checkout search catalog invoice fraud onboarding analytics notification "
    "pricing refund loyalty reporting audit session"
)
_PROJECT_TAILS = _words("migration rewrite rollout reindex redesign upgrade cleanup pipeline")
_TOOLS = _words(
    "Postgres Kafka Redis Snowflake Terraform Kubernetes Elasticsearch RabbitMQ BigQuery "
    "ClickHouse Airflow Grafana Cassandra DynamoDB Spark Vault"
)
_CITIES = _words(
    "Berlin Lisbon Toronto Austin Dublin Singapore Nairobi Melbourne Warsaw Osaka Madrid Oslo "
    "Denver Seoul Zurich"
)
_FILLER = (
    "Let's sync tomorrow.",
    "Any blockers?",
    "Thanks, everyone.",
    "Should we move the demo to Friday?",
    "I'll follow up after lunch.",
    "Good progress this week.",
    "Can someone share the dashboard link?",
    "Nothing else from me.",
    "Let's keep the retro short.",
    "Who is taking notes today?",
)


@dataclass(frozen=True)
class SyntheticDocument:
    """One document as the ingest API receives it."""

    source_ref: str
    title: str
    media_type: str
    body: str
    said_on: datetime


@dataclass
class _Person:
    name: str
    pronoun: str
    team: str
    project: str
    city: str

    @property
    def first(self) -> str:
        return self.name.split()[0]


@dataclass
class _Project:
    name: str
    team: str
    tool: str
    cutover: date


@dataclass
class _World:
    rng: random.Random
    people: list[_Person]
    projects: list[_Project]
    leads: dict[str, _Person] = field(default_factory=dict)

    def project(self, name: str) -> _Project:
        return next(p for p in self.projects if p.name == name)

    def projects_of(self, team: str) -> list[_Project]:
        return [p for p in self.projects if p.team == team] or self.projects


def _world(size: int, rng: random.Random) -> _World:
    """People, teams and projects in proportion to the corpus, so bigger corpora have more of
    everything (entity resolution and candidate search grow too), not just more repetition."""
    team_count = min(len(_TEAMS), 4 + size // 150)
    teams = list(_TEAMS[:team_count])
    names = sorted({f"{h} {t}" for h in _PROJECT_HEADS for t in _PROJECT_TAILS})
    rng.shuffle(names)
    projects = [
        _Project(
            name,
            teams[i % team_count],
            rng.choice(_TOOLS),
            (_START + timedelta(days=rng.randint(60, 400))).date(),
        )
        for i, name in enumerate(names[: max(6, min(len(names), size // 12))])
    ]
    full_names = sorted({f"{f} {last}" for f in _WOMEN + _MEN for last in _LAST})
    rng.shuffle(full_names)
    people = []
    for name in full_names[: max(12, min(len(full_names), size // 4))]:
        team = rng.choice(teams)
        project = rng.choice([p for p in projects if p.team == team] or projects)
        pronoun = "She" if name.split()[0] in _WOMEN else "He"
        people.append(_Person(name, pronoun, team, project.name, rng.choice(_CITIES)))
    world = _World(rng, people, projects)
    for team in teams:
        members = [p for p in people if p.team == team] or [rng.choice(people)]
        world.leads[team] = members[0]
    return world


def _date_text(day: date, rng: random.Random) -> str:
    style = rng.randrange(3)
    if style == 0:
        return day.isoformat()
    if style == 1:
        return f"{day:%B} {day.day}, {day.year}"
    return f"{day.day} {day:%B %Y}"


def _when(said_on: datetime, rng: random.Random) -> str:
    return rng.choice(
        (
            "last week",
            "yesterday",
            "this week",
            f"in {said_on:%B}",
            f"on {_date_text(said_on.date() - timedelta(days=rng.randint(1, 9)), rng)}",
        )
    )


def _confirm(world: _World, person: _Person, rng: random.Random) -> list[str]:
    """A restatement of what is currently true: confirms the fact it matches."""
    project = world.project(person.project)
    lead = world.leads[person.team]
    options = [
        rng.choice(
            (
                "{p} works on the {j}.",
                "{p} contributes to the {j}.",
                "{p} is responsible for the {j}.",
                "{p} maintains the {j}.",
            )
        ).format(p=person.name, j=project.name),
        rng.choice(
            (
                "{p} is a member of the {t} team.",
                "{p} belongs to the {t} team.",
                "{p} sits on the {t} team.",
            )
        ).format(p=person.name, t=person.team),
        rng.choice(("The {j} uses {x}.", "The {j} relies on {x}.", "The {j} runs on {x}.")).format(
            j=project.name, x=project.tool
        ),
        rng.choice(("{p} lives in {c}.", "{p} is based in {c}.")).format(
            p=person.name, c=person.city
        ),
        f"The {project.name} cutover is scheduled for {_date_text(project.cutover, rng)}.",
        f"{lead.name} leads the {person.team} team.",
    ]
    if lead is not person:
        options.append(
            rng.choice(("{p} reports to {l}.", "{l} manages {p}.")).format(
                p=person.name, l=lead.name
            )
        )
    picked = rng.sample(options, k=min(len(options), rng.randint(1, 3)))
    if rng.random() < 0.3 and picked[-1].startswith(person.name):
        # A pronoun the extractor has to resolve from the sentence before.
        picked.append(f"{person.pronoun} also knows about {rng.choice(_TOOLS)}.")
    return picked


def _change(world: _World, person: _Person, said_on: datetime, rng: random.Random) -> str:
    """A change of state, applied to the world: the fact it replaces gets superseded."""
    kind = rng.randrange(5)
    if kind == 0:
        team = rng.choice([t for t in world.leads if t != person.team] or [person.team])
        handover = ""
        if world.leads[person.team] is person:
            # A lead who leaves hands the team over: the lead relation is superseded too.
            stay = [p for p in world.people if p.team == person.team and p is not person]
            if stay:
                world.leads[person.team] = successor = rng.choice(stay)
                handover = f" {successor.name} now leads the {person.team} team."
        person.team = team
        person.project = rng.choice(world.projects_of(team)).name
        moved = rng.choice(
            (
                f"{person.name} moved to the {team} team {_when(said_on, rng)}.",
                f"{person.name} joined the {team} team {_when(said_on, rng)}.",
                f"{person.name} transferred to the {team} team {_when(said_on, rng)}.",
            )
        )
        return moved + handover
    if kind == 1:
        city = rng.choice([c for c in _CITIES if c != person.city])
        person.city = city
        return f"{person.name} relocated to {city} {_when(said_on, rng)}."
    project = world.project(person.project)
    if kind == 2:
        tool = rng.choice([t for t in _TOOLS if t != project.tool])
        old, project.tool = project.tool, tool
        return rng.choice(
            (
                f"The {project.name} now uses {tool} instead of {old}.",
                f"The {project.name} adopted {tool} {_when(said_on, rng)}.",
            )
        )
    if kind == 3:
        old_day = project.cutover
        project.cutover = old_day + timedelta(days=rng.choice((-3, 1, 2, 7, 14, 21)))
        return (
            f"The {project.name} cutover moved from {_date_text(old_day, rng)} to "
            f"{_date_text(project.cutover, rng)}."
        )
    project = rng.choice(world.projects_of(person.team))
    person.project = project.name
    return rng.choice(
        (
            f"{person.name} now works on the {project.name}.",
            f"{person.name} started contributing to the {project.name} {_when(said_on, rng)}.",
        )
    )


def _dispute(world: _World, speaker: _Person, rng: random.Random) -> str:
    """An attributed opinion that disagrees with the current state (a contradiction to group)."""
    project = rng.choice(world.projects)
    wrong = project.cutover + timedelta(days=rng.choice((5, 10, 30)))
    return rng.choice(
        (
            f"{speaker.first} believes the {project.name} cutover is on {_date_text(wrong, rng)}.",
            f"According to {speaker.first}, the {project.name} cutover is scheduled for "
            f"{_date_text(wrong, rng)}.",
        )
    )


def _statements(world: _World, said_on: datetime, rng: random.Random, team: str) -> list[str]:
    """The sentences of one document, about people of one team mostly (as real notes are)."""
    members = [p for p in world.people if p.team == team] or world.people
    out: list[str] = []
    for _ in range(rng.randint(3, 5)):
        person = rng.choice(members if rng.random() < 0.8 else world.people)
        roll = rng.random()
        if roll < 0.55:
            out.extend(_confirm(world, person, rng))
        elif roll < 0.85:
            out.append(_change(world, person, said_on, rng))
        elif roll < 0.93:
            out.append(_dispute(world, rng.choice(members), rng))
        else:
            out.append(rng.choice(_FILLER))
    return list(dict.fromkeys(out))  # a note does not repeat itself word for word


def _meeting(title: str, day: datetime, lines: list[str], people: list[_Person]) -> str:
    attendees = ", ".join(p.name for p in people)
    half = max(1, len(lines) // 2)
    while half < len(lines) and lines[half].startswith(("She ", "He ")):
        half += 1  # keep a pronoun in the same section as the sentence it refers to
    return (
        f"# {title}\n\nAttendees: {attendees}.\n\n## Updates\n\n"
        + " ".join(lines[:half])
        + "\n\n## Decisions and changes\n\n"
        + " ".join(lines[half:])
        + "\n"
    )


def _chat(day: datetime, lines: list[str], people: list[_Person], rng: random.Random) -> str:
    turns, moment = [], day
    for index, line in enumerate(lines, start=1):
        moment += timedelta(seconds=rng.randint(20, 240))
        speaker = people[index % len(people)]
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
        turns.append(f"[T{index} | {stamp}] {speaker.first}: {line}")
        if rng.random() < 0.25:
            moment += timedelta(seconds=rng.randint(10, 60))
            reply = rng.choice(_FILLER)
            stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
            turns.append(f"[T{index}b | {stamp}] {people[0].first}: {reply}")
    return "\n".join(turns) + "\n"


def generate(size: int, seed: int = 7) -> list[SyntheticDocument]:
    """`size` documents spread over the simulated timeline, oldest first."""
    rng = random.Random(f"{seed}:{size}")
    world = _world(size, rng)
    # About a year of activity whatever the size: bigger corpora are denser, not longer.
    step = timedelta(minutes=max(30, 365 * 24 * 60 // max(size, 1)))
    documents = []
    for index in range(size):
        said_on = _START + step * index + timedelta(minutes=rng.randint(0, 25))
        team = rng.choice(list(world.leads))
        lines = _statements(world, said_on, rng, team)
        members = [p for p in world.people if p.team == team] or world.people
        people = rng.sample(members, k=min(len(members), rng.randint(2, 4)))
        style = index % 3
        if style == 0:
            title = f"{team.title()} sync {said_on:%Y-%m-%d}"
            body, media_type = _meeting(title, said_on, lines, people), "text/markdown"
        elif style == 1:
            title = f"{team} channel {said_on:%Y-%m-%d %H:%M}"
            body, media_type = _chat(said_on, lines, people, rng), CONVERSATION
        else:
            title = f"Weekly status of the {team} team, {said_on:%B %d %Y}"
            paragraphs = [" ".join(lines[i : i + 3]) for i in range(0, len(lines), 3)]
            body = f"{title}.\n\n" + "\n\n".join(paragraphs) + "\n"
            media_type = "text/plain"
        documents.append(
            SyntheticDocument(f"synthetic/{seed}/{index:05d}", title, media_type, body, said_on)
        )
    return documents
