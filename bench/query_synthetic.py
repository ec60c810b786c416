"""Synthetic belief store for query benchmarks, loaded with binary COPY.

Power-law entity degrees (a few hubs, a long tail), labels of 5-14 words, 10 % of facts in
contradiction groups of 2-3, supersession chains (the earlier fact closed at its successor's
start), one supporting claim per fact in documents of 20 claims, profiled entities, and unit
vectors clustered around topics (text embeddings cluster; uniform noise is HNSW's worst case).
Everything derives from the seed, so `describe` rebuilds a loaded store's handles without reloading.
"""

from __future__ import annotations

import contextlib
import struct
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np
import numpy.typing as npt

PREDICATES = ("works_on", "member_of", "knows", "uses", "part_of", "related_to", "reports_to")
_DIM = 384
_TOPICS = 64
_BATCH = 20_000
_BASE = datetime(2024, 1, 1, tzinfo=UTC)
_ENTITY_COLUMNS = (
    "id",
    "namespace",
    "canonical_name",
    "normalized_name",
    "profile_text",
    "profile_embedding",
)
_VECTOR_HEADER = struct.pack(">HH", _DIM, 0)


@dataclass(frozen=True)
class Dataset:
    namespace: str
    entity_ids: list[uuid.UUID]
    entity_weights: npt.NDArray[np.float64]
    words: list[str]
    group_ids: list[uuid.UUID]


@dataclass(frozen=True)
class _Header:
    words: list[str]
    entity_ids: list[uuid.UUID]
    names: list[str]
    weights: npt.NDArray[np.float64]
    centroids: npt.NDArray[np.float32]


def _uuids(rng: np.random.Generator, n: int) -> list[uuid.UUID]:
    raw = rng.bytes(16 * n)
    return [uuid.UUID(bytes=raw[i * 16 : (i + 1) * 16], version=4) for i in range(n)]


