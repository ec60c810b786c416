"""rememberstack-client installed alone in a fresh venv, calling the live in-process services."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import timestamp_pb2
from rememberstack.v1 import common_pb2, ingest_service_pb2, query_service_pb2
from rememberstack_client import AsyncClient, Endpoints, InvalidArgumentError, NotFoundError

from shared.grpc.server import GrpcServer

ROOT = Path(__file__).resolve().parents[2]

# Runs in the fresh venv: only the client package and its three dependencies are there.
SCRIPT = """
import importlib.util, json, sys
from datetime import datetime, timezone
from google.protobuf import timestamp_pb2
from rememberstack.v1 import common_pb2, ingest_service_pb2, query_service_pb2
from rememberstack_client import Client, Endpoints, InvalidArgumentError

endpoints = Endpoints(*sys.argv[1:5])
server_side = ("sqlalchemy", "shared", "spacy")
out = {"server_packages": [m for m in server_side if importlib.util.find_spec(m)]}
with Client(endpoints, bearer_token="ignored-by-an-open-server") as client:
    created = client.ingest.IngestDocument(ingest_service_pb2.IngestDocumentRequest(
        namespace=sys.argv[5], media_type="text/plain", title="Standup",
        content=b"Ravi Patel leads the payments team. Dana Kim works at Acme.",
    ))
    states = client.wait_until_settled(
        [created.version_id], namespace=sys.argv[5], timeout_seconds=120
    )
    out["ready"] = [s.ready for s in states]
    now = timestamp_pb2.Timestamp()
    now.FromDatetime(datetime.now(timezone.utc))
    facts = client.query.FactsContext(query_service_pb2.FactsContextRequest(
        namespace=sys.argv[5], query="payments team",
        time_scope=common_pb2.TimeScope(at=common_pb2.AtScope(valid_at=now)),
    ))
    out["labels"] = [f.label for f in facts.facts]
    out["scope"] = facts.temporal_scope.WhichOneof("scope")
    try:
        client.query.FactsContext(query_service_pb2.FactsContextRequest(query="x", k=31, hops=9))
    except InvalidArgumentError as error:
        out["error"] = [error.reason, sorted(v.field for v in error.field_violations)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def client_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.fail("uv is needed to build the fresh client venv (make install provides it)")
    venv = tmp_path_factory.mktemp("client-venv") / "venv"
    python = venv / "bin" / "python"

    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(python), str(ROOT / "clients/python")],
        check=True,
    )
    return python


@pytest.mark.slow  # ~40 s: a venv, an install, and a document through the whole pipeline
async def test_client_package_alone_ingests_waits_reads_and_decodes_errors(
    servers: dict[str, GrpcServer], client_venv: Path
) -> None:
    addresses = [servers[name].address for name in ("ingest", "adjudicator", "query", "graph")]
    # The blocking client runs in a child process, so this loop keeps serving its calls.
    child = await asyncio.create_subprocess_exec(
        str(client_venv), "-c", SCRIPT, *addresses, "client-venv",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=client_venv.parent.parent,  # not the checkout, whose packages would be importable
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(child.communicate(), timeout=180)
    assert child.returncode == 0, stderr.decode()
    out = json.loads(stdout)
    assert out["server_packages"] == []
    assert out["ready"] == [True]
    assert out["scope"] == "at"
    assert any("payments team" in label.lower() for label in out["labels"]), out["labels"]
    assert out["error"] == ["INVALID_ARGUMENT", ["hops", "k"]]


def _endpoints(servers: dict[str, GrpcServer]) -> Endpoints:
    return Endpoints(**{name: server.address for name, server in servers.items()})


async def test_async_client_waits_for_readiness_and_reads_as_of_both_clocks(
    servers: dict[str, GrpcServer],
) -> None:
    namespace = "async-client"
    async with AsyncClient(_endpoints(servers)) as client:
        created = await client.ingest.IngestDocument(
            ingest_service_pb2.IngestDocumentRequest(
                namespace=namespace,
                media_type="text/plain",
                content=b"Mina Okafor leads the search team.",
            )
        )
        states = await client.wait_until_settled([created.version_id], namespace=namespace)
        assert [(s.version_id, s.ready) for s in states] == [(created.version_id, True)]
        now = timestamp_pb2.Timestamp()
        now.GetCurrentTime()
        as_of = common_pb2.AsOfScope(valid_at=now, believed_at=now)
        facts = await client.query.FactsContext(
            query_service_pb2.FactsContextRequest(
                namespace=namespace,
                query="search team",
                time_scope=common_pb2.TimeScope(as_of=as_of),
            )
        )
        assert any("search team" in f.label for f in facts.facts)


async def test_async_client_raises_typed_errors_naming_fields_and_reasons(
    servers: dict[str, GrpcServer],
) -> None:
    half = common_pb2.TimeScope(as_of=common_pb2.AsOfScope(valid_at=timestamp_pb2.Timestamp()))
    async with AsyncClient(_endpoints(servers)) as client:
        with pytest.raises(InvalidArgumentError) as invalid:
            await client.query.FactsContext(
                query_service_pb2.FactsContextRequest(query="x", time_scope=half)
            )
        with pytest.raises(NotFoundError) as missing:
            await client.ingest.GetDocument(
                ingest_service_pb2.GetDocumentRequest(
                    document_id="00000000-0000-0000-0000-000000000000"
                )
            )
    assert "time_scope.as_of.believed_at" in {v.field for v in invalid.value.field_violations}
    assert (missing.value.reason, missing.value.domain) == ("NOT_FOUND", "rememberstack")
