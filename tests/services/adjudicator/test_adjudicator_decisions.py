"""Each decision of spec/facts.md through the real pipeline (resolver, jev, writer, Postgres)."""

from __future__ import annotations

from typing import Any

from tests.support.adjudication import day, run


def by_label(facts: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f["label"]: f for f in facts}


async def test_same_statement_in_a_second_document_confirms_and_counts_two(adj_service, corpus):
    spec, notes = await corpus.document("Spec"), await corpus.document("Meeting notes")
    for doc in (spec, notes):
        await corpus.claim(
            doc,
            "Ravi works on the billing migration.",
            "Ravi",
            "works on",
            "billing migration",
            said=day(2026, 1, 5),
        )
    await run(adj_service, corpus, spec, notes)
    [fact] = await corpus.facts()
    assert fact["evidence_count"] == 2
    outcomes = [(t["outcome"], t["method"]) for t in await corpus.transcripts()]
    assert outcomes == [("add", "novelty_gate"), ("noop", "jev")]


async def test_repeats_in_one_document_count_once(adj_service, corpus):
    doc = await corpus.document("Transcript")
    for _ in range(5):
        await corpus.claim(
            doc,
            "Ravi works on the billing migration.",
            "Ravi",
            "works on",
            "billing migration",
            said=day(2026, 1, 5),
        )
    await run(adj_service, corpus, doc)
    [fact] = await corpus.facts()
    assert fact["evidence_count"] == 1


async def test_move_to_another_team_supersedes_at_the_successors_world_start(adj_service, corpus):
    jan, retro = await corpus.document("January notes"), await corpus.document("Retro")
    await corpus.claim(
        jan,
        "Ravi Patel is a member of the Billing team.",
        "Ravi Patel",
        "member of",
        "Billing team",
        said=day(2026, 1, 10),
        valid_from=day(2026, 1, 1),
        precision="month",
        kind="effective_period",
    )
    await corpus.claim(
        retro,
        "Ravi Patel moved to the Search team in June 2026.",
        "Ravi Patel",
        "moved to",
        "Search team",
        said=day(2026, 9, 1),
        valid_from=day(2026, 6, 1),
        precision="month",
        kind="effective_period",
    )
    await run(adj_service, corpus, jan, retro)
    facts = by_label(await corpus.facts())
    earlier = facts["Ravi Patel is a member of Billing team"]
    later = facts["Ravi Patel is a member of Search team"]
    # Closed at the world start of the move, not at the retro's said-on date.
    assert earlier["valid_until"] == day(2026, 6, 1)
    assert earlier["superseded_by_fact_id"] == later["id"]
    assert later["valid_until"] is None and later["contradiction_group_id"] is None
    update = [t for t in await corpus.transcripts() if t["fact_id"] == earlier["id"]][-1]
    assert update["outcome"] == "update" and update["related_fact_id"] == later["id"]
    assert update["window_before"]["valid_until"] is None
    assert update["window_after"]["valid_until"].startswith("2026-06-01")


async def test_incompatible_values_form_a_contradiction_group(adj_service, corpus):
    spec, standup = await corpus.document("Spec"), await corpus.document("Standup")
    await corpus.claim(
        spec,
        "The billing migration cutover is scheduled for 2026-06-08.",
        "billing migration",
        said=day(2026, 4, 1),
    )
    await corpus.claim(
        standup,
        "The billing migration cutover is scheduled for 2026-06-15.",
        "billing migration",
        said=day(2026, 4, 2),
    )
    await run(adj_service, corpus, spec, standup)
    facts = await corpus.facts()
    assert len(facts) == 2
    groups = {f["contradiction_group_id"] for f in facts}
    assert len(groups) == 1 and None not in groups
    assert all(f["evidence_count"] == 1 and f["invalidated_at"] is None for f in facts)
    assert [t["outcome"] for t in await corpus.transcripts()][-2:] == ["contradict", "contradict"]


async def test_negated_statement_attaches_as_contradicting_evidence(adj_service, corpus):
    a, b = await corpus.document("Review"), await corpus.document("Follow-up")
    await corpus.claim(a, "Ravi approved the schema change.", "Ravi", said=day(2026, 3, 1))
    await corpus.claim(
        b,
        "Ravi did not approve the schema change.",
        "Ravi",
        said=day(2026, 3, 2),
        polarity="negative",
    )
    await run(adj_service, corpus, a, b)
    [fact] = await corpus.facts()
    assert (fact["evidence_count"], fact["contradicting"]) == (1, 1)
    assert fact["contradiction_group_id"] is None


