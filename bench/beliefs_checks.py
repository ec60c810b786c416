"""Checks of one expectation block against what the public gRPC API returns for a namespace.

Facts are read the way a client would: names through ResolveEntity, facts through FactsContext
(anchored on every resolved entity, and searched by each observation's words) under `history`,
`current` and `at` scopes, transcripts through TranscriptRelation. A relation matches by subject,
predicate and object names (a name matches an entity whose canonical name or exact alias it
is); an observation by all of its 2-4 label words (each a word prefix, case-insensitive), on a
fact of either kind.
Windows are compared at day resolution.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, entity_pb2, fact_pb2, query_service_pb2

from shared.cli.client import Stubs

__all__ = ["Check", "check_expectations"]

_K = 30
_DETERMINER = re.compile(r"^(?:the|a|an)\s+")


@dataclass(frozen=True)
class Check:
    """One verified expectation: its kind (found, current, from, ...), outcome and message."""

    kind: str
    ok: bool
    message: str = ""


def normalize(name: str) -> str:
    """Case, accents' composition, a leading determiner and a possessive do not distinguish."""
    text = unicodedata.normalize("NFKC", name).casefold().strip()
    text = _DETERMINER.sub("", text)
    text = re.sub(r"['’]s$", "", text)
    return re.sub(r"\s+", " ", text).strip(" .,:;")


def _day(ts: Timestamp, present: bool) -> str | None:
    return ts.ToDatetime(tzinfo=UTC).date().isoformat() if present else None


def _from(fact: fact_pb2.FactResult) -> str | None:
    return _day(fact.validity.valid_from, fact.validity.HasField("valid_from"))


def _until(fact: fact_pb2.FactResult) -> str | None:
    return _day(fact.validity.valid_until, fact.validity.HasField("valid_until"))


def _scope(name: str) -> common_pb2.TimeScope:
    if name == "history":
        return common_pb2.TimeScope(history=common_pb2.HistoryScope())
    if name == "current":
        return common_pb2.TimeScope(current=common_pb2.CurrentScope())
    instant = Timestamp()
    instant.FromDatetime(datetime.fromisoformat(f"{name}T12:00:00+00:00"))
    return common_pb2.TimeScope(at=common_pb2.AtScope(valid_at=instant))


@dataclass
class _Read:
    """Facts of one scope by id, and their contradicting-evidence totals."""

    facts: dict[str, fact_pb2.FactResult] = field(default_factory=dict)
    contradicting: dict[str, int] = field(default_factory=dict)


class _Reader:
    def __init__(self, stubs: Stubs, namespace: str) -> None:
        self.stubs = stubs
        self.namespace = namespace
        self.names: dict[str, set[str]] = {}

    async def resolve(self, names: Iterable[str]) -> None:
        for name in names:
            if name in self.names:
                continue
            reply = await self.stubs.query.ResolveEntity(
                query_service_pb2.ResolveEntityRequest(namespace=self.namespace, name=name)
            )
            want = normalize(name)
            self.names[name] = {
                c.entity_id
                for c in reply.candidates
                if c.tier == entity_pb2.RESOLVE_TIER_EXACT_ALIAS
                or want in (normalize(c.canonical_name), normalize(c.matched_alias))
            }

    async def read(self, scope: str, queries: list[str]) -> _Read:
        result = _Read()
        requests = [
            query_service_pb2.FactsContextRequest(
                namespace=self.namespace, entity_ids=[entity], k=_K, time_scope=_scope(scope)
            )
            for entity in sorted(set().union(*self.names.values()))
        ]
        requests += [
            query_service_pb2.FactsContextRequest(
                namespace=self.namespace, query=query, k=_K, time_scope=_scope(scope)
            )
            for query in queries
        ]
        for request in requests:
            reply = await self.stubs.query.FactsContext(request)
            for fact in reply.facts:
                result.facts[fact.fact_id] = fact
            for total in reply.evidence_totals:
                if total.stance == fact_pb2.STANCE_CONTRADICTS:
                    result.contradicting[total.fact_id] = total.total
        return result

    async def transcript(self, fact_id: str) -> list[fact_pb2.DecisionRecord]:
        reply = await self.stubs.query.TranscriptRelation(
            query_service_pb2.TranscriptRelationRequest(namespace=self.namespace, fact_id=fact_id)
        )
        return list(reply.decisions)

    def is_named(self, ref: Any, name: str) -> bool:
        return ref.entity_id in self.names.get(name, set()) or normalize(ref.name) == normalize(
            name
        )


