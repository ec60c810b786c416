"""Issue 17: the same documents give the same beliefs whatever order they arrive in.

The generated set (`bench.belief_corpus`: supersessions, contradictions, aliases, confirmations,
deletes) is ingested through the public API into a fresh namespace once per arrival order: the
documents oldest first with one adjudicator process (the reference), then seeded permutations
with 1, 2 and 4 adjudicator processes in turn (real replica processes), and once more in the
reference order with two replica processes doing all the adjudication, one of which is killed
while the long document's batches are half committed (a crash: its lease expires, the other
replica retries the item). Each run waits until the namespace's
backlog drained and takes the canonical dump (`bench.belief_dump`). Every dump must equal the
reference.

Sizes: REMEMBERSTACK_PROPS_DOCUMENTS (default 60) and REMEMBERSTACK_PROPS_PERMUTATIONS
(default 10: permutation i runs with 1, 2 or 4 processes in turn); REMEMBERSTACK_PROPS_ARTIFACT
names a directory that receives the dumps and the comparison as files. The comparison is
printed (`-s`) and is the message of the xfailed assertion (`--runxfail`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.belief_corpus import BeliefCorpus, Operation, generate_belief_corpus, operations
from bench.belief_dump import BeliefDump, diff_dumps, dumps_json, read_dump
from bench.belief_run import DrainReport, apply_operations, wait_drained
from shared.entities.normalize import normalize_name
from shared.grpc.channel import open_channel
from shared.grpc.server import GrpcServer
from tests.support.belief_system import adjudicator, read_and_ingest_servers, replica_adjudicators

pytestmark = pytest.mark.slow

DOCUMENTS = int(os.environ.get("REMEMBERSTACK_PROPS_DOCUMENTS", "60"))
PERMUTATIONS = int(os.environ.get("REMEMBERSTACK_PROPS_PERMUTATIONS", "10"))
PROCESS_COUNTS = (1, 2, 4)
CRASH_LEASE_SECONDS = 8


@dataclass
class Run:
    name: str
    processes: int
    dump: BeliefDump
    drain: DrainReport
    seconds: float
    note: str = ""


@pytest.fixture(scope="module")
def corpus() -> BeliefCorpus:
    return generate_belief_corpus(DOCUMENTS, seed=17)


@pytest.fixture(scope="module")
async def system(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[dict[str, GrpcServer], Path]]:
    data_dir = tmp_path_factory.mktemp("order")
    async with read_and_ingest_servers(database_url, data_dir) as servers:
        yield servers, data_dir


_HELD = text(
    """
    SELECT w.locked_by, w.status, d.source_ref,
           (SELECT count(*) FROM version_claims vc WHERE vc.version_id = w.version_id) AS claims,
           (SELECT count(DISTINCT a.claim_id) FROM assertions a
              JOIN version_claims vc ON vc.claim_id = a.claim_id
             WHERE vc.version_id = w.version_id) AS adjudicated
    FROM work_items w JOIN document_versions v ON v.id = w.version_id
    JOIN documents d ON d.id = v.document_id
    WHERE w.namespace = :ns AND w.kind = 'adjudicate.version'
      AND (w.status = 'running' OR d.source_ref = :long)
    """
)


async def _kill_a_replica_mid_item(
    engine: AsyncEngine, namespace: str, pids: list[int], long_ref: str
) -> str:
    """SIGKILL the replica adjudicating the long document once some of its batches committed
    and others not; what it held, as a note. Should the long document slip by between two
    looks, the replica holding the next item is killed instead (the note says so)."""
    while True:
        async with engine.connect() as conn:
            rows = list(await conn.execute(_HELD, {"ns": namespace, "long": long_ref}))
        long_missed = any(r.source_ref == long_ref and r.status == "succeeded" for r in rows)
        for row in rows:
            pid = next((p for p in pids if f"-{p}-" in (row.locked_by or "")), None)
            if pid is None or row.status != "running":
                continue
            is_long = row.source_ref == long_ref
            if (is_long and 0 < row.adjudicated < row.claims) or (not is_long and long_missed):
                os.kill(pid, signal.SIGKILL)
                return (
                    f"killed replica {pid} holding {row.source_ref} with {row.adjudicated} of"
                    f" {row.claims} claims committed"
                )
        await asyncio.sleep(0.05)


async def _run(
    system: tuple[dict[str, GrpcServer], Path],
    database_url: str,
    engine: AsyncEngine,
    corpus: BeliefCorpus,
    name: str,
    steps: tuple[Operation, ...],
    processes: int,
    *,
    crash: bool = False,
) -> Run:
    servers, data_dir = system
    namespace = f"order-{uuid.uuid4().hex[:10]}"
    started = time.perf_counter()
    note = ""
    async with contextlib.AsyncExitStack() as stack:
        channel = await stack.enter_async_context(open_channel(servers["ingest"].address))
        killer = None
        if crash:
            # Every item in a replica process, so the one holding the long document can die.
            pids = await stack.enter_async_context(
                replica_adjudicators(engine, data_dir, processes, lease_seconds=CRASH_LEASE_SECONDS)
            )
            long_ref = corpus.documents[corpus.long_document].source_ref
            killer = asyncio.create_task(
                _kill_a_replica_mid_item(engine, namespace, pids, long_ref)
            )
        else:
            await stack.enter_async_context(adjudicator(database_url, data_dir, processes))
        await apply_operations(
            ingest_grpc.IngestServiceStub(channel), engine, namespace, corpus.documents, steps
        )
        drain = await wait_drained(engine, namespace)
        if killer is not None:
            if killer.done():
                note = killer.result()
            else:
                killer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await killer
                note = "no replica was seen holding an item: nothing was killed"
    dump = await read_dump(engine, namespace)
    return Run(name, processes, dump, drain, round(time.perf_counter() - started, 1), note)


def _fragments(corpus: BeliefCorpus, runs: list[Run]) -> list[str]:
    """Per person or company of the corpus: how many entities hold one of its names."""
    lines = ["entities holding the names of one person or company (the truth is 1):"]
    lines.append(f"{'':<22} " + " ".join(f"{r.name[:10]:>10}" for r in runs))
    for name, forms in corpus.alias_groups.items():
        aliases = {normalize_name(form) for form in forms}
        counts = [sum(n for g, n in r.dump.entities.items() if g & aliases) for r in runs]
        lines.append(f"{name:<22} " + " ".join(f"{c:>10}" for c in counts))
    return lines


def _comparison(runs: list[Run], corpus: BeliefCorpus | None = None) -> str:
    reference = runs[0]
    lines = [
        f"{'run':<24} {'proc':>4} {'secs':>6} "
        + " ".join(f"{k:>9}" for k in reference.dump.summary())
        + "  equal"
    ]
    for run in runs:
        counts = " ".join(f"{v:>9}" for v in run.dump.summary().values())
        equal = "yes" if run.dump == reference.dump else "NO"
        lines.append(f"{run.name:<24} {run.processes:>4} {run.seconds:>6} {counts}  {equal}")
    distinct = sum(r.dump != reference.dump for r in runs[1:])
    lines.append(f"{distinct} of {len(runs) - 1} runs differ from {reference.name}")
    if corpus is not None:
        lines += _fragments(corpus, runs)
    for run in runs[1:]:
        if run.note:
            lines.append(f"{run.name}: {run.note}")
        if run.dump != reference.dump:
            lines.append(f"--- {reference.name} vs {run.name}")
            lines += diff_dumps(reference.dump, run.dump, (reference.name, run.name), limit=12)
    return "\n".join(lines)


def _write_artifacts(report: str, runs: list[Run]) -> None:
    artifact = os.environ.get("REMEMBERSTACK_PROPS_ARTIFACT")
    if artifact:
        folder = Path(artifact)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "order_independence.txt").write_text(report + "\n")
        (folder / "order_independence_dumps.json").write_text(
            dumps_json({r.name: r.dump for r in runs})
        )


@pytest.fixture(scope="module")
async def runs(
    system: tuple[dict[str, GrpcServer], Path],
    database_url: str,
    db_engine: AsyncEngine,
    corpus: BeliefCorpus,
) -> list[Run]:
    done = [
        await _run(
            system, database_url, db_engine, corpus, "reference", operations(corpus, None), 1
        )
    ]
    for seed in range(1, PERMUTATIONS + 1):
        processes = PROCESS_COUNTS[(seed - 1) % len(PROCESS_COUNTS)]
        steps = operations(corpus, seed)
        done.append(
            await _run(
                system,
                database_url,
                db_engine,
                corpus,
                f"perm{seed}-p{processes}",
                steps,
                processes,
            )
        )
    done.append(
        await _run(
            system,
            database_url,
            db_engine,
            corpus,
            "reference-crash-p2",
            operations(corpus, None),
            2,
            crash=True,
        )
    )
    report = _comparison(done, corpus)
    print(report)
    _write_artifacts(report, done)
    return done


def test_every_run_drains_without_dead_letters_and_forms_every_kind_of_belief(
    runs: list[Run], corpus: BeliefCorpus
) -> None:
    assert len(runs) == 1 + PERMUTATIONS + 1
    assert {r.processes for r in runs} >= set(PROCESS_COUNTS)
    for run in runs:
        assert run.drain.dead_letters == [], run.name
        summary = run.dump.summary()
        # The set exercises what the property is about, in every run.
        assert summary["superseded"] > 0, run.name
        assert summary["in_contradiction_groups"] > 0, run.name
        assert summary["invalidated"] > 0, run.name
        assert summary["entities"] > 10, run.name


def test_the_killed_replica_s_item_is_retried_by_another_process(runs: list[Run]) -> None:
    crashed = runs[-1]
    assert crashed.note.startswith("killed replica"), crashed.note
    assert crashed.drain.retried_adjudications >= 1


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="issue 17: person short forms still depend on arrival order where several arrive"
    " before the full name: a full name now completes one lone-name entity met before it"
    " (entities/completion.py; every company and most people are one entity in every"
    " permutation), but when two lone forms each minted an entity first ('Sam', then 'Reyes'),"
    " or a lone given name was split off by a disjoint context before any full name existed,"
    " joining them is a merge (off by default, SPEC 3) and only proposed. In runs whose"
    " entities match, what differs is retracted facts (a DeleteDocument's facts keep the"
    " window, successor and group they had when retracted, and whether a retracted copy exists"
    " at all follows timing) and observations worded with different names for one person"
    " ('Mel has…', 'Melanie Ortiz has…') merging in some orders only.",
)
def test_every_permutation_and_process_count_gives_the_reference_beliefs(
    runs: list[Run], corpus: BeliefCorpus
) -> None:
    reference = runs[0]
    differing = [r.name for r in runs[1:-1] if r.dump != reference.dump]
    assert not differing, _comparison(runs[:-1], corpus)


@pytest.mark.xfail(
    strict=False,
    raises=AssertionError,
    reason="issue 17: a crash and retry may change the beliefs. Since entity-rules-5 the"
    " retried claims resolve as before (the extra 'northwind' entity is gone); what differed"
    " in the last runs is a retracted fact's copy and a live fact left in a one-member group"
    " by it, which follow how the DeleteDocument interleaves with adjudication. Not"
    " strict: the reference run itself is not reproducible there",
)
def test_a_crash_and_retry_gives_the_reference_beliefs(runs: list[Run]) -> None:
    reference, crashed = runs[0], runs[-1]
    assert crashed.dump == reference.dump, "\n".join(
        diff_dumps(reference.dump, crashed.dump, (reference.name, crashed.name))
    )
