"""Every RPC × every scope: missing or bad credentials are UNAUTHENTICATED, a missing scope or
namespace is PERMISSION_DENIED, the right scope gets through; health and reflection stay open."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from rememberstack.v1 import (
    adjudicator_service_pb2,
    adjudicator_service_pb2_grpc,
    query_service_pb2,
)

from shared.auth.rpc_policy import RPC_POLICIES
from shared.grpc.channel import ClientSecurity, open_channel
from shared.grpc.errors import parse_rich_error
from tests.support.rpcs import ALL_RPCS, Rpc, invoke

DENIED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)


def _ids(rpc: Rpc) -> str:
    return rpc.name


async def _code(secured, rpc: Rpc, token: str | None, namespace: str = "") -> grpc.StatusCode:
    request = rpc.request_type()
    target = request
    if rpc.name == "IngestDocuments":
        request.document.SetInParent()
        target = request.document
    if namespace:
        target.namespace = namespace
    code, _, _ = await invoke(secured.channels[rpc.service], rpc, [request], token=token)
    return code


def test_every_rpc_has_a_scope():
    assert {rpc.method for rpc in ALL_RPCS} == set(RPC_POLICIES)


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=_ids)
async def test_rpc_without_or_with_a_bad_credential_is_unauthenticated(secured, rpc):
    assert await _code(secured, rpc, None) == grpc.StatusCode.UNAUTHENTICATED
    assert await _code(secured, rpc, "rsk_not-a-key") == grpc.StatusCode.UNAUTHENTICATED
    expired = secured.signer.token(scope="admin", expires_in=-60)
    assert await _code(secured, rpc, expired) == grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=_ids)
async def test_rpc_needs_its_scope_and_admin_holds_every_scope(secured, rpc):
    needed = RPC_POLICIES[rpc.method].scope
    for scope in ("read", "ingest", "curate"):
        code = await _code(secured, rpc, secured.key(f"{scope}-all"))
        if scope == needed:
            assert code not in DENIED, f"{scope} should be allowed"
        else:
            assert code == grpc.StatusCode.PERMISSION_DENIED, f"{scope} should be denied"
    assert await _code(secured, rpc, secured.key("admin-all")) not in DENIED
    token = secured.signer.token(scope=needed, namespaces="*")
    assert await _code(secured, rpc, token) not in DENIED


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=_ids)
async def test_rpc_in_another_tenants_namespace_is_permission_denied(secured, rpc):
    key_a = secured.key("tenant-a")
    if RPC_POLICIES[rpc.method].scope != "admin":
        assert await _code(secured, rpc, key_a, secured.tenant_a) not in DENIED
    assert await _code(secured, rpc, key_a, secured.tenant_b) == grpc.StatusCode.PERMISSION_DENIED
    # An empty namespace means the server's default, which tenant A may not touch either.
    assert await _code(secured, rpc, key_a) == grpc.StatusCode.PERMISSION_DENIED


async def test_permission_denied_names_only_what_the_caller_asked_for(secured):
    rpc = next(r for r in ALL_RPCS if r.name == "FactsContext")
    request = rpc.request_type(namespace=secured.tenant_b, query="who?")
    _, _, error = await invoke(
        secured.channels["query"], rpc, [request], token=secured.key("tenant-a")
    )
    assert error is not None and error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert parse_rich_error(error).reason == "PERMISSION_DENIED"
    assert secured.tenant_b in error.details() and secured.tenant_a not in error.details()


async def test_nested_namespace_of_another_tenant_is_denied(secured):
    rpc = next(r for r in ALL_RPCS if r.name == "CombinedContext")
    request = query_service_pb2.CombinedContextRequest(
        namespace=secured.tenant_a,
        facts=query_service_pb2.FactsContextRequest(namespace=secured.tenant_b, query="x"),
        claims_and_sources=query_service_pb2.ClaimsAndSourcesContextRequest(query="x"),
    )
    code, _, _ = await invoke(
        secured.channels["query"], rpc, [request], token=secured.key("tenant-a")
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED


async def test_health_and_reflection_need_no_credential(secured):
    for name, channel in secured.channels.items():
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, name
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        async for response in responses:
            assert response.list_services_response.service
            break


async def test_key_added_to_the_file_is_accepted_without_restart(secured):
    rpc = next(r for r in ALL_RPCS if r.name == "GetEngineInfo")
    new_key = secured.keys.add(f"late-{id(rpc)}", ["read"], ["*"])
    for _ in range(100):
        if await _code(secured, rpc, new_key) == grpc.StatusCode.OK:
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the added key was never accepted")
    secured.keys.remove(f"late-{id(rpc)}")
    for _ in range(100):
        if await _code(secured, rpc, new_key) == grpc.StatusCode.UNAUTHENTICATED:
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the removed key was still accepted")


async def test_channel_with_client_security_sends_its_bearer_credential(secured):
    security = ClientSecurity(token=secured.key("read-all"))
    async with open_channel(secured.servers["adjudicator"].address, security=security) as channel:
        stub = adjudicator_service_pb2_grpc.AdjudicatorServiceStub(channel)
        info = await stub.GetEngineInfo(adjudicator_service_pb2.GetEngineInfoRequest())
    assert info.engine