def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(normalize(word)), re.IGNORECASE)


def _matches(reader: _Reader, fact: fact_pb2.FactResult, want: dict[str, Any]) -> bool:
    if want["kind"] == "observation":
        # Matched on the label whatever kind the claims layer stored it as ("the release
        # includes dark mode" may become a part_of relation): the suite judges beliefs here.
        label = unicodedata.normalize("NFKC", fact.label).casefold()
        if not all(_word_pattern(word).search(label) for word in want["words"]):
            return False
        return "subject" not in want or reader.is_named(fact.subject, want["subject"])
    if fact.kind != fact_pb2.FACT_KIND_RELATION:
        return False
    predicate = want.get("predicate")
    options = predicate if isinstance(predicate, list) else [predicate]
    if predicate is not None and fact.predicate not in options:
        return False
    pairs = [(want["subject"], want["object"])]
    if want.get("undirected"):
        pairs.append((want["object"], want["subject"]))
    return any(
        reader.is_named(fact.subject, s) and reader.is_named(fact.object, o) for s, o in pairs
    )


def _describe(fact: fact_pb2.FactResult) -> str:
    return f"{fact.label!r} [{_from(fact)}, {_until(fact)})"


def _find(
    reader: _Reader, history: _Read, want: dict[str, Any]
) -> tuple[list[fact_pb2.FactResult], str]:
    found = [f for f in history.facts.values() if _matches(reader, f, want)]
    if len(found) > 1 and "from" in want:
        narrowed = [f for f in found if _from(f) == want["from"]]
        found = narrowed or found
    return found, ", ".join(_describe(f) for f in found)


def _window_checks(fact: fact_pb2.FactResult, want: dict[str, Any], ref: str) -> list[Check]:
    checks = []
    for key, got in (("from", _from(fact)), ("until", _until(fact))):
        if key in want:
            ok = got == want[key]
            checks.append(Check(key, ok, "" if ok else f"{ref}: {key} {got}, want {want[key]}"))
    return checks


def _scope_checks(
    fact: fact_pb2.FactResult, want: dict[str, Any], ref: str, reads: dict[str, _Read]
) -> list[Check]:
    checks = []
    if "current" in want:
        got = fact.fact_id in reads["current"].facts
        checks.append(
            Check(
                "current",
                got == want["current"],
                "" if got == want["current"] else f"{ref}: current is {got}",
            )
        )
    for day, expected in sorted(want.get("at", {}).items()):
        got = fact.fact_id in reads[day].facts
        checks.append(
            Check("at", got == expected, "" if got == expected else f"{ref}: at {day} is {got}")
        )
    return checks


def _count_checks(
    fact: fact_pb2.FactResult, want: dict[str, Any], ref: str, history: _Read
) -> list[Check]:
    checks = []
    if "evidence" in want:
        ok = fact.evidence_count == want["evidence"]
        message = f"{ref}: evidence {fact.evidence_count}, want {want['evidence']}"
        checks.append(Check("evidence", ok, "" if ok else message))
    if "contradicting" in want:
        got = history.contradicting.get(fact.fact_id, 0)
        ok = got == want["contradicting"]
        checks.append(
            Check(
                "contradicting",
                ok,
                "" if ok else f"{ref}: {got} contradicting, want {want['contradicting']}",
            )
        )
    return checks


async def _moved_check(
    reader: _Reader, fact: fact_pb2.FactResult, want: dict[str, Any], ref: str
) -> Check:
    before = want["moved"]
    for decision in await reader.transcript(fact.fact_id):
        if decision.outcome != fact_pb2.DECISION_OUTCOME_UPDATE:
            continue
        window = decision.window_before
        got = {
            "from": _day(window.valid_from, window.HasField("valid_from")),
            "until": _day(window.valid_until, window.HasField("valid_until")),
        }
        if all(got[key] == value for key, value in before.items()):
            return Check("moved", True)
    return Check("moved", False, f"{ref}: no update from window {before} in the transcript")


async def _fact_checks(
    reader: _Reader, reads: dict[str, _Read], want: dict[str, Any], seen: dict[str, str]
) -> tuple[list[Check], fact_pb2.FactResult | None]:
    ref = want["ref"]
    found, described = _find(reader, reads["history"], want)
    if want.get("believed", True) is False:
        checks = [
            Check("believed", not found, "" if not found else f"{ref}: still believed: {described}")
        ]
        if want.get("retracted"):
            checks.append(await _retracted_check(reader, seen.get(ref), ref))
        return checks, None
    if len(found) != 1:
        problem = "missing" if not found else f"{len(found)} facts match: {described}"
        return [Check("found", False, f"{ref}: {problem}")], None
    (fact,) = found
    seen[ref] = fact.fact_id
    checks = [Check("found", True)]
    checks += _window_checks(fact, want, ref)
    checks += _scope_checks(fact, want, ref, reads)
    checks += _count_checks(fact, want, ref, reads["history"])
    if "moved" in want:
        checks.append(await _moved_check(reader, fact, want, ref))
    return checks, fact


