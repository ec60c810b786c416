"""Fuzzing every RPC: no INTERNAL or UNKNOWN answer, no process death, and a rejected write
leaves the store byte-identical.

Requests are drawn from each request's descriptor (tests/support/fuzz.py), with ids that exist
in this namespace and in another one. The default run draws a few examples per RPC; the
`slow` run many more.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rememberstack.v1 import ingest_service_pb2
from sqlalchemy import text

from shared.auth.rpc_policy import RPC_POLICIES
from shared.grpc.errors import parse_rich_error
from shared.grpc.request_guard import inspect_request
from tests.security.server_thread import ServerThread
from tests.support.fuzz import message_strategy
from tests.support.rpcs import ALL_RPCS, Rpc, invoke

BROKEN = (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
SEED = (
    "Ravi Patel works on the billing migration. Dana Kim leads the payments team.\n\n"
    "On 3 March 2026 Ravi moved to the search team. Dana said the migration is late."
)
_FUZZ_SETTINGS = {
    "deadline": None,
    "derandomize": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


class Fuzzed:
    def __init__(self, thread: ServerThread, home: str, other: str, pool: list[str]) -> None:
        self.thread, self.home, self.other, self.pool = thread, home, other, pool


async def _seed(thread: ServerThread, namespace: str) -> None:
    rpc = next(r for r in ALL_RPCS if r.name == "IngestDocument")
    request = ingest_service_pb2.IngestDocumentRequest(
        namespace=namespace, content=SEED.encode(), media_type="text/plain", title="Seed notes"
    )
    code, _, error = await invoke(thread.channels["ingest"], rpc, [request])
    assert code == grpc.StatusCode.OK, error
    await thread.queue_idle({namespace})


async def _ids(thread: ServerThread, namespaces: list[str]) -> list[str]:
    assert thread.engine is not None
    queries = [
        "SELECT id::text FROM documents WHERE namespace = ANY(:ns)",
        "SELECT id::text FROM document_versions WHERE namespace = ANY(:ns)",
        "SELECT id::text FROM chunks WHERE namespace = ANY(:ns)",
        "SELECT id::text FROM claims WHERE namespace = ANY(:ns)",
        "SELECT id::text FROM entities WHERE namespace = ANY(:ns)",
        "SELECT id::text FROM facts WHERE namespace = ANY(:ns)",
        "SELECT id::text FROM work_items WHERE namespace = ANY(:ns)",
    ]
    ids: list[str] = []
    async with thread.engine.connect() as connection:
        for query in queries:
            rows = await connection.execute(text(query), {"ns": namespaces})
            ids.extend(row[0] for row in rows)
    return ids


@pytest.fixture(scope="module")
def fuzzed(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzzed]:
    suffix = uuid.uuid4().hex[:8]
    home, other = f"fuzz-{suffix}", f"fuzz-other-{suffix}"
    data_dir: Path = tmp_path_factory.mktemp("fuzz")
    thread = ServerThread(database_url, data_dir, namespace=home)
    thread.start()
    try:
        thread.run(_seed(thread, home))
        thread.run(_seed(thread, other))
        pool = thread.run(_ids(thread, [home, other]))
        pool += [home, other, "text/plain", "text/markdown", "works_on", "other:likes_tea"]
        yield Fuzzed(thread, home, other, pool)
    finally:
        thread.stop()


def _is_write(rpc: Rpc) -> bool:
    return RPC_POLICIES[rpc.method].admission == "write"


async def _call_and_check(fuzzed: Fuzzed, rpc: Rpc, request: Any) -> None:
    thread = fuzzed.thread
    # A name PostgreSQL could not store (NUL) has no rows to watch.
    named = {
        ns or fuzzed.home
        for ns in inspect_request(request).namespaces
        if len(ns) <= 128 and "\x00" not in ns
    }
    watched = {fuzzed.home, fuzzed.other} | named
    before = await thread.snapshot(watched) if _is_write(rpc) else None
    requests = [request] if not rpc.client_streaming else [request, request]
    code, _, error = await invoke(thread.channels[rpc.service], rpc, requests)
    assert code not in BROKEN, f"{rpc.name} answered {code}: {error and error.details()}"
    if before is not None and code != grpc.StatusCode.OK:
        after = await thread.snapshot(watched)
        changed = sorted(t for t in before if before[t] != after[t])
        assert not changed, f"rejected {rpc.name} ({code}) changed {changed}"
    if before is not None and code == grpc.StatusCode.OK:
        # Let what the write queued finish, so the next example's snapshot is stable.
        await thread.queue_idle(watched)


def _request_strategy(fuzzed_pool: list[str], rpc: Rpc) -> st.SearchStrategy[Any]:
    return message_strategy(
        rpc.request_type.DESCRIPTOR, strings=fuzzed_pool, blobs=[SEED.encode(), b"\xff\xfe"]
    )


def _fuzz(fuzzed: Fuzzed, rpc: Rpc, examples: int) -> None:
    @settings(max_examples=examples, **_FUZZ_SETTINGS)  # type: ignore[arg-type]
    @given(request=_request_strategy(fuzzed.pool, rpc))
    def check(request: Any) -> None:
        fuzzed.thread.run(_call_and_check(fuzzed, rpc, request))

    check()
    for name, channel in fuzzed.thread.channels.items():
        status = fuzzed.thread.run(_health(channel))
        assert status == health_pb2.HealthCheckResponse.SERVING, f"{name} is not serving"


async def _health(channel: grpc.aio.Channel) -> int:
    reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    return reply.status


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=lambda rpc: rpc.name)
def test_fuzzed_requests_never_break_a_service_or_half_write(fuzzed, rpc):
    _fuzz(fuzzed, rpc, examples=8)


@pytest.mark.slow
@pytest.mark.parametrize("rpc", ALL_RPCS, ids=lambda rpc: rpc.name)
def test_fuzzed_requests_long_run(fuzzed, rpc):
    _fuzz(fuzzed, rpc, examples=150)


def _identity(payload: bytes) -> bytes:
    return payload


async def _raw(fuzzed: Fuzzed, rpc: Rpc, payload: bytes) -> grpc.StatusCode:
    channel = fuzzed.thread.channels[rpc.service]
    try:
        if rpc.client_streaming:
            await channel.stream_unary(rpc.method, _identity, _identity)(iter([payload]))
        elif rpc.server_streaming:
            stream = channel.unary_stream(rpc.method, _identity, _identity)(payload)
            await stream.read()
            stream.cancel()
        else:
            await channel.unary_unary(rpc.method, _identity, _identity)(payload, timeout=30)
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=lambda rpc: rpc.name)
def test_bytes_that_are_no_message_are_invalid_argument(fuzzed, rpc):
    # Field 1 as length-delimited with a length running past the end; then a string that is
    # not UTF-8.
    for payload in (b"\x0a\xff\x01", b"\x0a\x02\xff\xfe"):
        assert fuzzed.thread.run(_raw(fuzzed, rpc, payload)) == grpc.StatusCode.INVALID_ARGUMENT


def _string_paths(descriptor: Any, prefix: str = "", depth: int = 0) -> Iterator[tuple[str, list]]:
    """(wire path, attribute steps) of every string field reachable in a request."""
    for fd in descriptor.fields:
        if fd.type == fd.TYPE_STRING:
            yield (f"{prefix}{fd.name}[0]" if fd.is_repeated else f"{prefix}{fd.name}"), [fd]
        elif fd.type == fd.TYPE_MESSAGE and not fd.is_repeated and depth < 3:
            for path, steps in _string_paths(fd.message_type, f"{prefix}{fd.name}.", depth + 1):
                yield path, [fd, *steps]


def _with_nul(rpc: Rpc, steps: list) -> Any:
    request = rpc.request_type()
    target = request
    for fd in steps[:-1]:
        target = getattr(target, fd.name)
    last = steps[-1]
    if last.is_repeated:
        getattr(target, last.name).append("ok\x00")
    else:
        setattr(target, last.name, "ok\x00")
    return request


_NUL_CASES = [
    pytest.param(rpc, path, steps, id=f"{rpc.name}:{path}")
    for rpc in ALL_RPCS
    for path, steps in _string_paths(rpc.request_type.DESCRIPTOR)
]


@pytest.mark.parametrize(("rpc", "path", "steps"), _NUL_CASES)
def test_nul_in_any_string_field_is_invalid_argument_naming_it(fuzzed, rpc, path, steps):
    request = _with_nul(rpc, steps)
    code, _, error = fuzzed.thread.run(invoke(fuzzed.thread.channels[rpc.service], rpc, [request]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, error and error.details()
    wire_path = path.replace("document.", "documents[0].", 1) if rpc.client_streaming else path
    assert wire_path in {v.field for v in parse_rich_error(error).field_violations}
