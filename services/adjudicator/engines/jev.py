"""The `jev` engine: a local fixed-choice decision model (match, stance, window action)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from services.adjudicator.domain import (
    STATE_WINDOW_KINDS,
    Action,
    Assertion,
    CandidateFact,
    Decision,
    Stance,
    Window,
    WindowAction,
)
from services.adjudicator.engines.features import Features, extract_features
from services.adjudicator.engines.stints import another_stint
from services.adjudicator.engines.values import DateValue

__all__ = ["MATCH_WEIGHTS", "STANCE_WEIGHTS", "WINDOW_WEIGHTS", "JevEngine", "PlattCalibration"]

MODEL_VERSION = "jev-logistic-1"
_WINDOW_OF: Mapping[Action, WindowAction] = {"adjust": "replace", "supersede": "close"}

# Hand-set weights (docs/jev.md explains each). A key "a*b" multiplies features a and b;
# "1-x" is the complement of feature x. "bias" is the intercept.
MATCH_WEIGHTS: Mapping[str, float] = {
    "bias": -3.0,
    "same_proposition": 4.5,
    "rival": 3.5,
    "transition": 1.0,
    "skeleton": 1.0,
    "lexical": 1.0,
    "cosine": 1.5,
    # A stated replacement names its target ("moved from June 8 to June 9" is the June 8 fact),
    # which outranks a rival value of the same attribute.
    "correction": 2.0,
    "occurrence_split": -6.0,
    "unrelated_object": -5.0,
    "1-kind_match": -12.0,
}
WINDOW_WEIGHTS: Mapping[WindowAction, Mapping[str, float]] = {
    "keep": {"bias": 0.0},
    "replace": {
        "bias": -3.0,
        "correction*proposition_weight": 8.0,
        "window_adds*same_proposition*1-polarity_opposite": 5.5,
        "window_differs*same_proposition": 1.0,
        "rival": -2.0,
    },
    "close": {
        "bias": -5.0,
        "rival*stateful": 5.0,
        "transition": 2.5,
        "later_start*successor_signal": 2.0,
        "newer_source": 0.5,
        "same_proposition*polarity_opposite*transition": 3.0,
        "same_proposition*1-polarity_opposite": -5.0,
    },
}
STANCE_WEIGHTS: Mapping[str, float] = {
    "bias": -3.5,
    "polarity_opposite*same_proposition": 7.0,
    "rival": 6.5,
    "correction": -4.0,
    "transition": -3.0,
    "transition*later_start": -2.0,
    # A rival of a change with no start to close at: an undated change of the value, or an
    # older value arriving after the dated change of it. Either way a value of the same slot.
    "changed_rival": 3.0,
}


def _value(features: Mapping[str, float], term: str) -> float:
    product = 1.0
    for factor in term.split("*"):
        if factor.startswith("1-"):
            product *= 1.0 - features[factor[2:]]
        else:
            product *= features[factor]
    return product


def _logit(weights: Mapping[str, float], features: Mapping[str, float]) -> float:
    return weights.get("bias", 0.0) + sum(
        w * _value(features, term) for term, w in weights.items() if term != "bias"
    )


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


@dataclass(frozen=True, slots=True)
class PlattCalibration:
    """Maps a raw decision probability p to confidence σ(a·logit(p) + b).

    The defaults are hand-set: the raw score multiplies three heads that share features and so
    under-states certainty; a slight sharpening corrects for that. `fit` refits both parameters
    from labelled decisions (was the engine right?) by Newton's method on the log-loss.
    """

    a: float = 1.2
    b: float = 0.2

    def __call__(self, probability: float) -> float:
        p = min(max(probability, 1e-6), 1 - 1e-6)
        return _sigmoid(self.a * math.log(p / (1 - p)) + self.b)

    @classmethod
    def fit(cls, probabilities: Sequence[float], correct: Sequence[bool]) -> PlattCalibration:
        xs = [math.log(p / (1 - p)) for p in (min(max(q, 1e-6), 1 - 1e-6) for q in probabilities)]
        a, b = 1.0, 0.0
        for _ in range(50):
            g_a = g_b = h_aa = h_ab = h_bb = 0.0
            for x, y in zip(xs, correct, strict=True):
                p = _sigmoid(a * x + b)
                r, w = p - float(y), p * (1 - p) + 1e-9
                g_a, g_b = g_a + r * x, g_b + r
                h_aa, h_ab, h_bb = h_aa + w * x * x, h_ab + w * x, h_bb + w
            det = h_aa * h_bb - h_ab * h_ab
            if abs(det) < 1e-12:
                break
            a -= (h_bb * g_a - h_ab * g_b) / det
            b -= (h_aa * g_b - h_ab * g_a) / det
        return cls(a, b)


@dataclass(frozen=True, slots=True)
class _Scored:
    candidate: CandidateFact
    features: Features
    p_match: float


class JevEngine:
    """Answers match / stance / window action with logistic heads over comparison features."""

    def __init__(self, calibration: PlattCalibration | None = None) -> None:
        self._calibration = calibration or PlattCalibration()

    @property
    def name(self) -> str:
        return "jev"

    @property
    def model(self) -> str | None:
        return MODEL_VERSION

    async def decide(self, assertion: Assertion, candidates: Sequence[CandidateFact]) -> Decision:
        return self.decide_now(assertion, candidates)

    def decide_now(self, assertion: Assertion, candidates: Sequence[CandidateFact]) -> Decision:
        """The decision, computed synchronously (the model is a handful of arithmetic)."""
        scored = [self._score(assertion, c) for c in candidates]
        # A fact this one repeats or corrects is the same thing: it goes before a rival
        # value, which that fact already meets (or meets later) as one, so "planned for 14
        # June", "pushed to July" and "called off" end alike in any arrival order.
        best = max(
            scored,
            key=lambda s: (
                s.p_match >= 0.5 and (s.features.correction >= 1.0 or s.features.rival < 0.5),
                s.p_match,
            ),
            default=None,
        )
        if best is None or best.p_match < 0.5:
            p_none = 1.0 - (best.p_match if best else 0.0)
            scores = {"p_match": best.p_match} if best else {}
            return self._decision("add", None, p_none, "no existing fact states this", scores)
        if another_stint(assertion, best.candidate):
            why = "another stint of a placement that ended before it was said to hold"
            return self._decision("add", None, best.p_match, why, {"p_match": best.p_match})
        feats = best.features.as_dict()
        feats["proposition_weight"] = 0.5 + 0.5 * feats["same_proposition"]
        feats["successor_signal"] = min(1.0, feats["rival"] + feats["transition"])
        window_p = self._window_probabilities(assertion, best.candidate, feats)
        # A change cue lowers the contradiction head because a dated change closes its
        # predecessor instead. With no start to close at ("I now oppose it", or an older value
        # arriving after the dated change of it), the two are rival values of one slot, whose
        # timeline then orders them in either arrival order.
        closable = "close" in window_p
        stance = dict(feats, changed_rival=0.0)
        if not closable:
            stance["changed_rival"] = feats["rival"] * feats["transition"]
            stance["transition"] = 0.0
        p_contra = _sigmoid(_logit(STANCE_WEIGHTS, stance))
        if best.features.calls_off and best.features.rival >= _CALLED_OFF_RIVAL:
            p_contra = max(p_contra, _CALLED_OFF_MATCH)  # rival values; the timeline orders them
        if best.features.ended_later:
            p_contra = max(p_contra, _CALLED_OFF_MATCH)  # the state and its end, likewise
        scores = {"p_match": best.p_match, "p_contradicts": p_contra} | {
            f"p_{k}": v for k, v in window_p.items()
        }
        for action in sorted(window_p, key=lambda k: -window_p[k]):
            decision = self._assemble(action, assertion, best, window_p, p_contra, scores)
            if decision is not None:
                return decision
        raise AssertionError("keep always yields a decision")  # pragma: no cover

    def _score(self, assertion: Assertion, candidate: CandidateFact) -> _Scored:
        features = extract_features(assertion, candidate)
        p_match = _sigmoid(_logit(MATCH_WEIGHTS, features.as_dict()))
        if features.calls_off and features.rival >= _CALLED_OFF_RIVAL:
            # A cancellation and what it calls off are values of one thing in either
            # direction; the learned weights never saw one and read them apart one way.
            p_match = max(p_match, _CALLED_OFF_MATCH)
        if features.ended_later:
            # So are a view or state and its later "no longer" ("does not support it any
            # more"), whose extra words the learned match reads as another statement.
            p_match = max(p_match, _CALLED_OFF_MATCH)
        return _Scored(candidate, features, p_match)

    @staticmethod
    def _window_probabilities(
        assertion: Assertion, candidate: CandidateFact, feats: Mapping[str, float]
    ) -> dict[WindowAction, float]:
        logits = {action: _logit(w, feats) for action, w in WINDOW_WEIGHTS.items()}
        start, earlier = assertion.window.valid_from, candidate.window.valid_from
        if start is None or (earlier is not None and start <= earlier):
            del logits["close"]  # no successor start in the world: nothing to close at
        if feats["outdated"]:
            # A date a later source already moved: the fact keeps the date it was moved to.
            logits = {"keep": logits["keep"]}
        top = max(logits.values())
        exp = {k: math.exp(v - top) for k, v in logits.items()}
        total = sum(exp.values())
        return {k: v / total for k, v in exp.items()}

    def _assemble(
        self,
        window_action: WindowAction,
        assertion: Assertion,
        best: _Scored,
        window_p: Mapping[WindowAction, float],
        p_contra: float,
        scores: dict[str, float],
    ) -> Decision | None:
        candidate, f = best.candidate, best.features
        p = best.p_match * window_p[window_action]
        if window_action == "close":
            start = assertion.window.valid_from
            assert start is not None  # close is only offered with a successor start
            closed = candidate.window.closed_at(start, assertion.window.precision)
            why = "a later value of the same slot" if f.rival else "the proposition ended"
            return self._decision("supersede", candidate, p, why, scores, closed)
        if window_action == "replace":
            new_window = _adjusted_window(assertion, candidate, f)
            if new_window is None or _other_stretch(assertion, candidate, f) is not None:
                return None
            why = "a correction of its dates" if f.correction else "the same fact with better dates"
            return self._decision("adjust", candidate, p, why, scores, new_window)
        if p_contra >= 0.5:
            p *= p_contra
            if f.ended_later:
                why = "the state a later change ended; the slot's timeline orders them"
                return self._decision("contradict_group", candidate, p, why, scores)
            if f.polarity_opposite and f.same_proposition >= f.rival:
                return self._decision(
                    "contradict_evidence", candidate, p, "disputes this fact directly", scores
                )
            return self._decision(
                "contradict_group", candidate, p, "states an incompatible value", scores
            )
        if f.same_proposition < 0.5 and not f.outdated:
            # (An older source's end or date that a later one already moved is support for
            # the thing, however differently worded: "runs through February" after "was
            # extended to the end of April".)
            return self._decision(
                "add", None, p * (1 - p_contra), "related but not the same fact", scores
            )
        stretch = _other_stretch(assertion, candidate, f)
        if stretch == "later":
            start = assertion.window.valid_from
            assert start is not None  # a stretch has a stated start
            closed = candidate.window.closed_at(start, assertion.window.precision)
            why = "the same value stated again from a later start"
            return self._decision("supersede", candidate, p * (1 - p_contra), why, scores, closed)
        if stretch == "earlier":
            why = "the same value stated from an earlier start; the slot's timeline orders them"
            return self._decision("contradict_group", candidate, p * (1 - p_contra), why, scores)
        return self._decision("confirm", candidate, p * (1 - p_contra), "repeats it", scores)

    def _decision(
        self,
        action: Action,
        candidate: CandidateFact | None,
        probability: float,
        why: str,
        scores: dict[str, float],
        new_window: Window | None = None,
    ) -> Decision:
        window_action = _WINDOW_OF.get(action, "keep")
        stance: Stance = "contradicts" if action.startswith("contradict") else "supports"
        target = f" fact {candidate.fact_id}" if candidate else ""
        return Decision(
            action=action,
            candidate_id=candidate.fact_id if candidate else None,
            stance=stance,
            window_action=window_action,
            new_window=new_window,
            confidence=round(self._calibration(probability), 4),
            rationale=f"{action}{target}: {why}",
            method="jev",
            engine=self.name,
            model=self.model,
            scores={k: round(v, 4) for k, v in scores.items()},
        )


_CALLED_OFF_RIVAL = 0.5
_CALLED_OFF_MATCH = 0.9
# A stated start at least this far from the fact's (and more than the coarser precision
# spans: "in Q3" and "since 7 July" are one start) begins another stretch of the value.
_STRETCH_GAP = timedelta(days=32)
_PRECISION_SPAN = {"quarter": timedelta(days=92), "year": timedelta(days=366)}


def _other_stretch(
    assertion: Assertion, candidate: CandidateFact, features: Features
) -> Literal["earlier", "later"] | None:
    """Whether a claim repeating an attribute's value states it from another start: "on
    track as of March" and "on track since 7 July" are two stretches of one status (at risk
    may lie between them, known now or arriving later), not one fact confirmed twice.
    Merging them made the result depend on arrival order: read July first, March's claim
    confirmed July's fact and the March stretch was lost. As two values of the slot, the
    timeline places them (the earlier closed at the later's start) in any order. Only states
    of observations with both starts stated; never a correction of the fact's dates."""
    a, c = assertion.window, candidate.window
    if (
        assertion.kind != "observation"
        or a.valid_from is None
        or c.valid_from is None
        or features.correction
        or features.rival >= 0.5
        or assertion.claim.window_kind not in STATE_WINDOW_KINDS
        or not candidate.is_state
    ):
        return None
    gap = max(
        [_STRETCH_GAP] + [_PRECISION_SPAN.get(p, _STRETCH_GAP) for p in (a.precision, c.precision)]
    )
    if abs(a.valid_from - c.valid_from) < gap:
        return None
    return "later" if a.valid_from > c.valid_from else "earlier"


def _adjusted_window(
    assertion: Assertion, candidate: CandidateFact, features: Features
) -> Window | None:
    """The candidate's window after an adjust: a corrected date, else the better-dated merge."""
    target = _date_of(features.correction_target, candidate, assertion)
    a, c = assertion.window, candidate.window
    if (
        target is not None
        and c.valid_from is not None
        and c.valid_until is None
        and a.valid_until is None
    ):
        # A state's corrected start ("her start date was 7 April, not 1 April") moves only
        # the start: the state stays open.
        return Window(target, None, c.precision)
    if target is not None:
        return Window(target, target + timedelta(days=1), "day")
    if features.correction and a.valid_from is not None:
        return a
    if features.correction and a.valid_until is not None and _a_day(c):
        # "ends on March 31", then "extended to the end of May": the day was its end, which
        # moved; no start is known (both arrival orders end here).
        return Window(None, a.valid_until, a.precision)
    # The precision of the side that dates the window: the start's, else (neither has one)
    # the end's, so "stopped using PostgreSQL in March" dates an undated "uses PostgreSQL"
    # to the month in either arrival order.
    ends_undated = c.valid_from is None and a.valid_until is not None and c.valid_until is None
    precision = a.precision if a.valid_from is not None or ends_undated else c.precision
    merged = Window(a.valid_from or c.valid_from, a.valid_until or c.valid_until, precision)
    if merged.is_unknown:
        return None
    return merged if merged.is_well_formed else a


def _a_day(window: Window) -> bool:
    start, end = window.valid_from, window.valid_until
    return start is not None and end is not None and end - start <= timedelta(days=1)


def _date_of(
    value: DateValue | None, candidate: CandidateFact, assertion: Assertion
) -> datetime | None:
    """A corrected day as an instant; a missing year comes from the fact's or the claim's dates."""
    if value is None or value.month is None or value.day is None:
        return None
    year = value.year
    for source in (candidate.window.valid_from, assertion.claim.asserted_at):
        if year is None and source is not None:
            year = source.year
    if year is None:
        return None
    try:
        return datetime(year, value.month, value.day, tzinfo=UTC)
    except ValueError:
        return None