async def test_date_correction_moves_the_window_of_the_same_fact(adj_service, corpus):
    plan, update = await corpus.document("Plan"), await corpus.document("Update")
    await corpus.claim(
        plan,
        "The billing cutover is on June 8.",
        "billing cutover",
        said=day(2026, 5, 1),
        valid_from=day(2026, 6, 8),
        precision="day",
        kind="event_time",
    )
    await corpus.claim(
        update,
        "The billing cutover moved from June 8 to June 9.",
        "billing cutover",
        said=day(2026, 5, 20),
        valid_from=day(2026, 6, 9),
        precision="day",
        kind="event_time",
    )
    await run(adj_service, corpus, plan, update)
    [fact] = await corpus.facts()
    assert (fact["valid_from"], fact["valid_until"]) == (day(2026, 6, 9), day(2026, 6, 10))
    assert fact["evidence_count"] == 2
    last = (await corpus.transcripts())[-1]
    assert last["outcome"] == "update"
    assert last["window_before"]["valid_from"].startswith("2026-06-08")
    assert last["window_after"]["valid_from"].startswith("2026-06-09")


async def test_wins_in_different_years_stay_distinct_events(adj_service, corpus):
    a, b = await corpus.document("2024 recap"), await corpus.document("2025 recap")
    await corpus.claim(
        a,
        "Mei Lin won the PyData hackathon in 2024.",
        "Mei Lin",
        said=day(2024, 12, 1),
        valid_from=day(2024, 1, 1),
        precision="year",
        kind="event_time",
    )
    await corpus.claim(
        b,
        "Mei Lin won the PyData hackathon in 2025.",
        "Mei Lin",
        said=day(2025, 12, 1),
        valid_from=day(2025, 1, 1),
        precision="year",
        kind="event_time",
    )
    await run(adj_service, corpus, a, b)
    facts = await corpus.facts()
    assert len(facts) == 2
    assert all(f["contradiction_group_id"] is None and f["valid_until"] for f in facts)


async def test_below_the_floor_nothing_merges(service_maker, corpus):
    service = service_maker(floor=1.0)
    spec, notes = await corpus.document("Spec"), await corpus.document("Notes")
    for doc in (spec, notes):
        await corpus.claim(
            doc,
            "Ravi works on the billing migration.",
            "Ravi",
            "works on",
            "billing migration",
            said=day(2026, 1, 5),
        )
    await run(service, corpus, spec, notes)
    facts = await corpus.facts()
    assert [f["evidence_count"] for f in facts] == [1, 1]
    assert (await corpus.transcripts())[-1]["method"] == "confidence_floor"


async def test_attributed_claim_becomes_an_observation_on_the_holder(adj_service, corpus):
    doc = await corpus.document("Planning")
    await corpus.claim(
        doc,
        "Dana believes the June date is too tight.",
        "June date",
        holder="Dana",
        said=day(2026, 4, 1),
    )
    await run(adj_service, corpus, doc)
    [fact] = await corpus.facts()
    assert (fact["kind"], fact["subject"]) == ("observation", "Dana")
    assert fact["label"] == "Dana believes the June date is too tight."


async def test_first_person_claim_is_anchored_on_the_speaker(adj_service, corpus):
    doc = await corpus.document("Chat")
    await corpus.claim(
        doc, "I adopted a puppy last week.", "I", speaker="Caroline", said=day(2023, 5, 8)
    )
    await run(adj_service, corpus, doc)
    [fact] = await corpus.facts()
    assert fact["subject"] == "Caroline"


async def test_a_subjectless_claim_without_a_speaker_is_an_observation_on_the_document(
    adj_service, corpus
):
    # "We use Grafyx" on a page titled "Observability wiki" once made the relation
    # "Observability wiki uses Grafyx": the writers are no entity a relation could name.
    doc = await corpus.document("Observability wiki")
    await corpus.claim(
        doc, "We use Grafyx for metrics.", None, "use", "Grafyx", said=day(2026, 2, 10)
    )
    await corpus.claim(
        doc, "We switched to Obsero last week.", None, "switch to", "Obsero", said=day(2026, 4, 1)
    )
    await run(adj_service, corpus, doc)
    facts = await corpus.facts()
    assert {(f["kind"], f["subject"], f["predicate"]) for f in facts} == {
        ("observation", "Observability wiki", None)
    }


async def test_unknown_predicate_is_dropped_and_reported(adj_service, corpus):
    doc = await corpus.document("Notes")
    claim = await corpus.claim(
        doc,
        "Ravi frobnicated the ledger API.",
        "Ravi",
        "frobnicated",
        "ledger API",
        said=day(2026, 1, 5),
    )
    outcome = await adj_service.adjudicate_claims(corpus.namespace, [claim], decided_by="me")
    assert outcome.dropped_predicates == ["frobnicated"]
    [fact] = await corpus.facts()
    assert (fact["kind"], fact["predicate"]) == ("observation", None)
    again = await adj_service.adjudicate_claims(corpus.namespace, [claim], decided_by="me")
    assert again.decisions == [] and len(await corpus.facts()) == 1
