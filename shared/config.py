"""Settings shared by every RememberStack process, read from ``REMEMBERSTACK_*`` variables."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from shared.auth.settings import SecuritySettings

__all__ = ["Settings", "load_settings"]

_ADDRESS = re.compile(r"^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")
_PACK_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
_MIB = 1024 * 1024


class Settings(SecuritySettings):
    """Base settings; each service subclasses it with its own extras.

    Credentials, TLS and admission limits are the fields of ``SecuritySettings``.

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

    # Facts, entities, extraction
    fact_adjudication_engine: Literal["jev", "prompt"] = Field(
        default="jev", description="Engine that turns claims into facts."
    )
    fact_confidence_floor: float = Field(
        default=0.75,
        ge=0.0,
        le=1.0,
        description="Facts below this confidence are not served as facts (0..1).",
    )
    extension_packs: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extension packs to enable, comma-separated in the environment (e.g. work).",
    )
    entity_auto_merge: bool = Field(
        default=False,
        description=(
            "Automatic merging of existing entities. Off, and only off is implemented: "
            "candidate merges are recorded as proposals (ListMergeProposals) for review."
        ),
    )
    claim_extractor: Literal["rules", "llm"] = Field(
        default="rules", description="Claim extractor: deterministic rules or an LLM."
    )
    entity_resolver: Literal["rules", "llm"] = Field(
        default="rules",
        description=(
            "Final entity choice (existing candidate or new): the offline rule model, or a chat"
            " model (needs REMEMBERSTACK_LLM_BASE_URL and REMEMBERSTACK_LLM_MODEL)."
        ),
    )

    # LLM (OpenAI-compatible)
    llm_base_url: str | None = Field(
        default=None, description="Base URL of an OpenAI-compatible chat completions server."
    )
    llm_model: str | None = Field(default=None, description="Chat model name for LLM paths.")
    llm_api_key: SecretStr | None = Field(default=None, description="API key for the LLM server.")
    llm_timeout_seconds: float = Field(
        default=30.0, gt=0, description="Per-request timeout for LLM calls."
    )
    llm_max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries for failed LLM calls."
    )

    # Embeddings
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

    # Limits and budgets
    max_document_bytes: int = Field(
        default=10 * _MIB, gt=0, description="Largest document ingest accepts, in bytes."
    )
    query_db_budget_seconds: float = Field(
        default=25.0, gt=0, description="Database time budget for one query RPC."
    )
    graph_max_edges: int = Field(default=2000, gt=0, description="Edges one graph walk may return.")
    graph_max_frontier: int = Field(
        default=1000, gt=0, description="Nodes one graph walk may hold in its frontier."
    )
    graph_time_budget_ms: int = Field(
        default=1000, gt=0, description="Wall-clock budget for one graph walk, in milliseconds."
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
    adjudicator_processes: int = Field(
        default=1,
        ge=1,
        le=16,
        description=(
            "Processes of one adjudicator running queue workers: the serving one plus replicas"
            " it starts and stops. Python runs one process on one core, so this, not"
            " worker_concurrency, is what puts more cores to adjudication."
        ),
    )

    # Health (issue 18: readiness follows the database)
    health_probe_seconds: float = Field(
        default=2.0,
        gt=0,
        description=(
            "How often each service checks the database; while it is unreachable the service's"
            " own health status is NOT_SERVING (the overall one stays SERVING)."
        ),
    )

    @field_validator("extension_packs", mode="before")
    @classmethod
    def _split_packs(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("extension_packs")
    @classmethod
    def _check_packs(cls, value: list[str]) -> list[str]:
        bad = [pack for pack in value if not _PACK_NAME.match(pack)]
        if bad:
            raise ValueError(f"extension pack names must be lower-case identifiers, got {bad}")
        return list(dict.fromkeys(value))

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

    @model_validator(mode="after")
    def _check_combinations(self) -> Self:
        problems: list[str] = []
        if self.claim_extractor == "llm" and not self.llm_model:
            problems.append("claim_extractor=llm needs REMEMBERSTACK_LLM_MODEL")
        if self.fact_adjudication_engine == "prompt" and not self.llm_model:
            problems.append("fact_adjudication_engine=prompt needs REMEMBERSTACK_LLM_MODEL")
        if self.entity_resolver == "llm" and not (self.llm_base_url and self.llm_model):
            problems.append(
                "entity_resolver=llm needs REMEMBERSTACK_LLM_BASE_URL and REMEMBERSTACK_LLM_MODEL"
            )
        if self.embedder == "openai" and not self.embedding_model:
            problems.append("embedder=openai needs REMEMBERSTACK_EMBEDDING_MODEL")
        if self.entity_auto_merge:
            problems.append(
                "entity_auto_merge=true is not supported: merges are proposed for review "
                "(ListMergeProposals) and applied with MergeEntities"
            )
        if self.worker_lease_seconds <= self.worker_poll_seconds:
            problems.append("worker_lease_seconds must exceed worker_poll_seconds")
        if problems:
            raise ValueError("; ".join(problems))
        return self


def load_settings(**overrides: Any) -> Settings:
    """Read settings from the environment; keyword overrides win over it (tests, CLI flags)."""
    return Settings(**overrides)
