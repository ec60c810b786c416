"""Successive values of one slot through the real pipeline: supersession across documents and
arrival orders, chains re-split by late values, concurrency and same-period conflicts."""

from __future__ import annotations

from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run


def current(facts: list[dict[str, Any]]) -> set[str]:
    return {
        f["label"]
        for f in facts
        if f["invalidated_at"] is None
        and f["superseded_by_fact_id"] is None
        and (f["valid_until"] is None or f["valid_until"] > day(2026, 11, 1))
    }


async def _employment(corpus: Any, acme_first: bool) -> tuple[Any, Any]:
    note = await corpus.document("January note")
    retro = await corpus.document("June retro")
    acme = (note, "Maria Lopez works for Acme.", "works for", "Acme", day(2026, 1, 5), None)
    globex = (retro, "Maria Lopez joined Globex in June.", "joined", "Globex", day(2026, 7, 1),
              day(2026, 6, 1))  # fmt: skip
    for doc, text, predicate, obj, said, start in (acme, globex) if acme_first else (globex, acme):
        await corpus.claim(
            doc,
            text,
            "Maria Lopez",
            predicate,
            obj,
            said=said,
            valid_from=start,
            precision="month" if start else "unknown",
            kind="event_time" if start else "effective_period",
        )
    return note, retro


@pytest.mark.parametrize("acme_first", [True, False], ids=["in order", "successor first"])
async def test_a_new_employer_closes_the_old_one_at_its_start_in_any_order(
    adj_service: AdjudicationService, corpus: Any, acme_first: bool
) -> None:
    note, retro = await _employment(corpus, acme_first)
    await run(adj_service, corpus, *((note, retro) if acme_first else (retro, note)))
    facts = {f["label"]: f for f in await corpus.facts()}
    acme, globex = facts["Maria Lopez works for Acme"], facts["Maria Lopez works for Globex"]
    assert acme["valid_until"] == day(2026, 6, 1)
    assert acme["superseded_by_fact_id"] == globex["id"]
    assert (globex["valid_from"], globex["valid_until"]) == (day(2026, 6, 1), None)
    assert acme["contradiction_group_id"] is None and globex["contradiction_group_id"] is None
    supersede = [
        t
        for t in await corpus.transcripts()
        if t["fact_id"] == acme["id"] and t["action"] == "supersede"
    ]
    assert supersede and supersede[-1]["related_fact_id"] == globex["id"]


