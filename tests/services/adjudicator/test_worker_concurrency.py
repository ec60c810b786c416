"""Parallel queue workers over one shuffled claim stream, and a worker killed mid-item."""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from services.adjudicator.worker import AdjudicationWorkers

PEOPLE = ["Ravi Patel", "Mei Lin", "Oskar Berg", "Dana Whitfield"]
PROJECTS = ["Billing Migration", "Ledger API", "Search Revamp"]


def day(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


async def build_stream(corpus: Any, kind: str, seed: int) -> list[uuid.UUID]:
    """Eight documents; every statement is repeated across documents, so the correct outcome
    (one fact per proposition, counted by distinct documents) does not depend on order."""
    versions = []
    for index in range(8):
        doc = await corpus.document(f"Weekly notes {index}")
        for offset, person in enumerate(PEOPLE):
            project = PROJECTS[(index + offset) % len(PROJECTS)]
            await corpus.claim(
                doc,
                f"{person} works on the {project}.",
                person,
                "works on",
                project,
                said=day(2026, 1, 1 + index),
            )
            if index % 2 == offset % 2:
                await corpus.claim(
                    doc,
                    f"{person} prefers written status updates.",
                    person,
                    said=day(2026, 1, 1 + index),
                )
        versions.append(doc.versions[-1])
    random.Random(seed).shuffle(versions)
    for version in versions:
        await corpus.enqueue(version, kind=kind)
    return versions


async def summary(corpus: Any) -> list[tuple[Any, ...]]:
    return sorted(
        (
            f["subject"],
            f["label"],
            f["kind"],
            f["predicate"],
            f["valid_from"],
            f["valid_until"],
            f["evidence_count"],
            f["support"],
            f["contradiction_group_id"] is not None,
            f["superseded_by_fact_id"] is not None,
        )
        for f in await corpus.facts()
    )


async def wait_done(corpus: Any, kind: str, limit: float = 120.0) -> None:
    async def pending() -> int:
        async with corpus.factory() as session:
            return int(
                (
                    await session.execute(
                        text(
                            "SELECT count(*) FROM work_items"
                            " WHERE kind = :k AND status <> 'succeeded'"
                        ),
                        {"k": kind},
                    )
                ).scalar_one()
            )

    async def loop() -> None:
        while await pending():  # noqa: ASYNC110 - the database is polled, there is no event
            await asyncio.sleep(0.2)

    await asyncio.wait_for(loop(), limit)


async def run_workers(
    corpus: Any, service: Any, database_url: str, kind: str, n: int
) -> list[tuple[Any, ...]]:
    workers = AdjudicationWorkers(
        corpus.factory,
        service,
        concurrency=n,
        worker_prefix=f"w{n}",
        poll_seconds=0.2,
        lease_seconds=30,
        listen_url=database_url,
        kinds=[kind],
    )
    await workers.start()
    try:
        await wait_done(corpus, kind)
    finally:
        await workers.stop()
    return await summary(corpus)


async def test_one_two_and_four_parallel_workers_end_in_the_same_facts(
    adj_service, corpus_maker, database_url
):
    results = {}
    for n in (1, 2, 4):
        corpus = corpus_maker()
        kind = f"adjudicate.version.{corpus.namespace}"
        await build_stream(corpus, kind, seed=n)
        results[n] = await run_workers(corpus, adj_service, database_url, kind, n)
    assert results[1] == results[2] == results[4]
    counts = {row[1]: row[6] for row in results[1]}
    # Each (person, project) pair recurs in the documents that rotate onto it.
    assert sum(1 for row in results[1] if row[2] == "relation") == len(PEOPLE) * len(PROJECTS)
    assert counts["Ravi Patel prefers written status updates."] == 4


async def test_worker_killed_mid_item_leaves_whole_claims_and_the_item_is_retried(
    adj_service, corpus, database_url
):
    kind = f"adjudicate.version.{corpus.namespace}"
    doc = await corpus.document("Long transcript")
    for i in range(40):
        await corpus.claim(
            doc,
            f"Ravi Patel reviewed pull request {i} of the Ledger API.",
            "Ravi Patel",
            said=day(2026, 2, 1),
        )
    item = await corpus.enqueue(doc.versions[-1], kind=kind)
    first = AdjudicationWorkers(
        corpus.factory,
        adj_service,
        concurrency=1,
        worker_prefix="k",
        poll_seconds=0.2,
        lease_seconds=30,
        kinds=[kind],
    )
    await first.start()

    async def adjudicated() -> int:
        async with corpus.factory() as session:
            return int(
                (
                    await session.execute(
                        text(
                            "SELECT count(DISTINCT claim_id) FROM assertions WHERE namespace = :ns"
                        ),
                        {"ns": corpus.namespace},
                    )
                ).scalar_one()
            )

    while await adjudicated() < 3:  # noqa: ASYNC110 - the database is polled
        await asyncio.sleep(0.05)
    await first.stop(grace_seconds=0)  # cancels the handler mid-item
    async with corpus.factory() as session:
        broken = (
            await session.execute(
                text(
                    "SELECT count(*) FROM assertions a WHERE a.namespace = :ns AND ("
                    " NOT EXISTS (SELECT 1 FROM fact_evidence e WHERE e.fact_id = a.fact_id"
                    " AND e.claim_id = a.claim_id) OR NOT EXISTS (SELECT 1"
                    " FROM decision_transcripts t WHERE t.claim_id = a.claim_id))"
                ),
                {"ns": corpus.namespace},
            )
        ).scalar_one()
        orphans = (
            await session.execute(
                text(
                    "SELECT count(*) FROM facts f WHERE f.namespace = :ns AND NOT EXISTS ("
                    " SELECT 1 FROM assertions a WHERE a.fact_id = f.id)"
                ),
                {"ns": corpus.namespace},
            )
        ).scalar_one()
        status = (
            await session.execute(text("SELECT status FROM work_items WHERE id = :i"), {"i": item})
        ).scalar_one()
    assert (broken, orphans) == (0, 0)
    assert 0 < await adjudicated() < 40 and status == "pending"
    second = AdjudicationWorkers(
        corpus.factory,
        adj_service,
        concurrency=1,
        worker_prefix="r",
        poll_seconds=0.2,
        lease_seconds=30,
        kinds=[kind],
    )
    await second.start()
    try:
        await wait_done(corpus, kind)
    finally:
        await second.stop()
    assert await adjudicated() == 40
    facts = await corpus.facts()
    assert sum(f["evidence_count"] for f in facts) >= len(facts) == len({f["label"] for f in facts})
