"""The beliefs generalisation suite: both files valid, the committed split reproducible, and
(slow) every case of it run end to end through the real services with a verdict."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from bench.beliefs_checks import Check, normalize
from bench.beliefs_quality import summarize
from bench.beliefs_runner import CaseResult, run_case
from bench.beliefs_suite import (
    DECISIONS,
    HOLDOUT,
    REGISTERS,
    TUNE,
    load_cases,
    split_ids,
    validate_case,
    validate_suite,
)
from bench.beliefs_system import EngineChoice, running_system


@pytest.fixture(scope="module")
def tune() -> list[dict[str, Any]]:
    return load_cases(TUNE)


@pytest.fixture(scope="module")
def holdout() -> list[dict[str, Any]]:
    return load_cases(HOLDOUT)


def test_both_halves_are_valid_against_the_schema(
    tune: list[dict[str, Any]], holdout: list[dict[str, Any]]
) -> None:
    assert validate_suite(tune + holdout) == []


def test_suite_has_at_least_150_cases_split_70_30_without_overlap(
    tune: list[dict[str, Any]], holdout: list[dict[str, Any]]
) -> None:
    assert len(tune) + len(holdout) >= 150
    assert not {c["id"] for c in tune} & {c["id"] for c in holdout}
    assert 0.27 <= len(holdout) / (len(tune) + len(holdout)) <= 0.33


def test_committed_split_is_the_seeded_stratified_split(
    tune: list[dict[str, Any]], holdout: list[dict[str, Any]]
) -> None:
    # Rows were never moved: re-splitting the union gives exactly the holdout file.
    assert split_ids(tune + holdout) == {c["id"] for c in holdout}


def test_every_decision_type_and_register_is_in_both_halves(
    tune: list[dict[str, Any]], holdout: list[dict[str, Any]]
) -> None:
    for half in (tune, holdout):
        assert set(DECISIONS) <= {d for c in half for d in c["decisions"]}
        assert {c["decisions"][0] for c in half} == set(DECISIONS)
        assert {c["register"] for c in half} == set(REGISTERS)


def test_documents_are_written_in_every_register_and_text_format(
    tune: list[dict[str, Any]], holdout: list[dict[str, Any]]
) -> None:
    ingests = [s for c in tune + holdout for s in c["steps"] if s["op"] == "ingest"]
    assert set(Counter(s["register"] for s in ingests)) == set(REGISTERS)
    assert {s["media_type"] for s in ingests} == {
        "text/plain",
        "text/markdown",
        "text/html",
        "text/x-rememberstack-conversation",
    }


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda c: c.update(decisions=["merge"]), "decisions must be"),
        (lambda c: c["steps"].insert(0, {"op": "delete", "doc": "a"}), "must start with"),
        (lambda c: c["expect"]["facts"][0].update({"from": "1 March"}), "YYYY-MM-DD"),
        (lambda c: c["expect"]["facts"][0].update(kind="triple"), "kind must be"),
        (lambda c: c["expect"].update(groups=[["old", "nope"]]), "known refs"),
        (lambda c: c["steps"][0].update(said_on="2025-01-01T09:00:00+02:00"), "UTC instant"),
    ],
)
def test_validation_names_what_is_wrong_in_a_broken_case(
    tune: list[dict[str, Any]], change: Any, problem: str
) -> None:
    case = copy.deepcopy(next(c for c in tune if c["expect"].get("supersessions")))
    case["expect"]["facts"][0]["ref"] = "old"
    change(case)
    assert any(problem in p for p in validate_case(case)), validate_case(case)


def test_observation_words_must_be_two_to_four(tune: list[dict[str, Any]]) -> None:
    case = copy.deepcopy(next(c for c in tune if c["expect"]["facts"][0]["kind"] == "observation"))
    case["expect"]["facts"][0]["words"] = ["price"]
    assert any("2-4 words" in p for p in validate_case(case))


def test_names_match_regardless_of_case_determiner_and_possessive() -> None:
    assert normalize("The Payments Platform team") == normalize("payments platform team")
    assert normalize("Northwind's") == "northwind"
    assert normalize("Selin Aydın") != normalize("Selin Aydin")


def test_summary_counts_a_case_per_listed_decision_and_keeps_failures_only_when_asked() -> None:
    passed = CaseResult(
        "a", ["supersede", "add"], "email", "functional_slot", [Check("found", True)]
    )
    failed = CaseResult("b", ["supersede"], "chat", "functional_slot", [Check("until", False, "x")])
    summary = summarize([passed, failed], with_failures=False)
    assert summary["per_decision"]["supersede"] == {"n": 2, "passed": 1, "rate": 0.5}
    assert summary["per_decision"]["add"] == {"n": 1, "passed": 1, "rate": 1.0}
    assert summary["checks"]["until"] == {"n": 1, "passed": 0, "rate": 0.0}
    assert "failures" not in summary
    assert summarize([failed], with_failures=True)["failures"] == {"b": ["x"]}


@pytest.mark.slow
async def test_jev_engine_gives_every_case_of_both_halves_a_verdict(
    database_url: str, tune: list[dict[str, Any]], holdout: list[dict[str, Any]]
) -> None:
    """Runs the whole suite end to end; asserts nothing about the score (thresholds belong to
    the lead), only that the system processes every case and every case is judged."""
    cases = tune + holdout
    async with running_system(database_url, EngineChoice("jev")) as stubs:
        results = [await run_case(stubs, case, case_seconds=900.0) for case in cases]
    assert [r.case_id for r in results] == [c["id"] for c in cases]
    errors = {r.case_id: r.error for r in results if r.verdict == "error"}
    assert errors == {}
    assert all(r.verdict in ("pass", "fail") and r.checks for r in results)
