"""The labelled adjudication suite (tests/data/adjudication_suite.jsonl) through the pipeline."""

from __future__ import annotations

from bench.adjudication_quality import load_suite, run_suite
from services.adjudicator.engines.jev import JevEngine


def test_suite_has_sixty_cases_covering_every_decision() -> None:
    cases = load_suite()
    assert len(cases) >= 60
    actions = {a for case in cases for a in case["expect"]["actions"]}
    assert actions == {
        "add",
        "confirm",
        "adjust",
        "supersede",
        "contradict_evidence",
        "contradict_group",
    }


async def test_jev_passes_one_variant_of_every_suite_scenario(session_factory, adj_embedder):
    # One name variant per scenario keeps this test fast; bench/adjudication_quality.py runs all.
    cases = [case for case in load_suite() if case["id"].endswith("-0")]
    report = await run_suite(session_factory, adj_embedder, JevEngine(), cases)
    assert report.summary()["failures"] == {}
