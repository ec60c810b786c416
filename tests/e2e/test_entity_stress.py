"""Issue 17: the entity cascade never turns one name into many entities.

One company named in 200 generated documents (`bench/entity_stress_corpus.py`: full and short
name, ever different people, places and topics around it), ingested in order through the API
with two adjudicator processes, must end as exactly one entity holding both names.
REMEMBERSTACK_PROPS_STRESS_DOCUMENTS changes the size (default 200).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.belief_dump import BeliefDump, read_dump
from bench.belief_run import apply_operations, wait_drained
from bench.entity_stress import company_entities
from bench.entity_stress_corpus import company_documents
from shared.entities.normalize import normalize_name
from shared.grpc.channel import open_channel
from tests.support.belief_system import adjudicator, read_and_ingest_servers

pytestmark = pytest.mark.slow

DOCUMENTS = int(os.environ.get("REMEMBERSTACK_PROPS_STRESS_DOCUMENTS", "200"))


@dataclass(frozen=True)
class _Step:
    kind: str
    index: int


@pytest.fixture(scope="module")
async def stress_dump(
    database_url: str, db_engine: AsyncEngine, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[BeliefDump]:
    data_dir: Path = tmp_path_factory.mktemp("stress")
    namespace = f"stress-{uuid.uuid4().hex[:10]}"
    documents = company_documents(DOCUMENTS)
    async with (
        read_and_ingest_servers(database_url, data_dir) as servers,
        adjudicator(database_url, data_dir, 2),
        open_channel(servers["ingest"].address) as channel,
    ):
        steps = [_Step("ingest", i) for i in range(len(documents))]
        await apply_operations(
            ingest_grpc.IngestServiceStub(channel), db_engine, namespace, documents, steps
        )
        drain = await wait_drained(db_engine, namespace, within_seconds=1800)
        assert drain.dead_letters == []
    dump = await read_dump(db_engine, namespace)
    found = company_entities(dump)
    full, short = normalize_name("Northwind Logistics"), normalize_name("Northwind")
    print(
        f"company entities: {len(found)} (full name {sum(full in g for g in found)},"
        f" short name {sum(short in g for g in found)},"
        f" both {sum({full, short} <= g for g in found)});"
        f" largest: {sorted(found[0]) if found else None}"
    )
    yield dump


def test_the_stress_set_forms_the_company_entity_and_its_people(stress_dump: BeliefDump) -> None:
    assert company_entities(stress_dump), "no entity holds the company's name"
    # The people around the company are entities of their own, not aliases of it.
    assert stress_dump.summary()["entities"] > 50


def test_one_company_named_in_every_document_is_one_entity_with_both_names(
    stress_dump: BeliefDump,
) -> None:
    found = company_entities(stress_dump)
    names = {normalize_name("Northwind Logistics"), normalize_name("Northwind")}
    assert len(found) == 1 and names <= found[0], [sorted(g) for g in found][:10]
