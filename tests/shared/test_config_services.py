"""Each service reads its own settings class: only its knobs, under the same variable names."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError

from services.adjudicator.config import AdjudicatorSettings
from services.adjudicator.config import load_settings as load_adjudicator
from services.graph.config import GraphSettings
from services.graph.config import load_settings as load_graph
from services.ingest.config import IngestSettings
from services.query.config import QuerySettings
from services.query.config import load_settings as load_query
from shared.config import Settings, WriterSettings
from tests.support.settings import SERVICE_SETTINGS


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("REMEMBERSTACK_")]:
        monkeypatch.delenv(name)


def test_every_service_reads_the_shared_settings() -> None:
    shared = set(Settings.model_fields)
    for cls in SERVICE_SETTINGS.values():
        assert shared <= set(cls.model_fields), cls.__name__


def test_a_service_class_holds_no_other_services_knobs() -> None:
    assert "graph_max_edges" not in QuerySettings.model_fields
    assert "worker_concurrency" not in QuerySettings.model_fields
    assert "query_db_budget_seconds" not in GraphSettings.model_fields
    assert "embedder" not in GraphSettings.model_fields
    assert "fact_adjudication_engine" not in IngestSettings.model_fields
    assert "max_document_bytes" not in AdjudicatorSettings.model_fields
    assert "adjudicator_processes" not in IngestSettings.model_fields


def test_the_writing_services_share_the_worker_and_model_settings() -> None:
    assert issubclass(IngestSettings, WriterSettings)
    assert issubclass(AdjudicatorSettings, WriterSettings)
    assert not issubclass(QuerySettings, WriterSettings)
    assert not issubclass(GraphSettings, WriterSettings)


def test_each_class_reads_its_knobs_from_the_unchanged_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REMEMBERSTACK_GRAPH_MAX_EDGES", "17")
    monkeypatch.setenv("REMEMBERSTACK_QUERY_DB_BUDGET_SECONDS", "3.5")
    monkeypatch.setenv("REMEMBERSTACK_ADJUDICATOR_PROCESSES", "3")
    monkeypatch.setenv("REMEMBERSTACK_MAX_DOCUMENT_BYTES", "4096")
    assert GraphSettings().graph_max_edges == 17
    assert QuerySettings().query_db_budget_seconds == 3.5
    assert AdjudicatorSettings().adjudicator_processes == 3
    assert IngestSettings().max_document_bytes == 4096


def test_one_set_of_overrides_configures_every_service_with_its_part() -> None:
    common = {"namespace": "shared-ns", "worker_poll_seconds": 0.2, "graph_max_edges": 5}
    assert load_query(**common).namespace == "shared-ns"
    assert load_graph(**common).graph_max_edges == 5
    assert load_adjudicator(**common).worker_poll_seconds == 0.2


def test_an_override_a_service_reads_is_still_validated() -> None:
    with pytest.raises(ValidationError, match="greater than 0"):
        load_graph(graph_max_edges=0)


def test_a_service_class_built_directly_refuses_a_name_it_does_not_know() -> None:
    with pytest.raises(ValidationError, match="worker_poll_seconds"):
        GraphSettings(worker_poll_seconds=0.2)  # type: ignore[call-arg]


def test_a_check_of_another_service_does_not_stop_this_one() -> None:
    # The prompt engine is the adjudicator's: query starts without a chat model configured.
    assert load_query(fact_adjudication_engine="prompt").namespace == "default"
    with pytest.raises(ValidationError, match="REMEMBERSTACK_LLM_MODEL"):
        load_adjudicator(fact_adjudication_engine="prompt")
