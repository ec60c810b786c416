"""Normalization of claims into assertions over a governed predicate vocabulary."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from services.adjudicator.domain import Assertion, ClaimView, EntityRef, Polarity, Window
from services.adjudicator.engines.categories import find_categories
from services.adjudicator.predicates import (
    CORE_PREDICATES,
    FILLER,
    IRREGULAR,
    LABELS,
    LEADERSHIP_PHRASES,
    LEADERSHIP_VERBS,
    OTHER_PREDICATE_RE,
    PACKS,
    PHASES,
    PLACEMENT_VERBS,
    STATE_PREDICATES,
    SYNONYMS,
)
from shared.beliefs.slots import OWNED_BY_ESCAPE
from shared.entities.given_names import is_given_name
from shared.entities.normalize import display_name, normalize_name
from shared.text.temporal import strip_temporal, temporal_spans
from shared.text.units import (
    could_name_a_person,
    is_gathering,
    is_project_head,
    is_team_head,
    names_an_organisation,
    person_shaped,
)

__all__ = [
    "CORE_PREDICATES",
    "OTHER_PREDICATE_RE",
    "PACKS",
    "STATE_PREDICATES",
    "DirectedPredicate",
    "NormalizationResult",
    "Normalizer",
    "PredicateVocabulary",
    "observation_label",
    "relation_label",
    "synonym_phrases",
]

_MAX_PHRASE_TOKENS = 8
# Particles between a motion verb and its preposition that change nothing the vocabulary keys
# on; tried only when the phrase with them is not in the table ("move over to" → "move to").
_DIRECTION_PARTICLES = frozenset({"over", "across", "back", "along", "down"})
# "Rosa now works at Everly": a state said as the change it is, which succeeds the slot's
# earlier value even when neither is dated (a start with no stated time).
_NOW_RE = re.compile(r"\b(now|nowadays|these days)\b", re.IGNORECASE)
# A view arrived at: "has warmed to", "came round to", "turned against", "soured on", "was won
# over": the holder's stance changed, as "now supports" says.
_CAME_TO_RE = re.compile(
    r"\b(?:warm(?:ed|s)?\s+to|c(?:o|a)me\s+(?:a)?round\s+to|turn(?:ed|s)?\s+against|"
    r"sour(?:ed|s)?\s+on|cool(?:ed|s)?\s+on|won\s+over|changed\s+(?:his|her|their|my|our)\s+mind)\b",
    re.IGNORECASE,
)
# "is no longer with Acme", "doesn't work at Acme any more": an ending, not a denial.
_NO_LONGER_RE = re.compile(r"\b(no longer|not any ?more|any ?more|no more)\b", re.IGNORECASE)
# Cues that a relation holds beside the subject's others: a second employer is no successor.
_INSTEAD_OF = " instead of"  # the extractor's mark of a rejected alternative (coordination)
# The extractor's mark of a relation held before ("used to work for", "was previously at",
# "a former Umbrella engineer"): the verb phrase that follows it says which relation.
_FORMERLY = "use to "
# Verbs of commitment before the verb that says the relation ("agree to lead", "be set to
# join", "be due to start at"); wishes and hopes are not among them (they are no claims).
_CONTROL_RE = re.compile(
    r"^(?:agree|decide|plan|intend|expect|promise|offer|choose|arrange|prepare|set|due|go"
    r"|be set|be due|be go(?:ing)?|be about)\s+to\s+(?=\S)",
    re.IGNORECASE,
)
# "also, I'm switching to the Growth team": a message opening with "also" adds a point to the
# conversation, it does not say the relation holds beside another.
# A departure announced ahead: "I'm leaving", "is stepping down", "will leave", "plans to quit".
_LEAVING_AHEAD = re.compile(
    r"\b(?:(?:am|is|are|'m|'re|’m|’re)\s+(?:\w+\s+)?(?:leaving|stepping\s+down|departing|"
    r"retiring|quitting|moving\s+on)|(?:will|'ll|’ll|going\s+to|plans?\s+to|about\s+to)\s+"
    r"(?:\w+\s+)?(?:leave|step\s+down|depart|retire|quit))\b",
    re.IGNORECASE,
)
# Positions under a whole ("sits under Finance", "falls within the Platform group"): part of
# an organisation, a member of a team.
_UNDER_PHRASES = frozenset(
    {"sit under", "fall under", "be under", "sit within", "fall within", "be within"}
)
_OPENING_CONNECTIVE = re.compile(r"^\W*(?:and\s+)?(?:also|additionally)\b[\s,]*", re.IGNORECASE)
_CONCURRENT_RE = re.compile(
    r"\b(also|alongside|as well|in addition to|additionally|part[- ]time|on the side|"
    r"second job|besides|simultaneously|at the same time|concurrently|jointly|on top of|"
    r"in parallel|while still|on weekends|at weekends|in the evenings|side project|"
    r"moonlight\w*)\b|\btoo\W*$",
    re.IGNORECASE,
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
        if self.predicate == "located_in" and team and not self.inverted:
            return replace(self, predicate="member_of")  # "sits in the platform team"
        if self.predicate == "works_on" and team and not self.inverted:
            # "starts on the Growth team", "works on the payments team": one works on a
            # project, and on a team as its member.
            return replace(self, predicate="member_of")
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
        if self.predicate != "reports_to" or not managed or _reads_as_person(managed):
            return None
        if not self.inverted and could_name_a_person(display_name(managed)):
            return None  # "Brenna reports to Mei Tan": a name that reports is someone's
        if is_team_head(managed):
            if not self.inverted:
                return None  # "The platform team reports to Sara"
            return replace(self, predicate="member_of", inverted=False, leads=True)
        if not self.inverted and not _reads_as_person(manager):
            return None  # "The Lisbon office reports to EMEA HQ"
        return replace(self, predicate="works_on", inverted=not self.inverted, leads=True)


def _reads_as_person(name: str) -> bool:
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


_AMOUNT_RE = re.compile(
    r"^\W*[$€£]?\s*\d[\d.,]*\s*(?:%|k|m|bn|percent|thousand|million|billion)?\W*$", re.I
)


def _stint(claim: ClaimView) -> bool:
    """Whether the claim states a period with both ends, not an event's date or a start."""
    window = claim.window
    return (
        window.valid_from is not None
        and window.valid_until is not None
        and claim.window_kind != "event_time"
    )


