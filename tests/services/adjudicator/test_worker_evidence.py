"""adjudicate.version work items: evidence counting, re-extraction, withdrawal and removal."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text


def day(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def kind_for(corpus: Any) -> str:
    # Workers claim across namespaces, so each test drains its own kind.
    return f"adjudicate.version.{corpus.namespace}"


async def stage(corpus: Any, version_id: uuid.UUID) -> str | None:
    async with corpus.factory() as session:
        return (
            await session.execute(
                text(
                    "SELECT status FROM version_stages WHERE version_id = :v"
                    " AND stage = 'adjudicate'"
                ),
                {"v": version_id},
            )
        ).scalar()


async def say(corpus: Any, doc: Any, **kw: Any) -> uuid.UUID:
    return await corpus.claim(
        doc,
        "Ravi works on the billing migration.",
        "Ravi",
        "works on",
        "billing migration",
        said=day(2026, 1, 5),
        **kw,
    )


async def test_ten_versions_of_one_spec_count_once(adj_service, corpus, drain):
    kind = kind_for(corpus)
    spec = await corpus.document("Spec")
    await say(corpus, spec)
    await corpus.enqueue(spec.versions[-1], kind=kind)
    for _ in range(9):
        version = await corpus.version(spec, carry=True)
        await corpus.enqueue(version, kind=kind)
    assert await drain(adj_service, kind) == 10
    [fact] = await corpus.facts()
    assert fact["evidence_count"] == 1
    assert await stage(corpus, spec.versions[-1]) == "succeeded"


async def test_reextraction_replaces_testimony_without_adding_support(adj_service, corpus, drain):
    kind = kind_for(corpus)
    spec = await corpus.document("Spec")
    old = await say(corpus, spec)
    await corpus.enqueue(spec.versions[-1], kind=kind)
    await drain(adj_service, kind)
    version = await corpus.version(spec)
    await say(corpus, spec, extractor_version="2", version=version)
    await corpus.enqueue(version, [old], "reextracted", kind=kind)
    await drain(adj_service, kind)
    [fact] = await corpus.facts()
    assert (fact["evidence_count"], fact["support"]) == (1, "current")


async def test_two_documents_count_twice_and_removal_of_one_lowers_the_count(
    adj_service, corpus, drain
):
    kind = kind_for(corpus)
    spec, notes = await corpus.document("Spec"), await corpus.document("Notes")
    in_spec = await say(corpus, spec)
    await say(corpus, notes)
    await corpus.enqueue(spec.versions[-1], kind=kind)
    await corpus.enqueue(notes.versions[-1], kind=kind)
    await drain(adj_service, kind)
    assert [f["evidence_count"] for f in await corpus.facts()] == [2]
    # A living spec drops the sentence: its claim stops being current testimony.
    version = await corpus.version(spec)
    await corpus.enqueue(version, [in_spec], "version_superseded", kind=kind)
    await drain(adj_service, kind)
    [fact] = await corpus.facts()
    assert (fact["evidence_count"], fact["invalidated_at"]) == (1, None)


async def test_reextraction_only_loss_withdraws_and_a_later_reading_restores(
    adj_service, corpus, drain
):
    kind = kind_for(corpus)
    spec = await corpus.document("Spec")
    old = await say(corpus, spec)
    await corpus.enqueue(spec.versions[-1], kind=kind)
    await drain(adj_service, kind)
    empty = await corpus.version(spec)  # the new extractor derived nothing
    await corpus.enqueue(empty, [old], "reextracted", kind=kind)
    await drain(adj_service, kind)
    [fact] = await corpus.facts()
    assert (fact["evidence_count"], fact["support"], fact["invalidated_at"]) == (
        0,
        "withdrawn",
        None,
    )
    again = await corpus.version(spec)
    await say(corpus, spec, extractor_version="3", version=again)
    await corpus.enqueue(again, kind=kind)
    await drain(adj_service, kind)
    [fact] = await corpus.facts()
    assert (fact["evidence_count"], fact["support"]) == (1, "current")
    outcomes = [t["outcome"] for t in await corpus.transcripts()]
    # The restore and the confirming decision share a transaction (and a decided_at).
    assert outcomes.count("withdrawn") == 1 and outcomes.count("restored") == 1


async def test_source_removal_closes_the_fact_in_belief_time_only(adj_service, corpus, drain):
    kind = kind_for(corpus)
    page = await corpus.document("Wiki page")
    claim = await corpus.claim(
        page,
        "The billing cutover is on June 8.",
        "billing cutover",
        said=day(2026, 5, 1),
        valid_from=day(2026, 6, 8),
        precision="day",
        kind="event_time",
    )
    await corpus.enqueue(page.versions[-1], kind=kind)
    await drain(adj_service, kind)
    version = await corpus.version(page)
    await corpus.enqueue(version, [claim], "version_superseded", kind=kind)
    await drain(adj_service, kind)
    [fact] = await corpus.facts()
    assert fact["invalidated_at"] is not None
    assert fact["invalidation_reason"] == "retracted_source_removal"
    assert (fact["valid_from"], fact["valid_until"]) == (day(2026, 6, 8), day(2026, 6, 9))
    assert (await corpus.transcripts())[-1]["outcome"] == "retracted_source_removal"


async def test_malformed_payload_fails_the_item_and_records_the_stage(adj_service, corpus, drain):
    kind = kind_for(corpus)
    spec = await corpus.document("Spec")
    version = spec.versions[-1]
    item = await corpus.enqueue(version, [uuid.uuid4()], None, kind=kind)
    await drain(adj_service, kind)
    async with corpus.factory() as session:
        status, error = (
            await session.execute(
                text("SELECT status, last_error FROM work_items WHERE id = :i"), {"i": item}
            )
        ).one()
    assert status == "failed" and "retire_reason" in error
    assert await stage(corpus, version) == "failed"
