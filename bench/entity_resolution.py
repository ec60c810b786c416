"""Entity resolution quality (pairwise P/R/F1, wrong merges) on the labelled set, and speed
(ms per mention, p50/p95 per step) against a synthetic table of 100k entities."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Coroutine
from itertools import combinations
from pathlib import Path
from typing import Any

import asyncpg
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bench.entity_resolution_batched import (
    BATCH_MENTIONS,
    FIRST_NAMES,
    StatementClock,
    batched,
    document,
    latency_summary,
)
from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolverThresholds
from shared.db import EmbeddedPostgres, create_engine, to_asyncpg_dsn, upgrade_to_head
from shared.db.engine import session_factory
from shared.embedding import OnnxMiniLmEmbedder, embed_async
from shared.entities import lookup_repository
from shared.entities.normalize import (
    normalize_name,
    phonetic_code,
    trigram_similarity,
    trigrams,
)
from shared.entities.trigram_search import trigram_hits

__all__ = ["cluster_scores", "main", "quality", "speed"]

DEFAULT_SET = Path(__file__).resolve().parents[1] / "tests" / "data" / "resolution_set.jsonl"
RESULTS = Path(__file__).resolve().parent / "results" / "entity_resolution.json"
_CONSONANTS = "bcdfghjklmnprstvwz"
_VOWELS = "aeiou"


def cluster_scores(gold: list[str], predicted: list[str]) -> dict[str, Any]:
    """Pairwise precision/recall/F1 over mentions, and wrong merges: for every predicted
    entity, the number of extra gold entities it swallowed."""
    tp = fp = fn = 0
    for i, j in combinations(range(len(gold)), 2):
        same_gold, same_pred = gold[i] == gold[j], predicted[i] == predicted[j]
        tp += same_gold and same_pred
        fp += same_pred and not same_gold
        fn += same_gold and not same_pred
    members: dict[str, set[str]] = defaultdict(set)
    for g, p in zip(gold, predicted, strict=True):
        members[p].add(g)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "pairs_tp": tp,
        "pairs_fp": fp,
        "pairs_fn": fn,
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "wrong_merges": sum(len(g) - 1 for g in members.values()),
    }


async def quality(
    factory: async_sessionmaker[AsyncSession], rows: list[dict[str, Any]]
) -> dict[str, Any]:
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_doc[row["doc"]].append(row)
    namespace = f"bench-quality-{uuid.uuid4().hex[:8]}"
    resolver = EntityResolver(None)
    predicted: dict[int, str | None] = {}
    index = {id(row): n for n, row in enumerate(rows)}
    for doc_rows in by_doc.values():
        async with factory() as session, session.begin():
            doc, claims = await document(session, namespace, len(doc_rows))
            for row, claim in zip(doc_rows, claims, strict=True):
                # One claim per call, as the adjudicator resolves claim by claim.
                (result,) = await resolver.resolve_mentions(
                    session,
                    namespace,
                    [
                        Mention(
                            row["text"],
                            row["role"],
                            claim,
                            doc,
                            row["speaker"],
                            tuple(row["co_mentions"]),
                        )
                    ],
                )
                predicted[index[id(row)]] = str(result.entity_id) if result.entity_id else None
    entity_rows = [n for n, row in enumerate(rows) if row["gold"] is not None]
    scores = cluster_scores(
        [rows[n]["gold"] for n in entity_rows], [predicted[n] or f"none-{n}" for n in entity_rows]
    )
    non_entities = [n for n, row in enumerate(rows) if row["gold"] is None]
    by_case: dict[str, list[bool]] = defaultdict(list)
    first_pred: dict[str, str | None] = {}
    for n in entity_rows:
        first_pred.setdefault(rows[n]["gold"], predicted[n])
    for n, row in enumerate(rows):
        ok = (
            predicted[n] is None if row["gold"] is None else predicted[n] == first_pred[row["gold"]]
        )
        by_case[row["case"]].append(ok)
    async with factory() as session:
        proposals = (
            await session.execute(
                text("SELECT count(*) FROM merge_proposals WHERE namespace = :ns"),
                {"ns": namespace},
            )
        ).scalar_one()
    return {
        "mentions": len(rows),
        "entity_mentions": len(entity_rows),
        "gold_entities": len({rows[n]["gold"] for n in entity_rows}),
        "predicted_entities": len({predicted[n] for n in entity_rows}),
        **scores,
        "non_entity_accuracy": round(
            sum(predicted[n] is None for n in non_entities) / max(1, len(non_entities)), 4
        ),
        "merge_proposals": proposals,
        "accuracy_by_case": {c: f"{sum(v)}/{len(v)}" for c, v in sorted(by_case.items())},
    }


def _synthetic_names(count: int, rng: random.Random) -> list[str]:
    names: set[str] = set()
    while len(names) < count:
        # Consonant-vowel(-consonant) syllables give surnames a realistic trigram spread.
        syllables = (
            rng.choice(_CONSONANTS) + rng.choice(_VOWELS) + rng.choice(("", *_CONSONANTS))
            for _ in range(rng.randint(2, 3))
        )
        surname = "".join(syllables).capitalize()
        names.add(f"{rng.choice(FIRST_NAMES).capitalize()} {surname}")
    return sorted(names)


async def _load(dsn: str, namespace: str, names: list[str]) -> float:
    started = time.perf_counter()
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("INSERT INTO namespaces (namespace) VALUES ($1)", namespace)
        for start in range(0, len(names), 20_000):
            batch = names[start : start + 20_000]
            norms = [normalize_name(n) for n in batch]
            ids = [
                r[0]
                for r in await conn.fetch(
                    "INSERT INTO entities (namespace, canonical_name, normalized_name)"
                    " SELECT $1, n, m FROM unnest($2::text[], $3::text[]) AS t(n, m) RETURNING id",
                    namespace,
                    batch,
                    norms,
                )
            ]
            alias_ids = [
                r[0]
                for r in await conn.fetch(
                    "INSERT INTO entity_aliases (namespace, entity_id, alias, normalized_alias,"
                    " phonetic_code) SELECT $1, e, n, m, p FROM unnest($2::uuid[], $3::text[],"
                    " $4::text[], $5::text[]) AS t(e, n, m, p) RETURNING id",
                    namespace,
                    ids,
                    batch,
                    norms,
                    [phonetic_code(m) for m in norms],
                )
            ]
            grams = [
                (g, len(gs), a)
                for a, m in zip(alias_ids, norms, strict=True)
                for gs in [trigrams(m)]
                for g in gs
            ]
            await conn.execute(
                "INSERT INTO alias_trigrams (namespace, trigram, alias_grams, alias_id)"
                " SELECT $1, g, n, a FROM unnest($2::text[], $3::int2[], $4::uuid[]) AS t(g, n, a)",
                namespace,
                [g for g, _, _ in grams],
                [n for _, n, _ in grams],
                [a for _, _, a in grams],
            )
        # Steady state: autovacuum sets the visibility map within seconds of a bulk load, and
        # without it every index-only posting read would also visit the heap.
        for table in ("entities", "entity_aliases", "alias_trigrams"):
            await conn.execute(f"VACUUM ANALYZE {table}")
    finally:
        await conn.close()
    return round(time.perf_counter() - started, 1)


async def _scan_trigram_hits(
    session: AsyncSession,
    namespace: str,
    normalized: str,
    min_similarity: float,
    limit: int,
    pre: int | None,
) -> list[tuple[float, int, str]]:
    """Every posting of every query trigram read and counted: with `pre`, the previous search
    (only the `pre` aliases sharing most trigrams are scored, the speed baseline); without,
    the exhaustive reference `trigram_hits` must agree with."""
    query = trigrams(normalized)
    rows = await session.execute(
        text(
            "SELECT a.normalized_alias, a.mention_count FROM entity_aliases a"
            " JOIN (SELECT alias_id FROM alias_trigrams WHERE namespace = :ns"
            " AND trigram = ANY(:grams) GROUP BY alias_id HAVING count(*) >= :min_shared"
            " ORDER BY count(*) DESC LIMIT :pre) s ON s.alias_id = a.id"
        ),
        {
            "ns": namespace,
            "grams": sorted(query),
            "min_shared": max(1, math.ceil(min_similarity * len(query))),
            "pre": pre,
        },
    )
    scored = [
        (
            trigram_similarity(query, trigrams(r.normalized_alias)),
            r.mention_count,
            r.normalized_alias,
        )
        for r in rows
    ]
    ranked = sorted(
        (h for h in scored if h[0] >= min_similarity), key=lambda h: (-h[0], -h[1], h[2])
    )
    return ranked[:limit]


async def _timed(samples: dict[str, list[float]], key: str, call: Coroutine[Any, Any, Any]) -> Any:
    started = time.perf_counter()
    result = await call
    samples[key].append((time.perf_counter() - started) * 1000)
    return result


async def speed(
    engine: AsyncEngine, dsn: str, size: int, mentions: int, calls: int
) -> dict[str, Any]:
    factory = session_factory(engine)
    rng = random.Random(7)
    names = _synthetic_names(size, rng)
    namespace = f"bench-speed-{uuid.uuid4().hex[:8]}"
    load_seconds = await _load(dsn, namespace, names)
    # As the adjudicator builds it: with the embedder its embedding step uses.
    embedder = OnnxMiniLmEmbedder.load()
    resolver = EntityResolver(embedder)
    thresholds = ResolverThresholds()
    clock = StatementClock(engine)
    samples: dict[str, list[float]] = defaultdict(list)
    kinds = ["existing"] * 6 + ["typo"] * 2 + ["new"] * 2
    mismatches = 0
    async with factory() as session, session.begin():
        doc, claims = await document(session, namespace, mentions)
    for n in range(mentions + 20):  # the first 20 warm plans and caches
        kind = kinds[n % len(kinds)]
        name = rng.choice(names)
        if kind == "typo":
            name = name[:-2] + name[-1] + name[-2]
        elif kind == "new":
            name = f"{rng.choice(FIRST_NAMES).capitalize()} Zq{uuid.uuid4().hex[:6]}"
        norm = normalize_name(name)
        mention = Mention(name, "subject", claims[n % mentions], doc, None, ("Ravi Patel",))
        async with factory() as session, session.begin():
            for step, query in (
                (
                    "step_exact_alias_query",
                    lookup_repository.exact_alias_hits(session, namespace, [norm]),
                ),
                (
                    "step_phonetic_query",
                    lookup_repository.phonetic_hits(session, namespace, phonetic_code(norm), 10),
                ),
            ):
                await _timed(samples, step, query)
            # At the floor the resolver searches this name from (0.5 for a full name).
            floor = thresholds.trigram_floor(norm)
            hits = await _timed(
                samples,
                f"step_trigram_query_{kind}",
                trigram_hits(session, namespace, norm, floor, 10),
            )
            await _timed(
                samples,
                f"step_trigram_query_previous_{kind}",
                _scan_trigram_hits(session, namespace, norm, floor, 10, 50),
            )
            reference = await _scan_trigram_hits(session, namespace, norm, floor, 10, None)
            found = [(h.score, h.mention_count, h.normalized_alias) for h in hits]
            mismatches += n >= 20 and found != reference
            if kind != "existing":
                # What the embedding step's model call costs a mention that reaches it, when
                # entities have profile embeddings (the synthetic ones have none).
                await _timed(
                    samples, "step_embedding_model_one_name", embed_async(embedder, [name])
                )
            with clock.running("single"):
                (result,) = await _timed(
                    samples,
                    "resolve_mention",
                    resolver.resolve_mentions(session, namespace, [mention]),
                )
            samples[f"resolve_{kind}_as_{result.step}"].append(samples["resolve_mention"][-1])
        if n < 20:
            for values in samples.values():
                values.clear()
            clock.clear()
    steps = clock.summary({"single": mentions})
    batch_samples, batch_steps = await batched(
        factory, resolver, namespace, names, rng, calls, clock
    )
    samples.update(batch_samples)
    embed_batch = [
        f"{rng.choice(FIRST_NAMES)} Zq{uuid.uuid4().hex[:6]}" for _ in range(BATCH_MENTIONS)
    ]
    for _ in range(10):
        await _timed(samples, "step_embedding_model_batch", embed_async(embedder, embed_batch))
    samples["step_embedding_model_per_name_in_batch"] = [
        v / len(embed_batch) for v in samples.pop("step_embedding_model_batch")
    ]
    return {
        "entities": size,
        "mentions": mentions,
        "load_seconds": load_seconds,
        "trigram_mismatches_vs_exhaustive": mismatches,
        "batch_mentions": BATCH_MENTIONS,
        "batch_calls_per_kind": calls,
        "latency": {key: latency_summary(values) for key, values in sorted(samples.items())},
        "in_resolver_steps": steps | batch_steps,
    }


async def run(args: argparse.Namespace, rows: list[dict[str, Any]]) -> dict[str, Any]:
    workdir = tempfile.TemporaryDirectory(prefix="entity-bench-")
    embedded: EmbeddedPostgres | None = None
    url = args.database_url
    if url is None:
        embedded = EmbeddedPostgres(Path(workdir.name) / "pg")
        url = await asyncio.to_thread(embedded.start)
    try:
        await upgrade_to_head(url)
        engine = create_engine(url)
        factory = session_factory(engine)
        try:
            report = {"quality": await quality(factory, rows)}
            print(json.dumps(report, indent=1))
            size = 10_000 if args.quick else args.entities
            report["speed"] = await speed(
                engine,
                to_asyncpg_dsn(url),
                size,
                100 if args.quick else args.mentions,
                3 if args.quick else args.calls,
            )
            print(json.dumps(report["speed"], indent=1))
        finally:
            await engine.dispose()
    finally:
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
        workdir.cleanup()
    return report


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--mentions", type=int, default=400)
    parser.add_argument("--calls", type=int, default=10, help="batched calls per kind of name")
    parser.add_argument("--quick", action="store_true", help="10k entities, 100 mentions")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text().splitlines() if line.strip()]
    report = asyncio.run(run(args, rows))
    out = args.out or (None if args.quick else RESULTS)
    if out is not None:
        out.write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
