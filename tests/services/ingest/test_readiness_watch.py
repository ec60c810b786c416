"""WatchReadiness wakes on the database's NOTIFY instead of polling, and each credential may
hold only so many streams open."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid

import grpc
import grpc.aio
from rememberstack.v1 import document_pb2, ingest_service_pb2, ingest_service_pb2_grpc
from sqlalchemy import update

from services.ingest.app import build_server
from services.ingest.config import IngestSettings
from shared.db.engine import unit_of_work
from shared.db.models import Document, DocumentVersion, Namespace, VersionStage
from shared.grpc.channel import ClientSecurity, open_channel
from shared.grpc.errors import retry_delay_seconds
from shared.pipeline.stages import PIPELINE_STAGES
from tests.support.credentials import KeyFile


async def _idle_version(factory, namespace: str) -> uuid.UUID:
    """A version with every stage pending and no work item: nothing will move it."""
    async with unit_of_work(factory) as session:
        session.add(Namespace(namespace=namespace))
        document = Document(namespace=namespace, identity_key=f"idle-{uuid.uuid4()}")
        session.add(document)
        await session.flush()
        version = DocumentVersion(
            namespace=namespace,
            document_id=document.id,
            version_number=1,
            content=b"idle",
            content_sha256=hashlib.sha256(b"idle").hexdigest(),
            media_type="text/plain",
        )
        session.add(version)
        await session.flush()
        for stage in PIPELINE_STAGES:
            session.add(VersionStage(namespace=namespace, version_id=version.id, stage=stage))
    return version.id


async def test_stage_write_reaches_an_open_stream_at_once_not_at_the_next_poll(
    ingest, session_factory, namespace
):
    version_id = await _idle_version(session_factory, namespace)
    stream = ingest.stub.WatchReadiness(
        ingest_service_pb2.WatchReadinessRequest(namespace=namespace, version_ids=[str(version_id)])
    )
    first = await stream.read()
    assert not first.all_settled
    async with unit_of_work(session_factory) as session:
        await session.execute(
            update(VersionStage)
            .where(VersionStage.version_id == version_id, VersionStage.stage == "convert")
            .values(status="running")
        )
    started = time.perf_counter()
    async with asyncio.timeout(5):  # the safety-net re-read is 10 s away
        second = await stream.read()
    assert time.perf_counter() - started < 5
    [state] = second.versions
    statuses = {s.stage: s.status for s in state.stages}
    assert statuses[document_pb2.STAGE_CONVERT] == document_pb2.STAGE_STATUS_RUNNING
    stream.cancel()


async def test_streams_past_the_per_credential_bound_are_resource_exhausted(
    database_url, db_engine, session_factory, rules_extractor, minilm, namespace, tmp_path
):
    version_id = await _idle_version(session_factory, namespace)
    keys = KeyFile(tmp_path / "keys.yaml")
    key = keys.add("watcher", ["read"], [namespace])
    settings = IngestSettings(
        database_url=database_url,
        port=0,
        admission_watch_streams=2,
        auth_api_keys_file=keys.path,
    )
    server = await build_server(
        settings, engine=db_engine, extractor=rules_extractor, embedder=minilm
    )
    await server.start()
    channel = open_channel(server.address, security=ClientSecurity(token=key))
    stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
    request = ingest_service_pb2.WatchReadinessRequest(
        namespace=namespace, version_ids=[str(version_id)]
    )
    try:
        open_streams = [stub.WatchReadiness(request) for _ in range(2)]
        for stream in open_streams:
            await stream.read()
        third = stub.WatchReadiness(request)
        try:
            await third.read()
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert retry_delay_seconds(error) is not None
        else:
            raise AssertionError("a third stream should have been refused")
        open_streams[0].cancel()
        await asyncio.sleep(0.2)
        again = stub.WatchReadiness(request)
        assert not (await again.read()).all_settled  # a closed stream frees its slot
        again.cancel()
        open_streams[1].cancel()
    finally:
        await channel.close()
        await server.stop(grace=1)
