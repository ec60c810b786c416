"""GraphService gRPC servicer: convert, call the service, convert back."""

from __future__ import annotations

from typing import Any

import grpc.aio
from rememberstack.v1 import graph_service_pb2, graph_service_pb2_grpc

from services.graph import converters
from services.graph.service import GraphService

__all__ = ["GraphServicer"]

Context = grpc.aio.ServicerContext[Any, Any]


class GraphServicer(graph_service_pb2_grpc.GraphServiceServicer):
    """Thin adapter; errors propagate to the shared error-mapping interceptor."""

    def __init__(self, service: GraphService, default_namespace: str) -> None:
        self._service = service
        self._default_namespace = default_namespace

    async def GraphNeighborhood(
        self, request: graph_service_pb2.GraphNeighborhoodRequest, context: Context
    ) -> graph_service_pb2.GraphNeighborhoodResponse:
        query = converters.neighborhood_query(request, self._default_namespace)
        return converters.neighborhood_response(await self._service.neighborhood(query))

    async def GraphPath(
        self, request: graph_service_pb2.GraphPathRequest, context: Context
    ) -> graph_service_pb2.GraphPathResponse:
        query = converters.path_query(request, self._default_namespace)
        return converters.path_response(await self._service.path(query))
