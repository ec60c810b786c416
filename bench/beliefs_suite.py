"""The beliefs generalisation suite: loading, schema validation and the fixed 70/30 split.

The suite is documented in `tests/data/beliefs_generalisation.md`. Validation returns every
problem of a row instead of stopping at the first, so a malformed file is fixed in one pass.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "BEHAVIOURS",
    "DATA",
    "DECISIONS",
    "HOLDOUT",
    "HOLDOUT_SHARE",
    "REGISTERS",
    "SPLIT_SEED",
    "TUNE",
    "load_cases",
    "split_ids",
    "validate_case",
    "validate_suite",
]

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
TUNE = DATA / "beliefs_generalisation_tune.jsonl"
HOLDOUT = DATA / "beliefs_generalisation_holdout.jsonl"

DECISIONS = (
    "add",
    "confirm",
    "adjust",
    "supersede",
    "contradict_group",
    "contradict_evidence",
    "compatible",
    "retract",
)
REGISTERS = ("wiki", "meeting_notes", "chat", "email", "status_report", "transcript")
BEHAVIOURS = (
    "functional_slot",
    "attribute_chain",
    "same_period_conflict",
    "compatible",
    "corroboration",
    "correction",
    "better_dates",
    "deletion",
    "living_drop",
    "negation",
    "distinct_events",
    "distinct_values",
    "distinct_periods",
)
MEDIA_TYPES = ("text/plain", "text/markdown", "text/html", "text/x-rememberstack-conversation")
SPLIT_SEED = 17
HOLDOUT_SHARE = 0.3

_CASE_KEYS = {"id", "decisions", "behaviour", "register", "summary", "steps", "expect"}
_INGEST_KEYS = {
    "op",
    "doc",
    "register",
    "title",
    "media_type",
    "source_kind",
    "source_ref",
    "said_on",
    "versioning",
    "text",
}
_STEP_KEYS = {
    "ingest": _INGEST_KEYS,
    "ingest_version": {"op", "doc", "said_on", "text"},
    "delete": {"op", "doc"},
    "reextract": {"op", "doc"},
    "check": {"op", "expect"},
}
_FACT_KEYS = {
    "ref",
    "kind",
    "subject",
    "predicate",
    "object",
    "undirected",
    "words",
    "current",
    "from",
    "until",
    "at",
    "evidence",
    "contradicting",
    "believed",
    "retracted",
    "moved",
}
_PREDICATE = re.compile(r"^(?:[a-z_]+|other:[a-z][a-z0-9_]{1,40})$")


def load_cases(path: Path) -> list[dict[str, Any]]:
    """One case per non-empty line."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _is_day(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _is_instant(value: Any) -> bool:
    if not isinstance(value, str) or not value.endswith("Z"):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _day_or_null(value: Any) -> bool:
    return value is None or _is_day(value)


def _fact_problems(where: str, fact: Any) -> list[str]:
    if not isinstance(fact, dict):
        return [f"{where}: not an object"]
    problems = [f"{where}: unknown key {k!r}" for k in sorted(set(fact) - _FACT_KEYS)]
    if not isinstance(fact.get("ref"), str) or not fact.get("ref"):
        problems.append(f"{where}: ref must be a non-empty string")
    kind = fact.get("kind")
    if kind == "relation":
        for key in ("subject", "object"):
            if not isinstance(fact.get(key), str) or not fact[key].strip():
                problems.append(f"{where}: relation needs {key}")
        predicate = fact.get("predicate")
        options = predicate if isinstance(predicate, list) else [predicate]
        if predicate is not None and not all(
            isinstance(p, str) and _PREDICATE.match(p) for p in options
        ):
            problems.append(f"{where}: predicate must be null, a predicate or a list of them")
        if "words" in fact:
            problems.append(f"{where}: a relation is matched by names, not words")
    elif kind == "observation":
        words = fact.get("words")
        if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
            problems.append(f"{where}: observation needs words (a list of strings)")
        elif not 2 <= sum(len(w.split()) for w in words) <= 4:
            problems.append(f"{where}: observation words must total 2-4 words")
        for key in ("predicate", "object", "undirected"):
            if key in fact:
                problems.append(f"{where}: observation has no {key}")
    else:
        problems.append(f"{where}: kind must be relation or observation")
    for key in ("current", "believed", "retracted", "undirected"):
        if key in fact and not isinstance(fact[key], bool):
            problems.append(f"{where}: {key} must be a boolean")
    for key in ("from", "until"):
        if key in fact and not _day_or_null(fact[key]):
            problems.append(f"{where}: {key} must be YYYY-MM-DD or null")
    for key in ("evidence", "contradicting"):
        if key in fact and (not isinstance(fact[key], int) or fact[key] < 0):
            problems.append(f"{where}: {key} must be a non-negative integer")
    at = fact.get("at", {})
    if not isinstance(at, dict) or not all(
        _is_day(k) and isinstance(v, bool) for k, v in at.items()
    ):
        problems.append(f"{where}: at maps YYYY-MM-DD to a boolean")
    moved = fact.get("moved")
    if moved is not None and (
        not isinstance(moved, dict)
        or not moved
        or set(moved) - {"from", "until"}
        or not all(_day_or_null(v) for v in moved.values())
    ):
        problems.append(f"{where}: moved gives the window before: from and/or until")
    if fact.get("believed") is False and set(fact) & {"current", "at", "evidence", "moved"}:
        problems.append(f"{where}: a fact no longer believed has no current/at/evidence/moved")
    if fact.get("retracted") and fact.get("believed") is not False:
        problems.append(f"{where}: retracted needs believed=false")
    return problems


