"""The adjudication pipeline over real claims in Postgres: every decision of spec/facts.md."""

from __future__ import annotations

from datetime import UTC, datetime

from services.adjudicator.service import AdjudicationService


def day(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


async def run(service: AdjudicationService, corpus, *docs) -> None:  # type: ignore[no-untyped-def]
    for doc in docs:
        await service.adjudicate_version(corpus.namespace, doc.versions[-1], decided_by="test")


async def test_first_claim_about_an_entity_is_added_by_the_novelty_gate(adj_service, corpus):
    doc = await corpus.document("Standup 1")
    await corpus.claim(
        doc,
        "Ravi works on the billing migration.",
        "Ravi",
        "works on",
        "billing migration",
        said=day(2026, 1, 5),
    )
    await run(adj_service, corpus, doc)
    facts = await corpus.facts()
    assert [(f["label"], f["predicate"], f["evidence_count"]) for f in facts] == [
        ("Ravi works on billing migration", "works_on", 1)
    ]
    [entry] = await corpus.transcripts()
    assert (entry["outcome"], entry["method"]) == ("add", "novelty_gate")
    assert entry["window_before"] is None
    assert entry["window_after"] == {
        "valid_from": None,
        "valid_until": None,
        "valid_precision": "unknown",
    }
