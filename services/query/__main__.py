"""Run the query service: `python -m services.query`."""

from __future__ import annotations

from services.query.app import build_server
from services.query.config import load_settings
from shared.grpc.main import run_service

if __name__ == "__main__":
    run_service("query", load_settings, build_server)
