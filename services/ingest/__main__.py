"""Run the ingest service: `python -m services.ingest`."""

from __future__ import annotations

from services.ingest.app import build_server
from services.ingest.config import load_settings
from shared.grpc.main import run_service
from shared.grpc.services import INGEST

if __name__ == "__main__":
    run_service(INGEST, load_settings, build_server)