async def test_a_price_that_arrives_late_with_an_older_start_resplits_the_chain(
    adj_service: AdjudicationService, corpus: Any
) -> None:
    docs = []
    for title, text, start, said in (
        ("Price list", "The Pro plan costs $10 from January 2026.", day(2026, 1), day(2026, 1, 2)),
        ("Pricing update", "The Pro plan costs $12 from June 2026.", day(2026, 6), day(2026, 6, 2)),
        ("Archive", "The Pro plan costs $8 from March 2025.", day(2025, 3), day(2026, 8, 1)),
    ):
        doc = await corpus.document(title)
        await corpus.claim(
            doc, text, "Pro plan", "costs", None, said=said, valid_from=start,
            precision="month", kind="effective_period",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    windows = {
        f["label"]: (f["valid_from"], f["valid_until"])
        for f in await corpus.facts()
        if f["invalidated_at"] is None
    }
    assert windows == {
        "The Pro plan costs $8.": (day(2025, 3), day(2026, 1)),
        "The Pro plan costs $10.": (day(2026, 1), day(2026, 6)),
        "The Pro plan costs $12.": (day(2026, 6), None),
    }


@pytest.mark.parametrize(
    "text",
    [
        "Ravi Patel also works part-time at Globex.",
        "Ravi Patel works at Globex in addition to his Acme job.",
        "Alongside Acme, Ravi Patel works for Globex.",
    ],
)
async def test_a_second_employer_held_at_the_same_time_stands_beside_the_first(
    adj_service: AdjudicationService, corpus: Any, text: str
) -> None:
    main, side = await corpus.document("Profile"), await corpus.document("Note")
    await corpus.claim(
        main, "Ravi Patel works for Acme since 2024.", "Ravi Patel", "works for", "Acme",
        said=day(2026, 1, 5), valid_from=day(2024, 1), precision="open",
        kind="effective_period",
    )  # fmt: skip
    await corpus.claim(
        side, text, "Ravi Patel", "works at", "Globex", said=day(2026, 3, 5),
        valid_from=day(2026, 3), precision="open", kind="effective_period",
    )  # fmt: skip
    await run(adj_service, corpus, main, side)
    facts = await corpus.facts()
    assert current(facts) == {"Ravi Patel works for Acme", "Ravi Patel works for Globex"}
    assert all(f["contradiction_group_id"] is None for f in facts)


async def test_two_managers_stated_from_the_same_start_conflict(
    adj_service: AdjudicationService, corpus: Any
) -> None:
    a, b = await corpus.document("Org chart"), await corpus.document("HR note")
    for doc, boss in ((a, "Hana Kobayashi"), (b, "Grace Mwangi")):
        await corpus.claim(
            doc, f"From 1 March Mateus Oliveira reports to {boss}.", "Mateus Oliveira",
            "reports to", boss,
            said=day(2026, 3, 2), valid_from=day(2026, 3), precision="open",
            kind="effective_period",
        )  # fmt: skip
    await run(adj_service, corpus, a, b)
    facts = await corpus.facts()
    groups = {f["contradiction_group_id"] for f in facts}
    assert len(groups) == 1 and None not in groups
    assert all(f["superseded_by_fact_id"] is None for f in facts)


@pytest.mark.parametrize("state_first", [True, False], ids=["in order", "event first"])
async def test_an_event_that_changes_a_state_starts_its_next_value_in_any_order(
    adj_service: AdjudicationService, corpus: Any, state_first: bool
) -> None:
    # "was completed on 31 January" after "is blocked": the status changed that day and the
    # new value holds on; the blocked status is closed at the change, not rivalled by it.
    blocked = await corpus.document("Weekly report 3")
    await corpus.claim(
        blocked, "The Ledger migration is blocked by a vendor issue.", "Ledger migration",
        "is blocked by", None, said=day(2026, 1, 20), kind="proposition_validity",
    )  # fmt: skip
    completed = await corpus.document("Weekly report 5")
    await corpus.claim(
        completed, "The Ledger migration was completed on 31 January 2026.", "Ledger migration",
        "was completed", None, said=day(2026, 2, 3), valid_from=day(2026, 1, 31),
        valid_until=day(2026, 1, 31), precision="day", kind="event_time",
    )  # fmt: skip
    await run(adj_service, corpus, *((blocked, completed) if state_first else (completed, blocked)))
    facts = {f["label"]: f for f in await corpus.facts() if f["invalidated_at"] is None}
    done = facts["The Ledger migration was completed."]
    stuck = facts["The Ledger migration is blocked by a vendor issue."]
    assert (done["valid_from"], done["valid_until"]) == (day(2026, 1, 31), None)
    assert stuck["valid_until"] == day(2026, 1, 31)
    assert stuck["superseded_by_fact_id"] == done["id"]
    assert done["contradiction_group_id"] is None and stuck["contradiction_group_id"] is None


@pytest.mark.parametrize("old_first", [True, False], ids=["in order", "change first"])
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Omar Reyes supports the rewrite of the billing service.",
         "Omar Reyes now opposes the rewrite of the billing service."),
        ("Omar Reyes opposes moving the launch to June.",
         "Omar Reyes now supports moving the launch to June."),
    ],
)  # fmt: skip
async def test_an_undated_stance_said_as_a_change_succeeds_the_old_one_in_any_order(
    adj_service: AdjudicationService, corpus: Any, old: str, new: str, old_first: bool
) -> None:
    # No date to close at: the new stance is a rival of the old one, and the slot's timeline
    # lets the one that says the change ("now") succeed it whichever arrives first.
    said = {old: day(2026, 3, 3), new: day(2026, 3, 20)}
    docs = {}
    for text in (old, new):
        docs[text] = await corpus.document(f"chat {said[text]:%d %B}")
        verb = text.split()[3] if " now " in text else text.split()[2]
        await corpus.claim(
            docs[text], text, "Omar Reyes", verb, None, said=said[text],
            kind="proposition_validity",
        )  # fmt: skip
    order = (old, new) if old_first else (new, old)
    await run(adj_service, corpus, *(docs[t] for t in order))
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert len(facts) == 2
    was = next(f for f in facts if " now " not in f["label"])
    now = next(f for f in facts if " now " in f["label"])
    assert was["superseded_by_fact_id"] == now["id"]
    assert now["superseded_by_fact_id"] is None and now["valid_until"] is None
    assert was["contradiction_group_id"] is None and now["contradiction_group_id"] is None


