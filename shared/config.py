"""Settings shared by every RememberStack process, read from ``REMEMBERSTACK_*`` variables."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from shared.auth.settings import SecuritySettings

__all__ = ["EmbeddingSettings", "Settings", "WriterSettings", "load_settings", "settings_with"]

_ADDRESS = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")
_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class Settings(SecuritySettings):
    """What every RememberStack process reads: database, tenancy, logging, telemetry, bind
    address and peers, health; credentials, TLS and admission limits are the fields of
    ``SecuritySettings``.

    Each service's own class (``services/<name>/config.py``) adds only the knobs it reads,
    through the groups below that two or more services share. Every process of a deployment
    sees the same ``REMEMBERSTACK_*`` environment and takes the variables it has fields for.
    Built once in a service's ``__main__`` and passed down; nothing else reads the environment.
    """

    model_config = SettingsConfigDict(
        env_prefix="REMEMBERSTACK_",
        frozen=True,
        extra="forbid",
        env_ignore_empty=True,
        # The OTEL_* fields are read under their standard names (aliases); code and tests
        # still set every field by its name.
        validate_by_name=True,
        validate_by_alias=True,
    )

    # Storage and tenancy
    database_url: str | None = Field(
        default=None,
        description="PostgreSQL DSN (postgresql[+asyncpg]://…); unset means the embedded pgserver.",
    )
    read_database_url: str | None = Field(
        default=None,
        description=(
            "DSN the read services (query, graph) read from, e.g. a streaming hot standby;"
            " unset means they read from database_url."
        ),
    )
    read_replica_max_wait_seconds: float = Field(
        default=1.0,
        ge=0,
        le=30,
        description=(
            "How long a read at a believed_at the read replica has not replayed to waits for"
            " it before answering with a boundary negative."
        ),
    )
    data_dir: Path = Field(
        default=Path("./var/rememberstack"),
        description="Directory for the embedded database and other local state.",
    )
    namespace: str = Field(
        default="default",
        min_length=1,
        max_length=128,
        description="Tenant namespace used when a request does not name one.",
    )

    # Observability
    log_level: str = Field(default="INFO", description="Root log level (DEBUG … CRITICAL).")
    log_json: bool = Field(default=True, description="Emit JSON lines instead of plain text.")
    log_levels: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description=(
            "Per-logger levels over log_level, comma-separated logger=LEVEL pairs, e.g."
            " 'rememberstack.rpc=WARNING,rememberstack.work=INFO'."
        ),
    )
    log_rpc_sample_ratio: float = Field(
        default=1.0,
        ge=0.0,
        le=1.0,
        description=(
            "Share of successful RPCs that get an access-log line (0..1); failed calls are"
            " always logged. Health checks and reflection log at DEBUG only."
        ),
    )
    otlp_endpoint: str | None = Field(
        default=None,
        description=(
            "OTLP gRPC collector host:port, plaintext; traces and metrics are exported when it"
            " or a standard OTEL_EXPORTER_OTLP_*ENDPOINT is set. Wins over the OTEL_ ones."
        ),
    )
    otel_exporter_otlp_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_ENDPOINT"),
        description="Standard OTLP endpoint for traces and metrics (the exporters read it).",
    )
    otel_exporter_otlp_traces_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        description="Standard OTLP endpoint for traces only.",
    )
    otel_exporter_otlp_metrics_endpoint: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
        description="Standard OTLP endpoint for metrics only.",
    )
    otel_traces_exporter: Literal["otlp", "console", "none"] = Field(
        default="otlp",
        validation_alias=AliasChoices("OTEL_TRACES_EXPORTER"),
        description="Standard: where traces go once an endpoint is set; none turns them off.",
    )
    otel_metrics_exporter: Literal["otlp", "console", "none"] = Field(
        default="otlp",
        validation_alias=AliasChoices("OTEL_METRICS_EXPORTER"),
        description="Standard: where metrics go once an endpoint is set; none turns them off.",
    )
    otel_sdk_disabled: bool = Field(
        default=False,
        validation_alias=AliasChoices("OTEL_SDK_DISABLED"),
        description="Standard: true exports nothing, whatever the endpoints say.",
    )
    otel_service_name: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OTEL_SERVICE_NAME"),
        description="Standard: service.name of traces and metrics, over service_name.",
    )
    service_name: str = Field(
        default="rememberstack",
        min_length=1,
        description="Service name reported in logs, traces and metrics.",
    )

    # Serving and peers
    host: str = Field(default="127.0.0.1", min_length=1, description="Interface to bind.")
    port: int = Field(
        default=0, ge=0, le=65535, description="Port to bind; 0 lets the OS pick a free one."
    )
    ingest_address: str | None = Field(default=None, description="host:port of the ingest service.")
    adjudicator_address: str | None = Field(
        default=None, description="host:port of the adjudicator service."
    )
    query_address: str | None = Field(default=None, description="host:port of the query service.")
    graph_address: str | None = Field(default=None, description="host:port of the graph service.")

    # Health (issue 18: readiness follows the database)
    health_probe_seconds: float = Field(
        default=2.0,
        gt=0,
        description=(
            "How often each service checks the database; while it is unreachable the service's"
            " own health status is NOT_SERVING (the overall one stays SERVING)."
        ),
    )

    @field_validator("log_levels", mode="before")
    @classmethod
    def _split_log_levels(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        levels: dict[str, str] = {}
        for part in filter(None, (p.strip() for p in value.split(","))):
            name, sep, level = part.partition("=")
            if not sep or not name.strip():
                raise ValueError(f"log_levels wants logger=LEVEL pairs, got {part!r}")
            levels[name.strip()] = level.strip()
        return levels

    @field_validator("log_levels")
    @classmethod
    def _check_log_levels(cls, value: dict[str, str]) -> dict[str, str]:
        checked = {name: level.upper() for name, level in value.items()}
        bad = {name: level for name, level in checked.items() if level not in _LOG_LEVELS}
        if bad:
            raise ValueError(f"log_levels must use {', '.join(_LOG_LEVELS)}, got {bad}")
        return checked

    @field_validator("log_level", mode="before")
    @classmethod
    def _check_log_level(cls, value: Any) -> Any:
        if isinstance(value, str):
            upper = value.strip().upper()
            if upper not in _LOG_LEVELS:
                raise ValueError(
                    f"log_level must be one of {', '.join(_LOG_LEVELS)}, got {value!r}"
                )
            return upper
        if isinstance(value, int):
            return logging.getLevelName(value)
        return value

    @field_validator("database_url", "read_database_url")
    @classmethod
    def _check_database_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql", "postgres://")):
            raise ValueError("database_url must be a postgresql:// DSN (or unset for embedded)")
        return value

    @field_validator("ingest_address", "adjudicator_address", "query_address", "graph_address")
    @classmethod
    def _check_address(cls, value: str | None) -> str | None:
        if value is not None:
            if not _ADDRESS.match(value):
                raise ValueError(f"address must look like host:port, got {value!r}")
            port = int(value.rsplit(":", 1)[1])
            if not 0 < port <= 65535:
                raise ValueError(f"address port must be 1..65535, got {port}")
        return value

    def _combination_problems(self) -> list[str]:
        """What is wrong with this combination of values; subclasses add their own checks."""
        return []

    @model_validator(mode="after")
    def _check_combinations(self) -> Self:
        problems = self._combination_problems()
        if problems:
            raise ValueError("; ".join(problems))
        return self


class EmbeddingSettings(Settings):
    """The embedder, which ingest, the adjudicator and query must agree on."""

    embedder: Literal["onnx", "openai"] = Field(
        default="onnx", description="Embedder: packaged ONNX model or an OpenAI-compatible API."
    )
    embedding_base_url: str | None = Field(
        default=None, description="Base URL of an OpenAI-compatible embeddings server."
    )
    embedder_int8_compute: bool = Field(
        default=False,
        description=(
            "Run the packaged ONNX embedder's matrix products in int8 (about twice the"
            " sentences per CPU second; vectors at mean cosine 0.992 to the float ones, LoCoMo"
            " R@10 0.758 against 0.759). Every service must agree, and stored vectors stay"
            " comparable only approximately: set it before ingesting, on all services."
        ),
    )
    embedding_model: str | None = Field(
        default=None, description="Embedding model name; unset means the packaged ONNX model."
    )
    llm_api_key: SecretStr | None = Field(
        default=None,
        description="API key for the LLM server (also sent to an OpenAI-compatible embedder).",
    )

    def _combination_problems(self) -> list[str]:
        problems = super()._combination_problems()
        if self.embedder == "openai" and not self.embedding_model:
            problems.append("embedder=openai needs REMEMBERSTACK_EMBEDDING_MODEL")
        return problems


class WriterSettings(EmbeddingSettings):
    """The writing services (ingest, adjudicator): queue workers, statistics upkeep, background
    priority, and the claim extractor and chat model both of them call."""

    claim_extractor: Literal["rules", "llm"] = Field(
        default="rules", description="Claim extractor: deterministic rules or an LLM."
    )

    # LLM (OpenAI-compatible)
    llm_base_url: str | None = Field(
        default=None, description="Base URL of an OpenAI-compatible chat completions server."
    )
    llm_model: str | None = Field(default=None, description="Chat model name for LLM paths.")
    llm_timeout_seconds: float = Field(
        default=30.0, gt=0, description="Per-request timeout for LLM calls."
    )
    llm_max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries for failed LLM calls."
    )

    # Background workers
    worker_concurrency: int = Field(
        default=1, ge=1, le=64, description="Work items processed concurrently per process."
    )
    worker_poll_seconds: float = Field(
        default=1.0, gt=0, description="Delay between polls of an empty work queue."
    )
    worker_lease_seconds: int = Field(
        default=10,
        gt=0,
        description=(
            "How long a claimed work item stays locked to a worker without a heartbeat; the"
            " worker renews it every third of this, so a killed worker's item is retried after"
            " at most this long."
        ),
    )
    statistics_refresh_seconds: float = Field(
        default=2.0,
        ge=0,
        description=(
            "How often the writing services (ingest, adjudicator) look for tables that grew past"
            " their planner statistics and analyze them; 0 leaves it to autovacuum alone."
        ),
    )
    background_niceness: int = Field(
        default=10,
        ge=0,
        le=19,
        description=(
            "CPU niceness of the writing services (ingest, adjudicator) and of their database"
            " backends when the database runs on the same machine: reads get the CPU first"
            " and the pipeline takes what they leave. 0 runs the pipeline at normal priority."
        ),
    )

    def _combination_problems(self) -> list[str]:
        problems = super()._combination_problems()
        if self.claim_extractor == "llm" and not self.llm_model:
            problems.append("claim_extractor=llm needs REMEMBERSTACK_LLM_MODEL")
        if self.worker_lease_seconds <= self.worker_poll_seconds:
            problems.append("worker_lease_seconds must exceed worker_poll_seconds")
        return problems


S = TypeVar("S", bound=Settings)


def settings_with(cls: type[S], overrides: Mapping[str, Any]) -> S:
    """`cls` read from the environment, the overrides it has fields for winning over it.

    Like the environment, which all services of a deployment share, one set of overrides may
    configure several services (tests, benchmarks): each takes the names it reads, and the
    values of those are validated as strictly as the environment's.
    """
    return cls(**{name: value for name, value in overrides.items() if name in cls.model_fields})


def load_settings(**overrides: Any) -> Settings:
    """What every process reads, from the environment; keyword overrides win over it (CLI
    flags, tests). A service reads its own class (`services/<name>/config.py`)."""
    return settings_with(Settings, overrides)
