"""LoCoMo turn retrieval through the real system: ingest sessions, ask ClaimsAndSourcesContext.

    .venv/bin/python -m bench.locomo.run_retrieval --limit-conversations 1

Each session is one conversation document (said-on = session time, one namespace per
conversation) sent through IngestDocuments; after WatchReadiness settles, every category 1-4
question runs through ClaimsAndSourcesContext and CombinedContext. BM25 over raw turns is
computed in the same run.

Turn ranking (fixed rule): the response's claims and chunks are two ranked lists whose scores
share one scale (the service's weighted reciprocal-rank fusion of vector and BM25 channels,
with the support each layer lends the other), merged by the returned scores alone,
descending, claims first on ties. A claim names the turn whose line holds its char_start;
a chunk names every turn it overlaps, in line order (a conversation chunk is about one turn).
A turn keeps its first rank. CombinedContext adds the facts' evidence claims to that merge,
each scored with the best retrieval score of a fact it supports (facts are fused from the same
kinds of channels with the same reciprocal-rank scale), so a fact outranks a source only when
the system scored it higher.

`--reuse-dir DIR` keeps the embedded database in DIR between runs (for iterating on the query
side): the first run ingests and records the conversations, the turn offsets and a fingerprint
of the ingest settings and the ingest, adjudicator and schema code; a later run with the same
conversations and an unchanged fingerprint skips ingestion, otherwise it empties DIR and
ingests afresh. Without --reuse-dir every run ingests into a fresh temporary database, which is
how the reported results are produced.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rememberstack.v1 import ingest_service_pb2 as ingest_pb
from rememberstack.v1 import ingest_service_pb2_grpc, query_service_pb2_grpc
from rememberstack.v1 import query_service_pb2 as query_pb
from rememberstack_client import open_aio_channel

from bench.locomo.bm25 import rank_turns
from bench.locomo.corpus import (
    DEFAULT_DATA_PATH,
    Question,
    Session,
    load_questions,
    load_sessions,
    to_document,
    turn_offsets,
)
from bench.locomo.metrics import evaluate, render_table
from services.ingest.config import load_settings as load_ingest_settings
from shared.cli.launcher import SystemLauncher
from shared.config import load_settings
from shared.proto_convert import timestamp

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "locomo_retrieval.json"
STATE_FILE = "locomo_state.json"
_INGEST_KNOBS = ("chunk_max_chars", "conversation_chunk_max_chars", "extract_context_chars")
MEDIA_TYPE = "text/x-rememberstack-conversation"


def _turn_at(offsets: dict[str, tuple[int, int]], position: int) -> str | None:
    for turn_id, (start, end) in offsets.items():
        if start <= position < end:
            return turn_id
    return None


def _turns_in(offsets: dict[str, tuple[int, int]], start: int, end: int) -> list[str]:
    return [
        t for t, (s, e) in sorted(offsets.items(), key=lambda p: p[1][0]) if s < end and e > start
    ]


def rank_from_response(
    claims: Sequence[Any], chunks: Sequence[Any], offsets: dict[str, dict[str, tuple[int, int]]]
) -> list[str]:
    """Merge by score (stable, claims first on ties): a claim names one turn, a chunk its turns
    in line order."""
    items: list[tuple[float, list[str]]] = []
    for claim in claims:
        doc_offsets = offsets.get(claim.version_id, {})
        turn = _turn_at(doc_offsets, claim.char_start)
        if turn:
            items.append((claim.score, [turn]))
    for chunk in chunks:
        items.append(
            (
                chunk.score,
                _turns_in(offsets.get(chunk.version_id, {}), chunk.char_start, chunk.char_end),
            )
        )
    items.sort(key=lambda item: -item[0])
    return [turn for _, turns in items for turn in turns]


def _fact_claims(facts: Any) -> list[Any]:
    """The facts' evidence claims, each scored with the best score of a fact it supports."""
    fact_score = {fact.fact_id: fact.score for fact in facts.facts}
    claim_score: dict[str, float] = {}
    for link in facts.fact_evidence:
        score = fact_score.get(link.fact_id, 0.0)
        claim_score[link.claim_id] = max(claim_score.get(link.claim_id, 0.0), score)
    claims = []
    for claim in facts.claims:
        scored = type(claim)()
        scored.CopyFrom(claim)
        scored.score = claim_score.get(claim.claim_id, 0.0)
        claims.append(scored)
    return claims


async def _ingest(stub: Any, sessions: Sequence[Session]) -> dict[str, dict[str, tuple[int, int]]]:
    """Ingest every session; returns version id -> turn offsets; waits for readiness."""
    texts = [to_document(session) for session in sessions]

    async def requests() -> Any:
        for session, (ref, text) in zip(sessions, texts, strict=True):
            yield ingest_pb.IngestDocumentsRequest(
                document=ingest_pb.IngestDocumentRequest(
                    namespace=f"locomo-{session.conv_index}",
                    content=text.encode(),
                    media_type=MEDIA_TYPE,
                    source_kind="locomo",
                    source_ref=ref,
                    title=ref,
                    source_modified_time=timestamp(session.said_on),
                )
            )

    response = await stub.IngestDocuments(requests())
    offsets: dict[str, dict[str, tuple[int, int]]] = {}
    by_namespace: dict[str, list[str]] = {}
    for session, (_, text), result in zip(sessions, texts, response.results, strict=True):
        offsets[result.version_id] = turn_offsets(text)
        by_namespace.setdefault(f"locomo-{session.conv_index}", []).append(result.version_id)
    for namespace, versions in by_namespace.items():
        for start in range(0, len(versions), 1000):
            watch = ingest_pb.WatchReadinessRequest(
                namespace=namespace, version_ids=versions[start : start + 1000]
            )
            async for update in stub.WatchReadiness(watch):
                if update.all_settled:
                    break
    return offsets


