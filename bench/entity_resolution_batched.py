"""The entity-resolution benchmark's adjudicator-batch measurements: calls of 32 mentions as
the adjudicator makes them, and a clock that files every statement under the cascade step it
serves (see bench/entity_resolution.py)."""

from __future__ import annotations

import random
import statistics
import time
import uuid
from collections import defaultdict
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolutionContext

__all__ = [
    "BATCH_MENTIONS",
    "FIRST_NAMES",
    "StatementClock",
    "batched",
    "document",
    "latency_summary",
]

# One string keeps the 48 names on four lines (a list literal formats to one per line).
FIRST_NAMES = (  # noqa: SIM905
    "ravi priya tom lena dana marcus kenji olu sofia alex maria john james anna li "
    "wei omar fatima noah emma liam olivia lucas mia ethan ava mateo chloe ivan nadia "
    "yusuf sara hugo ines kofi amara diego elena felix greta hana isaac jonas kira "
    "leo maya nico petra"
).split()

_DOC_SQL = (
    "INSERT INTO documents (namespace, identity_key) VALUES (:ns, :key) RETURNING id",
    "INSERT INTO document_versions (namespace, document_id, version_number, content, media_type,"
    " content_sha256) VALUES (:ns, :doc, 1, '\\x00', 'text/plain', :key) RETURNING id",
    "INSERT INTO chunks (namespace, document_id, content_sha256, text)"
    " VALUES (:ns, :doc, :key, 'c') RETURNING id",
    "INSERT INTO claims (namespace, document_id, first_version_id, chunk_id, claim_text,"
    " normalized_text, source_span, char_start, char_end, chunk_char_start, chunk_char_end,"
    " extractor_name, extractor_version, dedupe_key) SELECT :ns, :doc, :ver, :chunk, 'c', 'c',"
    " 'c', 0, 1, 0, 1, 'bench', '1', :key || i FROM generate_series(1, :n) AS i RETURNING id",
)


async def document(
    session: AsyncSession, namespace: str, claims: int
) -> tuple[uuid.UUID, list[uuid.UUID]]:
    """A document with `claims` claims, so verdicts carry a document like in production."""
    await repo.ensure_namespace(session, namespace)
    params: dict[str, Any] = {"ns": namespace, "key": uuid.uuid4().hex, "n": claims}
    for key, sql in zip(("doc", "ver", "chunk"), _DOC_SQL, strict=False):
        params[key] = (await session.execute(text(sql), params)).scalar_one()
    rows = await session.execute(text(_DOC_SQL[3]), params)
    return params["doc"], [r[0] for r in rows]


def latency_summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


# The adjudicator resolves a batch of 16 claims in one call: a subject and an object each.
_BATCH_CLAIMS = 16
BATCH_MENTIONS = 2 * _BATCH_CLAIMS


def _mention_name(kind: str, names: list[str], rng: random.Random) -> str:
    name = rng.choice(names)
    if kind == "typo":
        return name[:-2] + name[-1] + name[-2]
    if kind == "new":
        return f"{rng.choice(FIRST_NAMES).capitalize()} Zq{uuid.uuid4().hex[:6]}"
    return name


async def batched(
    factory: async_sessionmaker[AsyncSession],
    resolver: EntityResolver,
    namespace: str,
    names: list[str],
    rng: random.Random,
    calls: int,
    clock: StatementClock,
) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """Calls of `BATCH_MENTIONS` mentions (one new document of `_BATCH_CLAIMS` claims each,
    as an adjudicator batch): per kind of name, and mixed in the proportions of the single
    mentions; each sample is the call's time divided by its mentions."""
    samples: dict[str, list[float]] = defaultdict(list)
    mix = ["existing"] * 6 + ["typo"] * 2 + ["new"] * 2
    for kind in ("existing", "typo", "new", "mixed"):
        for n in range(calls + 2):  # the first two warm plans and caches
            kinds = [mix[i % len(mix)] if kind == "mixed" else kind for i in range(BATCH_MENTIONS)]
            rng.shuffle(kinds)
            texts = [_mention_name(k, names, rng) for k in kinds]
            async with factory() as session, session.begin():
                doc, claims = await document(session, namespace, _BATCH_CLAIMS)
                mentions = [
                    Mention(
                        texts[i],
                        "subject" if i % 2 == 0 else "object",
                        claims[i // 2],
                        doc,
                        None,
                        (texts[i + 1 - 2 * (i % 2)],),
                    )
                    for i in range(BATCH_MENTIONS)
                ]
                context = ResolutionContext(session, namespace)
                with clock.running(f"batch_{kind}"):
                    started = time.perf_counter()
                    await resolver.resolve_mentions(session, namespace, mentions, context=context)
                    elapsed = (time.perf_counter() - started) * 1000
            if n >= 2:
                samples[f"resolve_batch_{kind}_per_mention"].append(elapsed / BATCH_MENTIONS)
            else:
                clock.clear(f"batch_{kind}")
    counts = {f"batch_{k}": calls * BATCH_MENTIONS for k in ("existing", "typo", "new", "mixed")}
    return samples, clock.summary(counts)


# The statements the resolver sends, by the step they serve (matched on how they begin).
_STATEMENT_STEPS = (
    ("SELECT coalesce(e.redirect_to, e.id)", "exact_alias"),
    ("SELECT pg_advisory_xact_lock", "name_locks"),
    ("SELECT c.document_id", "document_map"),
    ("SELECT s.part", "trigram_phonetic"),
    ("SELECT i AS eid", "neighbours"),
    ("SELECT profile_embedding IS NOT NULL", "profile_probe"),
    ("SELECT q.n, h.*", "embedding"),
    ("WITH e AS (INSERT", "writes"),
    ("INSERT INTO merge_proposals", "proposals"),
    ("INSERT INTO namespaces", "namespace"),
)


class StatementClock:
    """Times every statement the resolver sends (from the driver call to its answer) and
    files it under the step it serves, per labelled phase of the benchmark."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._label: str | None = None
        self._times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        sync = engine.sync_engine
        event.listen(sync, "before_cursor_execute", self._before)
        event.listen(sync, "after_cursor_execute", self._after)

    def running(self, label: str) -> _Label:
        return _Label(self, label)

    def clear(self, label: str | None = None) -> None:
        if label is None:
            self._times.clear()
        else:
            self._times.pop(label, None)

    def _before(self, conn: Any, *_: Any) -> None:
        conn.info["bench_started"] = time.perf_counter()

    def _after(self, conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if self._label is None:
            return
        flat = " ".join(statement.split())
        step = next((s for prefix, s in _STATEMENT_STEPS if flat.startswith(prefix)), "other")
        elapsed = (time.perf_counter() - conn.info["bench_started"]) * 1000
        self._times[self._label][step].append(elapsed)

    def summary(self, mentions: dict[str, int]) -> dict[str, Any]:
        """Per label and step: statements, p50/p95 per statement and ms per mention."""
        return {
            label: {
                step: latency_summary(values)
                | {"ms_per_mention": round(sum(values) / max(1, mentions[label]), 3)}
                for step, values in sorted(self._times[label].items())
            }
            for label in mentions
        }


class _Label:
    def __init__(self, clock: StatementClock, label: str) -> None:
        self._clock, self._label = clock, label

    def __enter__(self) -> None:
        self._clock._label = self._label

    def __exit__(self, *_: object) -> None:
        self._clock._label = None
