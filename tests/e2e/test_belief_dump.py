"""The canonical belief dump read from a real store the pipeline wrote (ingest → adjudicate)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.belief_dump import BeliefDump, diff_dumps, read_dump
from bench.belief_run import apply_operations, wait_drained
from shared.grpc.channel import open_channel
from tests.support.belief_system import adjudicator, read_and_ingest_servers

TEXTS = (
    "Melanie Ortiz has worked for Northwind Logistics since January 2025.",
    "Melanie Ortiz has worked for Northwind Logistics since January 2025."
    " Tom Varga reports to Melanie Ortiz.",
    "Dana Kim lives in Lisbon.",
)


@dataclass(frozen=True)
class _Doc:
    source_ref: str
    body: str
    title: str = "notes"
    media_type: str = "text/plain"
    said_on: datetime = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class _Step:
    kind: str
    index: int


@pytest.fixture(scope="module")
async def ingest_address(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[str]:
    data_dir: Path = tmp_path_factory.mktemp("dump")
    async with (
        read_and_ingest_servers(database_url, data_dir) as servers,
        adjudicator(database_url, data_dir, 1),
    ):
        yield servers["ingest"].address


async def _store(address: str, engine: AsyncEngine, steps: list[_Step]) -> tuple[str, BeliefDump]:
    namespace = f"dump-{uuid.uuid4().hex[:10]}"
    documents = [_Doc(f"{namespace}/{i}", text) for i, text in enumerate(TEXTS)]
    async with open_channel(address) as channel:
        await apply_operations(
            ingest_grpc.IngestServiceStub(channel), engine, namespace, documents, steps
        )
    report = await wait_drained(engine, namespace, within_seconds=300)
    assert report.dead_letters == []
    return namespace, await read_dump(engine, namespace)


async def test_the_dump_holds_alias_sets_evidence_counts_and_deleted_support(
    ingest_address: str, db_engine: AsyncEngine
) -> None:
    steps = [_Step("ingest", 0), _Step("ingest", 1), _Step("ingest", 2), _Step("delete", 2)]
    namespace, dump = await _store(ingest_address, db_engine, steps)
    assert dump.entity_of("melanie ortiz") == [frozenset({"melanie ortiz"})]
    assert len(dump.entity_of("northwind logistics")) == 1
    by_label = {r.label: r for r in dump.facts}
    employer = by_label["Melanie Ortiz works for Northwind Logistics"]
    # Two documents say it; the dump counts documents, like evidence_count.
    assert (employer.evidence_count, employer.valid_precision) == (2, "open")
    assert employer.valid_from == "2025-01-01T00:00:00+00:00" and not employer.invalidated
    lives = by_label.get("Dana Kim is located in Lisbon")
    assert lives is not None, sorted(by_label)
    # Its only document was deleted: closed in belief time, kept, no support left.
    assert lives.invalidated and lives.invalidation_reason and lives.evidence_count == 0
    assert dump.summary()["invalidated"] == 1
    assert await read_dump(db_engine, namespace) == dump


async def test_two_stores_of_the_same_documents_dump_equal_and_a_missing_one_shows_in_the_diff(
    ingest_address: str, db_engine: AsyncEngine
) -> None:
    full = [_Step("ingest", 0), _Step("ingest", 1)]
    _, first = await _store(ingest_address, db_engine, full)
    _, second = await _store(ingest_address, db_engine, full)
    assert first == second and diff_dumps(first, second) == []
    _, fewer = await _store(ingest_address, db_engine, [_Step("ingest", 0)])
    lines = diff_dumps(first, fewer, ("both", "first only"))
    assert (
        "fact 'Tom Varga reports to Melanie Ortiz': 1 only in both, 0 only in first only" in lines
    )
    assert any(
        line.startswith(
            "fact 'Melanie Ortiz works for Northwind Logistics': evidence_count: 2 -> 1"
        )
        for line in lines
    ), lines
