"""Entity-cascade stress (issue 17): one company named in 200 documents must be one entity.

Starts the whole system the way `rememberstack up` does (`SystemLauncher`: embedded Postgres,
the four services as their own processes), ingests `bench/entity_stress_corpus.py` one
document at a time in order, waits until the backlog drained, and reads the entity partition
(`bench/belief_dump.py`): how many entities hold the company's full or short name, how many
aliases each has, and the wall time. The target is exactly one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc

from bench.belief_dump import BeliefDump, read_dump
from bench.belief_run import apply_operations, wait_drained
from bench.entity_stress_corpus import COMPANY, SHORT_NAME, company_documents
from shared.cli.launcher import SystemLauncher
from shared.config import Settings
from shared.db.engine import create_engine
from shared.entities.normalize import normalize_name
from shared.grpc.channel import open_channel

__all__ = ["company_entities", "main", "run"]

RESULTS = Path(__file__).resolve().parent / "results" / "entity_stress.json"
NAMESPACE = "entity-stress"


class _Step:
    """An ingest step of `apply_operations`."""

    kind = "ingest"

    def __init__(self, index: int) -> None:
        self.index = index


def company_entities(dump: BeliefDump) -> list[frozenset[str]]:
    """Every entity holding the company's full or short name (normalized), largest first."""
    names = {normalize_name(COMPANY), normalize_name(SHORT_NAME)}
    found = [group for group in dump.entities.elements() if group & names]
    return sorted(found, key=lambda g: (-len(g), sorted(g)))


async def run(count: int, seed: int, processes: int) -> dict[str, Any]:
    documents = company_documents(count, seed)
    with tempfile.TemporaryDirectory(prefix="entity-stress-") as tmp:
        os.environ["REMEMBERSTACK_ADJUDICATOR_PROCESSES"] = str(processes)
        settings = Settings(data_dir=Path(tmp), log_json=False, log_level="WARNING")
        launcher = SystemLauncher(settings, base_port=0)
        endpoints = await launcher.start(ready_timeout=600.0)
        engine = create_engine(endpoints.database_url)
        try:
            started = time.perf_counter()
            async with open_channel(endpoints.ingest) as channel:
                await apply_operations(
                    ingest_grpc.IngestServiceStub(channel),
                    engine,
                    NAMESPACE,
                    documents,
                    [_Step(i) for i in range(len(documents))],
                )
            drain = await wait_drained(engine, NAMESPACE, within_seconds=3600)
            wall = time.perf_counter() - started
            dump = await read_dump(engine, NAMESPACE)
        finally:
            await engine.dispose()
            await launcher.stop()
    entities = company_entities(dump)
    full, short = normalize_name(COMPANY), normalize_name(SHORT_NAME)
    return {
        "documents": count,
        "seed": seed,
        "adjudicator_processes": processes,
        "company": COMPANY,
        "short_name": SHORT_NAME,
        "company_entities": len(entities),
        "target_company_entities": 1,
        "met": len(entities) == 1,
        "entities_with_full_name": sum(full in g for g in entities),
        "entities_with_short_name": sum(short in g for g in entities),
        "entities_with_both_names": sum({full, short} <= g for g in entities),
        "largest_company_entity_aliases": len(entities[0]) if entities else 0,
        # Each distinct alias set of the company's entities, with how many entities have it.
        "company_entity_alias_sets": {
            ", ".join(sorted(group)): count for group, count in Counter(entities).most_common(20)
        },
        "entities_total": dump.summary()["entities"],
        "dead_letters": len(drain.dead_letters),
        "wall_seconds": round(wall, 1),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="20 documents (CI)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    count = 20 if args.quick else args.documents
    result = asyncio.run(run(count, args.seed, args.processes))
    result["mode"] = "quick" if args.quick else "full"
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