async def _retracted_check(reader: _Reader, fact_id: str | None, ref: str) -> Check:
    if fact_id is None:
        return Check("retracted", False, f"{ref}: never seen before, so no transcript to read")
    outcomes = [d.outcome for d in await reader.transcript(fact_id)]
    ok = fact_pb2.DECISION_OUTCOME_RETRACTED_SOURCE_REMOVAL in outcomes
    return Check(
        "retracted", ok, "" if ok else f"{ref}: transcript has no retracted_source_removal"
    )


def _group_checks(expect: dict[str, Any], facts: dict[str, fact_pb2.FactResult]) -> list[Check]:
    checks = []
    grouped: set[str] = set()
    for group in expect.get("groups", []):
        grouped.update(group)
        members = [facts.get(ref) for ref in group]
        if any(m is None for m in members):
            checks.append(Check("group", False, f"group {group}: a member was not found"))
            continue
        ids = {m.fact_id for m in members if m is not None}
        problems = []
        for ref, member in zip(group, members, strict=True):
            assert member is not None
            sides = {member.fact_id} | {c.fact_id for c in member.contradiction.co_members}
            if not member.contradiction_group:
                problems.append(f"{ref} is in no group")
            elif sides != ids or member.contradiction.total != len(ids) - 1:
                problems.append(f"{ref}'s group has {member.contradiction.total + 1} sides")
        if len({m.contradiction_group for m in members if m is not None}) != 1:
            problems.append("members carry different group ids")
        checks.append(Check("group", not problems, f"group {group}: {'; '.join(problems)}"))
    for ref, fact in facts.items():
        if ref not in grouped:
            ok = not fact.contradiction_group
            others = ", ".join(repr(c.label) for c in fact.contradiction.co_members)
            checks.append(Check("ungrouped", ok, "" if ok else f"{ref}: grouped with {others}"))
    return checks


async def _supersession_checks(
    reader: _Reader, expect: dict[str, Any], facts: dict[str, fact_pb2.FactResult]
) -> list[Check]:
    checks = []
    for earlier, later in expect.get("supersessions", []):
        old, new = facts.get(earlier), facts.get(later)
        if old is None or new is None:
            missing = f"{earlier}->{later}: a side was not found"
            checks += [Check("supersession", False, missing), Check("superseded_by", False)]
            continue
        named = any(
            d.outcome == fact_pb2.DECISION_OUTCOME_UPDATE and d.related_fact_id == new.fact_id
            for d in await reader.transcript(old.fact_id)
        )
        checks.append(
            Check(
                "supersession",
                named,
                "" if named else f"{earlier}'s transcript has no update naming {later}",
            )
        )
        pointer = old.superseded_by_fact_id == new.fact_id
        checks.append(
            Check(
                "superseded_by",
                pointer,
                "" if pointer else f"{earlier}.superseded_by is not {later}",
            )
        )
    return checks


async def check_expectations(
    stubs: Stubs, namespace: str, expect: dict[str, Any], seen: dict[str, str]
) -> list[Check]:
    """Every check of one expectation block. `seen` maps refs to fact ids found by earlier
    blocks of the same case (a retracted fact can only be looked up by the id it had)."""
    reader = _Reader(stubs, namespace)
    wants = expect["facts"]
    names = {w[k] for w in wants for k in ("subject", "object") if k in w}
    await reader.resolve(sorted(names))
    queries = [" ".join(w["words"]) for w in wants if w["kind"] == "observation"]
    days = sorted({day for w in wants for day in w.get("at", {})})
    reads = {scope: await reader.read(scope, queries) for scope in ["history", "current", *days]}
    checks: list[Check] = []
    facts: dict[str, fact_pb2.FactResult] = {}
    for want in wants:
        fact_checks, fact = await _fact_checks(reader, reads, want, seen)
        checks += fact_checks
        if fact is not None:
            facts[want["ref"]] = fact
    checks += _group_checks(expect, facts)
    checks += await _supersession_checks(reader, expect, facts)
    return checks