def _ingest_fingerprint() -> str:
    """What decides the ingested rows: the chunking/extraction settings and the ingest,
    adjudicator and schema code."""
    settings = load_ingest_settings()
    digest = hashlib.sha256(
        json.dumps({knob: getattr(settings, knob) for knob in _INGEST_KNOBS}).encode()
    )
    for folder in ("services/ingest", "services/adjudicator", "shared/db"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _reusable_offsets(
    data_dir: Path, conversations: list[int], fingerprint: str
) -> dict[str, dict[str, tuple[int, int]]] | None:
    """The recorded offsets when DIR holds these conversations ingested the same way; else
    DIR is emptied for a fresh ingest."""
    state_path = data_dir / STATE_FILE
    state = json.loads(state_path.read_text(encoding="utf-8")) if state_path.exists() else {}
    if state.get("conversations") != conversations or state.get("fingerprint") != fingerprint:
        shutil.rmtree(data_dir, ignore_errors=True)
        return None
    return {
        version: {turn: (span[0], span[1]) for turn, span in turns.items()}
        for version, turns in state["offsets"].items()
    }


async def run(
    limit: int | None, k: int, reuse_dir: Path | None = None, max_sessions: int | None = None
) -> dict[str, Any]:
    sessions = load_sessions(DEFAULT_DATA_PATH)
    questions: list[Question] = load_questions(DEFAULT_DATA_PATH)
    conversations = sorted({s.conv_index for s in sessions})[: limit or None]
    sessions = [s for s in sessions if s.conv_index in conversations]
    questions = [q for q in questions if q.conv_index in conversations and 1 <= q.category <= 4]
    if max_sessions is not None:
        # Quick mode: the first sessions only, and the questions answerable from them alone.
        sessions = [s for s in sessions if s.session_no <= max_sessions]
        kept = {turn.turn_id for s in sessions for turn in s.turns}
        questions = [q for q in questions if q.evidence and set(q.evidence) <= kept]
    fingerprint = _ingest_fingerprint()
    reused: dict[str, dict[str, tuple[int, int]]] | None = None
    if reuse_dir is not None:
        reused = _reusable_offsets(reuse_dir, conversations, fingerprint)
    with contextlib.ExitStack() as stack:
        data_dir = reuse_dir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="rs-locomo-"))
        )
        launcher = SystemLauncher(load_settings(data_dir=data_dir), base_port=0)
        endpoints = await launcher.start()
        try:
            async with (
                open_aio_channel(endpoints.ingest, timeout=None) as ingest_channel,
                open_aio_channel(endpoints.query, timeout=None) as query_channel,
            ):
                offsets = reused or await _ingest(
                    ingest_service_pb2_grpc.IngestServiceStub(ingest_channel), sessions
                )
                if reuse_dir is not None and reused is None:
                    state = {
                        "conversations": conversations,
                        "fingerprint": fingerprint,
                        "offsets": offsets,
                    }
                    (reuse_dir / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")
                query = query_service_pb2_grpc.QueryServiceStub(query_channel)
                claims_rank: dict[str, list[str]] = {}
                combined_rank: dict[str, list[str]] = {}
                for question in questions:
                    request = query_pb.ClaimsAndSourcesContextRequest(
                        namespace=f"locomo-{question.conv_index}", query=question.question, k=k
                    )
                    answer = await query.ClaimsAndSourcesContext(request)
                    claims_rank[question.question_id] = rank_from_response(
                        answer.claims, answer.chunks, offsets
                    )
                    combined = await query.CombinedContext(
                        query_pb.CombinedContextRequest(
                            namespace=request.namespace,
                            facts=query_pb.FactsContextRequest(query=question.question),
                            claims_and_sources=request,
                        )
                    )
                    combined_rank[question.question_id] = rank_from_response(
                        [*_fact_claims(combined.facts), *combined.claims_and_sources.claims],
                        combined.claims_and_sources.chunks,
                        offsets,
                    )
        finally:
            await launcher.stop()
    bm25 = rank_turns(sessions, questions)
    return {
        "conversations": len(conversations),
        "questions": len(questions),
        "claims_and_sources": {n: s.as_dict() for n, s in evaluate(questions, claims_rank).items()},
        "combined": {n: s.as_dict() for n, s in evaluate(questions, combined_rank).items()},
        "bm25": {n: s.as_dict() for n, s in evaluate(questions, bm25).items()},
        "_tables": {
            "claims_and_sources": render_table(evaluate(questions, claims_rank)),
            "combined": render_table(evaluate(questions, combined_rank)),
            "bm25": render_table(evaluate(questions, bm25)),
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument("--k", type=int, default=50, help="claims and chunks per question")
    parser.add_argument(
        "--reuse-dir",
        type=Path,
        default=None,
        help="keep the ingested database here and reuse it while ingestion is unchanged",
    )
    parser.add_argument("--output", type=Path, default=RESULTS, help="where the JSON goes")
    parser.add_argument(
        "--quick", action="store_true", help="first conversation, first 3 sessions (CI smoke run)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.limit_conversations, max_sessions = 1, 3
    else:
        max_sessions = None
    report = asyncio.run(run(args.limit_conversations, args.k, args.reuse_dir, max_sessions))
    for name, table in report.pop("_tables").items():
        print(f"\n{name}\n{table}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    main()
