"""What authentication and TLS cost on FactsContext: p50/p95 against a plaintext, open server
in the same run.

Three query servers, each its own process, read one synthetic store (bench/query_synthetic.py)
in an embedded PostgreSQL: `open` (plaintext, no credentials, the loopback default), `api_key+tls`
(an API key over TLS) and `jwt+tls` (an RS256 JWT over TLS). One client alternates every request
between them, so load on this shared machine falls on all three alike; the ratios are against
`open`. Channels are long-lived, as real clients keep them: the TLS handshake is paid once, what
is measured is encryption plus the per-call credential check.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg
import grpc
import jwt
import numpy as np
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from rememberstack.v1 import query_service_pb2, query_service_pb2_grpc

from bench.query_synthetic import generate
from shared.auth.api_keys import hash_api_key, new_api_key
from shared.auth.authenticator import Authenticator
from shared.config import load_settings
from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import to_asyncpg_dsn
from shared.db.migrate import upgrade_to_head
from shared.grpc.channel import ClientSecurity, open_channel
from shared.grpc.request_guard import inspect_request
from shared.grpc.tls import ClientTls

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "auth_overhead.json"
REPO = Path(__file__).resolve().parents[1]
NAMESPACE = "bench-auth"
ISSUER, AUDIENCE = "https://issuer.bench", "rememberstack-bench"

_SERVE = """
import asyncio, sys
from services.query.app import build_server
from services.query.config import load_settings

async def main():
    server = await build_server(load_settings(port=0, log_json=False, log_level="WARNING"))
    await server.start()
    print(server.address, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)

