"""Run the query service: `python -m services.query`."""

from __future__ import annotations

from services.query.app import build_server
from services.query.config import load_settings
from shared.grpc.main import run_service
from shared.grpc.services import QUERY

if __name__ == "__main__":
    run_service(QUERY, load_settings, build_server)
