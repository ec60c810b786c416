"""Normalization of claims into assertions over a governed predicate vocabulary."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from services.adjudicator.departures import departs
from services.adjudicator.domain import Assertion, ClaimView, EntityRef, Polarity, Window
from services.adjudicator.engines.categories import find_categories
from services.adjudicator.engines.skeletons import NO_LONGER, VALUE_SET
from services.adjudicator.predicates import (
    CORE_PREDICATES,
    LABELS,
    OTHER_PREDICATE_RE,
    PACKS,
    STATE_PREDICATES,
    SYNONYMS,
)
from services.adjudicator.vocabulary import DirectedPredicate, PredicateVocabulary, reads_as_person
from shared.text.temporal import strip_temporal, temporal_spans
from shared.text.units import is_team_head, names_an_organisation

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
# A departure announced ahead: "I'm leaving", "is stepping down", "will leave", "plans to quit".
_LEAVING_AHEAD = re.compile(
    r"\b(?:(?:am|is|are|'m|'re|’m|’re)\s+(?:\w+\s+)?(?:leaving|stepping\s+down|departing|"
    r"retiring|quitting|moving\s+on)|(?:will|'ll|’ll|going\s+to|plans?\s+to|about\s+to)\s+"
    r"(?:\w+\s+)?(?:leave|step\s+down|depart|retire|quit))\b",
    re.IGNORECASE,
)
# "also, I'm switching to the Growth team": a message opening with "also" adds a point to the
# conversation, it does not say the relation holds beside another.
_OPENING_CONNECTIVE = re.compile(r"^\W*(?:and\s+)?(?:also|additionally)\b[\s,]*", re.IGNORECASE)
# Cues that a relation holds beside the subject's others: a second employer is no successor.
_CONCURRENT_RE = re.compile(
    r"\b(also|alongside|as well|in addition to|additionally|part[- ]time|on the side|"
    r"second job|besides|simultaneously|at the same time|concurrently|jointly|on top of|"
    r"in parallel|while still|on weekends|at weekends|in the evenings|side project|"
    r"moonlight\w*)\b|\btoo\W*$",
    re.IGNORECASE,
)

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
        if stateful and polarity == "negative" and NO_LONGER.search(claim.claim_text):
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
        # "Priya Raman has left the company": the end of her employment, wherever it was
        # (services/adjudicator/departures.py); "is leaving the company" with no date has not
        # happened yet.
        departure = (
            departs(claim)
            and reads_as_person(anchor.name)
            and (claim.window.valid_from is not None or not _LEAVING_AHEAD.search(statement))
        )
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
                # (not "the minimum supported Android version", no one's view). A status is
                # likewise the one that holds when it is said: weekly reports saying "green",
                # then "amber", then "red" are the project's changes, not three rival claims
                # (a dated one is placed by its date). So is a report line's value.
                phase="end"
                if departure
                else "start"
                if _NOW_RE.search(statement)
                or _CAME_TO_RE.search(statement)
                or (reads_as_person(anchor.name) and _takes_a_stance(statement))
                or (claim.window.valid_from is None and _states_a_status(statement))
                or (claim.window.valid_from is None and _REPORT_LINE.match(statement) is not None)
                or VALUE_SET.search(statement.lower()) is not None
                # "Omar no longer thinks the plan is risky": the change from the view he held
                or (claim.polarity == "negative" and NO_LONGER.search(statement) is not None)
                else "state",
            ),
        )


# A report's key line ("Headcount: 9", "Contract value: EUR 240k"): the value as of the
# report, as a status is, so weekly reports' values succeed each other in said order.
_REPORT_LINE = re.compile(r"^[^:\n]{1,40}:\s*(?:\S+\s*){1,6}$")


def _takes_a_stance(statement: str) -> bool:
    return any(c.axis == "stance" for _, c in find_categories(statement.lower()))


def _states_a_status(statement: str) -> bool:
    return any(c.axis == "status" for _, c in find_categories(statement.lower()))


def synonym_phrases() -> Iterable[str]:
    """Every verb phrase the synonym table knows (for documentation and tests)."""
    return iter(SYNONYMS)
