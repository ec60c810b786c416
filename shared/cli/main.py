"""The `rememberstack` command: run the system locally and talk to it over gRPC."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import grpc
import typer
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rememberstack.v1 import document_pb2, ingest_service_pb2, query_service_pb2
from rich.table import Table

from shared.cli.client import connect, resolve_addresses
from shared.cli.console import START_HINT, console, errors, run_command
from shared.cli.ingest_files import (
    ManifestError,
    collect_files,
    ingest_files,
    load_manifest,
    parse_said_on,
    watch_until_settled,
)
from shared.cli.launcher import LaunchError, SystemLauncher
from shared.cli.progress import StageProgress
from shared.cli.render import message_to_data, print_facts, print_json
from shared.config import Settings, load_settings
from shared.db.embedded import resolve_database_url
from shared.db.migrate import head_revision, upgrade_to_head
from shared.grpc.channel import ClientSecurity
from shared.grpc.services import SERVICE_NAMES
from shared.logging import configure_logging
from shared.proto_convert import timestamp

__all__ = ["app"]

app = typer.Typer(
    help="RememberStack: memory for AI agents that have to act.", no_args_is_help=True
)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
NamespaceOption = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        help="Tenant namespace to work in (default: REMEMBERSTACK_NAMESPACE, else 'default').",
    ),
]


def _settings(namespace: str | None = None) -> Settings:
    """Settings from the environment; a `--namespace` given on the command line wins."""
    return load_settings(namespace=namespace) if namespace else load_settings()


@app.command()
def up(
    base_port: Annotated[
        int, typer.Option(help="First of four consecutive ports; 0 picks free ports.")
    ] = 50051,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace", "-n", help="Default namespace of the services (REMEMBERSTACK_NAMESPACE)."
        ),
    ] = None,
) -> None:
    """Start embedded Postgres (unless REMEMBERSTACK_DATABASE_URL is set) and the four services.

    Exits non-zero, with the cause, when a port is taken or a service fails to start or dies.
    """
    settings = _settings(namespace)
    configure_logging(settings.log_level, json=False, service_name="launcher")
    raise typer.Exit(asyncio.run(_up(settings, base_port)))


async def _up(settings: Settings, base_port: int) -> int:
    launcher = SystemLauncher(settings, base_port=base_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    code = 0
    try:
        try:
            endpoints = await launcher.start()
        except LaunchError as error:
            errors.print(f"[red]rememberstack up failed:[/] {error}", highlight=False)
            return 1
        table = Table(title="RememberStack is up")
        table.add_column("service")
        table.add_column("address")
        for name in SERVICE_NAMES:
            table.add_row(name, endpoints.address(name))
        table.add_row("database", endpoints.database_url)
        console.print(table)
        console.print("Press Ctrl-C to stop.", highlight=False)
        exited = asyncio.create_task(launcher.wait_for_exit())
        stopped = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({exited, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if exited in done:
            name = exited.result()
            errors.print(
                f"[red]{name} exited unexpectedly; stopping everything[/]\n"
                f"{launcher.failure_report(name)}",
                highlight=False,
            )
            code = 1
        for task in (exited, stopped):
            task.cancel()
    finally:
        console.print("stopping…")
        await launcher.stop()
        console.print("stopped")
    return code


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(exists=True, help="Files or directories.")],
    living: Annotated[bool, typer.Option(help="Create documents in living mode.")] = False,
    wait: Annotated[bool, typer.Option(help="Wait until every version is ready.")] = True,
    said_on: Annotated[
        str | None,
        typer.Option(
            "--said-on",
            help="When the files were said or written (ISO-8601, e.g. 2026-03-02T10:00:00Z), "
            "for every file instead of its modification time.",
        ),
    ] = None,
    manifest: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="JSON object of file name to said-on time. A manifest.json inside a directory "
            "given is read the same way (and is not ingested); per-file times win over "
            "--said-on.",
        ),
    ] = None,
    namespace: NamespaceOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Ingest files, show per-stage progress, and exit when the versions are ready."""
    settings = _settings(namespace)
    try:
        files, times = collect_files(paths)
        if manifest is not None:
            times |= load_manifest(manifest)
        if said_on is not None:
            times.setdefault("*", parse_said_on(said_on))
    except ManifestError as error:
        errors.print(f"[red]{error}[/]", highlight=False)
        raise typer.Exit(2) from None
    addresses = resolve_addresses(settings)
    body = _ingest(settings, addresses, files, times, living=living, wait=wait, as_json=as_json)
    raise typer.Exit(run_command(body, addresses))