asyncio.run(main())
"""


def _certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "server.crt", directory / "server.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def _credentials(directory: Path) -> dict[str, Any]:
    cert, key = _certificate(directory)
    api_key = new_api_key()
    keys_file = directory / "keys.yaml"
    entry = {
        "id": "bench",
        "sha256": hash_api_key(api_key),
        "scopes": ["read"],
        "namespaces": ["*"],
    }
    keys_file.write_text(yaml.safe_dump({"keys": [entry]}))
    signer = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(signer.public_key(), as_dict=True)
    jwks_file = directory / "jwks.json"
    jwks_file.write_text(json.dumps({"keys": [jwk | {"kid": "bench", "alg": "RS256"}]}))
    now = int(time.time())
    claims = {"sub": "bench", "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 86_400}
    claims |= {"scope": "read", "rememberstack_namespaces": "*"}
    token = jwt.encode(claims, signer, algorithm="RS256", headers={"kid": "bench"})
    tls = {"REMEMBERSTACK_TLS_CERT_FILE": str(cert), "REMEMBERSTACK_TLS_KEY_FILE": str(key)}
    return {
        "open": ({}, None),
        "api_key+tls": (
            tls | {"REMEMBERSTACK_AUTH_API_KEYS_FILE": str(keys_file)},
            ClientSecurity(ClientTls(ca_file=cert), api_key),
        ),
        "jwt+tls": (
            tls
            | {
                "REMEMBERSTACK_AUTH_JWKS_FILE": str(jwks_file),
                "REMEMBERSTACK_AUTH_JWT_ISSUER": ISSUER,
                "REMEMBERSTACK_AUTH_JWT_AUDIENCE": AUDIENCE,
            },
            ClientSecurity(ClientTls(ca_file=cert), token),
        ),
    }


async def _per_call_checks(directory: Path, credentials: dict[str, Any]) -> dict[str, float]:
    """Microseconds of what the interceptor adds per call, in this process (no network, so
    free of the noise the end-to-end figures carry): verifying each credential and checking
    a FactsContext request."""
    settings = {
        "api_key+tls": {"auth_api_keys_file": directory / "keys.yaml"},
        "jwt+tls": {
            "auth_jwks_file": directory / "jwks.json",
            "auth_jwt_issuer": ISSUER,
            "auth_jwt_audience": AUDIENCE,
        },
    }
    timings: dict[str, float] = {}
    for name, overrides in settings.items():
        authenticator = Authenticator.from_settings(load_settings(**overrides))
        assert authenticator is not None
        await authenticator.refresh()
        header = f"Bearer {credentials[name][1].token}"
        started = time.perf_counter()
        for _ in range(2000):
            authenticator.authenticate(header)
        timings[f"authenticate {name.split('+')[0]}"] = (time.perf_counter() - started) / 2000 * 1e6
    request = query_service_pb2.FactsContextRequest(
        namespace=NAMESPACE, query="who leads the billing migration in May 2026?" * 4
    )
    started = time.perf_counter()
    for _ in range(2000):
        inspect_request(request)
    timings["request checks (FactsContext)"] = (time.perf_counter() - started) / 2000 * 1e6
    return {name: round(value, 1) for name, value in timings.items()}


def _serve(url: str, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE],
        cwd=REPO,
        env={**os.environ, "REMEMBERSTACK_DATABASE_URL": url, **env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def _percentiles(samples: list[float]) -> dict[str, float]:
    values = np.array(samples) * 1000
    return {
        "n": len(samples),
        "p50_ms": round(float(np.percentile(values, 50)), 3),
        "p95_ms": round(float(np.percentile(values, 95)), 3),
    }


async def _measure(
    stubs: dict[str, Any], requests: list[Any], clients: int
) -> dict[str, dict[str, float]]:
    """Every client sends each request to every server in turn (rotating the order)."""
    samples: dict[str, list[float]] = {name: [] for name in stubs}
    names = list(stubs)

    async def client(offset: int) -> None:
        for index in range(offset, len(requests), clients):
            for turn in range(len(names)):
                name = names[(index + turn) % len(names)]
                started = time.perf_counter()
                await stubs[name].FactsContext(requests[index])
                samples[name].append(time.perf_counter() - started)

    await asyncio.gather(*(client(c) for c in range(clients)))
    return {name: _percentiles(taken) for name, taken in samples.items()}


async def run(facts: int, requests: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rs-auth-bench-") as tmp:
        directory = Path(tmp)
        postgres = EmbeddedPostgres(directory / "pg")
        url = await asyncio.to_thread(postgres.start)
        servers: list[subprocess.Popen[str]] = []
        channels: list[grpc.aio.Channel] = []
        try:
            await upgrade_to_head(url)
            conn = await asyncpg.connect(to_asyncpg_dsn(url))
            try:
                data = await generate(conn, NAMESPACE, facts)
            finally:
                await conn.close()
            stubs: dict[str, Any] = {}
            credentials = _credentials(directory)
            per_call = await _per_call_checks(directory, credentials)
            for name, (env, security) in credentials.items():
                process, address = _serve(url, env)
                servers.append(process)
                channel = open_channel(address, security=security)
                channels.append(channel)
                stubs[name] = query_service_pb2_grpc.QueryServiceStub(channel)
            rng = np.random.default_rng(11)
            calls = [
                query_service_pb2.FactsContextRequest(
                    namespace=NAMESPACE, query=" ".join(rng.choice(data.words, 4))
                )
                for _ in range(requests)
            ]
            await _measure(stubs, calls[: max(10, requests // 10)], 1)  # warm models and pools
            load_before = os.getloadavg()[0]
            results = {
                "1_client": await _measure(stubs, calls, 1),
                "8_clients": await _measure(stubs, calls, 8),
            }
            load_after = os.getloadavg()[0]
        finally:
            for channel in channels:
                await channel.close()
            for process in servers:
                assert process.stdin is not None
                process.stdin.close()
                process.wait(timeout=30)
            await asyncio.to_thread(postgres.stop)
    ratios = {
        clients: {
            name: {
                "p50": round(m["p50_ms"] / per["open"]["p50_ms"], 3),
                "p95": round(m["p95_ms"] / per["open"]["p95_ms"], 3),
            }
            for name, m in per.items()
            if name != "open"
        }
        for clients, per in results.items()
    }
    return {
        "facts": facts,
        "requests_per_server": requests,
        "latency": results,
        "ratio_to_open": ratios,
        "per_call_check_microseconds": per_call,
        "load_average_1m": [round(load_before, 2), round(load_after, 2)],
        "cpu_count": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for CI")
    args = parser.parse_args(argv)
    if args.quick:
        args.facts, args.requests = 500, 20
    result = asyncio.run(run(args.facts, args.requests))
    if not args.quick:
        RESULTS_PATH.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