def _header(rng: np.random.Generator, n_facts: int) -> _Header:
    letters = list("abcdefghijklmnopqrstuvwxyz")
    words = [f"w{''.join(rng.choice(letters, 6))}" for _ in range(5000)]
    n_entities = max(50, n_facts // 4)
    ranks = np.arange(1, n_entities + 1, dtype=np.float64)
    weights = 1.0 / ranks**1.1
    weights /= weights.sum()
    entity_ids = _uuids(rng, n_entities)
    pairs = rng.integers(0, len(words), (n_entities, 2)).tolist()
    names = [f"{words[a]} {words[b]}" for a, b in pairs]
    centroids = rng.standard_normal((_TOPICS, _DIM)).astype(np.float32)
    return _Header(words, entity_ids, names, weights, centroids)


def _vectors(rng: np.random.Generator, centroids: npt.NDArray[np.float32], n: int) -> list[bytes]:
    """pgvector binary values: unit vectors scattered around random topic centroids."""
    matrix = centroids[rng.integers(0, _TOPICS, n)] + 0.6 * rng.standard_normal((n, _DIM)).astype(
        np.float32
    )
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    big_endian = matrix.astype(">f4")
    return [_VECTOR_HEADER + row.tobytes() for row in big_endian]


def _vector_codec(value: bytes) -> bytes:
    return value


async def _copy(
    conn: asyncpg.Connection, table: str, columns: Sequence[str], rows: list[tuple[object, ...]]
) -> None:
    await conn.copy_records_to_table(table, records=rows, columns=list(columns))


def describe(namespace: str, n_facts: int, seed: int = 7) -> Dataset:
    """The handles of a store `generate` wrote with the same arguments (no database access)."""
    rng = np.random.default_rng(seed)
    head = _header(rng, n_facts)
    return Dataset(namespace, head.entity_ids, head.weights, head.words, [])


# Tables the load writes in bulk: their secondary indexes are dropped for the load and rebuilt
# after it (one sorted build each beats maintaining them row by row), HNSW ones last.
_BULK_TABLES = (
    "entities",
    "documents",
    "document_versions",
    "chunks",
    "version_chunks",
    "claims",
    "facts",
    "fact_evidence",
    "contradiction_groups",
)


async def _drop_secondary_indexes(conn: asyncpg.Connection) -> list[tuple[str, str]]:
    """Drop every index of the bulk tables that no constraint owns; returns (name, definition)
    to rebuild, so the rebuild always matches the migration whatever it declares."""
    rows = await conn.fetch(
        "SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def"
        " FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid"
        " WHERE t.relname = ANY($1::text[]) AND NOT EXISTS"
        " (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)",
        list(_BULK_TABLES),
    )
    for row in rows:
        await conn.execute(f"DROP INDEX IF EXISTS {row['name']}")
    return [(row["name"], row["def"]) for row in rows]


async def _rebuild_indexes(
    conn: asyncpg.Connection, indexes: list[tuple[str, str]], timings: dict[str, float]
) -> None:
    """B-tree and GIN first, then HNSW with enough memory that every graph builds in memory
    (pgvector falls back to a far slower on-disk build when the graph outgrows it)."""
    await conn.execute("SET maintenance_work_mem = '4GB'")
    await conn.execute("SET max_parallel_maintenance_workers = 2")
    for name, definition in sorted(indexes, key=lambda item: "USING hnsw" in item[1]):
        started = time.perf_counter()
        await conn.execute(definition)
        timings[f"index {name}"] = round(time.perf_counter() - started, 1)


async def generate(
    conn: asyncpg.Connection,
    namespace: str,
    n_facts: int,
    seed: int = 7,
    timings: dict[str, float] | None = None,
) -> Dataset:
    """Write `n_facts` facts (and their entities, documents, chunks, claims, evidence).

    The store is consistent by construction, so the load skips foreign-key triggers
    (session_replication_role = replica) and drops the bulk tables' secondary indexes, then
    rebuilds them once. `timings` (when given) receives seconds per phase."""
    phases: dict[str, float] = {} if timings is None else timings
    started = time.perf_counter()
    await conn.set_type_codec(
        "vector", schema="public", encoder=_vector_codec, decoder=_vector_codec, format="binary"
    )
    # Not a superuser: the foreign-key checks run and the load is only slower.
    with contextlib.suppress(asyncpg.InsufficientPrivilegeError):
        await conn.execute("SET session_replication_role = replica")
    await conn.execute("SET synchronous_commit = off")
    rng = np.random.default_rng(seed)
    head = _header(rng, n_facts)
    await conn.execute(
        "INSERT INTO namespaces (namespace) VALUES ($1) ON CONFLICT DO NOTHING", namespace
    )
    indexes = await _drop_secondary_indexes(conn)
    profiles = _vectors(rng, head.centroids, len(head.entity_ids))
    await _copy(
        conn,
        "entities",
        _ENTITY_COLUMNS,
        [
            (e, namespace, n, n, f"{n}: synthetic entity", p)
            for e, n, p in zip(head.entity_ids, head.names, profiles, strict=True)
        ],
    )
    groups: list[uuid.UUID] = []
    for start in range(0, n_facts, _BATCH):
        groups += await _batch(conn, rng, namespace, start, min(_BATCH, n_facts - start), head)
    await conn.execute(
        "UPDATE documents d SET latest_version_id = v.id FROM document_versions v"
        " WHERE v.document_id = d.id AND d.latest_version_id IS NULL AND d.namespace = $1",
        namespace,
    )
    phases["copy"] = round(time.perf_counter() - started, 1)
    await _rebuild_indexes(conn, indexes, phases)
    started = time.perf_counter()
    await conn.execute("RESET session_replication_role")
    await conn.execute("VACUUM ANALYZE")
    phases["vacuum_analyze"] = round(time.perf_counter() - started, 1)
    return Dataset(namespace, head.entity_ids, head.weights, head.words, groups)


async def _batch(
    conn: asyncpg.Connection,
    rng: np.random.Generator,
    namespace: str,
    start: int,
    n: int,
    head: _Header,
) -> list[uuid.UUID]:
    docs = _uuids(rng, max(1, n // 20))
    versions = _uuids(rng, len(docs))
    chunks = _uuids(rng, max(1, n // 5))
    await _copy(
        conn,
        "documents",
        ["id", "namespace", "identity_key", "title", "media_type"],
        [
            (d, namespace, f"sha256:{d.hex}", f"doc {start + i}", "text/plain")
            for i, d in enumerate(docs)
        ],
    )
    await _copy(
        conn,
        "document_versions",
        [
            "id",
            "namespace",
            "document_id",
            "version_number",
            "content",
            "content_text",
            "media_type",
            "content_sha256",
            "source_modified_time",
        ],
        [
            (v, namespace, d, 1, b"\x00", "x", "text/plain", d.hex, _BASE)
            for v, d in zip(versions, docs, strict=True)
        ],
    )
    chunk_doc = [i % len(docs) for i in range(len(chunks))]
    words = head.words
    chunk_words = rng.integers(0, len(words), (len(chunks), 60))
    chunk_text = [" ".join([words[w] for w in row]) for row in chunk_words.tolist()]
    chunk_vectors = _vectors(rng, head.centroids, len(chunks))
    await _copy(
        conn,
        "chunks",
        ["id", "namespace", "document_id", "content_sha256", "text", "embedding"],
        [
            (c, namespace, docs[chunk_doc[i]], c.hex, chunk_text[i], chunk_vectors[i])
            for i, c in enumerate(chunks)
        ],
    )
    await _copy(
        conn,
        "version_chunks",
        ["namespace", "version_id", "chunk_id", "ordinal", "char_start", "char_end"],
        [(namespace, versions[chunk_doc[i]], c, i, 0, 10) for i, c in enumerate(chunks)],
    )
    n_entities = len(head.entity_ids)
    subjects = rng.choice(n_entities, n, p=head.weights).tolist()
    objects = rng.choice(n_entities, n, p=head.weights).tolist()
    lengths = rng.integers(3, 12, n).tolist()
    tail_words = rng.integers(0, len(words), (n, 11)).tolist()
    valid_days = rng.integers(0, 700, n).tolist()
    facts = _uuids(rng, n)
    claims = _uuids(rng, n)
    fact_vectors = _vectors(rng, head.centroids, n)
    claim_vectors = _vectors(rng, head.centroids, n)
    groups: list[uuid.UUID] = []
    group_of: dict[int, uuid.UUID] = {}
    index = 0
    while index < n:  # ~10 % of facts in groups of 2-3
        if rng.random() < 0.04:
            size = int(rng.integers(2, 4))
            group = _uuids(rng, 1)[0]
            groups.append(group)
            for member in range(index, min(n, index + size)):
                group_of[member] = group
            index += size
        else:
            index += 1
    await _copy(conn, "contradiction_groups", ["id", "namespace"], [(g, namespace) for g in groups])
    rows_claims: list[tuple[object, ...]] = []
    rows_facts: list[list[object]] = []
    rows_evidence: list[tuple[object, ...]] = []
    for i in range(n):
        predicate = PREDICATES[i % len(PREDICATES)]
        relation = i % 3 != 0
        tail = " ".join([words[w] for w in tail_words[i][: lengths[i]]])
        subject, obj = head.entity_ids[subjects[i]], head.entity_ids[objects[i]]
        what = head.names[objects[i]] if relation else tail
        label = f"{head.names[subjects[i]]} {predicate.replace('_', ' ')} {what}"
        doc = i % len(docs)
        text = f"{label} {tail}"
        rows_claims.append(
            (
                claims[i],
                namespace,
                docs[doc],
                versions[doc],
                chunks[i % len(chunks)],
                text,
                text,
                text,
                0,
                len(text),
                0,
                len(text),
                _BASE,
                "synthetic",
                "1",
                claims[i].hex,
                claim_vectors[i],
            )
        )
        valid_from = _BASE + timedelta(days=valid_days[i])
        rows_facts.append(
            [
                facts[i],
                namespace,
                "relation" if relation else "observation",
                subject,
                predicate if relation else None,
                obj if relation else None,
                label,
                label,
                valid_from,
                None,
                "open",
                "effective_period",
                1,
                group_of.get(i),
                fact_vectors[i],
                None,
            ]
        )
        rows_evidence.append((namespace, facts[i], claims[i], docs[doc], "supports"))
    # Supersession chains: every 20th fact is succeeded by the next fact, closed at its start.
    for i in range(0, n - 1, 20):
        succ, prev = rows_facts[i + 1], rows_facts[i]
        start_at: datetime = succ[8]  # type: ignore[assignment]
        prev_from: datetime = prev[8]  # type: ignore[assignment]
        prev[9] = start_at if start_at > prev_from else prev_from + timedelta(days=1)
        prev[15] = succ[0]
    await _copy(
        conn,
        "claims",
        [
            "id",
            "namespace",
            "document_id",
            "first_version_id",
            "chunk_id",
            "claim_text",
            "normalized_text",
            "source_span",
            "char_start",
            "char_end",
            "chunk_char_start",
            "chunk_char_end",
            "asserted_at",
            "extractor_name",
            "extractor_version",
            "dedupe_key",
            "embedding",
        ],
        rows_claims,
    )
    # Foreign-key triggers are off for the load, so a fact may name a successor written later.
    await _copy(
        conn,
        "facts",
        [
            "id",
            "namespace",
            "kind",
            "subject_entity_id",
            "predicate",
            "object_entity_id",
            "statement",
            "label",
            "valid_from",
            "valid_until",
            "valid_precision",
            "valid_kind",
            "evidence_count",
            "contradiction_group_id",
            "embedding",
            "superseded_by_fact_id",
        ],
        [tuple(row) for row in rows_facts],
    )
    await _copy(
        conn,
        "fact_evidence",
        ["namespace", "fact_id", "claim_id", "document_id", "stance"],
        rows_evidence,
    )
    return groups
