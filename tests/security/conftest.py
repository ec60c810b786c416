"""The four services with credentials required (a key file and a JWKS, reloaded quickly),
against the session database, each on loopback port 0."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc.aio
import pytest

from shared.grpc.server import GrpcServer
from tests.e2e.conftest import BUILDERS
from tests.support.credentials import AUDIENCE, ISSUER, KeyFile, Signer, write_jwks


@dataclass
class Secured:
    """Running secured servers, their credentials, and a channel to each."""

    servers: dict[str, GrpcServer]
    channels: dict[str, grpc.aio.Channel]
    keys: KeyFile
    signer: Signer
    default_namespace: str
    tenant_a: str
    tenant_b: str

    def key(self, key_id: str) -> str:
        return self.keys.keys[key_id]


def secured_overrides(directory: Path, database_url: str, namespace: str) -> dict[str, Any]:
    return {
        "database_url": database_url,
        "data_dir": directory,
        "port": 0,
        "namespace": namespace,
        "worker_poll_seconds": 0.2,
        "worker_lease_seconds": 30,
        "auth_api_keys_file": directory / "keys.yaml",
        "auth_jwks_file": directory / "jwks.json",
        "auth_jwt_issuer": ISSUER,
        "auth_jwt_audience": AUDIENCE,
        "auth_reload_seconds": 0.2,
    }


@pytest.fixture(scope="module")
async def secured(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Secured]:
    directory = tmp_path_factory.mktemp("secured")
    suffix = uuid.uuid4().hex[:8]
    default_ns, tenant_a, tenant_b = f"sec-default-{suffix}", f"sec-a-{suffix}", f"sec-b-{suffix}"
    keys = KeyFile(directory / "keys.yaml")
    for scope in ("read", "ingest", "curate", "admin"):
        keys.add(f"{scope}-all", [scope], ["*"])
    keys.add("tenant-a", ["read", "ingest", "curate"], [tenant_a])
    keys.add("tenant-b", ["read", "ingest", "curate"], [tenant_b])
    signer = Signer("test-signer")
    write_jwks(directory / "jwks.json", signer)
    overrides = secured_overrides(directory, database_url, default_ns)
    started: dict[str, GrpcServer] = {}
    channels: dict[str, grpc.aio.Channel] = {}
    try:
        for name, (load_settings, build) in BUILDERS.items():
            server = await build(load_settings(service_name=name, **overrides))  # type: ignore[operator]
            await server.start()
            started[name] = server
            channels[name] = grpc.aio.insecure_channel(server.address)
        yield Secured(started, channels, keys, signer, default_ns, tenant_a, tenant_b)
    finally:
        for channel in channels.values():
            await channel.close()
        for server in started.values():
            await server.stop(grace=1.0)
