"""What ClaimsAndSourcesContext's channels are asked, read in one real snapshot."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.domain import ClaimsContextQuery
from services.query.reads.claims_context import nominate
from services.query.sql.channels import vector_channel, vector_literal
from services.query.sql.snapshot import Budget, read_snapshot
from shared.embedding import Embedder

TURNS = [
    "[D1:1 | 2023-05-08T13:56:00Z] Caroline: I went to a pottery class yesterday.",
    "[D1:2 | 2023-05-08T13:57:00Z] Melanie: Caroline, that sounds lovely! What did you make?",
    "[D1:3 | 2023-05-08T13:58:00Z] Caroline: A bowl with a painted sunflower.",
]


async def _nominate(
    world: Any, engine: AsyncEngine, embedder: Embedder, query: str
) -> tuple[Any, list[str], list[Any]]:
    """The nomination of `query`, the texts embedded on the way, and the chunks a vector
    search for the query without the names of the speakers ranks."""
    asked: list[str] = []

    async def embed(text: str) -> str | None:
        asked.append(text)
        return vector_literal(embedder.embed([text])[0])

    q = ClaimsContextQuery(world.namespace, query, (), 10, 50, None)
    vector = vector_literal(embedder.embed([query])[0])
    async with read_snapshot(engine, Budget(10)) as conn:
        nominated = await nominate(conn, q, vector, datetime.now(UTC), embed)
        without_names = query.replace("Caroline ", "")
        expected = await vector_channel(
            conn,
            "chunks",
            world.namespace,
            vector_literal(embedder.embed([without_names])[0]),
            50,
        )
    return nominated, asked, expected


async def test_the_chunk_vector_channel_is_asked_without_the_speaker_the_query_names(
    world: Any, db_engine: AsyncEngine, embedder: Embedder
) -> None:
    doc = await world.document(TURNS, title="session 1")
    await world.claim(doc, "I went to a pottery class yesterday.", speaker="Caroline")
    await world.claim(doc, "A bowl with a painted sunflower.", chunk=2, speaker="Caroline")

    nominated, asked, expected = await _nominate(
        world, db_engine, embedder, "What did Caroline make at the pottery class?"
    )
    # Every chunk starts with its speaker's name: the name would rank them by who spoke.
    assert nominated.named == {"Caroline"}
    assert asked == ["What did make at the pottery class?"]
    assert nominated.chunk_vector == expected
    assert len(nominated.chunk_vector) == len(TURNS)


async def test_a_query_naming_no_speaker_embeds_nothing_more(
    world: Any, db_engine: AsyncEngine, embedder: Embedder
) -> None:
    doc = await world.document(TURNS, title="session 1")
    await world.claim(doc, "I went to a pottery class yesterday.", speaker="Caroline")

    nominated, asked, _ = await _nominate(
        world, db_engine, embedder, "What was made at the pottery class?"
    )
    assert nominated.named == set()
    assert asked == []
    assert len(nominated.chunk_vector) == len(TURNS)
