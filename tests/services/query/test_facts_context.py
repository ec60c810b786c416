"""FactsContext over gRPC: hybrid search, hydration, anchors, evidence, contradictions, time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, fact_pb2, query_service_pb2

NOW = datetime.now(UTC)
PAST = NOW - timedelta(days=400)
RECENT = NOW - timedelta(days=30)

# The generated stub types describe sync calls; the aio channel makes them awaitable.
Stub = Any


def _ids(response: Any) -> list[str]:
    return [fact.fact_id for fact in response.facts]


async def _billing(world: Any) -> dict[str, Any]:
    """Ravi moved from billing to search; two sources disagree on the cutover date."""
    doc_a = await world.document(
        ["Ravi works on the billing migration.", "The cutover is scheduled for June 8."],
        title="spec",
    )
    doc_b = await world.document(["Standup: the billing cutover is on June 15."], title="standup")
    ravi = await world.entity("Ravi", "Ravi, engineer on the search team")
    billing = await world.entity("billing migration", "billing migration project cutover")
    search = await world.entity("search team")
    c_works = await world.claim(doc_a, "Ravi works on the billing migration.")
    c_june8 = await world.claim(doc_a, "The cutover is scheduled for June 8.", chunk=1)
    c_june15 = await world.claim(doc_b, "Standup: the billing cutover is on June 15.")
    old = await world.fact(
        ravi,
        "Ravi works on billing migration",
        predicate="works_on",
        obj=billing,
        evidence=[(c_works, "supports")],
        valid_from=PAST,
        valid_until=RECENT,
        precision="day",
        valid_kind="effective_period",
    )
    new = await world.fact(
        ravi,
        "Ravi member of search team",
        predicate="member_of",
        obj=search,
        valid_from=RECENT,
        precision="open",
        valid_kind="effective_period",
    )
    await world.sql("UPDATE facts SET superseded_by_fact_id = :n WHERE id = :o", n=new, o=old)
    group = await world.group()
    june8 = await world.fact(
        billing,
        "The billing migration cutover is scheduled for June 8.",
        evidence=[(c_june8, "supports"), (c_june15, "contradicts")],
        group=group,
    )
    june15 = await world.fact(
        billing,
        "The billing migration cutover is scheduled for June 15.",
        evidence=[(c_june15, "supports")],
        group=group,
    )
    return {
        "ravi": ravi,
        "billing": billing,
        "search": search,
        "old": old,
        "new": new,
        "june8": june8,
        "june15": june15,
        "group": group,
    }


def _history() -> common_pb2.TimeScope:
    return common_pb2.TimeScope(history=common_pb2.HistoryScope())


async def test_facts_context_query_returns_every_side_of_a_contradiction_with_evidence(
    world: Any, stub: Stub
) -> None:
    made = await _billing(world)
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, query="when is the billing cutover?"
        )
    )
    by_id = {fact.fact_id: fact for fact in response.facts}
    june8 = by_id[str(made["june8"])]
    assert june8.contradiction_group == str(made["group"])
    assert [m.fact_id for m in june8.contradiction.co_members] == [str(made["june15"])]
    assert (june8.contradiction.returned, june8.contradiction.total) == (1, 1)
    assert june8.contradiction.continuation == ""
    assert june8.temporal_match == fact_pb2.TEMPORAL_MATCH_POSSIBLE
    totals = {(t.fact_id, t.stance): (t.returned, t.total) for t in response.evidence_totals}
    assert totals[(str(made["june8"]), fact_pb2.STANCE_SUPPORTS)] == (1, 1)
    assert totals[(str(made["june8"]), fact_pb2.STANCE_CONTRADICTS)] == (1, 1)
    linked = {link.claim_id for link in response.fact_evidence}
    assert linked == {claim.claim_id for claim in response.claims}
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_UNSPECIFIED
    assert response.HasField("evaluated_at")


async def test_facts_context_current_returns_only_the_successor_and_history_returns_both(
    world: Any, stub: Stub
) -> None:
    made = await _billing(world)
    request = query_service_pb2.FactsContextRequest(
        namespace=world.namespace, query="Ravi works on which team"
    )
    current = await stub.FactsContext(request)
    assert str(made["new"]) in _ids(current)
    assert str(made["old"]) not in _ids(current)
    request.time_scope.CopyFrom(_history())
    history = await stub.FactsContext(request)
    by_id = {fact.fact_id: fact for fact in history.facts}
    old = by_id[str(made["old"])]
    assert old.superseded_by_fact_id == str(made["new"])
    assert old.validity.valid_until.ToDatetime(tzinfo=UTC) == RECENT
    assert old.temporal_match == fact_pb2.TEMPORAL_MATCH_CONFIRMED
    assert str(made["new"]) in by_id


async def test_facts_context_at_a_past_instant_returns_the_fact_valid_then(
    world: Any, stub: Stub
) -> None:
    made = await _billing(world)
    request = query_service_pb2.FactsContextRequest(
        namespace=world.namespace, entity_ids=[str(made["ravi"])]
    )
    request.time_scope.at.valid_at.FromDatetime(PAST + timedelta(days=10))
    response = await stub.FactsContext(request)
    assert _ids(response)[0] == str(made["old"])
    assert str(made["new"]) not in _ids(response)
    # Billing was reachable then, so its undated facts come along as possible matches.
    assert {node.entity_id for node in response.nodes} == {str(made["ravi"]), str(made["billing"])}
    assert response.temporal_scope.WhichOneof("scope") == "at"


async def test_facts_context_invalidated_after_indexing_is_not_served_and_is_counted(
    world: Any, stub: Stub
) -> None:
    made = await _billing(world)
    await world.sql("UPDATE facts SET invalidated_at = now() WHERE id = :f", f=made["june15"])
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, query="billing cutover June 15"
        )
    )
    assert str(made["june15"]) not in _ids(response)
    assert response.dropped_by_hydration >= 1
    june8 = {fact.fact_id: fact for fact in response.facts}[str(made["june8"])]
    assert june8.contradiction.total == 0


async def test_facts_context_anchor_expands_through_current_relations_with_hops(
    world: Any, stub: Stub
) -> None:
    made = await _billing(world)
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(made["ravi"])]
        )
    )
    assert _ids(response) == [str(made["new"])]
    nodes = {node.entity_id: node.hop for node in response.nodes}
    assert nodes == {str(made["ravi"]): 0, str(made["search"]): 1}
    assert response.facts[0].object.name == "search team"


async def test_facts_context_anchor_expansion_stops_at_twenty_entities_and_says_so(
    world: Any, stub: Stub
) -> None:
    hub = await world.entity("hub")
    for index in range(22):
        spoke = await world.entity(f"spoke {index}")
        await world.fact(hub, f"hub knows spoke {index}", predicate="knows", obj=spoke)
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(hub)], k=30
        )
    )
    assert len(response.nodes) == 20
    reasons = [response.truncation.reason, *response.truncation.additional_reasons]
    assert common_pb2.TRUNCATION_REASON_EXPANSION_BUDGET in reasons
    assert response.truncation.truncated


async def test_facts_context_unknown_anchor_answers_unknown_entity(world: Any, stub: Stub) -> None:
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=["6d1f3f5e-0000-4000-8000-000000000001"]
        )
    )
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY
    assert response.negative.explanation and response.negative.workaround
    assert not response.facts


async def test_facts_context_nothing_matching_answers_known_empty(world: Any, stub: Stub) -> None:
    await _billing(world)
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, query="cutover", predicate="other:sponsors"
        )
    )
    assert not response.facts
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY
    assert response.negative.workaround


async def test_facts_context_as_of_uses_belief_time(world: Any, stub: Stub) -> None:
    dana = await world.entity("Dana")
    believed_then = await world.fact(
        dana,
        "Dana leads the platform group",
        ingested_at=NOW - timedelta(days=20),
        invalidated_at=NOW - timedelta(days=5),
    )
    learned_later = await world.fact(dana, "Dana leads the data group")
    request = query_service_pb2.FactsContextRequest(
        namespace=world.namespace, entity_ids=[str(dana)]
    )
    request.time_scope.as_of.valid_at.FromDatetime(NOW)
    request.time_scope.as_of.believed_at.FromDatetime(NOW - timedelta(days=10))
    then = await stub.FactsContext(request)
    assert _ids(then) == [str(believed_then)]
    now = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(namespace=world.namespace, entity_ids=[str(dana)])
    )
    assert _ids(now) == [str(learned_later)]


async def test_facts_context_overlap_includes_both_ends_and_unknown_windows_as_possible(
    world: Any, stub: Stub
) -> None:
    team = await world.entity("team")
    start = datetime(2025, 3, 1, tzinfo=UTC)
    touching = await world.fact(
        team,
        "team offsite in March",
        valid_from=start,
        valid_until=start + timedelta(days=1),
        precision="day",
        valid_kind="event_time",
    )
    await world.fact(
        team,
        "team kickoff in January",
        valid_from=datetime(2025, 1, 1, tzinfo=UTC),
        valid_until=datetime(2025, 1, 2, tzinfo=UTC),
        precision="day",
        valid_kind="event_time",
    )
    undated = await world.fact(team, "team uses Postgres")
    request = query_service_pb2.FactsContextRequest(
        namespace=world.namespace, entity_ids=[str(team)]
    )
    getattr(request.time_scope.overlap, "from").FromDatetime(datetime(2025, 2, 1, tzinfo=UTC))
    request.time_scope.overlap.to.FromDatetime(start)
    response = await stub.FactsContext(request)
    matches = {fact.fact_id: fact.temporal_match for fact in response.facts}
    assert matches == {
        str(touching): fact_pb2.TEMPORAL_MATCH_CONFIRMED,
        str(undated): fact_pb2.TEMPORAL_MATCH_POSSIBLE,
    }


async def test_facts_context_returns_an_event_only_at_instants_its_window_shows(
    world: Any, stub: Stub
) -> None:
    launch = await world.entity("launch")
    happened = await world.fact(
        launch,
        "the launch happened",
        valid_from=RECENT,
        valid_until=RECENT + timedelta(days=1),
        precision="day",
        valid_kind="event_time",
    )
    await world.fact(
        launch,
        "the relaunch takes place",
        valid_from=NOW + timedelta(days=30),
        valid_until=NOW + timedelta(days=31),
        precision="day",
        valid_kind="event_time",
    )
    ended_state = await world.fact(
        launch,
        "the launch was in beta",
        valid_from=PAST,
        valid_until=RECENT,
        precision="day",
        valid_kind="effective_period",
    )

    async def at(scope: common_pb2.TimeScope | None) -> list[str]:
        request = query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(launch)]
        )
        if scope is not None:
            request.time_scope.CopyFrom(scope)
        return _ids(await stub.FactsContext(request))

    # Now is after the launch day and before the relaunch: neither event's window holds now.
    assert await at(None) == []
    on_the_day = common_pb2.TimeScope(
        at=common_pb2.AtScope(
            valid_at=Timestamp(seconds=int((RECENT + timedelta(hours=12)).timestamp()))
        )
    )
    assert await at(on_the_day) == [str(happened)]
    history = await at(common_pb2.TimeScope(history=common_pb2.HistoryScope()))
    assert {str(happened), str(ended_state)} <= set(history)


async def test_facts_context_large_group_inlines_25_co_members_and_pages_the_rest(
    world: Any, stub: Stub
) -> None:
    topic = await world.entity("deadline")
    group = await world.group()
    members = [
        await world.fact(topic, f"the deadline is day {day}", group=group) for day in range(27)
    ]
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(topic)], k=1
        )
    )
    block = response.facts[0].contradiction
    assert (block.returned, block.total) == (25, 26)
    assert len(block.co_members) == 25
    assert block.continuation
    assert response.facts[0].fact_id in {str(m) for m in members}
    assert response.truncation.truncated


async def test_facts_context_resolved_group_carries_no_contradiction_block(
    world: Any, stub: Stub
) -> None:
    topic = await world.entity("budget")
    group = await world.group(resolved=True)
    await world.fact(topic, "the budget is 10k", group=group)
    await world.fact(topic, "the budget is 12k", group=group)
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(namespace=world.namespace, entity_ids=[str(topic)])
    )
    assert len(response.facts) == 2
    assert all(not fact.contradiction_group for fact in response.facts)


async def test_facts_context_samples_evidence_per_stance_and_reports_exact_totals(
    world: Any, stub: Stub
) -> None:
    topic = await world.entity("release")
    claims = []
    for index in range(5):
        doc = await world.document([f"Release train {index} ships on Fridays."])
        claims.append(await world.claim(doc, f"Release train {index} ships on Fridays."))
    retired = await world.document(["Release trains ship on Fridays (retired)."])
    old_claim = await world.claim(
        retired, "Release trains ship on Fridays (retired).", current=False
    )
    fact = await world.fact(
        topic,
        "release trains ship on Fridays",
        evidence=[(c, "supports") for c in [*claims, old_claim]],
    )
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(topic)], evidence_per_fact=2
        )
    )
    totals = [(t.fact_id, t.stance, t.returned, t.total) for t in response.evidence_totals]
    assert totals == [(str(fact), fact_pb2.STANCE_SUPPORTS, 2, 5)]
    assert len(response.fact_evidence) == 2
    assert len({c.doc_id for c in response.claims}) == 2
    assert str(old_claim) not in {c.claim_id for c in response.claims}


async def test_facts_context_caps_claims_at_sixty_and_discloses_it(world: Any, stub: Stub) -> None:
    topic = await world.entity("catalog")
    doc = await world.document(["Catalog entries."])
    for index in range(21):
        claim_ids = [
            await world.claim(doc, f"Catalog entry {index} variant {v}.") for v in range(3)
        ]
        await world.fact(
            topic, f"catalog holds entry {index}", evidence=[(c, "supports") for c in claim_ids]
        )
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(topic)], k=30
        )
    )
    assert len(response.facts) == 21
    assert len(response.claims) == 60
    assert len(response.fact_evidence) == 60
    assert response.truncation.reason == common_pb2.TRUNCATION_REASON_RESULT_BUDGET
