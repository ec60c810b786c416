"""Where LoCoMo evidence turns get lost: per channel, per category, in process.

    .venv/bin/python -m bench.locomo.diagnose --reuse-dir /tmp/rs-locomo [--dump out.json]

Works on a database left by `run_retrieval --reuse-dir DIR` (same conversations): starts the
embedded Postgres there, embeds the questions once (cached in DIR), and for every category 1-4
question calls `claims_context` itself (this checkout's code, so a ranking change is measured in
seconds without re-ingesting or restarting services) and each nominating channel alone (vector
and BM25 over claims and over chunks). It prints the headline metrics of the current ranking
and, per category, where each evidence turn stands: never nominated by any channel, nominated
but ranked below 10, or in the top 10, and which channels found it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import numpy as np
from sqlalchemy import text

from bench.locomo.corpus import DEFAULT_DATA_PATH, Question, load_questions
from bench.locomo.metrics import CATEGORY_NAMES, evaluate, render_table
from services.query.domain import ClaimsContextQuery
from services.query.reads.claims_context import EmbedQuery, claims_context
from services.query.sql.channels import bm25_channel, vector_channel, vector_literal
from services.query.sql.snapshot import Budget, read_snapshot
from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import create_engine
from shared.embedding import OnnxMiniLmEmbedder

STATE_FILE = "locomo_state.json"
VECTORS_FILE = "question_vectors.npy"
# version id -> turn id -> (char_start, char_end) of the turn's line.
Offsets = dict[str, dict[str, tuple[int, int]]]
CHANNELS = ("claims_vector", "claims_bm25", "chunks_vector", "chunks_bm25")


def turn_at(offsets: dict[str, tuple[int, int]], position: int) -> str | None:
    for turn_id, (start, end) in offsets.items():
        if start <= position < end:
            return turn_id
    return None


def turns_in(offsets: dict[str, tuple[int, int]], start: int, end: int) -> list[str]:
    ordered = sorted(offsets.items(), key=lambda pair: pair[1][0])
    return [turn for turn, (s, e) in ordered if s < end and e > start]


def query_embedder() -> EmbedQuery:
    """Embeds a text the query derives (see claims_context.nominate) with the packaged model,
    as the query service does."""
    model = OnnxMiniLmEmbedder.load()

    async def embed(text: str) -> str | None:
        return vector_literal(model.embed([text])[0])

    return embed


def question_vectors(data_dir: Path, questions: Sequence[Question]) -> list[str]:
    path = data_dir / VECTORS_FILE
    ids_path = data_dir / (VECTORS_FILE + ".ids")
    ids = [q.question_id for q in questions]
    if path.exists() and ids_path.exists() and json.loads(ids_path.read_text()) == ids:
        matrix = np.load(path)
    else:
        matrix = OnnxMiniLmEmbedder.load().embed([q.question for q in questions])
        np.save(path, matrix)
        ids_path.write_text(json.dumps(ids))
    return [vector_literal(row) for row in matrix]


async def _maps(conn: Any, namespaces: Sequence[str], offsets: dict[str, Any]) -> dict[str, Any]:
    """claim id -> turn and chunk id -> turns, over the serving version of each row."""
    claim_turn: dict[UUID, str] = {}
    rows = await conn.execute(
        text(
            "SELECT id, first_version_id, char_start FROM claims"
            " WHERE namespace = ANY(CAST(:ns AS text[]))"
        ),
        {"ns": list(namespaces)},
    )
    for claim_id, version_id, start in rows:
        turn = turn_at(offsets.get(str(version_id), {}), start)
        if turn:
            claim_turn[claim_id] = turn
    chunk_turns: dict[UUID, list[str]] = {}
    rows = await conn.execute(
        text(
            "SELECT chunk_id, version_id, char_start, char_end FROM version_chunks"
            " WHERE namespace = ANY(CAST(:ns AS text[]))"
        ),
        {"ns": list(namespaces)},
    )
    for chunk_id, version_id, start, end in rows:
        chunk_turns[chunk_id] = turns_in(offsets.get(str(version_id), {}), start, end)
    return {"claim": claim_turn, "chunk": chunk_turns}


def _rank_of(turns: Sequence[str], gold: str) -> int | None:
    try:
        return turns.index(gold) + 1
    except ValueError:
        return None


def _dedupe(turns: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(turns))


def load_state(data_dir: Path) -> tuple[Offsets, list[Question]]:
    """The turn offsets per version run_retrieval recorded in `data_dir`, and the category
    1-4 questions of its conversations."""
    state = json.loads((data_dir / STATE_FILE).read_text())
    conversations: list[int] = state["conversations"]
    offsets = {
        version: {turn: (span[0], span[1]) for turn, span in turns.items()}
        for version, turns in state["offsets"].items()
    }
    questions = [
        q
        for q in load_questions(DEFAULT_DATA_PATH)
        if q.conv_index in conversations and 1 <= q.category <= 4
    ]
    return offsets, questions


async def _diagnose(data_dir: Path, k: int, candidate_k: int) -> dict[str, Any]:
    offsets, questions = load_state(data_dir)
    conversations = sorted({q.conv_index for q in questions})
    vectors = question_vectors(data_dir, questions)
    embed = query_embedder()
    server = EmbeddedPostgres(data_dir / "postgres")
    engine = create_engine(await asyncio.to_thread(server.start))
    now = datetime.now(UTC)
    final: dict[str, list[str]] = {}
    rows: list[dict[str, Any]] = []
    rankings: dict[str, dict[str, list[str]]] = {}
    try:
        namespaces = [f"locomo-{c}" for c in conversations]
        async with read_snapshot(engine, Budget(600)) as conn:
            maps = await _maps(conn, namespaces, offsets)
        for question, vector in zip(questions, vectors, strict=True):
            namespace = f"locomo-{question.conv_index}"
            q = ClaimsContextQuery(namespace, question.question, (), k, candidate_k, None)
            async with read_snapshot(engine, Budget(60)) as conn:
                result = await claims_context(conn, q, vector, now, embed)
                channel_turns: dict[str, list[str]] = {}
                for table, kind in (("claims", "claim"), ("chunks", "chunk")):
                    vec = await vector_channel(conn, table, namespace, vector, candidate_k)
                    lex = await bm25_channel(conn, table, namespace, question.question, candidate_k)
                    for name, ids in (("vector", vec), ("bm25", lex)):
                        turns: list[str] = []
                        for item in ids:
                            mapped = maps[kind].get(item)
                            turns.extend([mapped] if isinstance(mapped, str) else mapped or [])
                        channel_turns[f"{table}_{name}"] = _dedupe(turns)
            scored: list[tuple[float, list[str], str]] = []
            for claim in result.claims:
                turn = turn_at(offsets.get(str(claim.version_id), {}), claim.char_start)
                if turn:
                    scored.append((claim.score, [turn], "claim"))
            for chunk in result.chunks:
                spans = offsets.get(str(chunk.version_id), {})
                scored.append(
                    (chunk.score, turns_in(spans, chunk.char_start, chunk.char_end), "chunk")
                )
            scored.sort(key=lambda item: -item[0])
            ranking = _dedupe([t for _, turns, _ in scored for t in turns])
            via: dict[str, str] = {}
            for _, turns, layer in scored:
                for t in turns:
                    via.setdefault(t, layer)
            final[question.question_id] = ranking
            rankings[question.question_id] = {"final": ranking, **channel_turns}
            for gold in question.evidence:
                rows.append(
                    {
                        "question_id": question.question_id,
                        "category": question.category,
                        "question": question.question,
                        "gold": gold,
                        "final": _rank_of(ranking, gold),
                        "via": via.get(gold),
                        "top": ranking[:5],
                        **{c: _rank_of(channel_turns[c], gold) for c in CHANNELS},
                    }
                )
    finally:
        await engine.dispose()
        server.stop()
    return {"questions": questions, "final": final, "rows": rows, "rankings": rankings}


def _summary(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        f"{'category':<12} {'gold':>5} {'top10':>6} {'low':>6} {'never':>6}  "
        + "  ".join(f"{c + '@10':>16}" for c in CHANNELS)
        + "  low-but-nominated best channel rank (median)"
    ]
    for category, name in CATEGORY_NAMES.items():
        mine = [r for r in rows if r["category"] == category]
        if not mine:
            continue
        top = sum(1 for r in mine if r["final"] is not None and r["final"] <= 10)
        never = [r for r in mine if all(r[c] is None for c in CHANNELS)]
        low = [r for r in mine if r not in never and not (r["final"] and r["final"] <= 10)]
        at10 = [
            sum(1 for r in mine if r[c] is not None and r[c] <= 10) / len(mine) for c in CHANNELS
        ]
        best = sorted(min(r[c] for c in CHANNELS if r[c] is not None) for r in low)
        median = best[len(best) // 2] if best else None
        lines.append(
            f"{name:<12} {len(mine):>5} {top / len(mine):>6.3f} {len(low) / len(mine):>6.3f}"
            f" {len(never) / len(mine):>6.3f}  "
            + "  ".join(f"{v:>16.3f}" for v in at10)
            + f"  {median}"
        )
    via = Counter(r["via"] for r in rows if r["final"] is not None and r["final"] <= 10)
    lines.append(f"top-10 hits first named by: {dict(via)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reuse-dir", type=Path, required=True)
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--candidate-k", type=int, default=200)
    parser.add_argument("--dump", type=Path, default=None, help="per evidence turn rows (JSON)")
    parser.add_argument(
        "--dump-rankings", type=Path, default=None, help="per question turn rankings (JSON)"
    )
    args = parser.parse_args(argv)
    report = asyncio.run(_diagnose(args.reuse_dir, args.k, args.candidate_k))
    scores = evaluate(report["questions"], report["final"])
    print(render_table(scores))
    print(_summary(report["rows"]))
    if args.dump:
        args.dump.write_text(json.dumps(report["rows"], indent=1) + "\n", encoding="utf-8")
    if args.dump_rankings:
        args.dump_rankings.write_text(json.dumps(report["rankings"]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