async def _ingest(
    settings: Settings,
    addresses: dict[str, str],
    files: Sequence[Path],
    said_on: dict[str, datetime],
    *,
    living: bool,
    wait: bool,
    as_json: bool,
) -> int:
    namespace = settings.namespace
    async with connect(addresses, ClientSecurity.from_settings(settings)) as stubs:
        outcomes = await ingest_files(
            stubs, files, namespace=namespace, living=living, said_on=said_on
        )
        pending = [o.version_id for o in outcomes if not o.parked]
        if not as_json:
            for outcome in outcomes:
                state = "parked" if outcome.parked else ("new" if outcome.created else "unchanged")
                console.print(f"{state:>9}  {outcome.path}")
        final: list[document_pb2.VersionReadiness] = []
        if wait and pending:
            with StageProgress(console, len(pending), disable=as_json) as progress:
                final = await watch_until_settled(
                    stubs, pending, namespace=namespace, on_update=progress.show
                )
    dead = [state for state in final if state.dead_lettered]
    if as_json:
        console.print_json(
            data={
                "documents": [
                    {
                        "path": str(o.path),
                        "document_id": o.document_id,
                        "version_id": o.version_id,
                        "created": o.created,
                        "parked": o.parked,
                    }
                    for o in outcomes
                ],
                "versions": [message_to_data(state) for state in final],
            }
        )
    elif final:
        claims = sum(state.claim_count for state in final)
        console.print(f"{len(final) - len(dead)} version(s) ready, {claims} claim(s) extracted")
    for dead_state in dead:
        failed = [s for s in dead_state.stages if s.status == document_pb2.STAGE_STATUS_DEAD_LETTER]
        reason = failed[0].last_error if failed else ""
        errors.print(f"[red]dead letter[/] {dead_state.version_id}: {reason}", highlight=False)
    return 1 if dead else 0


