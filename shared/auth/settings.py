"""Security settings (credentials, TLS, admission limits), composed into the shared Settings."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode

__all__ = ["SecuritySettings"]

_DEFAULT_JWT_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"]
# Shared-secret algorithms would let anyone holding the JWKS forge tokens.
_REFUSED_ALGORITHMS = frozenset({"none", "HS256", "HS384", "HS512"})


class SecuritySettings(BaseSettings):
    """Who may call (API keys, JWTs), over what transport (TLS, mTLS), and how often.

    No credential source configured means the server runs open, which only a loopback bind
    may do unless ``allow_unauthenticated`` says so explicitly.
    """

    # Credentials a server accepts
    auth_api_keys_file: Path | None = Field(
        default=None,
        description=(
            "YAML file of API keys stored as SHA-256 digests with their scopes and namespaces"
            " (e.g. a mounted Kubernetes Secret); re-read when it changes."
        ),
    )
    auth_jwks_file: Path | None = Field(
        default=None, description="JWKS file whose keys verify bearer JWTs; re-read on change."
    )
    auth_jwks_url: str | None = Field(
        default=None, description="URL of the issuer's JWKS (https://…/jwks.json), re-fetched."
    )
    auth_jwt_issuer: str | None = Field(
        default=None, description="Required `iss` of every JWT (needed with a JWKS)."
    )
    auth_jwt_audience: str | None = Field(
        default=None, description="Required `aud` of every JWT (needed with a JWKS)."
    )
    auth_jwt_algorithms: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(_DEFAULT_JWT_ALGORITHMS),
        description="Signature algorithms accepted, comma-separated; never none or HS*.",
    )
    auth_jwt_scope_claim: str = Field(
        default="scope", description="Claim holding scopes (space-separated string or list)."
    )
    auth_jwt_namespaces_claim: str = Field(
        default="rememberstack_namespaces",
        description='Claim holding the namespaces a token may touch (list, or "*").',
    )
    auth_jwt_leeway_seconds: float = Field(
        default=30.0, ge=0, le=300, description="Clock skew tolerated on exp/nbf/iat."
    )
    auth_reload_seconds: float = Field(
        default=5.0,
        gt=0,
        description="How often key files, the JWKS and TLS files are checked for changes.",
    )
    auth_jwks_refresh_seconds: float = Field(
        default=300.0, gt=0, description="How often a JWKS URL is fetched again."
    )
    allow_unauthenticated: bool = Field(
        default=False,
        description=(
            "Serve without credentials on a non-loopback address. Off: such a server refuses"
            " to start; loopback binds may always run open (the embedded default)."
        ),
    )

    # Credential a client (the CLI, benchmarks) sends
    auth_token: SecretStr | None = Field(
        default=None, description="Bearer credential clients send: an API key or a JWT."
    )

    # TLS
    tls_cert_file: Path | None = Field(
        default=None, description="Server certificate chain (PEM); set with tls_key_file."
    )
    tls_key_file: Path | None = Field(default=None, description="Server private key (PEM).")
    tls_client_ca_file: Path | None = Field(
        default=None,
        description="CA bundle (PEM) a server verifies client certificates with; set = mTLS.",
    )
    tls_ca_file: Path | None = Field(
        default=None, description="CA bundle clients verify servers with; set = clients use TLS."
    )
    tls_client_cert_file: Path | None = Field(
        default=None, description="Client certificate (PEM) sent to mTLS servers."
    )
    tls_client_key_file: Path | None = Field(default=None, description="Client private key.")
    tls_server_name: str | None = Field(
        default=None, description="Name clients expect in server certificates, if not the host."
    )
    health_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        description=(
            "Extra plaintext port serving only grpc.health.v1.Health, for probes that cannot"
            " speak TLS (kubelet's native gRPC probes); every RPC stays on the TLS port."
        ),
    )

    # Admission limits, per credential and per process (servers with credentials configured
    # only); 0 turns a limit off
    admission_read_rps: float = Field(
        default=200.0, ge=0, description="Read calls per second a credential may start."
    )
    admission_read_burst: int = Field(
        default=400, ge=0, description="Read calls a credential may start at once after idling."
    )
    admission_read_in_flight: int = Field(
        default=64, ge=0, description="Read calls of one credential running at the same time."
    )
    admission_write_rps: float = Field(
        default=50.0, ge=0, description="Write calls per second a credential may start."
    )
    admission_write_burst: int = Field(
        default=100, ge=0, description="Write calls a credential may start at once."
    )
    admission_write_in_flight: int = Field(
        default=16, ge=0, description="Write calls of one credential running at the same time."
    )
    admission_watch_streams: int = Field(
        default=32, ge=0, description="WatchReadiness streams one credential may hold open."
    )

    @field_validator("auth_jwt_algorithms", mode="before")
    @classmethod
    def _split_algorithms(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("auth_jwt_algorithms")
    @classmethod
    def _check_algorithms(cls, value: list[str]) -> list[str]:
        refused = sorted(set(value) & _REFUSED_ALGORITHMS)
        if refused:
            raise ValueError(f"auth_jwt_algorithms may not include {', '.join(refused)}")
        if not value:
            raise ValueError("auth_jwt_algorithms needs at least one algorithm")
        return value

    @property
    def auth_enabled(self) -> bool:
        """Whether any credential source is configured (otherwise the server runs open)."""
        return bool(self.auth_api_keys_file or self.auth_jwks_file or self.auth_jwks_url)

    @model_validator(mode="after")
    def _check_security(self) -> Self:
        problems: list[str] = []
        if self.auth_jwks_file and self.auth_jwks_url:
            problems.append("set auth_jwks_file or auth_jwks_url, not both")
        if (self.auth_jwks_file or self.auth_jwks_url) and not (
            self.auth_jwt_issuer and self.auth_jwt_audience
        ):
            problems.append("a JWKS needs REMEMBERSTACK_AUTH_JWT_ISSUER and _AUTH_JWT_AUDIENCE")
        if self.auth_jwks_url and not self.auth_jwks_url.startswith(("https://", "http://")):
            problems.append("auth_jwks_url must be an http(s) URL")
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            problems.append("tls_cert_file and tls_key_file go together")
        if self.tls_client_ca_file and not self.tls_cert_file:
            problems.append("tls_client_ca_file (mTLS) needs tls_cert_file and tls_key_file")
        if bool(self.tls_client_cert_file) != bool(self.tls_client_key_file):
            problems.append("tls_client_cert_file and tls_client_key_file go together")
        if problems:
            raise ValueError("; ".join(problems))
        return self
