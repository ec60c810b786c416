"""TLS on the serving port (reloaded on rotation), optional mTLS, and the refusal to serve
open on an address other machines can reach."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.auth.authenticator import CredentialSourceError
from shared.config import load_settings
from shared.grpc.channel import ClientSecurity, open_channel
from shared.grpc.security import InsecureBindRefused, ServerSecurity
from shared.grpc.server import GrpcServer
from shared.grpc.tls import ClientTls, ServerTls, TlsFilesError
from tests.support.credentials import Authority


def _server(security: ServerSecurity, host: str = "127.0.0.1") -> GrpcServer:
    return GrpcServer(
        service_name="tls-probe", registrations=[], service_names=[], host=host, security=security
    )


async def _health(address: str, security: ClientSecurity | None) -> grpc.StatusCode:
    async with open_channel(address, security=security) as channel:
        try:
            await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=5.0
            )
        except grpc.aio.AioRpcError as error:
            return error.code()
    return grpc.StatusCode.OK


def _tls_security(tls: ServerTls) -> ServerSecurity:
    security = ServerSecurity.open()
    security.tls = tls
    return security


@pytest.fixture
def authority(tmp_path: Path) -> Authority:
    return Authority("test-ca")


async def test_tls_port_serves_tls_clients_and_refuses_plaintext(tmp_path, authority):
    cert, key = authority.issue(tmp_path, "server")
    ca = authority.write_ca(tmp_path / "ca.pem")
    server = _server(_tls_security(ServerTls(cert, key)))
    await server.start()
    try:
        assert await _health(server.address, ClientSecurity(ClientTls(ca))) == grpc.StatusCode.OK
        assert await _health(server.address, None) == grpc.StatusCode.UNAVAILABLE
        stranger = Authority("other-ca").write_ca(tmp_path / "other.pem")
        assert await _health(server.address, ClientSecurity(ClientTls(stranger))) != (
            grpc.StatusCode.OK
        )
    finally:
        await server.stop(0)


async def test_mtls_requires_a_client_certificate_from_the_client_ca(tmp_path, authority):
    cert, key = authority.issue(tmp_path, "server")
    ca = authority.write_ca(tmp_path / "ca.pem")
    clients = Authority("client-ca")
    client_ca = clients.write_ca(tmp_path / "client-ca.pem")
    client_cert, client_key = clients.issue(tmp_path, "client", client=True)
    server = _server(_tls_security(ServerTls(cert, key, client_ca)))
    await server.start()
    try:
        with_cert = ClientSecurity(ClientTls(ca, client_cert, client_key))
        assert await _health(server.address, with_cert) == grpc.StatusCode.OK
        without = ClientSecurity(ClientTls(ca))
        assert await _health(server.address, without) == grpc.StatusCode.UNAVAILABLE
        wrong_cert, wrong_key = authority.issue(tmp_path, "not-a-client", client=True)
        wrong = ClientSecurity(ClientTls(ca, wrong_cert, wrong_key))
        assert await _health(server.address, wrong) == grpc.StatusCode.UNAVAILABLE
    finally:
        await server.stop(0)


async def test_rotated_certificate_is_served_to_new_connections_without_restart(tmp_path):
    old_ca, new_ca = Authority("old-ca"), Authority("new-ca")
    cert, key = old_ca.issue(tmp_path, "server")
    trusts_new = ClientSecurity(ClientTls(new_ca.write_ca(tmp_path / "new-ca.pem")))
    server = _server(_tls_security(ServerTls(cert, key)))
    await server.start()
    try:
        assert await _health(server.address, trusts_new) == grpc.StatusCode.UNAVAILABLE
        new_ca.issue(tmp_path, "server")  # rewrites server.crt/server.key in place
        for _ in range(50):
            if await _health(server.address, trusts_new) == grpc.StatusCode.OK:
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the rotated certificate was never served")
    finally:
        await server.stop(0)


async def test_mismatched_or_missing_tls_files_refuse_to_start(tmp_path, authority):
    cert, _ = authority.issue(tmp_path, "one")
    _, other_key = authority.issue(tmp_path, "two")
    with pytest.raises(TlsFilesError, match="does not match"):
        await _server(_tls_security(ServerTls(cert, other_key))).start()
    with pytest.raises(TlsFilesError):
        await _server(_tls_security(ServerTls(tmp_path / "absent.crt", other_key))).start()


async def test_open_server_on_a_non_loopback_address_refuses_to_start():
    open_settings = load_settings()
    with pytest.raises(InsecureBindRefused, match="ALLOW_UNAUTHENTICATED"):
        await _server(ServerSecurity.from_settings(open_settings), host="0.0.0.0").start()
    allowed = ServerSecurity.from_settings(load_settings(allow_unauthenticated=True))
    server = _server(allowed, host="0.0.0.0")
    await server.start()
    await server.stop(0)


async def test_loopback_server_without_credentials_runs_open():
    server = _server(ServerSecurity.from_settings(load_settings()))
    await server.start()
    try:
        assert await _health(server.address, None) == grpc.StatusCode.OK
    finally:
        await server.stop(0)


async def test_health_port_answers_plaintext_probes_and_nothing_else(tmp_path, authority):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        health_port = probe.getsockname()[1]
    cert, key = authority.issue(tmp_path, "server")
    server = GrpcServer(
        service_name="tls-probe",
        registrations=[],
        service_names=["test.Probed"],
        security=_tls_security(ServerTls(cert, key)),
        health_port=health_port,
    )
    await server.start()
    try:
        address = f"127.0.0.1:{health_port}"
        assert await _health(address, None) == grpc.StatusCode.OK
        async with open_channel(address) as channel:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await channel.unary_unary("/rememberstack.v1.QueryService/FactsContext")(b"")
        assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        await server.stop(0)


async def test_key_file_without_usable_keys_refuses_to_start(tmp_path):
    missing = ServerSecurity.from_settings(load_settings(auth_api_keys_file=tmp_path / "none"))
    with pytest.raises(CredentialSourceError):
        await _server(missing).start()