@app.command()
def facts(
    query: Annotated[str, typer.Argument(help="What to look for.")] = "",
    entity: Annotated[list[str], typer.Option(help="Anchor entity id (repeatable).")] = [],  # noqa: B006
    k: Annotated[int, typer.Option(help="Facts to return (1-30).")] = 15,
    at: Annotated[datetime | None, typer.Option(help="World-time instant (UTC).")] = None,
    namespace: NamespaceOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Facts the memory holds true, with evidence and validity."""
    settings = _settings(namespace)
    addresses = resolve_addresses(settings)
    request = query_service_pb2.FactsContextRequest(
        namespace=settings.namespace, query=query, entity_ids=entity, k=k
    )
    if at is not None:
        request.time_scope.at.valid_at.CopyFrom(timestamp(at.replace(tzinfo=at.tzinfo or UTC)))

    async def body() -> None:
        async with connect(addresses, ClientSecurity.from_settings(settings)) as stubs:
            response = await stubs.query.FactsContext(request)
        if as_json:
            print_json(console, response)
        else:
            print_facts(console, response)

    run_command(body(), addresses)


@app.command()
def claims(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option(help="Claims and chunks to return (1-100).")] = 10,
    namespace: NamespaceOption = None,
    as_json: JsonFlag = False,
) -> None:
    """What the sources said: current-testimony claims and chunks."""
    settings = _settings(namespace)
    addresses = resolve_addresses(settings)
    request = query_service_pb2.ClaimsAndSourcesContextRequest(
        namespace=settings.namespace, query=query, k=k
    )

    async def body() -> None:
        async with connect(addresses, ClientSecurity.from_settings(settings)) as stubs:
            response = await stubs.query.ClaimsAndSourcesContext(request)
        if as_json:
            print_json(console, response)
            return
        table = Table(title=f"{len(response.claims)} claim(s)")
        for column in ("claim", "said on", "sources", "document"):
            table.add_column(column)
        for claim in response.claims:
            table.add_row(
                claim.claim_text,
                claim.asserted_at.ToJsonString() if claim.HasField("asserted_at") else "",
                str(claim.corroboration_count),
                claim.document_title,
            )
        console.print(table)

    run_command(body(), addresses)


@app.command()
def status(namespace: NamespaceOption = None, as_json: JsonFlag = False) -> None:
    """Health of each service and the documents known to the memory.

    Exits 1 when any service is unreachable or not serving.
    """
    settings = _settings(namespace)
    addresses = resolve_addresses(settings)

    async def body() -> list[str]:
        health: dict[str, str] = {}
        async with connect(addresses, ClientSecurity.from_settings(settings)) as stubs:
            for name in SERVICE_NAMES:
                stub = health_pb2_grpc.HealthStub(stubs.channels[name])
                try:
                    reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=3.0)
                    health[name] = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
                except grpc.aio.AioRpcError as error:
                    health[name] = f"UNREACHABLE ({error.code().name})"
            down = [name for name in SERVICE_NAMES if health[name] != "SERVING"]
            documents = None
            if health["ingest"] == "SERVING":
                documents = await stubs.ingest.ListDocuments(
                    ingest_service_pb2.ListDocumentsRequest(
                        namespace=settings.namespace, page_size=500
                    )
                )
        if as_json:
            console.print_json(
                data={
                    "services": {
                        n: {"address": addresses[n], "health": health[n]} for n in SERVICE_NAMES
                    },
                    "documents": [message_to_data(d) for d in documents.documents]
                    if documents
                    else [],
                }
            )
            return down
        table = Table(title="services")
        for column in ("service", "address", "health"):
            table.add_column(column)
        for name in SERVICE_NAMES:
            table.add_row(name, addresses[name], health[name])
        console.print(table)
        if documents is not None:
            more = " (first page)" if documents.next_page_token else ""
            console.print(
                f"{len(documents.documents)} document(s){more} in namespace {settings.namespace!r}"
            )
        return down

    down = run_command(body(), addresses)
    if down:
        errors.print(f"[red]not serving:[/] {', '.join(down)}. {START_HINT}", highlight=False)
        raise typer.Exit(1)


@app.command()
def reextract(
    document_ids: Annotated[
        list[str] | None, typer.Argument(help="Documents to re-read; none means all.")
    ] = None,
    namespace: NamespaceOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Re-extract documents with this deployment's extractor version; old claims stop being
    current testimony (`reextracted`) once the new ones were adjudicated."""
    settings = _settings(namespace)
    addresses = resolve_addresses(settings)
    request = ingest_service_pb2.ReextractDocumentsRequest(
        namespace=settings.namespace, document_ids=document_ids or []
    )

    async def body() -> None:
        async with connect(addresses, ClientSecurity.from_settings(settings)) as stubs:
            response = await stubs.ingest.ReextractDocuments(request)
        if as_json:
            print_json(console, response)
        else:
            console.print(
                f"{len(response.version_ids)} version(s) queued for re-extraction with "
                f"{response.extractor_version}"
            )

    run_command(body(), addresses)


@app.command()
def migrate() -> None:
    """Bring the database schema to this build's head (embedded database unless a URL is set)."""
    settings = _settings()

    async def body() -> str:
        url, embedded = resolve_database_url(settings.database_url, Path(settings.data_dir))
        try:
            await upgrade_to_head(url)
        finally:
            if embedded is not None:
                embedded.stop()
        return head_revision()

    console.print(f"schema at revision {asyncio.run(body())}")


if __name__ == "__main__":
    app()