@pytest.mark.parametrize("old_first", [True, False], ids=["in order", "change first"])
async def test_a_value_someone_sets_anew_supersedes_the_value_said_another_way(
    adj_service: AdjudicationService, corpus: Any, old_first: bool
) -> None:
    # "allows 60" and "we lowered the limit to 30 on 2 April": one attribute, a dated change.
    wiki = await corpus.document("Exports API")
    await corpus.claim(
        wiki, "The Exports API allows 60 requests per minute.", "Exports API", "allows", None,
        said=day(2026, 1, 10), kind="proposition_validity",
    )  # fmt: skip
    review = await corpus.document("Ops review")
    await corpus.claim(
        review, "We lowered the Exports API limit to 30 requests per minute on 2 April 2026.",
        "Exports API", "lowered", None, said=day(2026, 4, 3), valid_from=day(2026, 4, 2),
        precision="day", kind="effective_period",
    )  # fmt: skip
    await run(adj_service, corpus, *((wiki, review) if old_first else (review, wiki)))
    facts = {f["label"]: f for f in await corpus.facts() if f["invalidated_at"] is None}
    sixty = next(f for label, f in facts.items() if "60" in label)
    thirty = next(f for label, f in facts.items() if "30" in label)
    assert sixty["superseded_by_fact_id"] == thirty["id"]
    assert sixty["valid_until"] == day(2026, 4, 2)
    assert (thirty["valid_from"], thirty["valid_until"]) == (day(2026, 4, 2), None)


@pytest.mark.parametrize("old_first", [True, False], ids=["in order", "change first"])
@pytest.mark.parametrize(
    ("subject", "old", "new"),
    [
        ("Kelvo", "Kelvo employs 85 people.", "Kelvo grew to 110 employees in March 2026."),
        ("Rotterdam office", "The Rotterdam office has a headcount of 40.",
         "The Rotterdam office shrank to 32 staff in March 2026."),
    ],
)  # fmt: skip
async def test_a_count_said_in_other_words_moves_to_its_new_value(
    adj_service: AdjudicationService,
    corpus: Any,
    subject: str,
    old: str,
    new: str,
    old_first: bool,
) -> None:
    # People, employees, staff and headcount count one thing; "grew to" says the change.
    wiki = await corpus.document(f"{subject} profile")
    await corpus.claim(
        wiki, old, subject, old.split()[-3], None, said=day(2026, 1, 10),
        kind="proposition_validity",
    )  # fmt: skip
    update = await corpus.document(f"{subject} update")
    await corpus.claim(
        update, new, subject, "grew to", None, said=day(2026, 3, 20), valid_from=day(2026, 3, 1),
        precision="open", kind="effective_period",
    )  # fmt: skip
    await run(adj_service, corpus, *((wiki, update) if old_first else (update, wiki)))
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    was = next(f for f in facts if f["valid_from"] is None)
    now = next(f for f in facts if f["valid_from"] is not None)
    assert was["superseded_by_fact_id"] == now["id"]
    assert was["valid_until"] == day(2026, 3, 1) and now["valid_until"] is None
    assert was["contradiction_group_id"] is None and now["contradiction_group_id"] is None


