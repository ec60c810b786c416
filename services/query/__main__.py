"""Runs the query service: ``python -m services.query``."""

from __future__ import annotations

import asyncio
import sys

from services.query.app import build_server
from services.query.config import load_settings
from shared.db import SchemaMismatchError
from shared.logging import configure_logging
from shared.telemetry import configure_telemetry


async def _serve() -> None:
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_json, settings.service_name)
    telemetry = configure_telemetry(settings.service_name, settings.otlp_endpoint)
    telemetry.install_global()
    try:
        server = await build_server(settings, telemetry=telemetry)
        await server.serve_until_signal()
    finally:
        telemetry.shutdown()


def main() -> None:
    try:
        asyncio.run(_serve())
    except SchemaMismatchError as error:
        print(error, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
