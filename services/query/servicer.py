"""QueryService gRPC servicer: validate, call the service, convert back."""

from __future__ import annotations

import grpc.aio
from rememberstack.v1 import fact_pb2, query_service_pb2_grpc
from rememberstack.v1 import query_service_pb2 as pb

from services.query import converters, responses
from services.query.responses import (
    chunk_pb,
    claim_pb,
    claims_context_pb,
    co_member_pb,
    decision_pb,
    document_pb,
    fact_list_parts,
    fact_pb,
    facts_context_pb,
)
from services.query.service import QueryService
from shared.proto_convert import STANCE, negative_to_pb, timestamp, truncation_to_pb

Context = grpc.aio.ServicerContext[object, object]


class QueryServicer(query_service_pb2_grpc.QueryServiceServicer):
    """Thin adapter over QueryService; every read is bounded and answers negatives as data."""

    def __init__(self, service: QueryService, default_namespace: str) -> None:
        self._service = service
        self._namespace = default_namespace

    async def ResolveEntity(
        self, request: pb.ResolveEntityRequest, context: Context
    ) -> pb.ResolveEntityResponse:
        namespace, name, context_ids, limit = converters.resolve(request, self._namespace)
        result = await self._service.resolve_entity(namespace, name, context_ids, limit)
        return responses.resolve_pb(result)

    async def FactsContext(
        self, request: pb.FactsContextRequest, context: Context
    ) -> pb.FactsContextResponse:
        query = converters.validated_facts(request, self._namespace)
        return facts_context_pb(await self._service.facts_context(query))

    async def ClaimsAndSourcesContext(
        self, request: pb.ClaimsAndSourcesContextRequest, context: Context
    ) -> pb.ClaimsAndSourcesContextResponse:
        query = converters.validated_claims(request, self._namespace)
        return claims_context_pb(await self._service.claims_and_sources_context(query))

    async def CombinedContext(
        self, request: pb.CombinedContextRequest, context: Context
    ) -> pb.CombinedContextResponse:
        facts, sources = converters.combined_context(request, self._namespace)
        result = await self._service.combined_context(facts, sources)
        return pb.CombinedContextResponse(
            facts=facts_context_pb(result.facts),
            claims_and_sources=claims_context_pb(result.claims_and_sources),
            evaluated_at=timestamp(result.evaluated_at),
        )

    async def LookupRelations(
        self, request: pb.LookupRelationsRequest, context: Context
    ) -> pb.LookupRelationsResponse:
        result = await self._service.lookup_relations(
            converters.lookup_relations(request, self._namespace)
        )
        return pb.LookupRelationsResponse(**fact_list_parts(result))

    async def LookupObservations(
        self, request: pb.LookupObservationsRequest, context: Context
    ) -> pb.LookupObservationsResponse:
        result = await self._service.lookup_observations(
            converters.lookup_observations(request, self._namespace)
        )
        return pb.LookupObservationsResponse(**fact_list_parts(result))

    async def HydrateRelation(
        self, request: pb.HydrateRelationRequest, context: Context
    ) -> pb.HydrateRelationResponse:
        namespace, fact_id = converters.fact_ref(request, self._namespace)
        result = await self._service.hydrate_relation(namespace, fact_id)
        return pb.HydrateRelationResponse(
            fact=fact_pb(result.fact),
            fact_evidence=[
                fact_pb2.FactEvidence(
                    fact_id=str(link.fact_id),
                    claim_id=str(link.claim_id),
                    stance=STANCE[link.stance],  # type: ignore[arg-type]
                )
                for link in result.fact_evidence
            ],
            claims=[claim_pb(c) for c in result.claims],
            documents=[document_pb(d) for d in result.documents],
        )

    async def TranscriptRelation(
        self, request: pb.TranscriptRelationRequest, context: Context
    ) -> pb.TranscriptRelationResponse:
        namespace, fact_id = converters.fact_ref(request, self._namespace)
        result = await self._service.transcript_relation(namespace, fact_id)
        return pb.TranscriptRelationResponse(
            decisions=[decision_pb(d) for d in result.decisions],
            truncation=truncation_to_pb(result.truncation),
        )

    async def SearchClaims(
        self, request: pb.SearchClaimsRequest, context: Context
    ) -> pb.SearchClaimsResponse:
        result = await self._service.search_claims(converters.search(request, self._namespace))
        return pb.SearchClaimsResponse(
            claims=[claim_pb(c) for c in result.claims],
            truncation=truncation_to_pb(result.truncation),
            dropped_by_hydration=result.dropped_by_hydration,
            negative=negative_to_pb(result.negative),
        )

    async def SearchChunks(
        self, request: pb.SearchChunksRequest, context: Context
    ) -> pb.SearchChunksResponse:
        result = await self._service.search_chunks(converters.search(request, self._namespace))
        return pb.SearchChunksResponse(
            chunks=[chunk_pb(c) for c in result.chunks],
            truncation=truncation_to_pb(result.truncation),
            dropped_by_hydration=result.dropped_by_hydration,
            negative=negative_to_pb(result.negative),
        )

    async def AdjacentChunks(
        self, request: pb.AdjacentChunksRequest, context: Context
    ) -> pb.AdjacentChunksResponse:
        namespace, chunk_id, window = converters.adjacent(request, self._namespace)
        chunks = await self._service.adjacent_chunks(namespace, chunk_id, window)
        return pb.AdjacentChunksResponse(chunks=[chunk_pb(c) for c in chunks])

    async def ListContradictionMembers(
        self, request: pb.ListContradictionMembersRequest, context: Context
    ) -> pb.ListContradictionMembersResponse:
        namespace, group_id, offset, page_size = converters.contradiction_members(
            request, self._namespace
        )
        page = await self._service.list_contradiction_members(
            namespace, group_id, offset, page_size
        )
        return pb.ListContradictionMembersResponse(
            members=[co_member_pb(m) for m in page.members],
            total=page.total,
            next_page_token=page.continuation,
        )
