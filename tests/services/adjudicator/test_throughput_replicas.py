"""Adjudicator replica processes and the claim order that keeps workers off each other's locks."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.adjudicator.app import start_replicas
from services.adjudicator.config import AdjudicatorSettings as Settings
from services.adjudicator.worker import prefer_other_speakers
from shared.db.queue import claim
from shared.pipeline.kinds import ADJUDICATE_KIND


async def conversation(corpus: Any, title: str, speakers: tuple[str, str]) -> uuid.UUID:
    doc = await corpus.document(title)
    for index, speaker in enumerate(speakers):
        await corpus.claim(doc, f"I adopted a puppy in week {index}.", "I", speaker=speaker)
    return uuid.UUID(str(doc.versions[-1]))


async def test_a_worker_prefers_a_conversation_whose_speakers_no_other_worker_holds(corpus):
    kind = f"adjudicate.version.{corpus.namespace}"
    first = await corpus.enqueue(await conversation(corpus, "s1", ("Ann", "Bob")), kind=kind)
    second = await corpus.enqueue(await conversation(corpus, "s2", ("Ann", "Bob")), kind=kind)
    other = await corpus.enqueue(await conversation(corpus, "t1", ("Cy", "Di")), kind=kind)
    async with corpus.factory() as session:
        # Nobody works yet: the queue's own order.
        assert await prefer_other_speakers(session, [kind]) == first
    running = await claim(corpus.factory, [kind], "w-a", 60.0)
    assert running is not None and running.id == first
    async with corpus.factory() as session:
        # Ann and Bob are being adjudicated: the next session of their conversation waits.
        assert await prefer_other_speakers(session, [kind]) == other
    taken = await claim(corpus.factory, [kind], "w-b", 60.0, item_id=other)
    assert taken is not None and taken.id == other
    async with corpus.factory() as session:
        assert await prefer_other_speakers(session, [kind]) == second


async def test_a_replica_process_adjudicates_queued_versions_and_stops_with_its_parent_call(
    corpus, db_engine: AsyncEngine
):
    version = await conversation(corpus, "replica session", ("Mia", "Noor"))
    await corpus.enqueue(version, kind=ADJUDICATE_KIND)
    settings = Settings(
        database_url=db_engine.url.render_as_string(hide_password=False),
        log_json=False,
        worker_poll_seconds=0.2,
    )
    replicas = await start_replicas(settings, db_engine, 1)
    (process,) = replicas.processes
    try:

        async def decided_by() -> list[str]:
            async with corpus.factory() as session:
                rows = await session.execute(
                    text(
                        "SELECT DISTINCT t.decided_by FROM decision_transcripts t"
                        " WHERE t.namespace = :ns"
                    ),
                    {"ns": corpus.namespace},
                )
                return list(rows.scalars())

        async def finished() -> list[str]:
            while not (found := await decided_by()):
                assert process.returncode is None, "the replica exited"
                await asyncio.sleep(0.2)
            return found

        workers = await asyncio.wait_for(finished(), 180)
    finally:
        await replicas.stop()
    # The decisions were made in the replica: its worker ids carry its pid.
    assert all(f"-{process.pid}-" in worker for worker in workers)
    assert process.returncode is not None and replicas.processes == []
    facts = await corpus.facts()
    assert {f["subject"] for f in facts} == {"Mia", "Noor"}