def _expect_problems(where: str, expect: Any) -> list[str]:
    if not isinstance(expect, dict):
        return [f"{where}: expect must be an object"]
    problems = [
        f"{where}: unknown key {k!r}"
        for k in sorted(set(expect) - {"facts", "groups", "supersessions"})
    ]
    facts = expect.get("facts")
    if not isinstance(facts, list) or not facts:
        return [*problems, f"{where}: expect.facts must be a non-empty list"]
    refs: list[str] = []
    for index, fact in enumerate(facts):
        problems += _fact_problems(f"{where}.facts[{index}]", fact)
        if isinstance(fact, dict) and isinstance(fact.get("ref"), str):
            refs.append(fact["ref"])
    if len(set(refs)) != len(refs):
        problems.append(f"{where}: refs must be unique")
    grouped: list[str] = []
    for group in expect.get("groups", []):
        if not isinstance(group, list) or len(group) < 2 or set(group) - set(refs):
            problems.append(f"{where}: a group lists two or more known refs")
        else:
            grouped += group
    if len(set(grouped)) != len(grouped):
        problems.append(f"{where}: a fact belongs to one group at most")
    for pair in expect.get("supersessions", []):
        if not isinstance(pair, list) or len(pair) != 2 or set(pair) - set(refs):
            problems.append(f"{where}: a supersession is a pair of known refs [earlier, later]")
    return problems


def _step_problems(where: str, step: Any, docs: dict[str, dict[str, Any]]) -> list[str]:
    if not isinstance(step, dict) or step.get("op") not in _STEP_KEYS:
        return [f"{where}: op must be one of {sorted(_STEP_KEYS)}"]
    op = step["op"]
    problems = [f"{where}: unknown key {k!r}" for k in sorted(set(step) - _STEP_KEYS[op])]
    problems += [f"{where}: missing {k!r}" for k in sorted(_STEP_KEYS[op] - set(step))]
    if op == "check":
        return problems + _expect_problems(f"{where}.expect", step.get("expect"))
    key = step.get("doc")
    if op == "ingest":
        if step.get("register") not in REGISTERS:
            problems.append(f"{where}: register must be one of {REGISTERS}")
        if step.get("media_type") not in MEDIA_TYPES:
            problems.append(f"{where}: media_type must be one of {MEDIA_TYPES}")
        if step.get("versioning") not in ("snapshot", "living"):
            problems.append(f"{where}: versioning must be snapshot or living")
        for field in ("title", "source_kind", "source_ref", "text"):
            if not isinstance(step.get(field), str) or not step[field].strip():
                problems.append(f"{where}: {field} must be a non-empty string")
        if isinstance(key, str):
            docs[key] = step
    elif key not in docs:
        problems.append(f"{where}: {op} of a document not ingested before ({key!r})")
    if op in ("ingest", "ingest_version"):
        if not _is_instant(step.get("said_on")):
            problems.append(f"{where}: said_on must be a UTC instant ending in Z")
        if not isinstance(step.get("text"), str) or not step["text"].strip():
            problems.append(f"{where}: text must be non-empty")
    return problems


def validate_case(case: Any) -> list[str]:
    """Every schema problem of one case, each naming where it is; empty when valid."""
    if not isinstance(case, dict):
        return ["case: not an object"]
    cid = case.get("id", "?")
    problems = [f"{cid}: unknown key {k!r}" for k in sorted(set(case) - _CASE_KEYS)]
    problems += [f"{cid}: missing {k!r}" for k in sorted(_CASE_KEYS - set(case))]
    decisions = case.get("decisions")
    if (
        not isinstance(decisions, list)
        or not decisions
        or not set(decisions) <= set(DECISIONS)
        or len(set(decisions)) != len(decisions)
    ):
        problems.append(f"{cid}: decisions must be distinct values of {DECISIONS}")
    if case.get("register") not in REGISTERS:
        problems.append(f"{cid}: register must be one of {REGISTERS}")
    if case.get("behaviour") not in BEHAVIOURS:
        problems.append(f"{cid}: behaviour must be one of {BEHAVIOURS}")
    steps = case.get("steps")
    if not isinstance(steps, list) or not steps or steps[0].get("op") != "ingest":
        return [*problems, f"{cid}: steps must start with an ingest"]
    docs: dict[str, dict[str, Any]] = {}
    for index, step in enumerate(steps):
        problems += _step_problems(f"{cid}.steps[{index}]", step, docs)
    return problems + _expect_problems(f"{cid}.expect", case.get("expect"))


def validate_suite(cases: Iterable[Any]) -> list[str]:
    """Problems of every case plus duplicate ids."""
    problems: list[str] = []
    seen: set[str] = set()
    for case in cases:
        problems += validate_case(case)
        cid = case.get("id") if isinstance(case, dict) else None
        if cid in seen:
            problems.append(f"{cid}: duplicate id")
        seen.add(str(cid))
    return problems


def split_ids(
    cases: Sequence[dict[str, Any]], seed: int = SPLIT_SEED, share: float = HOLDOUT_SHARE
) -> set[str]:
    """The holdout ids: per primary decision type (the first listed), the ids sorted, shuffled
    with `seed`, and the first round(share * n) taken. Depends only on ids and primary types,
    so re-running it over tune + holdout reproduces the committed split."""
    strata: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        strata[case["decisions"][0]].append(case["id"])
    rng = random.Random(seed)
    holdout: set[str] = set()
    for decision in sorted(strata):
        ids = sorted(strata[decision])
        rng.shuffle(ids)
        holdout.update(ids[: round(share * len(ids))])
    return holdout
