"""Request validation: wire requests to domain queries, naming every bad field (SPEC §7, §9)."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, query_service_pb2

from services.query.domain import (
    Channel,
    ClaimsContextQuery,
    FactsContextQuery,
    LookupObservationsQuery,
    LookupRelationsQuery,
    SearchQuery,
)
from services.query.reads.contradictions import parse_continuation
from shared.errors import Violations
from shared.namespaces import resolve_namespace
from shared.proto_convert import bounded_int, parse_time_scope, parse_uuid, parse_uuids
from shared.timescope import TimeScope

MAX_QUERY_CHARS = 8192
MAX_NAME_CHARS = 512
_PREDICATE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_OTHER_PREDICATE = re.compile(r"^other:[a-z][a-z0-9_]{1,40}$")
_MIN_SECONDS, _MAX_SECONDS = -62_135_596_800, 253_402_300_799
_CHANNELS: dict[int, Channel] = {
    query_service_pb2.SEARCH_CHANNEL_UNSPECIFIED: "fused",
    query_service_pb2.SEARCH_CHANNEL_SEMANTIC: "semantic",
    query_service_pb2.SEARCH_CHANNEL_LEXICAL: "lexical",
    query_service_pb2.SEARCH_CHANNEL_FUSED: "fused",
}


def _text(value: str, field: str, v: Violations, *, required: bool, limit: int) -> str:
    if required and not value.strip():
        v.add(field, "is required")
    if len(value) > limit:
        v.add(field, f"must be at most {limit} characters, got {len(value)}")
    return value.strip()


def _predicate(value: str, field: str, v: Violations) -> str | None:
    if not value:
        return None
    if value.startswith("other:"):
        if not _OTHER_PREDICATE.match(value):
            v.add(field, "an other: predicate must match ^other:[a-z][a-z0-9_]{1,40}$")
    elif not _PREDICATE.match(value):
        v.add(field, f"{value!r} is not a predicate (lower-case snake_case or other:<name>)")
    return value


def _valid_timestamp(ts: Timestamp) -> bool:
    return _MIN_SECONDS <= ts.seconds <= _MAX_SECONDS and 0 <= ts.nanos < 1_000_000_000


def _scope(request: Any, field: str, v: Violations) -> TimeScope:
    """Parse `request.time_scope`; malformed instants are refused before conversion."""
    has = request.HasField("time_scope")
    message: common_pb2.TimeScope = request.time_scope
    which = message.WhichOneof("scope") if has else None
    if which in ("at", "overlap", "as_of"):
        inner = getattr(message, which)
        bad = False
        for name in ("valid_at", "from", "to", "believed_at"):
            present = name in inner.DESCRIPTOR.fields_by_name and inner.HasField(name)
            if present and not _valid_timestamp(getattr(inner, name)):
                v.add(f"{field}.{which}.{name}", "is not a valid UTC timestamp")
                bad = True
        if bad:
            return TimeScope()
    return parse_time_scope(message, field, v, has_field=has)


def facts_context(
    request: query_service_pb2.FactsContextRequest,
    default_namespace: str,
    v: Violations,
    prefix: str = "",
) -> FactsContextQuery:
    query = _text(request.query, f"{prefix}query", v, required=False, limit=MAX_QUERY_CHARS)
    entity_ids = parse_uuids(request.entity_ids, f"{prefix}entity_ids", v, max_items=19)
    if not query and not request.entity_ids:
        v.add(f"{prefix}query", "is required unless entity_ids is set")
    return FactsContextQuery(
        namespace=resolve_namespace(request.namespace, default_namespace, v, f"{prefix}namespace"),
        query=query,
        entity_ids=tuple(entity_ids),
        k=bounded_int(request.k, f"{prefix}k", v, default=15, low=1, high=30),
        evidence_per_fact=bounded_int(
            request.evidence_per_fact, f"{prefix}evidence_per_fact", v, default=3, low=1, high=5
        ),
        hops=bounded_int(request.hops, f"{prefix}hops", v, default=1, low=1, high=2),
        predicate=_predicate(request.predicate, f"{prefix}predicate", v),
        scope=_scope(request, f"{prefix}time_scope", v),
    )


def claims_context(
    request: query_service_pb2.ClaimsAndSourcesContextRequest,
    default_namespace: str,
    v: Violations,
    prefix: str = "",
) -> ClaimsContextQuery:
    k = bounded_int(request.k, f"{prefix}k", v, default=50, low=1, high=100)
    candidate_k = bounded_int(
        request.candidate_k, f"{prefix}candidate_k", v, default=200, low=1, high=400
    )
    if request.candidate_k and request.candidate_k < k:
        v.add(f"{prefix}candidate_k", f"must be at least k ({k}), got {request.candidate_k}")
    scope = _scope(request, f"{prefix}time_scope", v)
    return ClaimsContextQuery(
        namespace=resolve_namespace(request.namespace, default_namespace, v, f"{prefix}namespace"),
        query=_text(request.query, f"{prefix}query", v, required=True, limit=MAX_QUERY_CHARS),
        entity_ids=tuple(parse_uuids(request.entity_ids, f"{prefix}entity_ids", v, max_items=20)),
        k=k,
        candidate_k=max(candidate_k, k),
        scope=scope if request.HasField("time_scope") else None,
    )


def combined_context(
    request: query_service_pb2.CombinedContextRequest, default_namespace: str
) -> tuple[FactsContextQuery, ClaimsContextQuery]:
    v = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, v, "namespace")
    for half in ("facts", "claims_and_sources"):
        if not request.HasField(half):
            v.add(half, "is required")
        inner = getattr(request, half).namespace
        if inner and request.namespace and inner != request.namespace:
            v.add(f"{half}.namespace", "must be empty or equal to the request namespace")
    facts = facts_context(request.facts, namespace, v, "facts.")
    sources = claims_context(request.claims_and_sources, namespace, v, "claims_and_sources.")
    v.raise_if_any()
    return facts, sources


def lookup_relations(
    request: query_service_pb2.LookupRelationsRequest, default_namespace: str
) -> LookupRelationsQuery:
    v = Violations()
    subject = parse_uuid(request.subject_entity_id, "subject_entity_id", v, required=False)
    obj = parse_uuid(request.object_entity_id, "object_entity_id", v, required=False)
    predicate = _predicate(request.predicate, "predicate", v)
    if not (request.subject_entity_id or request.predicate or request.object_entity_id):
        v.add(
            "subject_entity_id", "one of subject_entity_id, predicate, object_entity_id is required"
        )
    query = LookupRelationsQuery(
        namespace=resolve_namespace(request.namespace, default_namespace, v, "namespace"),
        subject_entity_id=subject,
        predicate=predicate,
        object_entity_id=obj,
        k=bounded_int(request.k, "k", v, default=50, low=1, high=400),
        scope=_scope(request, "time_scope", v),
    )
    v.raise_if_any()
    return query


def lookup_observations(
    request: query_service_pb2.LookupObservationsRequest, default_namespace: str
) -> LookupObservationsQuery:
    v = Violations()
    entity = parse_uuid(request.entity_id, "entity_id", v)
    query = LookupObservationsQuery(
        namespace=resolve_namespace(request.namespace, default_namespace, v, "namespace"),
        entity_id=entity or UUID(int=0),
        property_query=_text(
            request.property_query, "property_query", v, required=False, limit=MAX_QUERY_CHARS
        ),
        k=bounded_int(request.k, "k", v, default=10, low=1, high=400),
        scope=_scope(request, "time_scope", v),
    )
    v.raise_if_any()
    return query


def search(
    request: query_service_pb2.SearchClaimsRequest | query_service_pb2.SearchChunksRequest,
    default_namespace: str,
) -> SearchQuery:
    v = Violations()
    channel = _CHANNELS.get(request.channel)
    if channel is None:
        v.add("channel", f"unknown SearchChannel value {request.channel}")
    query = SearchQuery(
        namespace=resolve_namespace(request.namespace, default_namespace, v, "namespace"),
        query=_text(request.query, "query", v, required=True, limit=MAX_QUERY_CHARS),
        k=bounded_int(request.k, "k", v, default=10, low=1, high=400),
        channel=channel or "fused",
    )
    v.raise_if_any()
    return query


def fact_ref(
    request: query_service_pb2.HydrateRelationRequest | query_service_pb2.TranscriptRelationRequest,
    default_namespace: str,
) -> tuple[str, UUID]:
    v = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, v, "namespace")
    fact_id = parse_uuid(request.fact_id, "fact_id", v)
    v.raise_if_any()
    assert fact_id is not None
    return namespace, fact_id


def adjacent(
    request: query_service_pb2.AdjacentChunksRequest, default_namespace: str
) -> tuple[str, UUID, int]:
    v = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, v, "namespace")
    chunk_id = parse_uuid(request.chunk_id, "chunk_id", v)
    window = bounded_int(request.window, "window", v, default=1, low=1, high=2)
    v.raise_if_any()
    assert chunk_id is not None
    return namespace, chunk_id, window


def resolve(
    request: query_service_pb2.ResolveEntityRequest, default_namespace: str
) -> tuple[str, str, list[UUID], int]:
    v = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, v, "namespace")
    name = _text(request.name, "name", v, required=True, limit=MAX_NAME_CHARS)
    context = parse_uuids(request.context_entity_ids, "context_entity_ids", v, max_items=20)
    limit = bounded_int(request.limit, "limit", v, default=10, low=1, high=50)
    v.raise_if_any()
    return namespace, name, context, limit


def validated_facts(
    request: query_service_pb2.FactsContextRequest, default_namespace: str
) -> FactsContextQuery:
    v = Violations()
    query = facts_context(request, default_namespace, v)
    v.raise_if_any()
    return query


def validated_claims(
    request: query_service_pb2.ClaimsAndSourcesContextRequest, default_namespace: str
) -> ClaimsContextQuery:
    v = Violations()
    query = claims_context(request, default_namespace, v)
    v.raise_if_any()
    return query


def contradiction_members(
    request: query_service_pb2.ListContradictionMembersRequest, default_namespace: str
) -> tuple[str, UUID, int, int]:
    """Namespace, group, offset and page size; a token must name the requested group."""
    v = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, v, "namespace")
    group_id = parse_uuid(request.group_id, "group_id", v)
    page_size = bounded_int(request.page_size, "page_size", v, default=25, low=1, high=100)
    offset = 0
    if request.page_token:
        try:
            token_group, offset = parse_continuation(request.page_token)
        except ValueError as error:
            v.add("page_token", str(error))
        else:
            if group_id is not None and token_group != group_id:
                v.add("page_token", f"was issued for group {token_group}, not {group_id}")
    v.raise_if_any()
    assert group_id is not None
    return namespace, group_id, offset, page_size
