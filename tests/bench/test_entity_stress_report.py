"""The entity-stress benchmark's partition count and its REPORT.md section (pure)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench.belief_dump import BeliefDump
from bench.entity_stress import company_entities
from bench.report import write_report


def test_company_entities_are_those_holding_the_full_or_the_short_name() -> None:
    dump = BeliefDump(
        Counter(
            {
                frozenset({"northwind logistics", "northwind"}): 1,
                frozenset({"northwind"}): 2,
                frozenset({"northwind logistics riga depot"}): 1,
                frozenset({"contoso"}): 1,
            }
        ),
        Counter(),
    )
    found = company_entities(dump)
    assert len(found) == 3
    assert found[0] == frozenset({"northwind logistics", "northwind"})


def test_the_report_section_says_whether_the_company_is_one_entity(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    data = {
        "documents": 200,
        "seed": 5,
        "adjudicator_processes": 2,
        "mode": "full",
        "company": "Northwind Logistics",
        "short_name": "Northwind",
        "company_entities": 80,
        "entities_with_full_name": 1,
        "entities_with_short_name": 79,
        "entities_with_both_names": 0,
        "largest_company_entity_aliases": 1,
        "company_entity_alias_sets": {"northwind": 79, "northwind logistics": 1},
        "entities_total": 630,
        "dead_letters": 0,
        "wall_seconds": 185.5,
        "load_average_1min": 21.2,
    }
    (results / "entity_stress.json").write_text(json.dumps(data))
    write_report(results, tmp_path / "REPORT.md")
    text = (tmp_path / "REPORT.md").read_text()
    assert "## Entity cascade stress: one company in many documents (issue 17)" in text
    assert "| entities holding the company's name | 80 | 1: **missed** |" in text
    assert "| 1 / 79 / 0 | 1 / 1 / 1 |" in text
    assert "- northwind × 79" in text
    (results / "entity_stress.json").write_text(json.dumps(data | {"company_entities": 1}))
    write_report(results, tmp_path / "REPORT.md")
    assert "| 1: met |" in (tmp_path / "REPORT.md").read_text()
