"""The governed predicate vocabulary: a claim's verb phrase mapped to a vocabulary predicate,
its direction, and whether it states the relation, its start or its end (`DirectedPredicate`);
what the object names decides a placement ("joined the Search team" is membership, "joined
Orbit" employment, "joined Greaves's call" none)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from services.adjudicator.predicates import (
    CORE_PREDICATES,
    FILLER,
    IRREGULAR,
    LEADERSHIP_PHRASES,
    LEADERSHIP_VERBS,
    OTHER_PREDICATE_RE,
    PACKS,
    PHASES,
    PLACEMENT_VERBS,
    SYNONYMS,
)
from shared.beliefs.slots import OWNED_BY_ESCAPE
from shared.entities.given_names import is_given_name
from shared.entities.normalize import display_name, normalize_name
from shared.text.units import (
    could_name_a_person,
    is_gathering,
    is_project_head,
    is_team_head,
    names_an_organisation,
    person_shaped,
)

__all__ = ["DirectedPredicate", "Phase", "PredicateVocabulary", "reads_as_person"]

_MAX_PHRASE_TOKENS = 8
# Particles between a motion verb and its preposition that change nothing the vocabulary keys
# on; tried only when the phrase with them is not in the table ("move over to" → "move to").
_DIRECTION_PARTICLES = frozenset({"over", "across", "back", "along", "down"})
_INSTEAD_OF = " instead of"  # the extractor's mark of a rejected alternative (coordination)
# The extractor's mark of a relation held before ("used to work for", "was previously at",
# "a former Umbrella engineer"): the verb phrase that follows it says which relation.
_FORMERLY = "use to "
# Verbs of commitment before the verb that says the relation ("agree to lead", "be set to
# join", "be due to start at"); wishes and hopes are not among them (they are no claims).
_CONTROL_RE = re.compile(
    r"^(?:agree|decide|plan|intend|expect|promise|offer|choose|arrange|prepare|set|due|go"
    r"|continue|keep\s+on"
    r"|be set|be due|be go(?:ing)?|be about)\s+to\s+(?=\S)",
    re.IGNORECASE,
)
# Positions under a whole ("sits under Finance", "falls within the Platform group"): part of
# an organisation, a member of a team.
_UNDER_PHRASES = frozenset(
    {"sit under", "fall under", "be under", "sit within", "fall within", "be within"}
)


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[a-z][a-z'-]*", text.lower().replace("_", " "))
    kept = [w for w in words if w not in FILLER]
    # A bare auxiliary ("is") is all there is; keep it so it can fail to map on its own.
    return kept or words


def _lemma_candidates(token: str, known: frozenset[str]) -> list[str]:
    forms = [token]
    if token in IRREGULAR:
        forms.append(IRREGULAR[token])
    for suffix, replacements in (
        ("ies", ("y",)),
        ("ied", ("y",)),
        ("es", ("",)),
        ("s", ("",)),
        ("ed", ("", "e")),
        ("ing", ("", "e")),
    ):
        if token.endswith(suffix) and len(token) > len(suffix) + 1:
            stem = token[: -len(suffix)]
            forms.extend(stem + r for r in replacements)
            if len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])  # doubled consonant: planned, running
    return [f for i, f in enumerate(forms) if (i == 0 or f in known) and f not in forms[:i]]


Phase = Literal["state", "start", "end"]


@dataclass(frozen=True, slots=True)
class DirectedPredicate:
    """A vocabulary predicate, whether the phrase's subject is the relation's object, and
    whether the phrase states the relation, its start ("joined") or its end ("left").
    `placement` marks a phrase whose relation depends on what the object names: joining a
    team is membership, joining a company employment."""

    predicate: str
    inverted: bool
    phase: Phase = "state"
    placement: bool = False
    leads: bool = False  # "leads/runs/chairs X": a team's member, a project's worker
    former: bool = False  # "used to work for X", "previously at X": held once, no longer
    switches: bool = False  # "moved to X", "switched to X": a person's new employer

    def for_object(self, object_name: str, subject_name: str = "") -> DirectedPredicate | None:
        """The relation with this object (and subject, after any inversion): a team makes a
        placement membership; being "on" anything but a team is no placement at all ("on
        vacation"); leading a team is membership, leading anything else is working on it."""
        team = is_team_head(object_name)
        managed = self._managed(object_name, subject_name)
        if managed is not None:
            return managed
        if self.leads:
            return replace(self, predicate="member_of" if team else "works_on")
        if self.switches and not team and _is_company(subject_name) and not self.inverted:
            # "Fennimore & Lusk moved to Salesforce", "Dunmore Labs switched to the Enterprise
            # plan": a company moving to a tool or plan uses it, no employer.
            return replace(self, predicate="uses", placement=False)
        if self.predicate == "located_in" and team and not self.inverted:
            return replace(self, predicate="member_of")  # "sits in the platform team"
        if self.predicate == "works_on" and team and not self.inverted:
            # "starts on the Growth team", "works on the payments team": one works on a
            # project, and on a team as its member.
            return replace(self, predicate="member_of")
        if self.predicate == "works_for" and not self.inverted and _names_a_site(subject_name):
            # "Our Berlin office is at Torstrasse 109": where a site is, no employer.
            return replace(self, predicate="located_in", placement=False)
        if self.placement and self.predicate == "part_of":
            # "sits under the Discovery group" places its subject in a unit as "moves into
            # the AI Platform group" does: one slot, so the move closes it.
            return replace(self, predicate="member_of") if team else self
        if not self.placement or self.predicate not in ("works_for", "member_of"):
            return self
        if is_gathering(object_name):
            return None  # "will join Greaves's call": attending, no placement
        if self.predicate == "member_of" and not team:
            return None
        if not team and is_project_head(object_name):
            return replace(self, predicate="works_on")  # "joined the Atlas project"
        return replace(self, predicate="member_of" if team else "works_for")

    def _managed(self, manager: str, managed: str) -> DirectedPredicate | None:
        """ "Nadia manages IT access", "The Deel account is managed by Farid": one manages a
        thing by working on it and a team by leading it; only a person managed (or a team
        said to report) reports to the manager. The manager becomes the relation's subject."""
        if self.predicate != "reports_to" or not managed or reads_as_person(managed):
            return None
        if not self.inverted and could_name_a_person(display_name(managed)):
            return None  # "Brenna reports to Mei Tan": a name that reports is someone's
        if is_team_head(managed):
            if not self.inverted:
                return None  # "The platform team reports to Sara"
            return replace(self, predicate="member_of", inverted=False, leads=True)
        if not self.inverted and not reads_as_person(manager):
            return None  # "The Lisbon office reports to EMEA HQ"
        return replace(self, predicate="works_on", inverted=not self.inverted, leads=True)


# Heads that name a site: a place of work, which is somewhere but works for no one.
_SITE_HEADS = frozenset(
    {"office", "offices", "site", "branch", "campus", "store", "warehouse", "plant", "hq"}
    | {"headquarters", "factory", "depot", "studio", "lab", "hub", "clinic", "showroom"}
)


# Moves whose subject, when it is a company, takes up what it moved to.
_SWITCHES = frozenset({"move to", "switch to", "move onto", "move over to", "switch over to"})


def _is_company(name: str) -> bool:
    """A name that reads as a company's: an organisation word ("Dunmore Labs"), an ampersand
    ("Fennimore & Lusk") or an abbreviation in capitals ("F&L", "HMG")."""
    return bool(name) and (
        names_an_organisation(name) or "&" in name or (name.isupper() and len(name) >= 2)
    )


def _names_a_site(name: str) -> bool:
    words = name.lower().split()
    return bool(words) and words[-1] in _SITE_HEADS


def reads_as_person(name: str) -> bool:
    """A name that opens with a common given name ("Omar", "Dana Kim"), or has a full name's
    shape though the list lacks its given name ("Brenna Holt", "Ngozi Eze")."""
    words = normalize_name(name).split()
    if not words or not display_name(name)[:1].isupper():
        return False
    return is_given_name(words[0]) or person_shaped(display_name(name))


class PredicateVocabulary:
    """The 16 core predicates, the enabled packs, the synonym table and `other:` escapes."""

    def __init__(self, packs: Sequence[str] = ()) -> None:
        unknown = sorted(set(packs) - PACKS.keys())
        if unknown:
            raise ValueError(f"unknown predicate pack(s): {', '.join(unknown)}")
        self.packs: tuple[str, ...] = tuple(packs)
        self.predicates: frozenset[str] = frozenset(
            CORE_PREDICATES + tuple(p for pack in packs for p in PACKS[pack])
        )
        table: dict[str, tuple[str, bool]] = {}
        phases: dict[str, Phase] = {}
        for phrase, target in SYNONYMS.items():
            key = " ".join(_tokens(phrase))
            table.setdefault(key, target)
            if phrase in PHASES:
                phases[key] = "start" if PHASES[phrase] == "start" else "end"
        for name in CORE_PREDICATES + tuple(p for names in PACKS.values() for p in names):
            table.setdefault(" ".join(_tokens(name)), (name, False))
        self._table = table
        self._phases = phases
        self._known = frozenset(word for phrase in table for word in phrase.split())

    def is_valid(self, predicate: str) -> bool:
        """Whether `predicate` may be stored on a relation (vocabulary or a valid escape)."""
        return predicate in self.predicates or bool(OTHER_PREDICATE_RE.match(predicate))

    def normalize(self, predicate_text: str) -> str | None:
        """The vocabulary predicate for a verb phrase, or None when it must be dropped."""
        directed = self.normalize_directed(predicate_text)
        return None if directed is None else directed.predicate

    def normalize_directed(self, predicate_text: str) -> DirectedPredicate | None:
        text = predicate_text.strip()
        if text.startswith("other:"):
            return DirectedPredicate(text, False) if OTHER_PREDICATE_RE.match(text) else None
        if text in self.predicates:
            return DirectedPredicate(text, False)
        if text.endswith(_INSTEAD_OF):
            # "runs on OpenSearch instead of Solr": the same relation to Solr, which has ended
            base = self.normalize_directed(text[: -len(_INSTEAD_OF)])
            return None if base is None else replace(base, phase="end")
        control = _CONTROL_RE.match(text)
        if control:
            # "has agreed to lead the partner programme", "is set to join Orbit": the verb
            # the commitment is about says the relation.
            return self.normalize_directed(text[control.end() :])
        if text.startswith(_FORMERLY):
            base = self.normalize_directed(text[len(_FORMERLY) :])
            return None if base is None else replace(base, former=True)
        tokens = _tokens(text)
        if not tokens or len(tokens) > _MAX_PHRASE_TOKENS:
            return None
        found = self._lookup(tokens)
        if found is None and len(tokens) > 2 and tokens[1] in _DIRECTION_PARTICLES:
            # "is moving over to", "switched across to": the particle only adds direction.
            found = self._lookup([tokens[0], *tokens[2:]])
        if found is None and len(tokens) > 1 and tokens[-1] == "by":
            active = self._lookup(tokens[:-1])
            if active is not None:
                found = (active[0], (active[1][0], not active[1][1]))
        if found is None:
            return None
        key, (predicate, inverted) = found
        if predicate not in self.predicates:
            if predicate != "assigned_to":
                return None
            predicate = OWNED_BY_ESCAPE  # an owner without the work pack (see slots)
        return DirectedPredicate(
            predicate,
            inverted,
            self._phases.get(key, "state"),
            key.split()[0] in PLACEMENT_VERBS or key in _UNDER_PHRASES,
            # "runs the payments team" leads it; "runs in Oregon" is where something is.
            predicate in ("member_of", "works_on")
            and (key in LEADERSHIP_PHRASES or key.split()[0] in LEADERSHIP_VERBS),
            switches=key in _SWITCHES,
        )

    def relation(
        self, subject: str, predicate_text: str, obj: str
    ) -> tuple[str, DirectedPredicate, str] | None:
        """(subject, predicate, object) of the relation a phrase states between two names,
        ends swapped where the phrase inverts them, or None when it states none."""
        directed = self.normalize_directed(predicate_text)
        if directed is None:
            return None
        if directed.inverted:
            subject, obj = obj, subject
        placed = directed.for_object(obj, subject)
        if placed is None:
            return None
        if placed.inverted != directed.inverted:  # the object decided the other direction
            subject, obj = obj, subject
        return subject, placed, obj

    def _lookup(self, tokens: list[str]) -> tuple[str, tuple[str, bool]] | None:
        options = [_lemma_candidates(t, self._known) for t in tokens]
        for combo in itertools.product(*options):
            key = " ".join(combo)
            hit = self._table.get(key)
            if hit is not None:
                return key, hit
        return None
