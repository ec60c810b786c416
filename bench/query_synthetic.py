"""Synthetic belief store for query benchmarks, loaded with COPY.

Power-law entity degrees (a few hubs, a long tail), labels of 5-14 words, 10 % of facts in
contradiction groups of 2-3, supersession chains (the earlier fact closed at its successor's
start), one supporting claim per fact in documents of 20 claims, random unit vectors.
"""

from __future__ import annotations

import csv
import io
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np

PREDICATES = ("works_on", "member_of", "knows", "uses", "part_of", "related_to", "reports_to")
_DIM = 384
_BATCH = 20_000
_BASE = datetime(2024, 1, 1, tzinfo=UTC)
_HNSW = (
    ("ix_facts_embedding_hnsw", "facts", "embedding"),
    ("ix_claims_embedding_hnsw", "claims", "embedding"),
    ("ix_chunks_embedding_hnsw", "chunks", "embedding"),
)


@dataclass(frozen=True)
class Dataset:
    namespace: str
    entity_ids: list[uuid.UUID]
    entity_weights: np.ndarray
    words: list[str]


def _vectors(rng: np.random.Generator, n: int) -> list[str]:
    matrix = rng.standard_normal((n, _DIM)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return ["[" + ",".join(f"{x:.4f}" for x in row) + "]" for row in matrix]


async def _copy(
    conn: asyncpg.Connection, table: str, columns: list[str], rows: list[list[object]]
) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    data = io.BytesIO(buffer.getvalue().encode())
    await conn.copy_to_table(table, source=data, columns=columns, format="csv", null="")


async def generate(
    conn: asyncpg.Connection, namespace: str, n_facts: int, seed: int = 7
) -> Dataset:
    """Write `n_facts` facts (and their entities, documents, chunks, claims, evidence)."""
    rng = np.random.default_rng(seed)
    words = [f"w{''.join(rng.choice(list('abcdefghijklmnopqrstuvwxyz'), 6))}" for _ in range(5000)]
    n_entities = max(50, n_facts // 4)
    ranks = np.arange(1, n_entities + 1, dtype=np.float64)
    weights = 1.0 / ranks**1.1
    weights /= weights.sum()
    entity_ids = [uuid.uuid4() for _ in range(n_entities)]
    names = [" ".join(rng.choice(words, 2)) for _ in range(n_entities)]
    await conn.execute(
        "INSERT INTO namespaces (namespace) VALUES ($1) ON CONFLICT DO NOTHING", namespace
    )
    for index, _table, _column in _HNSW:
        await conn.execute(f"DROP INDEX IF EXISTS {index}")
    await _copy(
        conn,
        "entities",
        ["id", "namespace", "canonical_name", "normalized_name"],
        [[e, namespace, n, n] for e, n in zip(entity_ids, names, strict=True)],
    )
    for start in range(0, n_facts, _BATCH):
        await _batch(
            conn,
            rng,
            namespace,
            start,
            min(_BATCH, n_facts - start),
            entity_ids,
            weights,
            names,
            words,
        )
    await conn.execute("SET maintenance_work_mem = '512MB'")
    for index, table, column in _HNSW:
        await conn.execute(
            f"CREATE INDEX {index} ON {table} USING hnsw ({column} vector_cosine_ops)"
        )
    await conn.execute("ANALYZE")
    return Dataset(namespace, entity_ids, weights, words)


async def _batch(
    conn: asyncpg.Connection,
    rng: np.random.Generator,
    namespace: str,
    start: int,
    n: int,
    entity_ids: list[uuid.UUID],
    weights: np.ndarray,
    names: list[str],
    words: list[str],
) -> None:
    docs = [uuid.uuid4() for _ in range(max(1, n // 20))]
    versions = [uuid.uuid4() for _ in docs]
    chunks = [uuid.uuid4() for _ in range(max(1, n // 5))]
    await _copy(
        conn,
        "documents",
        ["id", "namespace", "identity_key", "title", "media_type"],
        [
            [d, namespace, f"sha256:{d.hex}", f"doc {start + i}", "text/plain"]
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
            [v, namespace, d, 1, "\\x00", "x", "text/plain", d.hex, _BASE]
            for v, d in zip(versions, docs, strict=True)
        ],
    )
    await conn.execute(
        "UPDATE documents d SET latest_version_id = v.id FROM document_versions v"
        " WHERE v.document_id = d.id AND d.latest_version_id IS NULL AND d.namespace = $1",
        namespace,
    )
    chunk_doc = [i % len(docs) for i in range(len(chunks))]
    chunk_text = [" ".join(rng.choice(words, 60)) for _ in chunks]
    await _copy(
        conn,
        "chunks",
        ["id", "namespace", "document_id", "content_sha256", "text", "embedding"],
        [
            [c, namespace, docs[chunk_doc[i]], c.hex, chunk_text[i], vec]
            for i, (c, vec) in enumerate(zip(chunks, _vectors(rng, len(chunks)), strict=True))
        ],
    )
    await _copy(
        conn,
        "version_chunks",
        ["namespace", "version_id", "chunk_id", "ordinal", "char_start", "char_end"],
        [[namespace, versions[chunk_doc[i]], c, i, 0, 10] for i, c in enumerate(chunks)],
    )
    subjects = rng.choice(len(entity_ids), n, p=weights)
    objects = rng.choice(len(entity_ids), n, p=weights)
    lengths = rng.integers(3, 12, n)
    facts = [uuid.uuid4() for _ in range(n)]
    claims = [uuid.uuid4() for _ in range(n)]
    rows_claims, rows_facts, rows_evidence = [], [], []
    fact_vectors, claim_vectors = _vectors(rng, n), _vectors(rng, n)
    groups: list[uuid.UUID] = []
    group_of: dict[int, uuid.UUID] = {}
    index = 0
    while index < n:  # ~10 % of facts in groups of 2-3
        if rng.random() < 0.04:
            size = int(rng.integers(2, 4))
            group = uuid.uuid4()
            groups.append(group)
            for member in range(index, min(n, index + size)):
                group_of[member] = group
            index += size
        else:
            index += 1
    await _copy(conn, "contradiction_groups", ["id", "namespace"], [[g, namespace] for g in groups])
    for i in range(n):
        predicate = PREDICATES[i % len(PREDICATES)]
        relation = i % 3 != 0
        tail = " ".join(rng.choice(words, lengths[i]))
        subject, obj = entity_ids[subjects[i]], entity_ids[objects[i]]
        what = names[objects[i]] if relation else tail
        label = f"{names[subjects[i]]} {predicate.replace('_', ' ')} {what}"
        doc = i % len(docs)
        text = f"{label} {tail}"
        rows_claims.append(
            [
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
            ]
        )
        valid_from = _BASE + timedelta(days=int(rng.integers(0, 700)))
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
            ]
        )
        rows_evidence.append([namespace, facts[i], claims[i], docs[doc], "supports"])
    # Supersession chains: every 20th fact is succeeded by the next fact on the same subject.
    for i in range(0, n - 1, 20):
        succ = rows_facts[i + 1]
        rows_facts[i][9] = (
            succ[8] if succ[8] > rows_facts[i][8] else rows_facts[i][8] + timedelta(days=1)
        )
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
        ],
        rows_facts,
    )
    await conn.execute(
        "UPDATE facts f SET superseded_by_fact_id = s.id FROM facts s"
        " WHERE f.id = ANY($1::uuid[]) AND s.id = ANY($2::uuid[])"
        " AND array_position($1::uuid[], f.id) = array_position($2::uuid[], s.id)",
        [facts[i] for i in range(0, n - 1, 20)],
        [facts[i + 1] for i in range(0, n - 1, 20)],
    )
    await _copy(
        conn,
        "fact_evidence",
        ["namespace", "fact_id", "claim_id", "document_id", "stance"],
        rows_evidence,
    )
