"""A status said without a date is the one that holds when it is said (issue 17 §2): weekly
reports that say green, then amber, then red are the project's changes, a chain in said-on
order whatever order they arrive in, not a three-way contradiction. Statuses said at the same
time by two sources still conflict."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run

_CHAINS = {
    "colour": ("Harrowfen project", [
        "The Harrowfen project status is green.",
        "The Harrowfen project status is amber.",
        "The Harrowfen project status is red.",
    ]),
    "track": ("Kestrel rollout", [
        "The Kestrel rollout is on track.",
        "The Kestrel rollout is at risk.",
        "The Kestrel rollout is blocked.",
    ]),
    "report line": ("Pellmoor migration", [
        "Pellmoor migration status: GREEN",
        "Pellmoor migration status: RED",
        "Pellmoor migration status: AMBER",
    ]),
}  # fmt: skip


@pytest.mark.parametrize("order", list(itertools.permutations(range(3)))[::2], ids=str)
@pytest.mark.parametrize("chain", sorted(_CHAINS))
async def test_undated_statuses_said_in_turn_are_a_chain_in_said_order(
    adj_service: AdjudicationService, corpus: Any, chain: str, order: tuple[int, ...]
) -> None:
    subject, texts = _CHAINS[chain]
    docs = []
    for week, text in enumerate(texts):
        doc = await corpus.document(f"Weekly report {week + 1}")
        await corpus.claim(
            doc, text, subject, "is", None, said=day(2026, 1 + week, 9),
            kind="proposition_validity",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *(docs[i] for i in order))
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    by_text = {t: next(f for f in facts if f["label"].rstrip(".") in t) for t in texts}
    first, second, third = (by_text[t] for t in texts)
    assert first["superseded_by_fact_id"] == second["id"]
    assert second["superseded_by_fact_id"] == third["id"]
    assert third["superseded_by_fact_id"] is None
    assert all(f["contradiction_group_id"] is None for f in (first, second, third))


async def test_statuses_said_at_the_same_time_by_two_sources_conflict(
    adj_service: AdjudicationService, corpus: Any
) -> None:
    docs = []
    for title, text in (
        ("PM report", "The Harrowfen project status is green."),
        ("QA report", "The Harrowfen project status is red."),
    ):
        doc = await corpus.document(title)
        await corpus.claim(
            doc, text, "Harrowfen project", "is", None, said=day(2026, 1, 9),
            kind="proposition_validity",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert len(facts) == 2
    assert facts[0]["contradiction_group_id"] is not None
    assert facts[0]["contradiction_group_id"] == facts[1]["contradiction_group_id"]


@pytest.mark.parametrize(
    ("subject", "before", "after"),
    [
        ("Kestrel Foods", "Kestrel Foods has 30 seats.", "Kestrel Foods is expanding to 50 seats."),
        ("Data Platform team", "The Data Platform team headcount is 8.",
         "The Data Platform team headcount grew to 11."),
        ("Pro plan", "The Pro plan costs $40 a month.", "The Pro plan went up to $44 a month."),
    ],
)  # fmt: skip
@pytest.mark.parametrize("change_first", [False, True], ids=["in order", "change first"])
async def test_an_undated_value_said_as_a_change_to_it_succeeds_the_earlier(
    adj_service: AdjudicationService,
    corpus: Any,
    subject: str,
    before: str,
    after: str,
    change_first: bool,
) -> None:
    docs = []
    for month, text in ((1, before), (11, after)):
        doc = await corpus.document("Account notes")
        await corpus.claim(
            doc, text, subject, "is", None, said=day(2025, month, 14),
            kind="proposition_validity",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *(reversed(docs) if change_first else docs))
    facts = {f["label"].rstrip("."): f for f in await corpus.facts() if f["invalidated_at"] is None}
    old, new = facts[before.rstrip(".")], facts[after.rstrip(".")]
    assert old["superseded_by_fact_id"] == new["id"] and new["superseded_by_fact_id"] is None
    assert old["contradiction_group_id"] is None and new["contradiction_group_id"] is None