@pytest.mark.parametrize("earlier_first", [True, False], ids=["in order", "later first"])
async def test_prices_stated_from_different_starts_in_different_verbs_are_a_chain(
    adj_service: AdjudicationService, corpus: Any, earlier_first: bool
) -> None:
    # "is priced at $40" from January and "costs $48" from March: one price, two periods.
    january = await corpus.document("Pricing, January")
    await corpus.claim(
        january, "As of 1 January 2026 the Team plan is priced at $40 per month.", "Team plan",
        "is priced at", None, said=day(2026, 1, 2), valid_from=day(2026, 1, 1), precision="open",
        kind="effective_period",
    )  # fmt: skip
    march = await corpus.document("Pricing, March")
    await corpus.claim(
        march, "Starting 1 March 2026, the Team plan costs $48 per month.", "Team plan", "costs",
        None, said=day(2026, 2, 20), valid_from=day(2026, 3, 1), precision="open",
        kind="effective_period",
    )  # fmt: skip
    await run(adj_service, corpus, *((january, march) if earlier_first else (march, january)))
    facts = {f["label"]: f for f in await corpus.facts() if f["invalidated_at"] is None}
    forty = next(f for label, f in facts.items() if "40" in label)
    forty_eight = next(f for label, f in facts.items() if "48" in label)
    assert forty["superseded_by_fact_id"] == forty_eight["id"]
    assert forty["valid_until"] == day(2026, 3, 1) and forty_eight["valid_until"] is None
    assert forty["contradiction_group_id"] is None


@pytest.mark.parametrize("old_first", [True, False], ids=["in order", "new owner first"])
@pytest.mark.parametrize(
    ("old", "old_verb", "new", "new_verb"),
    [
        ("Ana Ruiz owns the Onboarding flow.", "owns",
         "From 1 April 2026 the Onboarding flow is owned by Ben Cho.", "is owned by"),
        ("The Onboarding flow is owned by Ana Ruiz.", "is owned by",
         "Ben Cho took ownership of the Onboarding flow on 1 April 2026.", "took ownership of"),
    ],
)  # fmt: skip
async def test_a_new_owner_supersedes_the_old_one_whichever_way_each_is_said(
    adj_service: AdjudicationService,
    corpus: Any,
    old: str,
    old_verb: str,
    new: str,
    new_verb: str,
    old_first: bool,
) -> None:
    # Active or passive, the owner is the owned thing's slot: one owner at a time.
    def parties(text: str, verb: str, owner: str) -> tuple[str, str]:
        thing = "Onboarding flow"
        return (owner, thing) if text.startswith(owner) else (thing, owner)

    wiki = await corpus.document("Owners")
    subject, obj = parties(old, old_verb, "Ana Ruiz")
    await corpus.claim(wiki, old, subject, old_verb, obj, said=day(2026, 1, 10))
    notes = await corpus.document("Handover notes")
    subject, obj = parties(new, new_verb, "Ben Cho")
    await corpus.claim(
        notes, new, subject, new_verb, obj, said=day(2026, 4, 2), valid_from=day(2026, 4, 1),
        precision="day" if "on 1 April" in new else "open",
        kind="event_time" if "on 1 April" in new else "effective_period",
    )  # fmt: skip
    await run(adj_service, corpus, *((wiki, notes) if old_first else (notes, wiki)))
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert {f["predicate"] for f in facts} == {"other:owned_by"}
    was = next(f for f in facts if "Ana Ruiz" in f["label"])
    now = next(f for f in facts if "Ben Cho" in f["label"])
    assert was["superseded_by_fact_id"] == now["id"]
    assert was["valid_until"] == day(2026, 4, 1) and now["valid_until"] is None
