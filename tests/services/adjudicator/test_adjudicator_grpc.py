"""The AdjudicatorService over a real gRPC server and channel."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import grpc
import pytest
from rememberstack.v1 import adjudicator_service_pb2 as pb
from rememberstack.v1 import adjudicator_service_pb2_grpc as pb_grpc
from rememberstack.v1 import fact_pb2
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.adjudicator.app import build_server
from services.adjudicator.config import load_settings
from services.adjudicator.engines.base import ConfigurationError
from shared.grpc.channel import open_channel
from shared.grpc.errors import parse_rich_error


@pytest.fixture(scope="module")
async def stub(
    db_engine: AsyncEngine, database_url: str
) -> AsyncIterator[pb_grpc.AdjudicatorServiceStub]:
    settings = load_settings(port=0, database_url=database_url, worker_poll_seconds=5.0)
    server = await build_server(settings, engine=db_engine)
    await server.start()
    channel = open_channel(server.address)
    try:
        yield pb_grpc.AdjudicatorServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(grace=None)


async def rpc_error(call: Any) -> Any:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return parse_rich_error(caught.value)


async def test_engine_info_describes_jev_floor_and_vocabulary(stub):
    info = await stub.GetEngineInfo(pb.GetEngineInfoRequest())
    assert (info.engine, info.model, info.confidence_floor) == ("jev", "jev-logistic-1", 0.75)
    assert {"works_for", "member_of", "reports_to"} <= set(info.predicates)
    assert len(info.predicates) == 16 and list(info.extension_packs) == []
    assert info.extractor == "rules"


async def test_adjudicate_claims_decides_once_and_returns_records(stub, corpus):
    doc = await corpus.document("Notes")
    claim = await corpus.claim(
        doc,
        "Ravi works on the billing migration.",
        "Ravi",
        "works on",
        "billing migration",
        said=datetime(2026, 1, 5, tzinfo=UTC),
    )
    request = pb.AdjudicateClaimsRequest(
        namespace=corpus.namespace, claim_ids=[str(claim)], decided_by="alice"
    )
    response = await stub.AdjudicateClaims(request)
    [record] = response.decisions
    assert record.outcome == fact_pb2.DECISION_OUTCOME_ADD
    # An open server's caller is anonymous; the request's decided_by is not what is recorded.
    assert (record.method, record.decided_by, record.claim_id) == (
        "novelty_gate",
        "anonymous",
        str(claim),
    )
    assert record.HasField("window_after") and not record.HasField("window_before")
    again = await stub.AdjudicateClaims(request)
    assert list(again.decisions) == []


async def test_adjudicate_claims_names_every_bad_field(stub):
    error = await rpc_error(
        stub.AdjudicateClaims(
            pb.AdjudicateClaimsRequest(claim_ids=["nope", str(uuid.uuid4()), "nope"])
        )
    )
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert {v.field for v in error.field_violations} == {"claim_ids[0]", "claim_ids[2]"}
    # Over-long strings are refused before the request is read any further.
    error = await rpc_error(
        stub.AdjudicateClaims(
            pb.AdjudicateClaimsRequest(claim_ids=[str(uuid.uuid4())], decided_by="x" * 300)
        )
    )
    assert {v.field for v in error.field_violations} == {"decided_by"}
    empty = await rpc_error(stub.AdjudicateClaims(pb.AdjudicateClaimsRequest()))
    assert [v.field for v in empty.field_violations] == ["claim_ids"]


async def test_adjudicate_unknown_claim_is_not_found(stub, namespace):
    error = await rpc_error(
        stub.AdjudicateClaims(
            pb.AdjudicateClaimsRequest(namespace=namespace, claim_ids=[str(uuid.uuid4())])
        )
    )
    assert error.code == grpc.StatusCode.NOT_FOUND


async def test_review_support_repairs_a_drifted_count(stub, corpus):
    doc = await corpus.document("Notes")
    claim = await corpus.claim(
        doc,
        "Mei Lin leads the Data team.",
        "Mei Lin",
        "leads",
        "Data team",
        said=datetime(2026, 1, 5, tzinfo=UTC),
    )
    await stub.AdjudicateClaims(
        pb.AdjudicateClaimsRequest(namespace=corpus.namespace, claim_ids=[str(claim)])
    )
    [fact] = await corpus.facts()
    async with corpus.factory() as session, session.begin():
        await session.execute(
            text("UPDATE facts SET evidence_count = 7 WHERE id = :f"), {"f": fact["id"]}
        )
    review = await stub.ReviewSupport(pb.ReviewSupportRequest(namespace=corpus.namespace))
    assert (review.reviewed, list(review.changed_fact_ids)) == (1, [str(fact["id"])])
    assert (await corpus.facts())[0]["evidence_count"] == 1
    missing = await rpc_error(
        stub.ReviewSupport(
            pb.ReviewSupportRequest(namespace=corpus.namespace, fact_ids=[str(uuid.uuid4())])
        )
    )
    assert missing.code == grpc.StatusCode.NOT_FOUND


async def test_replay_dead_letters_requeues_only_adjudication_items(stub, corpus):
    async with corpus.factory() as session, session.begin():
        for kind in (f"adjudicate.version.{corpus.namespace}", f"ingest.x.{corpus.namespace}"):
            await session.execute(
                text(
                    "INSERT INTO work_items (namespace, kind, status, attempts)"
                    " VALUES (:ns, :k, 'dead_letter', 3)"
                ),
                {"ns": corpus.namespace, "k": kind},
            )
    replay = await stub.ReplayDeadLetters(pb.ReplayDeadLettersRequest(namespace=corpus.namespace))
    assert replay.replayed == 1
    bad = await rpc_error(stub.ReplayDeadLetters(pb.ReplayDeadLettersRequest(work_item_ids=["x"])))
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT


async def test_merge_rpcs_validate_their_ids(stub, namespace):
    same = str(uuid.uuid4())
    error = await rpc_error(
        stub.MergeEntities(
            pb.MergeEntitiesRequest(
                namespace=namespace, survivor_entity_id=same, absorbed_entity_id=same
            )
        )
    )
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    unknown = await rpc_error(
        stub.MergeEntities(
            pb.MergeEntitiesRequest(
                namespace=namespace,
                survivor_entity_id=str(uuid.uuid4()),
                absorbed_entity_id=str(uuid.uuid4()),
            )
        )
    )
    assert unknown.code == grpc.StatusCode.NOT_FOUND
    page = await stub.ListMergeProposals(pb.ListMergeProposalsRequest(namespace=namespace))
    assert list(page.proposals) == [] and page.next_page_token == ""


async def test_prompt_engine_without_endpoint_refuses_to_start(db_engine, database_url):
    settings = load_settings(
        port=0, database_url=database_url, fact_adjudication_engine="prompt", llm_model="smollm2"
    )
    with pytest.raises(ConfigurationError, match="REMEMBERSTACK_LLM_BASE_URL"):
        await build_server(settings, engine=db_engine)