# A price with its currency code and unit ("EUR 26 per user per month", "26 USD/seat"):
# an amount first, then no name.
_PRICE_RE = re.compile(r"^\W*(?:[$€£¥]|[A-Z]{3}\s)?\s*\d[\d.,]*(?:\s*[A-Z]{3}\b)?(?P<unit>.*)$")


def _is_value(text: str) -> bool:
    """A date or an amount ("2026-06-08", "$40k", "EUR 26/user/month"), not something a
    relation could point at."""
    rest = text
    for start, end in reversed(temporal_spans(text)):
        rest = rest[:start] + rest[end:]
    if not rest.strip(" ,.;:") or _AMOUNT_RE.match(rest):
        return True
    price = _PRICE_RE.match(rest)
    if price is None:
        return False
    return not any(w[:1].isupper() for w in price.group("unit").split())


def observation_label(statement: str) -> str:
    """An observation's label: its statement without temporal phrases (dates live in the
    validity fields). Values other than dates stay: they are the statement's content."""
    return strip_temporal(statement)


def relation_label(subject: str, predicate: str, obj: str, polarity: Polarity) -> str:
    """A relation's label from names and predicate only, so it can never carry a date."""
    if predicate.startswith("other:"):
        words = predicate.removeprefix("other:").replace("_", " ")
        phrase = words if polarity == "positive" else f"not {words}"
    else:
        positive, negative = LABELS[predicate]
        phrase = positive if polarity == "positive" else negative
    return f"{subject} {phrase} {obj}"


def _held_together(assertions: tuple[Assertion, ...]) -> tuple[Assertion, ...]:
    """ "works at Kessler University and at Orbis Pharma": relations one claim states of one
    subject under one predicate, as states, hold side by side (neither succeeds the other)."""
    objects: dict[tuple[str | None, str | None], set[str | None]] = {}
    for a in assertions:
        if a.kind == "relation" and a.phase == "state" and a.polarity == "positive":
            objects.setdefault((a.subject_entity_id, a.predicate), set()).add(a.object_entity_id)
    return tuple(
        replace(a, concurrent=True)
        if len(objects.get((a.subject_entity_id, a.predicate), ())) > 1
        and a.kind == "relation"
        and a.phase == "state"
        and a.polarity == "positive"
        else a
        for a in assertions
    )


@dataclass(frozen=True, slots=True)
class NormalizationResult:
    """The assertions a claim yields and the predicate phrases that could not be mapped."""

    assertions: tuple[Assertion, ...]
    dropped_predicates: tuple[str, ...]


