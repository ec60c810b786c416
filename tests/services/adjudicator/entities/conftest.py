"""Fixtures of the entity tests: real documents with claims, so verdicts have a document."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

DocumentClaims = Callable[[AsyncSession, str, int], Awaitable[tuple[uuid.UUID, list[uuid.UUID]]]]


async def insert_document_claims(
    session: AsyncSession, namespace: str, count: int
) -> tuple[uuid.UUID, list[uuid.UUID]]:
    """A document with one version, one chunk and `count` claims; returns their ids."""
    await session.execute(
        text("INSERT INTO namespaces (namespace) VALUES (:ns) ON CONFLICT DO NOTHING"),
        {"ns": namespace},
    )
    doc = (
        await session.execute(
            text("INSERT INTO documents (namespace, identity_key) VALUES (:ns, :key) RETURNING id"),
            {"ns": namespace, "key": uuid.uuid4().hex},
        )
    ).scalar_one()
    version = (
        await session.execute(
            text(
                "INSERT INTO document_versions (namespace, document_id, version_number, content,"
                " media_type, content_sha256) VALUES (:ns, :doc, 1, '\\x00', 'text/plain', :sha)"
                " RETURNING id"
            ),
            {"ns": namespace, "doc": doc, "sha": uuid.uuid4().hex},
        )
    ).scalar_one()
    chunk = (
        await session.execute(
            text(
                "INSERT INTO chunks (namespace, document_id, content_sha256, text)"
                " VALUES (:ns, :doc, :sha, 'chunk') RETURNING id"
            ),
            {"ns": namespace, "doc": doc, "sha": uuid.uuid4().hex},
        )
    ).scalar_one()
    claims = []
    for i in range(count):
        claims.append(
            (
                await session.execute(
                    text(
                        "INSERT INTO claims (namespace, document_id, first_version_id, chunk_id,"
                        " claim_text, normalized_text, source_span, char_start, char_end,"
                        " chunk_char_start, chunk_char_end, extractor_name, extractor_version,"
                        " dedupe_key) VALUES (:ns, :doc, :ver, :chunk, :t, :t, :t, 0, 1, 0, 1,"
                        " 'test', '1', :key) RETURNING id"
                    ),
                    {
                        "ns": namespace,
                        "doc": doc,
                        "ver": version,
                        "chunk": chunk,
                        "t": f"claim {i}",
                        "key": uuid.uuid4().hex,
                    },
                )
            ).scalar_one()
        )
    return doc, claims


@pytest.fixture
def document_claims() -> DocumentClaims:
    return insert_document_claims
