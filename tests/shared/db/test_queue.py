"""Work queue: dedupe, exclusive claims, back-off and dead letters, leases, the Worker loop."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.engine import unit_of_work
from shared.db.models import Namespace, WorkItem
from shared.db.queue import (
    LeaseLostError,
    Worker,
    claim,
    complete,
    enqueue,
    fail,
    replay_dead_letters,
)

Factory = async_sessionmaker[AsyncSession]


async def _add(factory: Factory, namespace: str, kind: str, **kwargs: object) -> uuid.UUID:
    async with unit_of_work(factory) as session:
        item_id = await enqueue(session, namespace, kind, {"n": 1}, **kwargs)  # type: ignore[arg-type]
    assert item_id is not None
    return item_id


async def _get(factory: Factory, item_id: uuid.UUID) -> WorkItem:
    async with factory() as session:
        return (await session.execute(select(WorkItem).where(WorkItem.id == item_id))).scalar_one()


async def _make_runnable_now(factory: Factory, item_id: uuid.UUID) -> None:
    """Skip the back-off wait instead of sleeping through it."""
    async with unit_of_work(factory) as session:
        await session.execute(
            update(WorkItem).where(WorkItem.id == item_id).values(run_after=func.now())
        )


async def _wait_for_status(factory: Factory, item_id: uuid.UUID, statuses: set[str]) -> WorkItem:
    """Wait (bounded, so a broken worker fails the test) until the item reaches `statuses`."""
    async with asyncio.timeout(10):
        while True:
            item = await _get(factory, item_id)
            if item.status in statuses:
                return item
            await asyncio.sleep(0.05)


async def test_enqueue_same_dedupe_key_twice_creates_one_item(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"dedupe-{namespace}"
    async with unit_of_work(session_factory) as session:
        first = await enqueue(session, namespace, kind, {"a": 1}, dedupe_key="v1")
        second = await enqueue(session, namespace, kind, {"a": 2}, dedupe_key="v1")
        other_namespace = await enqueue(session, f"{namespace}-b", kind, {}, dedupe_key="v1")
        undeduped = [await enqueue(session, namespace, kind, {}) for _ in range(2)]
    assert first is not None and other_namespace is not None
    assert second is None
    assert all(item_id is not None for item_id in undeduped)
    async with session_factory() as session:
        count = await session.scalar(
            select(func.count()).select_from(WorkItem).where(WorkItem.namespace == namespace)
        )
    assert count == 3
    assert (await _get(session_factory, first)).payload == {"a": 1}


async def test_concurrent_claimers_never_receive_the_same_item(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"race-{namespace}"
    enqueued = {await _add(session_factory, namespace, kind) for _ in range(4)}
    claims = await asyncio.gather(
        *(claim(session_factory, [kind], f"worker-{i}", 60) for i in range(6))
    )
    claimed = [item for item in claims if item is not None]
    assert len({item.id for item in claimed}) == len(claimed)
    assert {item.id for item in claimed} == enqueued
    assert all(item.status == "running" and item.attempts == 1 for item in claimed)


async def test_item_with_future_run_after_is_not_claimed(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"later-{namespace}"
    later = datetime.now(UTC) + timedelta(hours=1)
    await _add(session_factory, namespace, kind, run_after=later)
    assert await claim(session_factory, [kind], "w", 60) is None


async def test_failures_back_off_then_dead_letter_after_three_attempts_then_replay(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"flaky-{namespace}"
    item_id = await _add(session_factory, namespace, kind)
    expected = [("failed", 2.0), ("failed", 4.0), ("dead_letter", None)]
    for attempt, (status, delay) in enumerate(expected, start=1):
        item = await claim(session_factory, [kind], "w", 60)
        assert item is not None and item.id == item_id and item.attempts == attempt
        async with unit_of_work(session_factory) as session:
            assert await fail(session, item_id, "w", f"boom {attempt}") == status
        stored = await _get(session_factory, item_id)
        assert stored.last_error == f"boom {attempt}" and stored.locked_by is None
        if delay is not None:
            assert (stored.run_after - stored.updated_at).total_seconds() == delay
        await _make_runnable_now(session_factory, item_id)
    assert await claim(session_factory, [kind], "w", 60) is None

    async with unit_of_work(session_factory) as session:
        assert await replay_dead_letters(session, namespace, kinds=[kind]) == 1
    replayed = await claim(session_factory, [kind], "w", 60)
    assert replayed is not None and replayed.id == item_id and replayed.attempts == 1


async def test_replay_dead_letters_touches_only_the_given_ids_in_the_namespace(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"replay-{namespace}"
    ids = [await _add(session_factory, namespace, kind) for _ in range(2)]
    async with unit_of_work(session_factory) as session:
        await session.execute(
            update(WorkItem).where(WorkItem.id.in_(ids)).values(status="dead_letter")
        )
    async with unit_of_work(session_factory) as session:
        assert await replay_dead_letters(session, f"{namespace}-other") == 0
        assert await replay_dead_letters(session, namespace, ids=[ids[0]]) == 1
    assert (await _get(session_factory, ids[0])).status == "pending"
    assert (await _get(session_factory, ids[1])).status == "dead_letter"


async def test_expired_lease_is_reclaimed_and_the_old_worker_cannot_complete(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"lease-{namespace}"
    item_id = await _add(session_factory, namespace, kind)
    assert await claim(session_factory, [kind], "crashed", 60) is not None
    assert await claim(session_factory, [kind], "other", 60) is None
    async with unit_of_work(session_factory) as session:
        await session.execute(
            update(WorkItem)
            .where(WorkItem.id == item_id)
            .values(locked_until=func.now() - timedelta(seconds=1))
        )
    taken = await claim(session_factory, [kind], "other", 60)
    assert taken is not None and taken.id == item_id
    assert taken.locked_by == "other" and taken.attempts == 2
    with pytest.raises(LeaseLostError):
        async with unit_of_work(session_factory) as session:
            await complete(session, item_id, "crashed")
    async with unit_of_work(session_factory) as session:
        await complete(session, item_id, "other")
    assert (await _get(session_factory, item_id)).status == "succeeded"


async def test_expired_lease_with_no_attempts_left_is_dead_lettered(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"exhausted-{namespace}"
    item_id = await _add(session_factory, namespace, kind)
    async with unit_of_work(session_factory) as session:
        await session.execute(
            update(WorkItem)
            .where(WorkItem.id == item_id)
            .values(
                status="running",
                attempts=3,
                locked_by="crashed",
                locked_until=func.now() - timedelta(seconds=1),
            )
        )
    assert await claim(session_factory, [kind], "other", 60) is None
    stored = await _get(session_factory, item_id)
    assert stored.status == "dead_letter"
    assert stored.last_error is not None and "crashed" in stored.last_error


async def test_worker_woken_by_notification_runs_handler_and_commits_with_success(
    session_factory: Factory, namespace: str, database_url: str
) -> None:
    kind = f"notified-{namespace}"
    handled: list[uuid.UUID] = []

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        if not handled:
            session.add(Namespace(namespace=namespace))
        handled.append(item.id)

    # A poll interval longer than the bounded wait: only a notification can wake the worker.
    worker = Worker(session_factory, [kind], handler, "w-notify", 60.0, 30.0, database_url)
    await worker.start()
    try:
        # The first item proves the loop is running; after it the worker sleeps until notified.
        first_id = await _add(session_factory, namespace, kind, dedupe_key="first")
        await _wait_for_status(session_factory, first_id, {"succeeded"})
        await asyncio.sleep(0.2)  # let the loop go back to waiting before the next enqueue
        item_id = await _add(session_factory, namespace, kind, dedupe_key="second")
        item = await _wait_for_status(session_factory, item_id, {"succeeded"})
    finally:
        await worker.stop()
    assert handled == [first_id, item_id]
    assert item.locked_by is None
    async with session_factory() as session:
        assert await session.get(Namespace, namespace) is not None


async def test_worker_handler_exception_rolls_back_its_writes_and_records_failure(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"failing-{namespace}"

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        session.add(Namespace(namespace=namespace))
        await session.flush()
        raise ValueError("extractor exploded")

    item_id = await _add(session_factory, namespace, kind)
    worker = Worker(session_factory, [kind], handler, "w-fail", poll_seconds=60.0)
    await worker.start()
    try:
        item = await _wait_for_status(session_factory, item_id, {"failed", "dead_letter"})
    finally:
        await worker.stop()
    assert item.status == "failed" and item.attempts == 1
    assert item.last_error == "ValueError: extractor exploded"
    async with session_factory() as session:
        assert await session.get(Namespace, namespace) is None


async def test_failure_hook_writes_commit_with_the_items_failure_and_a_faulty_hook_is_contained(
    session_factory: Factory, namespace: str
) -> None:
    """Whatever the hook writes about a failure becomes visible together with the item's new
    status (one transaction), and a hook that raises still leaves the failure recorded."""
    kind = f"hooked-{namespace}"
    seen: list[tuple[str, str, str | None]] = []

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        raise ValueError(f"boom {item.payload['n']}")

    async def hook(session: AsyncSession, item: WorkItem, status: str, exc: BaseException) -> None:
        # The item's failure is already written in this transaction, and not yet committed.
        own = (
            await session.execute(select(WorkItem.status).where(WorkItem.id == item.id))
        ).scalar_one()
        async with session_factory() as other:
            outside = (
                await other.execute(select(WorkItem.status).where(WorkItem.id == item.id))
            ).scalar_one()
        seen.append((status, own, outside))
        if item.payload["n"] == 2:
            raise RuntimeError("hook bug")
        session.add(Namespace(namespace=f"{namespace}-{item.payload['n']}"))

    async with unit_of_work(session_factory) as session:
        first = await enqueue(session, namespace, kind, {"n": 1})
        second = await enqueue(session, namespace, kind, {"n": 2})
        # One attempt each, so the first failure is the dead letter.
        await session.execute(
            update(WorkItem).where(WorkItem.id.in_([first, second])).values(max_attempts=1)
        )
    worker = Worker(session_factory, [kind], handler, "w-hook", poll_seconds=0.1, on_failure=hook)
    await worker.start()
    try:
        for item_id in (first, second):
            assert item_id is not None
            item = await _wait_for_status(session_factory, item_id, {"dead_letter"})
            assert item.last_error.startswith("ValueError: boom")
    finally:
        await worker.stop()
    assert sorted(seen) == [("dead_letter", "dead_letter", "running")] * 2
    async with session_factory() as session:
        assert await session.get(Namespace, f"{namespace}-1") is not None
        assert await session.get(Namespace, f"{namespace}-2") is None


async def test_worker_stopped_mid_item_hands_it_back_without_spending_an_attempt(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"stuck-{namespace}"
    started = asyncio.Event()

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        session.add(Namespace(namespace=namespace))
        await session.flush()
        started.set()
        await asyncio.Event().wait()  # never finishes on its own

    item_id = await _add(session_factory, namespace, kind)
    worker = Worker(session_factory, [kind], handler, "w-stop", poll_seconds=60.0)
    await worker.start()
    async with asyncio.timeout(10):
        await started.wait()
    await worker.stop(grace_seconds=0.1)
    item = await _get(session_factory, item_id)
    assert (item.status, item.attempts, item.locked_by) == ("pending", 0, None)
    async with session_factory() as session:
        assert await session.get(Namespace, namespace) is None


async def test_heartbeat_keeps_a_long_item_while_a_dead_workers_item_moves_on_in_seconds(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"heartbeat-{namespace}"
    ran: list[str] = []
    release = asyncio.Event()

    async def slow(session: AsyncSession, item: WorkItem) -> None:
        ran.append(f"slow:{item.id}")
        await release.wait()

    async def quick(session: AsyncSession, item: WorkItem) -> None:
        ran.append(f"quick:{item.id}")

    long_item = await _add(session_factory, namespace, kind)
    first = Worker(session_factory, [kind], slow, "w-slow", poll_seconds=0.1, lease_seconds=1.5)
    await first.start()
    await _wait_for_status(session_factory, long_item, {"running"})
    # A worker killed with -9 holds a lease nobody renews: claim one and walk away.
    orphan = await _add(session_factory, namespace, kind)
    assert (await claim(session_factory, [kind], "w-killed", 1.5, item_id=orphan)) is not None
    second = Worker(session_factory, [kind], quick, "w-quick", poll_seconds=0.1, lease_seconds=1.5)
    await second.start()
    try:
        taken = await _wait_for_status(session_factory, orphan, {"succeeded"})
        assert taken.attempts == 2  # the dead worker's attempt counts
        await asyncio.sleep(2.0)  # past the first lease: renewed, so never taken over
        item = await _get(session_factory, long_item)
        assert (item.status, item.locked_by) == ("running", "w-slow")
        release.set()
        await _wait_for_status(session_factory, long_item, {"succeeded"})
        assert ran.count(f"slow:{long_item}") == 1 and f"quick:{long_item}" not in ran
    finally:
        release.set()
        await first.stop()
        await second.stop()


async def test_item_whose_handler_lost_the_database_goes_back_without_spending_an_attempt(
    session_factory: Factory, namespace: str
) -> None:
    kind = f"dblost-{namespace}"
    calls = 0

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise ConnectionResetError("server closed the connection unexpectedly")

    item_id = await _add(session_factory, namespace, kind)
    worker = Worker(session_factory, [kind], handler, "w-lost", poll_seconds=0.1)
    await worker.start()
    try:
        item = await _wait_for_status(session_factory, item_id, {"succeeded"})
        assert (item.attempts, item.last_error, calls) == (1, None, 2)
    finally:
        await worker.stop()
