"""Run the graph service: `python -m services.graph`."""

from __future__ import annotations

from services.graph.app import build_server
from services.graph.config import load_settings
from shared.grpc.main import run_service
from shared.grpc.services import GRAPH

if __name__ == "__main__":
    run_service(GRAPH, load_settings, build_server)
