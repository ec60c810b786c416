"""Real credentials for tests: API key files, RSA signing keys with their JWKS and tokens,
and a throw-away CA issuing server and client certificates (all made with `cryptography`)."""

from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jwt
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from shared.auth.api_keys import hash_api_key, new_api_key

ISSUER = "https://issuer.test"
AUDIENCE = "rememberstack-test"


@dataclass
class KeyFile:
    """A key file on disk and the plain keys it admits, by id."""

    path: Path
    keys: dict[str, str] = field(default_factory=dict)
    _entries: list[dict[str, Any]] = field(default_factory=list)

    def add(self, key_id: str, scopes: list[str], namespaces: list[str]) -> str:
        key = new_api_key()
        self.keys[key_id] = key
        self._entries.append(
            {"id": key_id, "sha256": hash_api_key(key), "scopes": scopes, "namespaces": namespaces}
        )
        self.write()
        return key

    def remove(self, key_id: str) -> None:
        self._entries = [e for e in self._entries if e["id"] != key_id]
        self.keys.pop(key_id, None)
        self.write()

    def write(self) -> None:
        # Written beside and renamed, as a Secret volume swaps its files: never half a file.
        staged = self.path.with_suffix(".tmp")
        staged.write_text(yaml.safe_dump({"keys": self._entries}))
        staged.replace(self.path)


@dataclass
class Signer:
    """An RSA signing key with a kid; writes its public JWKS and issues tokens."""

    kid: str
    private_key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )

    def jwk(self) -> dict[str, Any]:
        public = jwt.algorithms.RSAAlgorithm.to_jwk(self.private_key.public_key(), as_dict=True)
        return public | {"kid": self.kid, "use": "sig", "alg": "RS256"}

    def token(
        self,
        sub: str = "agent-1",
        scope: str = "read",
        namespaces: list[str] | str = "*",
        *,
        issuer: str = ISSUER,
        audience: str = AUDIENCE,
        expires_in: float = 300.0,
        **extra: Any,
    ) -> str:
        now = int(time.time())
        claims = {
            "sub": sub,
            "iss": issuer,
            "aud": audience,
            "iat": now,
            "exp": now + int(expires_in),
            "scope": scope,
            "rememberstack_namespaces": namespaces,
        } | extra
        pem = self.private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": self.kid})


def write_jwks(path: Path, *signers: Signer) -> None:
    staged = path.with_suffix(".tmp")
    staged.write_text(json.dumps({"keys": [s.jwk() for s in signers]}))
    staged.replace(path)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@dataclass
class Authority:
    """A test CA; ``issue`` writes a leaf certificate and key for localhost/127.0.0.1."""

    name: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )

    def __post_init__(self) -> None:
        now = dt.datetime.now(dt.UTC)
        self.certificate = (
            x509.CertificateBuilder()
            .subject_name(_name(self.name))
            .issuer_name(_name(self.name))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256())
        )

    def write_ca(self, path: Path) -> Path:
        path.write_bytes(self.certificate.public_bytes(serialization.Encoding.PEM))
        return path

    def issue(self, directory: Path, stem: str, *, client: bool = False) -> tuple[Path, Path]:
        import ipaddress

        key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        usage = (
            x509.ExtendedKeyUsageOID.CLIENT_AUTH if client else x509.ExtendedKeyUsageOID.SERVER_AUTH
        )
        certificate = (
            x509.CertificateBuilder()
            .subject_name(_name(stem))
            .issuer_name(self.certificate.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=1))
            .add_extension(
                x509.SubjectAlternativeName(
                    [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
                ),
                critical=False,
            )
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .sign(self.key, hashes.SHA256())
        )
        cert_path, key_path = directory / f"{stem}.crt", directory / f"{stem}.key"
        staged_key = key_path.with_suffix(".tmpkey")
        staged_key.write_bytes(_pem_key(key))
        staged_cert = cert_path.with_suffix(".tmpcrt")
        staged_cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
        staged_key.replace(key_path)
        staged_cert.replace(cert_path)
        return cert_path, key_path
