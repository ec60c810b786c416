"""gRPC servicer of IngestService: convert the request, call the service, convert back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from rememberstack.v1 import ingest_service_pb2, ingest_service_pb2_grpc

from services.ingest import converters
from services.ingest.config import IngestSettings
from services.ingest.domain import DocumentInput
from services.ingest.service import IngestService
from shared.errors import Violations
from shared.grpc.security import current_principal
from shared.namespaces import resolve_namespace

__all__ = ["IngestServicer"]

pb = ingest_service_pb2


class IngestServicer(ingest_service_pb2_grpc.IngestServiceServicer):
    def __init__(self, service: IngestService, settings: IngestSettings) -> None:
        self._service = service
        self._settings = settings

    async def IngestDocument(
        self, request: pb.IngestDocumentRequest, context: Any
    ) -> pb.IngestDocumentResponse:
        violations = Violations()
        document = converters.document_input(request, self._settings, violations)
        violations.raise_if_any()
        assert document is not None
        [result] = await self._service.ingest([document])
        return converters.ingest_result_to_pb(result)

    async def IngestDocuments(
        self, request_iterator: AsyncIterator[pb.IngestDocumentsRequest], context: Any
    ) -> pb.IngestDocumentsResponse:
        violations = Violations()
        documents: list[DocumentInput] = []
        index = 0
        async for request in request_iterator:
            prefix = f"documents[{index}]."
            if not request.HasField("document"):
                violations.add(f"documents[{index}]", "is required")
            else:
                document = converters.document_input(
                    request.document, self._settings, violations, prefix
                )
                if document is not None:
                    documents.append(document)
            index += 1
        if index == 0:
            violations.add("documents", "needs at least one document")
        violations.raise_if_any()
        results = await self._service.ingest(documents)
        return pb.IngestDocumentsResponse(
            results=[converters.ingest_result_to_pb(r) for r in results]
        )

    async def GetReadiness(
        self, request: pb.GetReadinessRequest, context: Any
    ) -> pb.GetReadinessResponse:
        namespace, ids = converters.namespaced_ids(
            request.namespace, request.version_ids, "version_ids", self._settings, min_items=1
        )
        versions = await self._service.readiness(namespace, ids)
        return pb.GetReadinessResponse(versions=[converters.readiness_to_pb(v) for v in versions])

    async def WatchReadiness(
        self, request: pb.WatchReadinessRequest, context: Any
    ) -> AsyncIterator[pb.WatchReadinessResponse]:
        namespace, ids = converters.namespaced_ids(
            request.namespace, request.version_ids, "version_ids", self._settings, min_items=1
        )
        async for update in self._service.watch_readiness(namespace, ids):
            yield pb.WatchReadinessResponse(
                versions=[converters.readiness_to_pb(v) for v in update.versions],
                all_settled=update.all_settled,
            )

    async def GetDocument(
        self, request: pb.GetDocumentRequest, context: Any
    ) -> pb.GetDocumentResponse:
        namespace, document_id = converters.namespaced_id(
            request.namespace, request.document_id, "document_id", self._settings
        )
        view = await self._service.get_document(namespace, document_id)
        return pb.GetDocumentResponse(document=converters.document_to_pb(view))

    async def ListDocuments(
        self, request: pb.ListDocumentsRequest, context: Any
    ) -> pb.ListDocumentsResponse:
        violations = Violations()
        namespace = resolve_namespace(request.namespace, self._settings.namespace, violations)
        size = converters.page_size_of(request.page_size, violations)
        after = converters.decode_page_token(request.page_token, violations)
        violations.raise_if_any()
        page = await self._service.list_documents(
            namespace, page_size=size, after=after, include_deleted=request.include_deleted
        )
        return pb.ListDocumentsResponse(
            documents=[converters.document_to_pb(d) for d in page.documents],
            next_page_token=(
                converters.encode_page_token(page.next_cursor) if page.next_cursor else ""
            ),
        )

    async def DeleteDocument(
        self, request: pb.DeleteDocumentRequest, context: Any
    ) -> pb.DeleteDocumentResponse:
        namespace, document_id = converters.namespaced_id(
            request.namespace, request.document_id, "document_id", self._settings
        )
        result = await self._service.delete_document(
            namespace, document_id, decided_by=current_principal().name
        )
        return pb.DeleteDocumentResponse(
            claims_retired=result.claims_retired,
            relations_closed=result.relations_closed,
            observations_closed=result.observations_closed,
        )

    async def ReleaseParkedVersion(
        self, request: pb.ReleaseParkedVersionRequest, context: Any
    ) -> pb.ReleaseParkedVersionResponse:
        namespace, version_id = converters.namespaced_id(
            request.namespace, request.version_id, "version_id", self._settings
        )
        result = await self._service.release_parked(
            namespace, version_id, request.media_type.strip() or None
        )
        return pb.ReleaseParkedVersionResponse(
            version_id=str(result.version_id), parked=result.parked
        )

    async def ReextractDocuments(
        self, request: pb.ReextractDocumentsRequest, context: Any
    ) -> pb.ReextractDocumentsResponse:
        namespace, ids = converters.namespaced_ids(
            request.namespace, request.document_ids, "document_ids", self._settings, min_items=0
        )
        result = await self._service.reextract(namespace, ids)
        return pb.ReextractDocumentsResponse(
            version_ids=[str(v) for v in result.version_ids],
            extractor_version=result.extractor_version,
        )

    async def ReplayIngestDeadLetters(
        self, request: pb.ReplayIngestDeadLettersRequest, context: Any
    ) -> pb.ReplayIngestDeadLettersResponse:
        namespace, ids = converters.namespaced_ids(
            request.namespace, request.version_ids, "version_ids", self._settings, min_items=0
        )
        replayed = await self._service.replay_dead_letters(namespace, ids)
        return pb.ReplayIngestDeadLettersResponse(replayed=replayed)
