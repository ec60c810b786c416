"""FactsContext nomination with every query term against only the selective ones (A/B).

    .venv/bin/python -m bench.query_latency --sizes 1000000 --pg-dir /tmp/qbench/pg --load-only
    .venv/bin/python -m bench.lexical_terms --pg-dir /tmp/qbench/pg --size 1000000

Runs the namespace nomination statement (`services/query/sql/fact_nomination.py`) on a store
`bench.query_latency` loaded, for queries of four words drawn from the store's own vocabulary
(a 1 % sample of its lexemes, so frequent words come up as often as they occur). Every query
runs in both modes, alternating which goes first, each twice with the second run timed, so
both see a warm cache and the same machine load: `before` ORs every term (`TSQUERY`) and ranks
every matching row, `after` keeps the terms `selective_tsquery` keeps and ranks at most
`LEXICAL_RANKED_ROWS`. Writes bench/results/lexical_terms.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.engine import make_url

from services.query.sql import fact_nomination
from services.query.sql.channels import (
    LEXICAL_RANKED_ROWS,
    TSQUERY,
    selective_tsquery,
    vector_literal,
)
from services.query.sql.time_scope import scope_params
from shared.db import EmbeddedPostgres
from shared.db.engine import create_engine
from shared.embedding import create_embedder
from shared.timescope import TimeScope

RESULTS = Path(__file__).resolve().parent / "results" / "lexical_terms.json"
MODES: dict[str, tuple[Any, int]] = {
    "before": (lambda _table: TSQUERY, 10**9),
    "after": (selective_tsquery, LEXICAL_RANKED_ROWS),
}
_READ_SETTINGS = (
    "SELECT set_config('hnsw.ef_search', '100', true),"
    " set_config('max_parallel_workers_per_gather', '0', true), set_config('jit', 'off', true),"
    " set_config('plan_cache_mode', 'force_custom_plan', true)"
)


def _summary(values: list[float]) -> dict[str, float]:
    p50, p95, p99 = np.percentile(values, [50, 95, 99]).tolist()
    return {"n": len(values), "p50_ms": p50, "p95_ms": p95, "p99_ms": p99, "max_ms": max(values)}


async def run(url: str, size: int, queries: int) -> dict[str, Any]:
    engine = create_engine(url)
    embedder = create_embedder("onnx")
    namespace = f"bench-{size}"
    sample = "SELECT word FROM ts_stat('SELECT tsv FROM facts TABLESAMPLE SYSTEM (1)')"
    async with engine.connect() as conn:
        words = sorted(row[0] for row in (await conn.execute(text(sample))).all())
    rng = random.Random(7)
    timed: dict[str, list[float]] = {mode: [] for mode in MODES}
    scope = TimeScope()
    for i in range(queries):
        query = " ".join(rng.choice(words) for _ in range(4))
        vector = vector_literal(embedder.embed([query])[0])
        for mode in ("before", "after") if i % 2 else ("after", "before"):
            # The statement reads both names at call time: swap them in for this mode.
            tsquery, ranked_rows = MODES[mode]
            setattr(fact_nomination, "selective_tsquery", tsquery)  # noqa: B010
            setattr(fact_nomination, "LEXICAL_RANKED_ROWS", ranked_rows)  # noqa: B010
            for repeat in range(2):
                async with engine.connect() as conn, conn.begin():
                    await conn.execute(text(_READ_SETTINGS))
                    params = scope_params(scope, datetime.now(UTC))
                    started = time.perf_counter()
                    await fact_nomination.nominate_in_namespace(
                        conn, namespace, query, vector, None, scope, params, 60, 5, size
                    )
                    if repeat:
                        timed[mode].append((time.perf_counter() - started) * 1000)
    await engine.dispose()
    before, after = _summary(timed["before"]), _summary(timed["after"])
    return {
        "size": size,
        "queries": queries,
        "before": before,
        "after": after,
        "p95_after_over_before": after["p95_ms"] / before["p95_ms"],
        "p99_after_over_before": after["p99_ms"] / before["p99_ms"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg-dir", type=Path, required=True, help="bench.query_latency's store")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=150)
    args = parser.parse_args()
    server_url = EmbeddedPostgres(args.pg_dir).start()
    url = make_url(server_url).set(database=f"bench_query_{args.size}")
    result = asyncio.run(run(url.render_as_string(hide_password=False), args.size, args.queries))
    RESULTS.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
