"""A weekly report's key lines (issue 17): "Headcount: 9" one week and "Headcount: 11" the next
are the project's change, not two rival values, in either arrival order (as its "Status:"
lines already were)."""

from __future__ import annotations

from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run


@pytest.mark.parametrize("newer_first", [False, True], ids=["in order", "newer first"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Headcount: 9", "Headcount: 11"),
        ("Contract value: EUR 240k", "Contract value: EUR 275k"),
        ("Budget spent: 62%", "Budget spent: 68%"),
    ],
)
async def test_a_report_lines_values_succeed_each_other(
    adj_service: AdjudicationService, corpus: Any, old: str, new: str, newer_first: bool
) -> None:
    docs = []
    for text, said in ((old, day(2026, 3, 6)), (new, day(2026, 3, 13))):
        doc = await corpus.document("Atlas migration - weekly status")
        await corpus.claim(doc, text, "Atlas migration", "be", None, said=said)
        docs.append(doc)
    await run(adj_service, corpus, *(reversed(docs) if newer_first else docs))
    facts = {f["label"]: f for f in await corpus.facts() if f["invalidated_at"] is None}
    assert facts[old]["superseded_by_fact_id"] == facts[new]["id"]
    assert facts[new]["superseded_by_fact_id"] is None
    assert all(f["contradiction_group_id"] is None for f in facts.values())
