"""Settings come from REMEMBERSTACK_* variables and reject bad values with clear messages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.support.settings import SystemSettings as Settings
from tests.support.settings import load_system_settings as load_settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's exported variables must not change what these tests see."""
    for name in [n for n in os.environ if n.startswith("REMEMBERSTACK_")]:
        monkeypatch.delenv(name)


def test_defaults_describe_the_embedded_single_machine_setup() -> None:
    settings = load_settings()
    assert settings.database_url is None
    assert settings.data_dir == Path("./var/rememberstack")
    assert (settings.host, settings.port) == ("127.0.0.1", 0)
    assert settings.fact_adjudication_engine == "jev"
    assert settings.fact_confidence_floor == 0.75
    assert settings.extension_packs == []
    assert settings.max_document_bytes == 10 * 1024 * 1024


def test_extension_packs_env_is_split_on_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMEMBERSTACK_EXTENSION_PACKS", "work")
    assert load_settings().extension_packs == ["work"]
    monkeypatch.setenv("REMEMBERSTACK_EXTENSION_PACKS", "work, personal,,work")
    assert load_settings().extension_packs == ["work", "personal"]


def test_env_values_are_parsed_to_field_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMEMBERSTACK_PORT", "50051")
    monkeypatch.setenv("REMEMBERSTACK_LOG_JSON", "false")
    monkeypatch.setenv("REMEMBERSTACK_LOG_LEVEL", "debug")
    monkeypatch.setenv("REMEMBERSTACK_LLM_API_KEY", "sk-secret")
    monkeypatch.setenv("REMEMBERSTACK_QUERY_ADDRESS", "query.rememberstack:7003")
    settings = load_settings()
    assert (settings.port, settings.log_json, settings.log_level) == (50051, False, "DEBUG")
    assert settings.query_address == "query.rememberstack:7003"
    assert settings.llm_api_key is not None
    assert settings.llm_api_key.get_secret_value() == "sk-secret"
    assert "sk-secret" not in repr(settings)


def test_overrides_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REMEMBERSTACK_NAMESPACE", "from-env")
    assert load_settings(namespace="from-test").namespace == "from-test"


def test_confidence_floor_outside_unit_interval_is_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REMEMBERSTACK_FACT_CONFIDENCE_FLOOR", "1.5")
    with pytest.raises(ValidationError) as caught:
        load_settings()
    assert caught.value.errors()[0]["loc"] == ("fact_confidence_floor",)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"log_level": "chatty"}, "log_level must be one of"),
        ({"graph_address": "graph"}, "host:port"),
        ({"database_url": "mysql://x"}, "postgresql"),
        ({"extension_packs": "Work Stuff"}, "lower-case"),
        ({"fact_adjudication_engine": "prompt"}, "REMEMBERSTACK_LLM_MODEL"),
        ({"claim_extractor": "llm"}, "REMEMBERSTACK_LLM_MODEL"),
        ({"embedder": "openai"}, "REMEMBERSTACK_EMBEDDING_MODEL"),
        ({"worker_lease_seconds": 1, "worker_poll_seconds": 2.0}, "worker_lease_seconds"),
        ({"port": 70000}, "less than or equal to 65535"),
        ({"fact_adjudication_engine": "vibes"}, "'jev' or 'prompt'"),
    ],
)
def test_invalid_settings_are_rejected_with_a_message_naming_the_problem(
    overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        load_settings(**overrides)


def test_llm_engine_with_model_configured_is_accepted() -> None:
    settings = load_settings(fact_adjudication_engine="prompt", llm_model="smollm2-135m")
    assert settings.fact_adjudication_engine == "prompt"


def test_settings_are_frozen() -> None:
    settings = load_settings()
    with pytest.raises(ValidationError):
        settings.port = 1  # type: ignore[misc]


def test_subclass_inherits_prefix_and_adds_service_fields(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class IngestSettings(Settings):
        ingest_batch_size: int = 8

    monkeypatch.setenv("REMEMBERSTACK_INGEST_BATCH_SIZE", "32")
    monkeypatch.setenv("REMEMBERSTACK_EXTENSION_PACKS", "work")
    settings = IngestSettings()
    assert (settings.ingest_batch_size, settings.extension_packs) == (32, ["work"])


def test_every_field_documents_itself() -> None:
    undocumented = [name for name, f in Settings.model_fields.items() if not f.description]
    assert undocumented == []


def test_automatic_entity_merging_cannot_be_switched_on() -> None:
    with pytest.raises(ValidationError, match="entity_auto_merge"):
        load_settings(entity_auto_merge=True)
