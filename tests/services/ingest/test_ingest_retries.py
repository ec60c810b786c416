"""A failing stage retries with back-off, dead-letters after three attempts, and a replay
resets both the work item and the stage rows so the version completes."""

from __future__ import annotations

from rememberstack.v1 import document_pb2, ingest_service_pb2
from sqlalchemy import text

pb = ingest_service_pb2
FAIL_MARKER = "EXPLODE-IN-EXTRACTION"


def statuses(version: document_pb2.VersionReadiness) -> dict[int, tuple[int, int]]:
    return {s.stage: (s.status, s.attempts) for s in version.stages}


async def test_failing_extraction_dead_letters_after_three_attempts_and_replay_recovers(
    ingest, namespace: str
) -> None:
    body = f"Dana approved the plan. {FAIL_MARKER} appears in this note."
    result = await ingest.ingest(namespace, body)
    ingest.extractor.armed = True
    states = await ingest.settle(namespace, [result.version_id])
    version = states[result.version_id]
    assert version.dead_lettered and not version.ready
    stages = statuses(version)
    dead = (document_pb2.STAGE_STATUS_DEAD_LETTER, 3)
    assert [stages[s] for s in (1, 2, 3)] == [dead, dead, dead]
    assert stages[4][0] == document_pb2.STAGE_STATUS_PENDING
    errors = {s.last_error for s in version.stages if s.stage <= 3}
    assert errors == {"RuntimeError: marker text makes extraction fail"}
    [(status, attempts)] = await ingest.rows(
        "SELECT status, attempts FROM work_items WHERE namespace = :ns AND kind = 'ingest.extract'",
        ns=namespace,
    )
    assert (status, attempts) == ("dead_letter", 3)
    assert await ingest.rows("SELECT 1 FROM claims WHERE namespace = :ns", ns=namespace) == []

    ingest.extractor.armed = False
    try:
        replayed = await ingest.stub.ReplayIngestDeadLetters(
            pb.ReplayIngestDeadLettersRequest(namespace=namespace, version_ids=[result.version_id])
        )
        assert replayed.replayed == 1
        states = await ingest.settle(namespace, [result.version_id])
    finally:
        ingest.extractor.armed = True
    version = states[result.version_id]
    assert version.ready and version.claim_count >= 1
    assert all(s.last_error == "" for s in version.stages)


async def test_failed_attempt_is_visible_as_failed_before_dead_letter(
    ingest, namespace: str
) -> None:
    result = await ingest.ingest(namespace, f"Omar wrote this. {FAIL_MARKER}")
    request = pb.WatchReadinessRequest(namespace=namespace, version_ids=[result.version_id])
    seen: set[tuple[int, int]] = set()
    async for update in ingest.stub.WatchReadiness(request):
        for version in update.versions:
            seen |= {(s.stage, s.status) for s in version.stages}
        if update.all_settled:
            break
    assert (document_pb2.STAGE_EXTRACT, document_pb2.STAGE_STATUS_FAILED) in seen
    assert (document_pb2.STAGE_EXTRACT, document_pb2.STAGE_STATUS_DEAD_LETTER) in seen


async def test_item_abandoned_by_a_dead_worker_on_its_last_attempt_settles_as_dead_letter(
    ingest, namespace: str
) -> None:
    """A worker that died holding the last attempt never ran the stage code; readiness must
    still settle instead of showing the stage as running forever."""
    parked = await ingest.ingest(namespace, b"\x89PNG...", media_type="image/png")
    async with ingest.factory() as session, session.begin():
        await session.execute(
            text(
                "WITH s AS (UPDATE version_stages SET status = 'running' "
                "  WHERE version_id = CAST(:v AS uuid) AND stage = 'convert' RETURNING 1) "
                "INSERT INTO work_items (namespace, kind, payload, status, attempts, max_attempts,"
                " locked_by, locked_until, version_id) "
                "SELECT :ns, 'ingest.extract', jsonb_build_object('version_id', :v),"
                " 'running', 3, 3,"
                " 'a-worker-that-died', now() - interval '1 minute', CAST(:v AS uuid) FROM s "
                "RETURNING id"
            ),
            {"ns": namespace, "v": parked.version_id},
        )
    states = await ingest.settle(namespace, [parked.version_id])
    version = states[parked.version_id]
    assert version.dead_lettered
    convert = next(s for s in version.stages if s.stage == document_pb2.STAGE_CONVERT)
    assert convert.status == document_pb2.STAGE_STATUS_DEAD_LETTER
