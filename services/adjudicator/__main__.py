"""Run the adjudicator service: `python -m services.adjudicator`."""

from __future__ import annotations

from services.adjudicator.app import build_server
from services.adjudicator.config import load_settings
from services.adjudicator.engines.base import ConfigurationError
from shared.grpc.main import run_service
from shared.grpc.services import ADJUDICATOR

if __name__ == "__main__":
    run_service(
        ADJUDICATOR,
        load_settings,
        build_server,
        refuse_to_start=(ConfigurationError,),
    )
