"""gRPC servicer of the AdjudicatorService: convert, call the service, convert back."""

from __future__ import annotations

from typing import Any

import grpc.aio
from rememberstack.v1 import adjudicator_service_pb2 as pb
from rememberstack.v1 import adjudicator_service_pb2_grpc as pb_grpc

from services.adjudicator import converters as conv
from services.adjudicator.service import AdjudicationService
from shared.errors import Violations
from shared.grpc.security import current_principal
from shared.namespaces import resolve_namespace

__all__ = ["AdjudicatorServicer"]

Context = grpc.aio.ServicerContext[Any, Any]


class AdjudicatorServicer(pb_grpc.AdjudicatorServiceServicer):
    """Thin adapter; validation lives in `converters`, behaviour in `AdjudicationService`.

    What a call decides is recorded as decided by the caller's principal, never by a request
    field.
    """

    def __init__(self, service: AdjudicationService, default_namespace: str) -> None:
        self._service = service
        self._default = default_namespace

    async def GetEngineInfo(
        self, request: pb.GetEngineInfoRequest, context: Context
    ) -> pb.GetEngineInfoResponse:
        violations = Violations()
        resolve_namespace(request.namespace, self._default, violations)
        violations.raise_if_any()
        return conv.engine_info_to_pb(self._service.engine_info())

    async def AdjudicateClaims(
        self, request: pb.AdjudicateClaimsRequest, context: Context
    ) -> pb.AdjudicateClaimsResponse:
        args = conv.adjudicate_claims_from_pb(request, self._default)
        outcome = await self._service.adjudicate_claims(
            args.namespace, args.claim_ids, decided_by=current_principal().name
        )
        return conv.adjudicate_claims_to_pb(outcome)

    async def MergeEntities(
        self, request: pb.MergeEntitiesRequest, context: Context
    ) -> pb.MergeEntitiesResponse:
        args = conv.merge_from_pb(request, self._default)
        outcome = await self._service.merge(
            args.namespace, args.survivor, args.absorbed, current_principal().name
        )
        return conv.merge_to_pb(outcome)

    async def UndoMerge(
        self, request: pb.UndoMergeRequest, context: Context
    ) -> pb.UndoMergeResponse:
        args = conv.undo_from_pb(request, self._default)
        outcome = await self._service.undo_merge(
            args.namespace, args.merge_id, current_principal().name
        )
        return conv.undo_to_pb(outcome)

    async def ListMergeProposals(
        self, request: pb.ListMergeProposalsRequest, context: Context
    ) -> pb.ListMergeProposalsResponse:
        args = conv.proposals_from_pb(request, self._default)
        page = await self._service.merge_proposals(args.namespace, args.page_size, args.page_token)
        return conv.proposals_to_pb(page)

    async def ReviewSupport(
        self, request: pb.ReviewSupportRequest, context: Context
    ) -> pb.ReviewSupportResponse:
        namespace, fact_ids = conv.review_from_pb(request, self._default)
        review = await self._service.review_support(
            namespace, fact_ids, decided_by=current_principal().name
        )
        return conv.review_to_pb(review)

    async def ReplayDeadLetters(
        self, request: pb.ReplayDeadLettersRequest, context: Context
    ) -> pb.ReplayDeadLettersResponse:
        namespace, ids = conv.replay_from_pb(request, self._default)
        replayed = await self._service.replay_dead_letters(namespace, ids)
        return pb.ReplayDeadLettersResponse(replayed=replayed)
