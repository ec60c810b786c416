"""Beliefs that must not depend on arrival order (issue 17): a confirmed fact's label and window
kind come from its first said claim, and a value that comes back is a second stretch of its
slot, whichever document arrives first."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
async def test_a_confirmed_observation_is_labelled_by_its_first_said_claim_in_any_order(
    adj_service: AdjudicationService, corpus: Any, reverse: bool
) -> None:
    wordings = [
        ("Office report", "The Krakow office headcount is 64.", day(2026, 2, 1)),
        ("HR digest", "Headcount of the Krakow office is 64.", day(2026, 3, 1)),
    ]
    docs = []
    for title, text, said in reversed(wordings) if reverse else wordings:
        doc = await corpus.document(title)
        await corpus.claim(doc, text, "Krakow office", "is", None, said=said)
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert [(f["label"], f["evidence_count"]) for f in facts] == [
        ("The Krakow office headcount is 64.", 2)
    ]


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
async def test_what_a_confirmed_relation_s_window_describes_is_its_first_said_claim_s(
    adj_service: AdjudicationService, corpus: Any, reverse: bool
) -> None:
    """Not the creating claim's: the same two documents in either order give the same fact."""
    said = [
        ("Team page", "Daniel Brennan is on the search team since March.", day(2026, 3, 20),
         "effective_period"),
        ("Retro", "Daniel Brennan joined the search team in March.", day(2026, 4, 2),
         "event_time"),
    ]  # fmt: skip
    docs = []
    for title, text, when, kind in reversed(said) if reverse else said:
        doc = await corpus.document(title)
        await corpus.claim(
            doc,
            text,
            "Daniel Brennan",
            "member of",
            "search team",
            said=when,
            valid_from=day(2026, 3),
            precision="month",
            kind=kind,
        )
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert [(f["valid_kind"], f["evidence_count"]) for f in facts] == [("effective_period", 2)]