class Normalizer:
    """Turns claims into relations and observations.

    Rules, in order:
    1. An attributed claim is one observation on the holder (statement = claim text). A holder
       that names no entity ("according to the spec") is the `fallback` (the speaker or the
       document); it is never re-anchored on the thing discussed.
    2. A subject entity, a mappable predicate and an object entity give one relation and nothing
       else. The label is "<subject> <predicate phrase> <object>".
    3. Otherwise the claim is an observation on its subject entity (values, states, dates,
       stances). A predicate between two entities that does not map is reported in
       `dropped_predicates`; the statement survives as an observation so the fact layer does
       not lose it. A predicate before a value ("is scheduled for 2026-06-08") is not a
       relation predicate and is not counted.
    4. Every further relation the claim states (`extra_relations`: a role in an apposition, the
       employer left in "was hired by Umbrella from Hooli") that maps gives a relation too,
       whatever the main statement gave.
    A claim whose subject names no entity ("the team agreed…") is likewise an observation on
    the `fallback`, so the belief layer does not lose it; without one it yields nothing and
    only the claim keeps the statement.
    An observation's statement is the claim text (the values it states, a cutover date or a
    price, are what the engine compares); its label drops the temporal phrases, since the
    world-time window lives only in the validity fields.

    Phases: an event that starts a state ("joined the search team in June") gives the state a
    known start and an open end; one that ends it ("left Acme in March") gives it that end. An
    ending without a date says it had ended by the time it was said: the same relation, closed
    at the latest at the claim's said-on time.
    """

    def __init__(self, vocabulary: PredicateVocabulary) -> None:
        self.vocabulary = vocabulary

    def relation_predicate(self, predicate_text: str | None) -> DirectedPredicate | None:
        """The vocabulary predicate a claim's phrase maps to, if any (what decides whether
        its object is worth resolving to an entity)."""
        if not predicate_text:
            return None
        return self.vocabulary.normalize_directed(predicate_text)

    def normalize_claim(
        self,
        claim: ClaimView,
        resolve: Callable[[str], EntityRef | None],
        fallback: EntityRef | None = None,
    ) -> NormalizationResult:
        extras = self._extra_relations(claim, resolve)
        if claim.is_attributed:
            holder = resolve(claim.holder) if claim.holder else None
            return NormalizationResult(self._observation(claim, holder or fallback) + extras, ())
        subject = resolve(claim.subject_text) if claim.subject_text else None
        if subject is None:
            return NormalizationResult(self._observation(claim, fallback) + extras, ())
        dropped: list[str] = []
        directed = self.relation_predicate(claim.predicate_text)
        if (
            claim.object_text
            and claim.predicate_text
            and directed is None
            and not _is_value(claim.object_text)
        ):
            # A verb between the subject and something nameable that no entry fits (objects
            # of such verbs are not resolved: see the adjudicator's mentions).
            dropped.append(claim.predicate_text)
        valued = bool(claim.object_text) and _is_value(claim.object_text or "")
        # "moves to EUR 26/user/month": a value is no object a relation could point at.
        obj = resolve(claim.object_text) if claim.object_text and directed and not valued else None
        if directed is not None and obj is not None and obj.id != subject.id:
            # What the relation's object names decides it: a passive's is the clause's subject
            # ("The Search team is led by Anika": Anika is a member of a team).
            placed = directed.for_object(
                (subject if directed.inverted else obj).name,
                (obj if directed.inverted else subject).name,
            )
            if placed is None:
                dropped.append(claim.predicate_text or "")
            else:
                relation = (self._relation(claim, subject, obj, placed),)
                return NormalizationResult(_held_together(relation + extras), ())
        return NormalizationResult(self._observation(claim, subject) + extras, tuple(dropped))

    def _extra_relations(
        self, claim: ClaimView, resolve: Callable[[str], EntityRef | None]
    ) -> tuple[Assertion, ...]:
        found: list[Assertion] = []
        main = self.relation_predicate(claim.predicate_text)
        # "moved from Search to the Payments team": the unit left is a team as the one joined
        # is, whatever the bare name resolves to (in one arrival order "Search" is already
        # the Search team's alias, in the other a name of its own).
        into_team = (
            main is not None
            and main.placement
            and claim.object_text is not None
            and is_team_head(claim.object_text)
        )
        for subject_text, predicate_text, object_text, dated in claim.extra_relations:
            subject, obj = resolve(subject_text), resolve(object_text)
            directed = self.vocabulary.normalize_directed(predicate_text)
            if subject is None or obj is None or directed is None or subject.id == obj.id:
                continue
            left_team = (
                into_team
                and directed.placement
                and directed.phase == "end"
                and subject_text == claim.subject_text
                and not names_an_organisation(object_text)
            )
            placed = (
                replace(directed, predicate="member_of")
                if left_team
                else directed.for_object(
                    (subject if directed.inverted else obj).name,
                    (obj if directed.inverted else subject).name,
                )
            )
            if placed is not None:
                held = claim if dated else replace(claim, window=Window(), window_kind=None)
                found.append(self._relation(held, subject, obj, placed))
        return tuple(found)

    @staticmethod
    def _relation(
        claim: ClaimView, subject: EntityRef, obj: EntityRef, directed: DirectedPredicate
    ) -> Assertion:
        if directed.inverted:
            subject, obj = obj, subject
        window = claim.window
        polarity = claim.polarity
        stateful = directed.predicate in STATE_PREDICATES
        if directed.former and directed.phase == "state" and stateful and not _stint(claim):
            # "Ana used to work for Globex": it held and had ended by the time it was said,
            # as an undated "left Globex"; "Mina, previously at Larkspur, joined Northgate on
            # 1 April": ended by the date the clause gives. A stint with both ends stated
            # ("previously worked there from 2019 to 2022") keeps its window.
            directed = replace(directed, phase="end")
        now = _NOW_RE.search(claim.claim_text) and not directed.former
        if directed.phase == "state" and stateful and now:
            directed = replace(directed, phase="start")
        if stateful and polarity == "negative" and _NO_LONGER_RE.search(claim.claim_text):
            # "no longer with Trellisoft" is the placement's end, dated or not: read as the
            # negation it disputed the older "works for" when that arrived after it.
            directed, polarity = replace(directed, phase="end"), "positive"
        if directed.phase == "end" and stateful:
            if window.valid_from is not None:
                # "Left Acme in March": the employment held until then, at the latest to the
                # end of March (the stated period's exclusive end).
                window = Window(None, window.valid_until or window.valid_from, window.precision)
            elif polarity == "positive" and _LEAVING_AHEAD.search(claim.claim_text):
                # "I'm leaving Belvane Foods", "will step down": it still holds, and ends
                # when a dated claim says (the said-on time is no end).
                directed, window = replace(directed, phase="state"), Window()
            elif polarity == "positive":
                # "Left Acme", "is no longer with Acme", no date: it held, and had ended by
                # the time the source said so. The same relation, closed at the latest then,
                # so the ending supports it and the slot closes it (not a rival denial).
                window = Window(None, claim.asserted_at, "unknown")
            else:
                window, polarity = Window(), "positive"  # "never left Acme": it still holds
        elif stateful and (directed.phase == "start" or claim.window_kind == "event_time"):
            # "Moved to the search team in June" starts a state that is still ongoing: a known
            # start with an open end, which is what precision `open` means.
            window = Window(window.valid_from, None, "open" if window.valid_from else "unknown")
        label = relation_label(subject.name, directed.predicate, obj.name, polarity)
        return Assertion(
            kind="relation",
            subject_entity_id=subject.id,
            predicate=directed.predicate,
            object_entity_id=obj.id,
            statement=label,
            polarity=polarity,
            window=window,
            claim=claim,
            subject_name=subject.name,
            object_name=obj.name,
            label=label,
            phase=directed.phase,
            concurrent=bool(_CONCURRENT_RE.search(_OPENING_CONNECTIVE.sub("", claim.claim_text))),
        )

    @staticmethod
    def _observation(claim: ClaimView, anchor: EntityRef | None) -> tuple[Assertion, ...]:
        if anchor is None:
            return ()
        statement = claim.claim_text.strip()
        return (
            Assertion(
                kind="observation",
                subject_entity_id=anchor.id,
                predicate=None,
                object_entity_id=None,
                statement=statement,
                polarity=claim.polarity,
                window=claim.window,
                claim=claim,
                subject_name=anchor.name,
                label=observation_label(statement),
                # "Omar now supports …": the new value of a stance or attribute says it is
                # the change, so it succeeds an undated earlier value instead of rivalling it.
                # A person's stance is held as it is said ("opposes" in February, "is in
                # favour of" in April): the later one succeeds the earlier of the same holder
                # (not "the minimum supported Android version", no one's view).
                phase="start"
                if _NOW_RE.search(statement)
                or _CAME_TO_RE.search(statement)
                or (_reads_as_person(anchor.name) and _takes_a_stance(statement))
                else "state",
            ),
        )


def _takes_a_stance(statement: str) -> bool:
    return any(c.axis == "stance" for _, c in find_categories(statement.lower()))


def synonym_phrases() -> Iterable[str]:
    """Every verb phrase the synonym table knows (for documentation and tests)."""
    return iter(SYNONYMS)
