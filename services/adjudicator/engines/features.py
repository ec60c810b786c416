"""Features comparing an assertion with one candidate fact, for the `jev` decision model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.adjudicator.domain import Assertion, CandidateFact, Window
from services.adjudicator.engines.categories import Category
from services.adjudicator.engines.corrections import (
    NEW_END,
    correction_cue,
    moved_away,
    moved_date,
    moved_thing,
    replaced_values,
    shifted,
    shifted_by,
    without_rejected,
    without_shift,
)
from services.adjudicator.engines.said_order import ended_since, said_after, said_before
from services.adjudicator.engines.skeletons import (
    TRANSITION,
    VALUE_SET,
    containment,
    content_tokens,
    similarity,
    without_fronted,
    without_subject,
)
from services.adjudicator.engines.values import (
    DateValue,
    Value,
    extract_values,
    same_value,
)
from services.adjudicator.normalization import STATE_PREDICATES
from shared.beliefs.slots import FUNCTIONAL_PREDICATES

__all__ = [
    "FUNCTIONAL_PREDICATES",
    "PLACEMENT_PREDICATES",
    "Features",
    "extract_features",
]

# Where someone is placed; with a transition cue ("moved to") one replaces another.
PLACEMENT_PREDICATES = frozenset({"works_for", "member_of", "works_on", "assigned_to"})

_SCHEDULE = re.compile(
    r"\b(scheduled|planned|plans to|plan to|due|deadline|slated|expected|target|targeted|set for|"
    r"on track for|date)\b"
)

_EVENT = re.compile(
    r"\b(won|wins|win|held|hosted|launched|released|shipped|attended|visited|met|signed|"
    r"published|presented|graduated|married|received|awarded|completed|finished|celebrated|"
    r"took place|happened|occurred|organized|organised|ran|announced|spoke)\b"
)

# "… is $350, up from $300": the value it changed from is not a value the claim states.
_CHANGED_FROM = re.compile(
    r"[,;(]?\s*\b(?:up|down|increased|decreased|raised|lowered)\s+from\s+[^,;.)]+"
)


def _window_date(window: Window) -> DateValue | None:
    start = window.valid_from
    if start is None:
        return None
    day = start.day if window.precision in ("instant", "day") else None
    month = start.month if window.precision not in ("year",) else None
    return DateValue(start.year, month, day)


@dataclass(frozen=True, slots=True)
class Features:
    """Every signal the decision model reads; all in [0, 1]."""

    kind_match: float
    same_predicate: float
    same_object: float
    functional: float
    same_proposition: float
    rival: float
    unrelated_object: float
    skeleton: float
    lexical: float
    cosine: float
    polarity_opposite: float
    transition: float
    correction: float
    later_start: float
    window_adds: float
    window_differs: float
    occurrence_split: float
    stateful: float
    newer_source: float
    outdated: float
    ended_later: float
    correction_target: DateValue | None = None
    # One side calls off the other ("has been cancelled" against "will be held in Lisbon"):
    # not a weighted feature, a rule (`jev`): the two are one thing's values whichever came
    # first, though the learned match read them apart in one direction.
    calls_off: bool = False

    def as_dict(self) -> dict[str, float]:
        return {
            name: float(getattr(self, name))
            for name in self.__slots__
            if name not in ("correction_target", "calls_off")
        }


def extract_features(assertion: Assertion, candidate: CandidateFact) -> Features:
    a_text = _CHANGED_FROM.sub(" ", assertion.claim.claim_text or assertion.statement)
    c_texts = [candidate.statement] + [e.claim_text for e in candidate.evidence]
    a_low = a_text.lower()
    c_low = " ".join(c_texts).lower()
    a_win, c_win = assertion.window, candidate.window

    kind_match = float(assertion.kind == candidate.kind)
    relation = assertion.kind == "relation" and candidate.kind == "relation"
    same_predicate = float(relation and assertion.predicate == candidate.predicate)
    same_object = float(relation and assertion.object_entity_id == candidate.object_entity_id)
    functional = float(relation and (assertion.predicate or "") in FUNCTIONAL_PREDICATES)

    c_anchor = _window_date(c_win)
    # The date that opens a claim's own window ("from 1 April", "as of 17 February") says when
    # the value holds, not what it is: "from 1 April the plan costs $59" states the value $59.
    a_values = _besides_anchor(
        extract_values(assertion.statement if relation else a_text), _window_date(a_win)
    )
    c_values = _besides_anchor(extract_values(candidate.statement), c_anchor)
    cued = correction_cue(a_low)
    correction_target: DateValue | None = None
    correction = 0.0
    # A relation's statement holds no dates; its claim may correct one ("…, not 1 April").
    old, new = replaced_values(a_low, extract_values(a_text) if relation else a_values)
    references = c_values + ([c_anchor] if c_anchor else [])
    # A date moved "from 8 June to 9 June" was corrected: corrections move dates, not
    # statements. A setting raised "from $12 to $15" changed (a successor), and a value
    # replaced ("costs $55 from 1 March, not $59") rejects the fact that states it: another
    # value for the same period, a disagreement its contradiction group shows.
    dated = bool(old) and isinstance(old[0], DateValue)
    if old and new and dated and any(same_value(old[0], ref) for ref in references):
        correction = 1.0
        correction_target = new[0] if isinstance(new[0], DateValue) else None
    if (
        not correction
        and NEW_END.search(a_low)
        and a_win.valid_until is not None
        and a_win.valid_from is None
        and c_win.valid_until is not None
    ):
        correction = 1.0  # "was extended through 21 March": the end it had is replaced
    subject = assertion.subject_name
    # What each says, without a value it rejects ("Head of Research, not Design").
    a_says, c_says = without_rejected(a_text), without_rejected(candidate.statement)
    a_skeleton, c_skeleton = _attribute(a_says, subject), _attribute(c_says, subject)
    same_attribute = containment(a_skeleton, c_skeleton) >= 1.0
    moved_to = None if relation else moved_date(a_low)
    c_moves = any(moved_date(t.lower()) is not None for t in c_texts)
    if not relation and (moved_to is not None or c_moves):
        # What a move is said of, without the verb of moving or the writers who moved it:
        # "We've brought the Orchid beta forward to 7 September" moves "The Orchid beta opens
        # on 21 September" (either one the fact), as "has been pushed to" would.
        a_of, c_of = (
            _attribute(moved_thing(t) or without_shift(t), subject) - _MOVING
            for t in (a_says, c_says)
        )
        same_attribute = (
            same_attribute or max(containment(a_of, c_of), containment(c_of, a_of)) >= 1.0
        )
    if (
        moved_to is not None
        and c_anchor is not None
        and said_before(assertion, candidate)
        and moved_away(c_texts, c_anchor, a_values)
    ):
        # "pushed to 18 May" arriving after "pushed again, to 1 June" was heard: a move a
        # later source moved on from, no correction of it (it is `outdated` below).
        moved_to = None
    if (
        not correction
        and moved_to is not None
        and same_attribute
        and any(isinstance(r, DateValue) and not same_value(r, moved_to) for r in references)
    ):
        # "The Falcon release has slipped to 29 March" of the release due on 15 March.
        correction, correction_target = 1.0, moved_to
    # "The Tern app release has been pushed back a week" of the release due on 14 April moves
    # it to 21 April; heard the other way round, the dated plan said before the shift is the
    # date the shift moves.
    a_shift, c_shift = (None, None) if relation else (shifted_by(a_low), shifted_by(c_low))
    if a_shift is not None or c_shift is not None:
        # What is shifted is one of the two's attribute, whichever says less of it.
        a_of, c_of = (_attribute(without_shift(t), subject) for t in (a_says, c_says))
        same_attribute = max(containment(a_of, c_of), containment(c_of, a_of)) >= 1.0
    if not correction and same_attribute and a_shift is not None and c_anchor is not None:
        correction_target = shifted(c_anchor, a_shift)
        correction = 1.0 if correction_target is not None else 0.0
    a_anchor = _window_date(a_win)
    if (
        not correction
        and same_attribute
        and c_shift is not None
        and c_anchor is None
        and a_anchor is not None
        and said_before(assertion, candidate)
    ):
        correction_target = shifted(a_anchor, c_shift)
        correction = 1.0 if correction_target is not None else 0.0
    # The other way round: the fact is a dated thing whose date a later source already moved,
    # and the assertion an older source's date for it, the one that was replaced. Said
    # before the move, it is support for the thing (its window stays); said after, it is a
    # disagreement.
    outdated = float(
        not correction
        and not relation
        and said_before(assertion, candidate)
        and (
            (same_attribute and c_anchor is not None and moved_away(c_texts, c_anchor, a_values))
            # "runs through February" heard after "was extended to the end of April": the
            # end a later source already moved.
            or (
                bool(NEW_END.search(c_low))
                and c_win.valid_from is None
                and c_win.valid_until is not None
                and a_win.valid_until is not None
                and a_win.valid_until < c_win.valid_until
            )
        )
    )
    if outdated:
        correction = 1.0
    # "Marco no longer supports it" (from 1 March) believed, and "Marco supports it" said
    # before that arriving late: the state the change ended, not a dispute of the ending.
    ended_later = float(
        not relation
        and assertion.polarity == "positive"
        and candidate.polarity == "negative"
        and c_win.valid_from is not None
        and (a_win.valid_from is None or a_win.valid_from < c_win.valid_from)
        and bool(TRANSITION.search(c_low))
        and said_before(assertion, candidate)
    ) or float(
        not relation
        and max(containment(a_skeleton, c_skeleton), containment(c_skeleton, a_skeleton)) >= 1.0
        and ended_since(assertion, candidate, a_low, c_low)
    )
    if not correction and cued:
        correction = 0.6
    # A placement's start ("joined", "hired by", "moved to") announces the change whatever the
    # wording; a claim that says the value holds beside others ("also", "part-time") is none.
    announced = (
        bool(TRANSITION.search(a_low) or VALUE_SET.search(a_low)) or assertion.phase == "start"
    )
    # The same pair arriving the other way round: the fact is the dated change and the
    # assertion an older value ("allows 60" after "we lowered the limit to 30 on 2 April").
    # The change between them is the same whichever side arrives first.
    succeeded = (
        c_win.valid_from is not None
        and (a_win.valid_from is None or a_win.valid_from < c_win.valid_from)
        and bool(VALUE_SET.search(c_low))
    )
    transition = float((announced or succeeded) and correction < 1.0 and not assertion.concurrent)

    values_equal = bool(a_values) and bool(c_values) and _values_equal(a_values, c_values)
    values_conflict = bool(a_values) and bool(c_values) and not values_equal
    # Calling a thing off ends whatever else was said of it ("planned for 14 June", "pushed
    # to July", "is at Quinta da Serra"): a rival of every other value, never its date's
    # correction, in either arrival order.
    calls_off = _calls_off([a_text]) != _calls_off(c_texts)
    if calls_off:
        values_conflict, correction = True, 0.0
    compatible = not values_conflict or correction >= 1.0

    # "Status: amber" and "Status: green" of one thing: nothing names an attribute but the
    # value's own kind, so the two are values of that one attribute.
    bare_values = not a_skeleton and not c_skeleton and bool(a_values) and bool(c_values)
    skeleton = (
        same_predicate if relation else 1.0 if bare_values else similarity(a_skeleton, c_skeleton)
    )
    lexical = max(
        similarity(
            content_tokens(a_says, skeleton=False),
            content_tokens(without_rejected(t), skeleton=False),
        )
        for t in c_texts
    )

    schedule = bool(_SCHEDULE.search(a_low))
    # "Moved to the search team in June" is an event, but the relation it yields is a state.
    a_state = relation and (assertion.predicate or "") in STATE_PREDICATES
    # "jumped to 52 on 14 April", "was cut to $60k on 27 February": an event that sets the
    # attribute's next value, which then holds; a state's change, not an occurrence.
    sets_value = not relation and bool(VALUE_SET.search(a_low))
    a_event = (assertion.claim.window_kind == "event_time" or bool(_EVENT.search(a_low))) and (
        not schedule and not a_state and not sets_value
    )
    c_event = bool(_EVENT.search(c_low)) and not _SCHEDULE.search(candidate.statement.lower())
    starts_differ = (
        a_win.valid_from is not None
        and c_win.valid_from is not None
        and a_win.valid_from != c_win.valid_from
    )
    disjoint = not a_win.overlaps(c_win)
    stateful = float(not a_event and not schedule)
    occurrence_split = float(
        correction == 0.0
        and (
            (a_event and c_event and (starts_differ or values_conflict))
            # Two stretches of one state; other values of an attribute in disjoint periods
            # ("$15 in 2024", "$25 from June") are its successive values, not occurrences.
            or (
                stateful
                and disjoint
                and not a_win.is_unknown
                and not c_win.is_unknown
                and (relation or not values_conflict)
            )
        )
    )

    if relation:
        same_proposition = same_predicate * same_object
        placement = {assertion.predicate, candidate.predicate} <= PLACEMENT_PREDICATES
        # A placement's end ("left Halden Group") ends its own object's relation; it places the
        # subject nowhere else, so it is no rival of another placement ("works on onboarding").
        # A new team, project or assignment is no new employer: "moved from Payments to the
        # Platform team" keeps the employment at Norrsken (in either arrival order), while a
        # new employer does end a team of the old one.
        within = candidate.predicate == "works_for" != assertion.predicate
        moves_on = placement and transition and assertion.phase != "end" and not within
        rival = float(
            not same_object
            and not assertion.concurrent
            and ((same_predicate and functional) or moves_on)
        )
        unrelated = float(not same_proposition and not rival)
    else:
        # Squared: one differing content word in a short statement is a different proposition.
        # Equal stated values are strong evidence of the same proposition, so no squaring then.
        same_proposition = (skeleton if values_equal else skeleton**2) * float(compatible)
        # Another value of the same attribute: one statement's attribute words all recur in the
        # other's, whatever context the other adds ("since the pilot results", a reason).
        contained = 1.0 if bare_values else containment(a_skeleton, c_skeleton)
        if calls_off:  # "is off" names less of the thing than its plan did: either way round
            contained = max(contained, containment(c_skeleton, a_skeleton))
        rival = contained**2 * float(values_conflict) * float(correction < 1.0)
        unrelated = 0.0

    later_start = float(
        a_win.valid_from is not None
        and (c_win.valid_from is None or a_win.valid_from > c_win.valid_from)
    )
    window_adds = float(
        (a_win.valid_from is not None and c_win.valid_from is None)
        or (a_win.valid_until is not None and c_win.valid_until is None)
    )
    newer = float(said_after(assertion, candidate))
    return Features(
        kind_match=kind_match,
        same_predicate=same_predicate,
        same_object=same_object,
        functional=functional,
        same_proposition=same_proposition,
        rival=rival,
        unrelated_object=unrelated,
        skeleton=skeleton,
        lexical=lexical,
        cosine=max(0.0, min(1.0, candidate.similarity)),
        polarity_opposite=float(assertion.polarity != candidate.polarity),
        transition=transition,
        correction=correction,
        later_start=later_start,
        window_adds=window_adds,
        window_differs=float(starts_differ),
        occurrence_split=occurrence_split,
        stateful=stateful,
        newer_source=newer,
        outdated=outdated,
        ended_later=ended_later,
        correction_target=correction_target,
        calls_off=calls_off,
    )


def _calls_off(texts: Sequence[str]) -> bool:
    """Whether a text says the thing is called off (its `cancelled` status; the values are
    read once per text and cached)."""
    return any(
        isinstance(v, Category) and v.axis == "status" and v.value in ("cancelled", "canceled")
        for text in texts
        for v in extract_values(text)
    )


# Skeleton words of moving a date that the skeletons keep ("bring" has other senses).
_MOVING = frozenset({"bring"})


def _attribute(statement: str, subject: str) -> frozenset[str]:
    """The words naming what a statement says of its subject (its skeleton). The subject is
    named one way first, so a fronted adverbial before an alias is found too."""
    return content_tokens(
        without_fronted(without_subject(statement, subject), "subject"), skeleton=True
    )


def _besides_anchor(values: list[Value], anchor: DateValue | None) -> list[Value]:
    """`values` without the window's own start, when something else is stated beside it."""
    if anchor is None:
        return values
    rest = [v for v in values if not (isinstance(v, DateValue) and v.matches(anchor))]
    return rest if any(not isinstance(v, DateValue) for v in rest) else values


def _values_equal(a: list[Value], b: list[Value]) -> bool:
    return all(any(same_value(x, y) for y in b) for x in a) and all(
        any(same_value(y, x) for x in a) for y in b
    )
