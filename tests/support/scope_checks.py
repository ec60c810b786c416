"""Reads of one namespace under a time scope, checked against the store and `scope_oracle`.

Each check calls a public RPC (FactsContext, ClaimsAndSourcesContext, GraphNeighborhood,
GraphPath), compares every fact, claim or edge it returned with the scope (soundness) and every
row of the store that qualifies with what came back (completeness), and returns violations as
(category, message) pairs; an empty list means the read agreed with the SPEC.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from rememberstack.v1 import common_pb2, fact_pb2, graph_service_pb2, query_service_pb2
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.proto_convert import from_timestamp, timestamp
from tests.support.scope_oracle import (
    Scope,
    Shown,
    claim_end_exclusive,
    expected_match,
    is_record_after_window,
    shown_reason,
    widened_claim_end,
)

__all__ = ["Store", "Violation", "check_claims", "check_facts", "check_graph", "read_store"]

Violation = tuple[str, str]
_MICRO = timedelta(microseconds=1)
_PRECISIONS = {
    value: name.removeprefix("PRECISION_").lower() for name, value in common_pb2.Precision.items()
}
_CLAIM_KINDS = {
    0: None,
    1: "event_time",
    2: "effective_period",
    3: "measurement_period",
    4: "proposition_validity",
}


@dataclass(frozen=True)
class StoredFact:
    fact_id: str
    kind: str
    label: str
    subject: str
    object: str | None
    valid_kind: str | None
    window: Shown


@dataclass(frozen=True)
class Store:
    """What the namespace holds, read from the authority tables."""

    facts: dict[str, StoredFact]
    entities: tuple[str, ...]

    def boundaries(self) -> list[datetime]:
        """World instants where a window starts or ends, and the instant just before."""
        found: set[datetime] = set()
        for fact in self.facts.values():
            for edge in (fact.window.valid_from, fact.window.valid_until):
                if edge is not None:
                    found.update((edge, edge.replace(microsecond=0) - _MICRO))
        return sorted(found)

    def belief_instants(self) -> list[datetime]:
        found: set[datetime] = set()
        for fact in self.facts.values():
            for edge in (fact.window.ingested_at, fact.window.invalidated_at):
                if edge is not None:
                    found.update((edge, edge - _MICRO))
        return sorted(found)


_FACTS = text(
    "SELECT id, kind, label, subject_entity_id, object_entity_id, valid_kind, valid_from,"
    " valid_until, valid_precision, ingested_at, invalidated_at FROM facts WHERE namespace = :ns"
)
_ENTITIES = text(
    "SELECT id FROM entities WHERE namespace = :ns AND redirect_to IS NULL ORDER BY id"
)


async def read_store(engine: AsyncEngine, namespace: str) -> Store:
    async with engine.connect() as conn:
        rows = list(await conn.execute(_FACTS, {"ns": namespace}))
        entities = tuple(str(r.id) for r in await conn.execute(_ENTITIES, {"ns": namespace}))
    facts = {
        str(r.id): StoredFact(
            str(r.id),
            r.kind,
            r.label,
            str(r.subject_entity_id),
            str(r.object_entity_id) if r.object_entity_id else None,
            r.valid_kind,
            Shown(r.valid_from, r.valid_until, r.valid_precision, r.ingested_at, r.invalidated_at),
        )
        for r in rows
    }
    return Store(facts, entities)


def _ts(message: Any, name: str) -> datetime | None:
    return from_timestamp(getattr(message, name)) if message.HasField(name) else None


def _shown(validity: common_pb2.Validity) -> Shown:
    return Shown(
        _ts(validity, "valid_from"),
        _ts(validity, "valid_until"),
        _PRECISIONS.get(validity.valid_precision, "unknown"),
        _ts(validity, "ingested_at"),
        _ts(validity, "invalidated_at"),
    )


def scope_pb(scope: Scope) -> common_pb2.TimeScope:
    message = common_pb2.TimeScope()
    if scope.kind == "current":
        message.current.SetInParent()
    elif scope.kind == "history":
        message.history.SetInParent()
    elif scope.kind == "at":
        assert scope.valid_at is not None
        message.at.valid_at.CopyFrom(timestamp(scope.valid_at))
    elif scope.kind == "overlap":
        assert scope.start is not None and scope.end is not None
        getattr(message.overlap, "from").CopyFrom(timestamp(scope.start))
        message.overlap.to.CopyFrom(timestamp(scope.end))
    else:
        assert scope.valid_at is not None and scope.believed_at is not None
        message.as_of.valid_at.CopyFrom(timestamp(scope.valid_at))
        message.as_of.believed_at.CopyFrom(timestamp(scope.believed_at))
    return message


def _unsound(
    store: Store, scope: Scope, fact_id: str, label: str, shown: Shown, where: str
) -> list[Violation]:
    stored = store.facts.get(fact_id)
    out: list[Violation] = []
    if stored is not None and stored.window != shown:
        out.append(
            (
                "shown_differs_from_store",
                f"{where}: {label!r} shows {shown.render()},"
                f" the store holds {stored.window.render()}",
            )
        )
    reason = shown_reason(shown, scope)
    if reason is not None:
        kind = stored.valid_kind if stored else None
        category = (
            "record_after_window"
            if is_record_after_window(shown, kind, scope)
            else ("returned_outside_scope")
        )
        out.append(
            (
                category,
                f"{where} {scope.describe()}: returned {label!r} ({kind}) with"
                f" {shown.render()}: {reason}",
            )
        )
    return out


async def check_facts(query: Any, namespace: str, store: Store, scope: Scope) -> list[Violation]:
    """FactsContext anchored on every entity (19 at a time), k 30."""
    out: list[Violation] = []
    returned: set[str] = set()
    nodes: set[str] = set()
    complete = True
    for start in range(0, len(store.entities), 19):
        reply = await query.FactsContext(
            query_service_pb2.FactsContextRequest(
                namespace=namespace,
                entity_ids=list(store.entities[start : start + 19]),
                k=30,
                time_scope=scope_pb(scope),
            )
        )
        complete = complete and not reply.truncation.truncated
        nodes.update(n.entity_id for n in reply.nodes)
        now = from_timestamp(reply.evaluated_at) if reply.HasField("evaluated_at") else scope.now
        evaluated = replace(scope, now=now)
        for fact in reply.facts:
            returned.add(fact.fact_id)
            shown = _shown(fact.validity)
            out += _unsound(store, evaluated, fact.fact_id, fact.label, shown, "FactsContext")
            match = (
                "confirmed"
                if fact.temporal_match == fact_pb2.TEMPORAL_MATCH_CONFIRMED
                else ("possible")
            )
            if match != expected_match(shown):
                out.append(
                    (
                        "temporal_match",
                        f"FactsContext {scope.describe()}: {fact.label!r}"
                        f" is {match} with {shown.render()}",
                    )
                )
    if not complete:
        return out
    for fact in store.facts.values():
        touches = fact.subject in nodes or (fact.object is not None and fact.object in nodes)
        if touches and fact.fact_id not in returned and shown_reason(fact.window, scope) is None:
            out.append(
                (
                    "missing",
                    f"FactsContext {scope.describe()}: {fact.label!r} with"
                    f" {fact.window.render()} qualifies but was not returned",
                )
            )
    return out


async def check_claims(query: Any, namespace: str, scope: Scope, words: str) -> list[Violation]:
    """ClaimsAndSourcesContext: every claim returned is current testimony whose stated window
    (its inclusive last day made exclusive) qualifies."""
    reply = await query.ClaimsAndSourcesContext(
        query_service_pb2.ClaimsAndSourcesContextRequest(
            namespace=namespace, query=words, k=100, candidate_k=400, time_scope=scope_pb(scope)
        )
    )
    now = from_timestamp(reply.evaluated_at) if reply.HasField("evaluated_at") else scope.now
    # Claims carry no belief interval: under as_of their world window is what is checked.
    evaluated = (
        Scope("at", now, valid_at=scope.valid_at)
        if scope.kind == "as_of"
        else replace(scope, now=now)
    )
    out: list[Violation] = []
    for claim in reply.claims:
        if not claim.is_current_testimony:
            out.append(("claim_not_current", f"ClaimsAndSources: {claim.claim_text!r}"))
        precision = _PRECISIONS.get(claim.claim_valid_precision, "unknown")
        shown = Shown(
            _ts(claim, "claim_valid_from"),
            claim_end_exclusive(_ts(claim, "claim_valid_until"), precision),
            precision,
        )
        reason = shown_reason(shown, evaluated)
        if reason is None:
            continue
        kind = _CLAIM_KINDS.get(claim.claim_valid_kind)
        widened = replace(
            shown, valid_until=widened_claim_end(_ts(claim, "claim_valid_until"), precision)
        )
        if is_record_after_window(shown, kind, evaluated):
            category = "claim_record_after_window"
        elif shown_reason(widened, evaluated) is None:
            category = "claim_end_widened_by_precision"
        else:
            category = "claim_outside_scope"
        out.append(
            (
                category,
                f"ClaimsAndSources {scope.describe()}: {claim.claim_text!r} ({kind}) stated"
                f" {shown.render()}: {reason}",
            )
        )
    return out


async def check_graph(
    graph: Any, namespace: str, store: Store, clocks: tuple[datetime, datetime] | None
) -> list[Violation]:
    """GraphNeighborhood (1 hop, with paths) from every entity and GraphPath along every
    qualifying relation, at `clocks` (valid_at, believed_at) or current (None)."""
    stamp: dict[str, Any] = {}
    if clocks is not None:
        stamp = {"valid_at": timestamp(clocks[0]), "believed_at": timestamp(clocks[1])}
    out: list[Violation] = []
    for entity in store.entities:
        now = datetime.now(UTC)
        scope = (
            Scope("as_of", now, valid_at=clocks[0], believed_at=clocks[1])
            if clocks
            else Scope("current", now)
        )
        reply = await graph.GraphNeighborhood(
            graph_service_pb2.GraphNeighborhoodRequest(
                namespace=namespace, entity_id=entity, hops=1, include_paths=True, **stamp
            )
        )
        for edge in reply.edges:
            out += _unsound(store, scope, edge.fact_id, edge.label, _shown(edge.validity), "Graph")
        reached = {n.entity_id for n in reply.nodes if n.hop == 1}
        expected = {
            (f.object if f.subject == entity else f.subject)
            for f in store.facts.values()
            if f.kind == "relation"
            and entity in (f.subject, f.object)
            and f.subject != f.object
            and shown_reason(f.window, scope) is None
        }
        if not reply.truncation.truncated and reached != expected:
            out.append(
                (
                    "graph_neighbours",
                    f"GraphNeighborhood {scope.describe()} from"
                    f" {entity}: reached {sorted(reached)}, qualifying {sorted(expected)}",
                )
            )
        for other in sorted(expected):
            path = await graph.GraphPath(
                graph_service_pb2.GraphPathRequest(
                    namespace=namespace,
                    from_entity_id=entity,
                    to_entity_id=other,
                    max_hops=1,
                    **stamp,
                )
            )
            if not path.paths:
                out.append(
                    (
                        "graph_path_missing",
                        f"GraphPath {scope.describe()}: no path"
                        f" {entity} -> {other} over a qualifying relation",
                    )
                )
            for result in path.paths:
                for edge in result.edges:
                    out += _unsound(
                        store, scope, edge.fact_id, edge.label, _shown(edge.validity), "GraphPath"
                    )
    return out


def new_namespace() -> str:
    return f"scope-{uuid.uuid4().hex[:12]}"
