"""Database size per million facts: load a synthetic store and measure every table and index.

The synthetic generator (bench/query_synthetic.py) writes facts together with what real facts
bring along (entities, documents, chunks, claims, evidence links, contradiction groups), so the
bytes per fact include the claims layer a fact needs. Sizes grow linearly with the store, HNSW
indexes included, so the figure per million facts is the measured bytes per fact times 10^6.
`python -m bench.storage_size [--facts N] [--pg-dir DIR]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from bench.query_synthetic import generate
from shared.db import EmbeddedPostgres, to_asyncpg_dsn, upgrade_to_head

__all__ = ["main", "measure"]

RESULTS = Path(__file__).resolve().parent / "results" / "storage_size.json"
_TABLES = (
    "facts",
    "fact_evidence",
    "claims",
    "chunks",
    "entities",
    "entity_aliases",
    "documents",
    "document_versions",
    "decision_transcripts",
)


async def measure(url: str, namespace: str) -> dict[str, Any]:
    """Bytes of the whole database and of each table (heap + indexes + TOAST)."""
    conn = await asyncpg.connect(to_asyncpg_dsn(url))
    try:
        facts = await conn.fetchval("SELECT count(*) FROM facts WHERE namespace = $1", namespace)
        claims = await conn.fetchval("SELECT count(*) FROM claims WHERE namespace = $1", namespace)
        database = await conn.fetchval("SELECT pg_database_size(current_database())")
        tables = {
            table: {
                "total_bytes": await conn.fetchval("SELECT pg_total_relation_size($1)", table),
                "index_bytes": await conn.fetchval("SELECT pg_indexes_size($1)", table),
            }
            for table in _TABLES
        }
    finally:
        await conn.close()
    return {
        "facts": facts,
        "claims": claims,
        "database_bytes": database,
        "tables": tables,
        "bytes_per_fact": database / facts if facts else None,
        "gib_per_million_facts": database / facts * 1e6 / 2**30 if facts else None,
    }


async def run(facts: int, pg_dir: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-storage-") as scratch:
        embedded = EmbeddedPostgres(pg_dir or Path(scratch) / "pg")
        admin_url = await asyncio.to_thread(embedded.start)
        try:
            name = f"storage_{facts}"
            admin = await asyncpg.connect(to_asyncpg_dsn(admin_url))
            try:
                await admin.execute(f"DROP DATABASE IF EXISTS {name}")
                await admin.execute(f"CREATE DATABASE {name}")
            finally:
                await admin.close()
            url = admin_url.replace("/postgres?", f"/{name}?")
            await upgrade_to_head(url)
            empty = await measure(url, "storage")
            conn = await asyncpg.connect(to_asyncpg_dsn(url))
            started = time.perf_counter()
            try:
                await generate(conn, "storage", facts)
            finally:
                await conn.close()
            loaded = await measure(url, "storage")
            load_seconds = time.perf_counter() - started
        finally:
            await asyncio.to_thread(embedded.stop)
    # The empty schema's fixed cost (catalogs, empty indexes) is not a per-fact cost.
    grown = loaded["database_bytes"] - empty["database_bytes"]
    loaded["bytes_per_fact_net"] = grown / facts
    loaded["gib_per_million_facts_net"] = grown / facts * 1e6 / 2**30
    loaded["load_seconds"] = round(load_seconds, 1)
    return loaded


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, default=50_000, help="synthetic facts to load")
    parser.add_argument("--quick", action="store_true", help="2,000 facts (CI smoke run)")
    parser.add_argument("--pg-dir", type=Path, default=None, help="reuse this data directory")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    facts = 2_000 if args.quick else args.facts
    result = asyncio.run(run(facts, args.pg_dir))
    result["mode"] = "quick" if args.quick else "full"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(
        f"{result['facts']:,} facts, {result['claims']:,} claims: "
        f"{result['bytes_per_fact_net']:,.0f} bytes per fact, "
        f"{result['gib_per_million_facts_net']:.2f} GiB per million facts"
    )


if __name__ == "__main__":
    main()
