"""One resolver call for many mentions (as the adjudicator makes per batch of claims) decides
what one call per mention decides, and writes each entity, alias and verdict once."""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolvedMention
from shared.entities import lookup_repository
from shared.entities.normalize import trigrams

DocumentClaims = Callable[[AsyncSession, str, int], Awaitable[tuple[uuid.UUID, list[uuid.UUID]]]]

_SET = Path(__file__).resolve().parents[3] / "data" / "resolution_set.jsonl"


def _partition(results: list[ResolvedMention]) -> list[frozenset[int]]:
    """Which mentions (by position) share an entity; entity ids differ between namespaces."""
    groups: dict[uuid.UUID | None, set[int]] = defaultdict(set)
    for n, r in enumerate(results):
        groups[r.entity_id if r.entity_id else uuid.uuid4()].add(n)
    return sorted((frozenset(g) for g in groups.values()), key=min)


async def _mentions(
    session: AsyncSession, namespace: str, rows: list[dict[str, Any]], claims: DocumentClaims
) -> list[list[Mention]]:
    """The labelled set's mentions, one document of claims per source document."""
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_doc[row["doc"]].append(row)
    documents = []
    for doc_rows in by_doc.values():
        doc, claim_ids = await claims(session, namespace, len(doc_rows))
        documents.append(
            [
                Mention(r["text"], r["role"], c, doc, r["speaker"], tuple(r["co_mentions"]))
                for r, c in zip(doc_rows, claim_ids, strict=True)
            ]
        )
    return documents


async def test_one_call_per_document_decides_as_one_call_per_mention(
    session_factory: async_sessionmaker[AsyncSession], document_claims: DocumentClaims
) -> None:
    rows = [json.loads(line) for line in _SET.read_text().splitlines() if line.strip()]
    resolver = EntityResolver(None)
    one_by_one: list[ResolvedMention] = []
    batched: list[ResolvedMention] = []
    single_ns, batch_ns = f"test-{uuid.uuid4().hex[:12]}", f"test-{uuid.uuid4().hex[:12]}"
    async with session_factory() as session, session.begin():
        for document in await _mentions(session, single_ns, rows, document_claims):
            for mention in document:
                one_by_one += await resolver.resolve_mentions(session, single_ns, [mention])
    async with session_factory() as session, session.begin():
        for document in await _mentions(session, batch_ns, rows, document_claims):
            batched += await resolver.resolve_mentions(session, batch_ns, document)
    assert _partition(batched) == _partition(one_by_one)
    assert [(r.created, r.step) for r in batched] == [(r.created, r.step) for r in one_by_one]
    async with session_factory() as session:
        for table in ("entities", "entity_aliases", "resolution_verdicts", "merge_proposals"):
            counts = [
                (
                    await session.execute(
                        text(f"SELECT count(*) FROM {table} WHERE namespace = :ns"), {"ns": ns}
                    )
                ).scalar_one()
                for ns in (single_ns, batch_ns)
            ]
            assert counts[0] == counts[1], table


async def test_one_call_writes_each_alias_once_with_its_count_and_postings(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    texts = ["Orla Byrne", "ORLA BYRNE", "Orla Byrne", "Kenji Sato", "the system"]
    async with session_factory() as session, session.begin():
        doc, claims = await document_claims(session, namespace, len(texts))
        results = await EntityResolver(None).resolve_mentions(
            session,
            namespace,
            [Mention(t, "subject", c, doc) for t, c in zip(texts, claims, strict=True)],
        )
    assert [r.created for r in results] == [True, False, False, True, False]
    assert len({r.entity_id for r in results[:3]}) == 1 and results[4].entity_id is None
    async with session_factory() as session:
        aliases = (
            await session.execute(
                text(
                    "SELECT a.alias, a.mention_count, count(t.trigram) AS postings"
                    " FROM entity_aliases a LEFT JOIN alias_trigrams t ON t.alias_id = a.id"
                    " WHERE a.namespace = :ns GROUP BY a.id ORDER BY a.alias"
                ),
                {"ns": namespace},
            )
        ).all()
        assert [tuple(a) for a in aliases] == [
            ("Kenji Sato", 1, len(trigrams("kenji sato"))),
            ("Orla Byrne", 3, len(trigrams("orla byrne"))),
        ]
        verdicts = (
            await session.execute(
                text("SELECT claim_id, created_new FROM resolution_verdicts WHERE namespace = :ns"),
                {"ns": namespace},
            )
        ).all()
        created = {claim: new for claim, new in verdicts}
        assert created == {c: r.created for c, r in zip(claims, results, strict=True)}


async def test_a_profile_embedding_is_noticed_by_the_probe(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        await session.execute(
            text("INSERT INTO namespaces (namespace) VALUES (:ns)"), {"ns": namespace}
        )
        await session.execute(
            text(
                "INSERT INTO entities (namespace, canonical_name, normalized_name,"
                " profile_embedding) VALUES (:ns, 'Orla', 'orla', CAST(:v AS vector))"
            ),
            {"ns": namespace, "v": lookup_repository.vector_literal([1.0] + [0.0] * 383)},
        )
        assert await lookup_repository.any_profile_embedding(session)
