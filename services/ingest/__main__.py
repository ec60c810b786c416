"""Run the ingest service: `python -m services.ingest`."""

from __future__ import annotations

import asyncio
import sys

from services.ingest.app import build_server
from services.ingest.config import IngestSettings, load_settings
from shared.db.migrate import SchemaMismatchError
from shared.logging import configure_logging
from shared.telemetry import configure_telemetry


async def _serve(settings: IngestSettings) -> None:
    telemetry = configure_telemetry(settings.service_name, settings.otlp_endpoint)
    telemetry.install_global()
    try:
        server = await build_server(settings, telemetry=telemetry)
        await server.serve_until_signal()
    finally:
        telemetry.shutdown()


def main() -> None:
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_json, settings.service_name)
    try:
        asyncio.run(_serve(settings))
    except SchemaMismatchError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
