"""Run the adjudicator service: ``python -m services.adjudicator``."""

from __future__ import annotations

import asyncio
import sys

from services.adjudicator.app import build_server
from services.adjudicator.config import Settings, load_settings
from services.adjudicator.engines.base import ConfigurationError
from shared.db import SchemaMismatchError
from shared.logging import configure_logging
from shared.telemetry import configure_telemetry


async def _serve(settings: Settings) -> None:
    telemetry = configure_telemetry(settings.service_name, settings.otlp_endpoint)
    telemetry.install_global()
    try:
        server = await build_server(settings, telemetry=telemetry)
        await server.serve_until_signal()
    finally:
        telemetry.shutdown()


def main() -> None:
    settings = load_settings(service_name="rememberstack-adjudicator")
    configure_logging(settings.log_level, settings.log_json, settings.service_name)
    try:
        asyncio.run(_serve(settings))
    except (SchemaMismatchError, ConfigurationError) as exc:
        print(exc, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
