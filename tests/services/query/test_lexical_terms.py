"""Which query terms FactsContext's unweighted lexical channel ranks on a large store."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.sql.channels import selective_tsquery

COMMON = 150  # facts carrying the common word; with the rare word in one of them


async def _tsquery(engine: AsyncEngine, query: str, cap: int, rows: int = 10**7) -> str:
    """The nominating tsquery of `query` in a namespace of `rows` facts."""
    bind = {"q": query, "lexcap": cap, "lexn": rows}
    async with engine.connect() as conn:
        sql = text(f"SELECT {selective_tsquery('facts')}::text")
        tsq: str = (await conn.execute(sql, bind)).scalar_one()
    return tsq


async def _terms(engine: AsyncEngine, query: str, cap: int, rows: int = 10**7) -> set[str]:
    """The terms kept for `query` in a namespace of `rows` facts."""
    tsq = await _tsquery(engine, query, cap, rows)
    return {term.strip(" '") for term in tsq.split("|")} - {""}


@pytest.fixture
async def analysed(world: Any, db_engine: AsyncEngine) -> None:
    subject = await world.entity("Quarrywell")
    # Each of these is in a tenth of the facts, and no two of them in the same one.
    tenths = {0: " past a gondola", 1: " past a harbour", 2: " past a lantern"}
    for i in range(COMMON):
        rare = " with a marlinspike" if i == 0 else ""
        tenth = tenths.get(i % 10, "")
        await world.fact(subject, f"Quarrywell ships pallet {i} by zeppelin{rare}{tenth}")
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


@pytest.mark.usefixtures("analysed")
async def test_a_term_missing_from_the_statistics_is_priced_as_rarer_than_the_listed_ones(
    db_engine: AsyncEngine,
) -> None:
    # Neither word is in any fact, so the statistics list neither; each is priced at half the
    # least listed frequency (as the planner does), not as matching nothing: in a namespace of
    # a hundred million facts only the first of them fits a cap of 100.
    assert await _terms(db_engine, "quokka wombat", 100, rows=10**8) == {"quokka"}


@pytest.mark.usefixtures("analysed")
async def test_two_common_terms_nominate_together_when_the_pair_fits_the_cap(
    db_engine: AsyncEngine,
) -> None:
    # Each word is in a tenth of the facts: in 10,000 facts, 1,000 rows apiece, over a cap of
    # 500, so only the first (the rarest, by name on a tie) stays selective; the other two are
    # estimated together in 100 rows, so facts holding both still nominate.
    tsq = await _tsquery(db_engine, "gondola harbour lantern", 500, rows=10_000)
    assert tsq == "'gondola' | 'harbour' & 'lantern'"
    # Estimated together in 10,000 rows of a million facts: the pair does not fit either.
    assert await _tsquery(db_engine, "gondola harbour lantern", 500, rows=10**6) == "'gondola'"
