"""ListContradictionMembers: pages a group's believed members from the FactsContext token."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import grpc
import pytest
from rememberstack.v1 import query_service_pb2

from services.query.reads.contradictions import continuation_token

Stub = Any


async def _page_all(stub: Stub, namespace: str, group: str, token: str, size: int) -> list[str]:
    seen: list[str] = []
    while token:
        page = await stub.ListContradictionMembers(
            query_service_pb2.ListContradictionMembersRequest(
                namespace=namespace, group_id=group, page_token=token, page_size=size
            )
        )
        assert len(page.members) <= size
        seen += [m.fact_id for m in page.members]
        token = page.next_page_token
    return seen


async def _big_group(world: Any, members: int) -> tuple[uuid.UUID, uuid.UUID, list[uuid.UUID]]:
    topic = await world.entity("deadline")
    group = await world.group()
    facts = [
        await world.fact(topic, f"the deadline is day {day}", group=group) for day in range(members)
    ]
    return topic, group, facts


async def test_inline_block_and_paged_rest_cover_a_27_member_group_without_dups_or_gaps(
    world: Any, stub: Stub
) -> None:
    topic, group, facts = await _big_group(world, 27)
    response = await stub.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=world.namespace, entity_ids=[str(topic)], k=1
        )
    )
    fact = response.facts[0]
    block = fact.contradiction
    assert (block.returned, block.total) == (25, 26)
    inline = [m.fact_id for m in block.co_members]
    paged = await _page_all(stub, world.namespace, str(group), block.continuation, 1)
    shown = inline + [fact_id for fact_id in paged if fact_id != fact.fact_id]
    assert len(shown) == len(set(shown)) == 26
    assert set(shown) | {fact.fact_id} == {str(f) for f in facts}


async def test_paging_from_the_start_lists_every_believed_member_once_in_stable_order(
    world: Any, stub: Stub
) -> None:
    _, group, facts = await _big_group(world, 27)
    await world.sql(
        "UPDATE facts SET invalidated_at = :at WHERE id = :id",
        at=datetime.now(UTC),
        id=facts[3],
    )
    first = await stub.ListContradictionMembers(
        query_service_pb2.ListContradictionMembersRequest(
            namespace=world.namespace, group_id=str(group), page_size=10
        )
    )
    assert first.total == 26
    assert len(first.members) == 10
    rest = await _page_all(stub, world.namespace, str(group), first.next_page_token, 10)
    listed = [m.fact_id for m in first.members] + rest
    assert len(listed) == len(set(listed)) == 26
    assert str(facts[3]) not in listed


async def test_last_page_has_no_continuation(world: Any, stub: Stub) -> None:
    _, group, _ = await _big_group(world, 3)
    page = await stub.ListContradictionMembers(
        query_service_pb2.ListContradictionMembersRequest(
            namespace=world.namespace, group_id=str(group)
        )
    )
    assert (len(page.members), page.total, page.next_page_token) == (3, 3, "")


@pytest.mark.parametrize(
    "token", ["not-a-token", "e30", continuation_token(uuid.uuid4(), -1), "x" * 600]
)
async def test_malformed_continuation_is_invalid_argument(
    world: Any, stub: Stub, token: str
) -> None:
    _, group, _ = await _big_group(world, 2)
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ListContradictionMembers(
            query_service_pb2.ListContradictionMembersRequest(
                namespace=world.namespace, group_id=str(group), page_token=token
            )
        )
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "page_token" in (raised.value.details() or "")


async def test_token_of_another_group_is_invalid_argument(world: Any, stub: Stub) -> None:
    _, group, _ = await _big_group(world, 2)
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ListContradictionMembers(
            query_service_pb2.ListContradictionMembersRequest(
                namespace=world.namespace,
                group_id=str(group),
                page_token=continuation_token(uuid.uuid4(), 1),
            )
        )
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_unknown_group_is_not_found(world: Any, stub: Stub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ListContradictionMembers(
            query_service_pb2.ListContradictionMembersRequest(
                namespace=world.namespace, group_id=str(uuid.uuid4())
            )
        )
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


async def test_bad_group_id_and_page_size_are_both_named(world: Any, stub: Stub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await stub.ListContradictionMembers(
            query_service_pb2.ListContradictionMembersRequest(
                namespace=world.namespace, group_id="nope", page_size=101
            )
        )
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = raised.value.details() or ""
    assert "group_id" in details and "page_size" in details
