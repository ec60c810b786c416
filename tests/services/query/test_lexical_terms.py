"""Which query terms FactsContext's unweighted lexical channel ranks on a large store."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.sql.channels import selective_tsquery

COMMON = 150  # facts carrying the common word; with the rare word in one of them


async def _terms(engine: AsyncEngine, query: str, cap: int, rows: int = 10**7) -> set[str]:
    """The terms kept for `query` in a namespace of `rows` facts."""
    bind = {"q": query, "lexcap": cap, "lexn": rows}
    async with engine.connect() as conn:
        sql = text(f"SELECT {selective_tsquery('facts')}::text")
        tsq = (await conn.execute(sql, bind)).scalar_one()
    return {term.strip(" '") for term in tsq.split("|")} - {""}


@pytest.fixture
async def analysed(world: Any, db_engine: AsyncEngine) -> None:
    subject = await world.entity("Quarrywell")
    for i in range(COMMON):
        rare = " with a marlinspike" if i == 0 else ""
        await world.fact(subject, f"Quarrywell ships pallet {i} by zeppelin{rare}")
    async with db_engine.connect() as conn:
        await conn.execute(text("ANALYZE facts"))
        await conn.commit()


@pytest.mark.usefixtures("analysed")
async def test_a_term_estimated_in_more_rows_than_the_cap_is_left_out(
    db_engine: AsyncEngine,
) -> None:
    # "zeppelin" is in every one of the 150 facts, "marlinspike" in one: in a namespace of ten
    # million facts it is estimated in more than 100 rows, and past that cap only the rare
    # term ranks.
    assert await _terms(db_engine, "marlinspike zeppelin", 100) == {"marlinspik"}
    assert await _terms(db_engine, "marlinspike zeppelin", 10**9) == {"marlinspik", "zeppelin"}


@pytest.mark.usefixtures("analysed")
async def test_a_namespace_smaller_than_the_cap_keeps_every_term(db_engine: AsyncEngine) -> None:
    # What the term costs is priced by the namespace asking, not by what other tenants store.
    terms = await _terms(db_engine, "marlinspike zeppelin", 100, rows=100)
    assert terms == {"marlinspik", "zeppelin"}


@pytest.mark.usefixtures("analysed")
async def test_the_rarest_term_stays_even_when_it_is_common(db_engine: AsyncEngine) -> None:
    assert await _terms(db_engine, "zeppelin", 10) == {"zeppelin"}
    assert await _terms(db_engine, "the", 10) == set()  # a stop word leaves no term at all
