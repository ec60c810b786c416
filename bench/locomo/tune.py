"""Re-rank LoCoMo candidates under other ClaimsAndSourcesContext weights, with a held-out half.

    .venv/bin/python -m bench.locomo.tune --reuse-dir /tmp/rs-locomo

Works on a database left by `run_retrieval --reuse-dir DIR`. Every category 1-4 question is
nominated once (the service's own `nominate`, in one snapshot); then a coordinate search (one
weight at a time, two passes) re-ranks all of them with the service's pure `rank`, scored at
turn level the way `run_retrieval` scores the served answer. Weights are chosen on the even
conversations and reported on the odd ones too, so a weight that only fits the questions it
was chosen on shows as such. The defaults come first: that row must match `run_retrieval`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.locomo.corpus import Question
from bench.locomo.diagnose import (
    load_state,
    query_embedder,
    question_vectors,
    turn_at,
    turns_in,
)
from bench.locomo.metrics import evaluate
from services.query.domain import ClaimsContextQuery
from services.query.ranking.claims import DEFAULT_WEIGHTS, Nominated, RankWeights, rank
from services.query.reads.claims_context import nominate
from services.query.sql.snapshot import Budget, read_snapshot
from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import create_engine

# The values each weight may take; the search moves one weight at a time.
GRID: dict[str, tuple[float, ...]] = {
    "vector": (0.5, 0.75, 1.0, 1.25, 1.5),
    "lexical": (0.5, 0.75, 1.0, 1.25, 1.5),
    "speaker": (0.0, 0.25, 0.5, 0.75, 1.0),
    "support": (0.0, 0.15, 0.25, 0.4, 0.6),
    "neighbour": (0.0, 0.15, 0.3, 0.45),
    "answer": (0.3, 0.6, 0.9, 1.2),
    "time": (0.0, 0.5, 1.0, 1.5),
    "dated": (0.0, 0.25, 0.5, 1.0),
}
PASSES = 2


def _turn_ranking(nominated: Nominated, weights: RankWeights, k: int, offsets: Any) -> list[str]:
    """The served answer's turns, merged by score as run_retrieval merges them."""
    ranked = rank(nominated, weights)
    scored: list[tuple[float, int, list[str]]] = []
    for claim in ranked.claims[:k]:
        turn = turn_at(offsets.get(str(claim.version_id), {}), claim.char_start)
        if turn:
            scored.append((claim.score, 0, [turn]))
    for chunk in ranked.chunks[:k]:
        spans = offsets.get(str(chunk.version_id), {})
        scored.append((chunk.score, 1, turns_in(spans, chunk.char_start, chunk.char_end)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return list(dict.fromkeys(t for _, _, turns in scored for t in turns))


async def _nominate_all(
    data_dir: Path, k: int, candidate_k: int
) -> tuple[list[Question], dict[str, Nominated], Any]:
    offsets, questions = load_state(data_dir)
    vectors = question_vectors(data_dir, questions)
    embed = query_embedder()
    server = EmbeddedPostgres(data_dir / "postgres")
    engine = create_engine(await asyncio.to_thread(server.start))
    now = datetime.now(UTC)
    nominated: dict[str, Nominated] = {}
    try:
        for question, vector in zip(questions, vectors, strict=True):
            namespace = f"locomo-{question.conv_index}"
            q = ClaimsContextQuery(namespace, question.question, (), k, candidate_k, None)
            async with read_snapshot(engine, Budget(60)) as conn:
                nominated[question.question_id] = await nominate(conn, q, vector, now, embed)
    finally:
        await engine.dispose()
        server.stop()
    return questions, nominated, offsets


def _score(
    questions: list[Question],
    nominated: dict[str, Nominated],
    weights: RankWeights,
    k: int,
    offsets: Any,
) -> dict[str, dict[str, float]]:
    """R@10, MRR and multi-hop R@10 on the tuning half, the held-out half and all questions."""
    rankings = {
        q.question_id: _turn_ranking(nominated[q.question_id], weights, k, offsets)
        for q in questions
    }
    halves = {
        "tune": [q for q in questions if q.conv_index % 2 == 0],
        "held_out": [q for q in questions if q.conv_index % 2 == 1],
        "all": questions,
    }
    scores = {}
    for name, subset in halves.items():
        table = evaluate(subset, rankings)
        multi = table.get("multi-hop")
        scores[name] = {
            "r10": round(table["overall"].recall[10], 4),
            "mrr": round(table["overall"].mrr, 4),
            "multi_hop_r10": round(multi.recall[10], 4) if multi else 0.0,
        }
    return scores


def _objective(scores: dict[str, dict[str, float]]) -> float:
    return scores["tune"]["r10"] + scores["tune"]["mrr"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reuse-dir", type=Path, required=True)
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--candidate-k", type=int, default=200)
    parser.add_argument("--output", type=Path, default=None, help="every setting's scores (JSON)")
    parser.add_argument(
        "--cache", type=Path, default=None, help="keep the nominations here (pickle) between runs"
    )
    parser.add_argument("--weights", nargs="*", default=list(GRID), help="only search these")
    args = parser.parse_args(argv)
    if args.cache and args.cache.exists():
        questions, nominated, offsets = pickle.loads(args.cache.read_bytes())
    else:
        questions, nominated, offsets = asyncio.run(
            _nominate_all(args.reuse_dir, args.k, args.candidate_k)
        )
        if args.cache:
            args.cache.write_bytes(pickle.dumps((questions, nominated, offsets)))
    tried: dict[RankWeights, dict[str, dict[str, float]]] = {}

    def score(weights: RankWeights) -> dict[str, dict[str, float]]:
        if weights not in tried:
            tried[weights] = _score(questions, nominated, weights, args.k, offsets)
        return tried[weights]

    best = DEFAULT_WEIGHTS
    print("defaults", json.dumps(score(best)), flush=True)
    for _ in range(PASSES):
        for name, values in GRID.items():
            if name not in args.weights:
                continue
            for value in values:
                candidate = replace(best, **{name: value})
                if _objective(score(candidate)) > _objective(score(best)):
                    best = candidate
        print("best so far", best, json.dumps(score(best)), flush=True)
    if args.output:
        rows = [{"weights": w.__dict__, **s} for w, s in tried.items()]
        args.output.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
