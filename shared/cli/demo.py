"""`make demo`: start the embedded default, ingest the sample corpus, print answers."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from rememberstack.v1 import document_pb2, query_service_pb2
from rich.console import Console
from rich.rule import Rule
from rich.table import Table

from shared.cli.client import connect
from shared.cli.ingest_files import MANIFEST_NAME, ingest_files, load_manifest, watch_until_settled
from shared.cli.launcher import SystemLauncher
from shared.cli.render import print_facts
from shared.config import load_settings
from shared.grpc.services import SERVICE_NAMES
from shared.logging import configure_logging

__all__ = ["main"]

CORPUS = Path(__file__).resolve().parents[2] / "samples" / "corpus"
FACT_QUERIES = ("billing migration cutover", "Ravi Patel", "Dana Kim")
CLAIM_QUERIES = ("Who leads the payments team?",)


def _corpus() -> tuple[list[Path], dict[str, datetime]]:
    said_on = load_manifest(CORPUS / MANIFEST_NAME)
    # Said-on order: adjudication outcomes depend on what the memory already held, and a
    # demo should tell the same story every time.
    return sorted((CORPUS / name for name in said_on), key=lambda p: said_on[p.name]), said_on


async def run_demo(console: Console) -> None:
    """One full round trip on a fresh embedded database in a temporary data directory."""
    data_dir = Path(tempfile.mkdtemp(prefix="rememberstack-demo-"))
    settings = load_settings(data_dir=data_dir, database_url=None)
    launcher = SystemLauncher(settings, base_port=0)
    console.print(Rule("starting embedded Postgres and the four services"))
    endpoints = await launcher.start()
    try:
        addresses = {name: endpoints.address(name) for name in SERVICE_NAMES}
        for name, address in addresses.items():
            console.print(f"  {name:<12} {address}")
        async with connect(addresses) as stubs:
            files, said_on = _corpus()
            console.print(Rule(f"ingesting {len(files)} sample documents"))
            states = []
            for path in files:
                [outcome] = await ingest_files(stubs, [path], namespace="demo", said_on=said_on)
                states += await watch_until_settled(
                    stubs, [outcome.version_id], namespace="demo", on_update=lambda _s: None
                )
            _print_readiness(console, files, states)
            for query in FACT_QUERIES:
                console.print(Rule(f"facts: {query!r}"))
                response = await stubs.query.FactsContext(
                    query_service_pb2.FactsContextRequest(namespace="demo", query=query, k=5)
                )
                print_facts(console, response)
            for query in CLAIM_QUERIES:
                console.print(Rule(f"claims and sources: {query!r}"))
                claims = await stubs.query.ClaimsAndSourcesContext(
                    query_service_pb2.ClaimsAndSourcesContextRequest(
                        namespace="demo", query=query, k=5
                    )
                )
                for claim in claims.claims:
                    console.print(
                        f"  • {claim.claim_text}  [dim]({claim.document_title}, "
                        f"{claim.corroboration_count} source(s))[/]"
                    )
    finally:
        console.print(Rule("stopping"))
        await launcher.stop()


def _print_readiness(
    console: Console, files: Sequence[Path], states: Sequence[document_pb2.VersionReadiness]
) -> None:
    table = Table(title="readiness")
    for column in ("document", "version", "ready", "claims"):
        table.add_column(column)
    for path, state in zip(files, states, strict=True):
        ready = "yes" if state.ready else "no"
        table.add_row(path.name, state.version_id[:8], ready, str(state.claim_count))
    console.print(table)


def main() -> None:
    configure_logging("WARNING", json=False, service_name="demo")
    asyncio.run(run_demo(Console(width=160)))


if __name__ == "__main__":
    main()