_RECURRING = {
    "status": (
        "Atlas rollout",
        ("The Atlas rollout is green as of February 2026.", "is", day(2026, 2), "month"),
        ("The Atlas rollout has been red since 9 April 2026.", "has been", day(2026, 4, 9), "day"),
        ("The Atlas rollout has been green since 2 June 2026.", "has been", day(2026, 6, 2),
         "day"),
    ),
    "price": (
        "Pro plan",
        ("The Pro plan costs $20 per month from January 2026.", "costs", day(2026, 1), "month"),
        ("From April 2026 the Pro plan costs $25 per month.", "costs", day(2026, 4), "month"),
        ("The Pro plan costs $20 per month from September 2026.", "costs", day(2026, 9),
         "month"),
    ),
    "opening": (
        "Lisbon office",
        ("The Lisbon office is open on Saturdays since March 2026.", "is", day(2026, 3),
         "month"),
        ("The Lisbon office is closed on Saturdays from 1 May 2026.", "is", day(2026, 5), "day"),
        ("The Lisbon office is open on Saturdays since 1 August 2026.", "is", day(2026, 8),
         "day"),
    ),
    "feature flag": (
        "SSO",
        ("SSO is enabled for every tenant as of February 2026.", "is", day(2026, 2), "month"),
        ("SSO has been disabled for every tenant since 6 April 2026.", "has been",
         day(2026, 4, 6), "day"),
        ("SSO is enabled for every tenant again from July 2026.", "is", day(2026, 7), "month"),
    ),
    "headcount": (
        "support team",
        ("The support team has 12 agents as of March 2026.", "has", day(2026, 3), "month"),
        ("The support team has had 9 agents since 4 May 2026.", "has had", day(2026, 5, 4),
         "day"),
        ("The support team has 12 agents from August 2026.", "has", day(2026, 8), "month"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (0, 2, 1), (2, 1, 0), (1, 2, 0)])
@pytest.mark.parametrize("attribute", sorted(_RECURRING))
async def test_a_value_that_comes_back_is_two_stretches_of_the_slot_in_any_order(
    adj_service: AdjudicationService, corpus: Any, attribute: str, order: tuple[int, ...]
) -> None:
    # The first value, another, then the first again: read the return first, the first
    # stretch's claim confirmed it and was lost, whatever arrived between.
    subject, *said = _RECURRING[attribute]
    docs = []
    for index in order:
        text, predicate, start, precision = said[index]
        doc = await corpus.document(f"{attribute} note {index}")
        await corpus.claim(
            doc, text, subject, predicate, None, said=start + timedelta(days=3),
            valid_from=start, precision=precision, kind="effective_period",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = sorted(
        (f for f in await corpus.facts() if f["invalidated_at"] is None),
        key=lambda f: f["valid_from"],
    )
    starts = [start for _, _, start, _ in said]
    assert [f["valid_from"] for f in facts] == starts
    assert [f["valid_until"] for f in facts] == [*starts[1:], None]
    assert [f["superseded_by_fact_id"] for f in facts] == [facts[1]["id"], facts[2]["id"], None]
    assert all(f["contradiction_group_id"] is None and f["evidence_count"] == 1 for f in facts)


_ENDED = {
    "stance": (
        "Marco Bellini",
        ("Marco Bellini supports switching to Zendesk.", "supports", day(2026, 1, 13)),
        ("As of 1 March Marco Bellini no longer supports switching to Zendesk.", "supports",
         day(2026, 3, 2)),
    ),
    "status": (
        "Ledger API",
        ("The Ledger API is in beta.", "is", day(2026, 1, 20)),
        ("Since 1 March the Ledger API is no longer in beta.", "is", day(2026, 3, 4)),
    ),
    "offering": (
        "Starter plan",
        ("The Starter plan includes phone support.", "includes", day(2026, 2, 2)),
        ("From 1 March the Starter plan no longer includes phone support.", "includes",
         day(2026, 2, 20)),
    ),
}  # fmt: skip


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize("attribute", sorted(_ENDED))
async def test_a_state_that_no_longer_holds_from_a_date_is_closed_there_in_any_order(
    adj_service: AdjudicationService, corpus: Any, attribute: str, reverse: bool
) -> None:
    # Read the ending first, the older "supports" was attached to it as a dispute; read in
    # order, the slot's timeline (which saw positive values only) reopened the closed state.
    subject, held, ended = _ENDED[attribute]
    docs = []
    for index in (1, 0) if reverse else (0, 1):
        text, predicate, said = (held, ended)[index]
        doc = await corpus.document(f"{attribute} note {index}")
        await corpus.claim(
            doc, text, subject, predicate, None, said=said,
            valid_from=day(2026, 3, 1) if index else None,
            precision="open" if index else "unknown",
            kind="effective_period" if index else "proposition_validity",
            polarity="negative" if index else "positive",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = sorted(
        (f for f in await corpus.facts() if f["invalidated_at"] is None),
        key=lambda f: f["valid_from"] is not None,
    )
    assert [(f["valid_from"], f["valid_until"]) for f in facts] == [
        (None, day(2026, 3, 1)),
        (day(2026, 3, 1), None),
    ]
    assert facts[0]["superseded_by_fact_id"] == facts[1]["id"]
    assert all(f["contradiction_group_id"] is None for f in facts)


_PERIOD_VALUES = {
    "revenue": (
        "Q3 revenue",
        ("Q3 revenue was $4.1M.", "was", "measurement_period"),
        ("Q3 revenue came in at $3.8M.", "came in at", "event_time"),
        (day(2025, 7, 1), day(2025, 9, 30), "quarter"),
    ),
    "signups": (
        "March signups",
        ("March signups totalled 1,200.", "totalled", "measurement_period"),
        ("March signups landed at 950.", "landed at", "event_time"),
        (day(2026, 3, 1), day(2026, 3, 31), "month"),
    ),
    "churn": (
        "2025 churn",
        ("2025 churn ended up at 4%.", "ended up at", "event_time"),
        ("2025 churn was 6%.", "was", "measurement_period"),
        (day(2025, 1, 1), day(2025, 12, 31), "year"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize("attribute", sorted(_PERIOD_VALUES))
async def test_two_values_for_one_period_conflict_and_keep_the_period_in_any_order(
    adj_service: AdjudicationService, corpus: Any, attribute: str, reverse: bool
) -> None:
    # A value of a period said as an event ("came in at") was read as a change that holds on:
    # alone first, the slot opened its window, and the conflict that followed kept it open.
    subject, first, second, (start, last_day, precision) = _PERIOD_VALUES[attribute]
    docs = []
    for index, (text, predicate, kind) in enumerate(
        (second, first) if reverse else (first, second)
    ):
        doc = await corpus.document(f"{attribute} report {index}")
        await corpus.claim(
            doc, text, subject, predicate, None, said=day(2026, 10, 5 + index),
            valid_from=start, valid_until=last_day, precision=precision, kind=kind,
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert len(facts) == 2
    assert {(f["valid_from"], f["valid_until"]) for f in facts} == {
        (start, last_day + timedelta(days=1))
    }
    assert facts[0]["contradiction_group_id"] is not None
    assert facts[0]["contradiction_group_id"] == facts[1]["contradiction_group_id"]


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0), (2, 0, 1)])
async def test_an_ended_older_value_arriving_last_precedes_the_undated_one_in_any_order(
    adj_service: AdjudicationService, corpus: Any, order: tuple[int, ...]
) -> None:
    # "$20" said in January is no older than "$15 back in 2024": it held when it was said.
    said = [
        ("The Pro plan costs $20 per month.", day(2026, 1, 10), None, None, "unknown",
         "proposition_validity"),
        ("From 1 June the Pro plan is $25 a month.", day(2026, 6, 2), day(2026, 6, 1), None,
         "open", "effective_period"),
        ("Back in 2024 the Pro plan was $15 per month.", day(2026, 7, 1), day(2024, 1, 1),
         day(2024, 12, 31), "year", "effective_period"),
    ]  # fmt: skip
    docs = []
    for index in order:
        text, when, start, last_day, precision, kind = said[index]
        doc = await corpus.document(f"pricing {index}")
        await corpus.claim(
            doc, text, "Pro plan", "costs", None, said=when, valid_from=start,
            valid_until=last_day, precision=precision, kind=kind,
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = {
        price: f
        for f in await corpus.facts()
        if f["invalidated_at"] is None
        for price in ("$15", "$20", "$25")
        if price in f["label"]
    }
    fifteen, twenty, twenty_five = facts["$15"], facts["$20"], facts["$25"]
    assert (twenty["valid_until"], twenty["superseded_by_fact_id"]) == (
        day(2026, 6, 1),
        twenty_five["id"],
    )
    assert (fifteen["valid_until"], fifteen["superseded_by_fact_id"]) == (
        day(2025, 1, 1),
        twenty["id"],
    )
    assert all(f["contradiction_group_id"] is None for f in facts.values())


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize(
    "denial",
    [
        "Update: Omar Said is not leaving Acme after all.",
        "Omar Said will not be leaving Acme.",
        "Correction to last week's note: Omar Said hasn't left Acme.",
    ],
)
async def test_an_ending_denied_later_is_withdrawn_in_any_order(
    adj_service: AdjudicationService, corpus: Any, denial: str, reverse: bool
) -> None:
    # The announced ending closed the employment and the denial only confirmed it, closed.
    said = [
        ("Omar Said is leaving Acme at the end of March.", day(2026, 2, 10), "positive",
         day(2026, 3, 31)),
        (denial, day(2026, 2, 12), "negative", None),
    ]  # fmt: skip
    docs = []
    for index in (1, 0) if reverse else (0, 1):
        text, when, polarity, last_day = said[index]
        doc = await corpus.document(f"team update {index}")
        await corpus.claim(
            doc, text, "Omar Said", "leave", "Acme", said=when, polarity=polarity,
            valid_from=last_day, valid_until=last_day,
            precision="day" if last_day else "unknown", kind="event_time" if last_day else None,
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    (job,) = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert (job["label"], job["valid_until"], job["evidence_count"]) == (
        "Omar Said works for Acme",
        None,
        2,
    )


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
async def test_an_ending_said_after_its_denial_stands(
    adj_service: AdjudicationService, corpus: Any, reverse: bool
) -> None:
    # Not leaving in February, then leaving after all in May: the later ending holds.
    said = [
        ("Omar Said is not leaving Acme.", day(2026, 2, 12), "negative", None),
        ("Omar Said left Acme on 29 May.", day(2026, 6, 1), "positive", day(2026, 5, 29)),
    ]  # fmt: skip
    docs = []
    for index in (1, 0) if reverse else (0, 1):
        text, when, polarity, last_day = said[index]
        doc = await corpus.document(f"team update {index}")
        await corpus.claim(
            doc, text, "Omar Said", "leave", "Acme", said=when, polarity=polarity,
            valid_from=last_day, valid_until=last_day,
            precision="day" if last_day else "unknown", kind="event_time" if last_day else None,
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    (job,) = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert job["valid_until"] == day(2026, 5, 30)


_EVENT_AND_MEASURE = {
    "budget": (
        "Q2 budget",
        ("Budget for Q2 is $80k.", "is", day(2026, 4, 1), day(2026, 6, 30), "quarter",
         "measurement_period"),
        ("Budget cut to $60k on 27 February.", "cut to", day(2026, 2, 27), day(2026, 2, 27),
         "day", "event_time"),
    ),
    "headcount": (
        "Support team",
        ("Support headcount in March was 40.", "was", day(2026, 3, 1), day(2026, 3, 31),
         "month", "measurement_period"),
        ("Support headcount jumped to 52 on 14 April.", "jumped to", day(2026, 4, 14),
         day(2026, 4, 14), "day", "event_time"),
    ),
    "price": (
        "Pro plan",
        ("In 2025 the Pro plan was $20 a month.", "was", day(2025, 1, 1), day(2025, 12, 31),
         "year", "effective_period"),
        ("The Pro plan was repriced to $25 a month on 2 January 2026.", "was repriced to",
         day(2026, 1, 2), day(2026, 1, 2), "day", "event_time"),
    ),
}  # fmt: skip


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize("attribute", sorted(_EVENT_AND_MEASURE))
async def test_an_event_value_and_a_measured_value_share_the_slot_in_any_order(
    adj_service: AdjudicationService, corpus: Any, attribute: str, reverse: bool
) -> None:
    # Read the event second, it joined no slot (only a state assertion or a state candidate
    # could open one) and stayed a bare contradiction; read first, the timeline ordered them.
    subject, *said = _EVENT_AND_MEASURE[attribute]
    docs = []
    for index in (1, 0) if reverse else (0, 1):
        text, predicate, start, last_day, precision, kind = said[index]
        doc = await corpus.document(f"{attribute} note {index}")
        await corpus.claim(
            doc, text, subject, predicate, None, said=day(2026, 5, 1 + index),
            valid_from=start, valid_until=last_day, precision=precision, kind=kind,
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert len(facts) == 2
    assert all(f["contradiction_group_id"] is None for f in facts)
    assert sorted(f["superseded_by_fact_id"] is None for f in facts) == [False, True]


@pytest.mark.parametrize("reverse", [False, True], ids=["in order", "reversed"])
@pytest.mark.parametrize(
    ("held", "left", "shape"),
    [
        (
            "Omar Haddad thinks the Vireo plan is risky.",
            "Omar Haddad no longer thinks the Vireo plan is risky.",
            {"subject": "the Vireo plan", "predicate": "be", "obj": None, "holder": "Omar Haddad"},
        ),
        (
            "Lena Fischer backs the Kestrel rewrite.",
            "Lena Fischer no longer backs the Kestrel rewrite.",
            {"subject": "Lena Fischer", "predicate": "back", "obj": "the Kestrel rewrite"},
        ),
        (
            "Ravi Menon supports the pricing change.",
            "Ravi Menon does not support the pricing change any more.",
            {"subject": "Ravi Menon", "predicate": "support", "obj": "the pricing change"},
        ),
    ],
)
async def test_a_view_the_holder_no_longer_holds_is_succeeded_not_disputed(
    adj_service: AdjudicationService,
    corpus: Any,
    reverse: bool,
    held: str,
    left: str,
    shape: dict[str, Any],
) -> None:
    """Undated both: whichever arrived first, the later-said "no longer" ends the view (it
    was a dispute that kept whichever arrived first)."""
    said = [(held, "positive", day(2026, 3, 2)), (left, "negative", day(2026, 3, 20))]
    docs = []
    for text, polarity, when in reversed(said) if reverse else said:
        doc = await corpus.document("Notes")
        await corpus.claim(
            doc,
            text,
            shape["subject"],
            shape["predicate"],
            shape["obj"],
            said=when,
            polarity=polarity,
            holder=shape.get("holder"),
            kind="proposition_validity",
        )
        docs.append(doc)
    await run(adj_service, corpus, *docs)
    facts = {f["label"].rstrip("."): f for f in await corpus.facts() if f["invalidated_at"] is None}
    view, ended = facts[held.rstrip(".")], facts[left.rstrip(".")]
    assert view["superseded_by_fact_id"] == ended["id"]
    assert (ended["superseded_by_fact_id"], ended["contradicting"]) == (None, 0)
