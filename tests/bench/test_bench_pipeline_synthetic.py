"""The synthetic corpus generator, the memory sampler and the issue-8 report section."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

from bench.pipeline_synthetic import MemorySampler, _busy_seconds
from bench.report import write_report
from bench.synthetic_corpus import CONVERSATION, generate
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import load_rules_extractor
from services.ingest.formats import CONVERSATION_MEDIA_TYPE, classify, parse_turns


def test_same_size_and_seed_give_identical_documents_and_other_seeds_differ() -> None:
    first, again = generate(60, seed=3), generate(60, seed=3)
    assert first == again
    assert [d.body for d in generate(60, seed=4)] != [d.body for d in first]
    assert len(first) == 60
    assert len({d.source_ref for d in first}) == 60


def test_documents_are_dated_in_order_and_mix_the_three_formats() -> None:
    documents = generate(90)
    said = [d.said_on for d in documents]
    assert said == sorted(said)
    assert said[-1] - said[0] > (said[1] - said[0]) * 50
    kinds = Counter(d.media_type for d in documents)
    assert set(kinds) == {"text/markdown", "text/plain", CONVERSATION}
    assert CONVERSATION == CONVERSATION_MEDIA_TYPE
    for document in documents:
        if document.media_type == CONVERSATION:
            # The ingest service's own parser accepts every generated turn line.
            assert classify(document.media_type, document.body) == "conversation"
            assert len(parse_turns(document.body)) >= 2
        else:
            assert classify(document.media_type, document.body) == "prose"


def test_state_changes_and_restatements_recur_across_documents() -> None:
    documents = generate(200)
    text = "\n".join(d.body for d in documents)
    for change in (" moved to the ", " relocated to ", " cutover moved from ", " instead of "):
        assert change in text, change
    assert "believes the" in text or "According to" in text
    # Confirmations: the same statement appears in more than one document.
    sentences = Counter(
        s.strip() + "."
        for d in documents
        for s in set(d.body.replace("\n", " ").split(". "))
        if " works on the " in s or " leads the " in s
    )
    assert max(sentences.values()) >= 3


def test_bigger_corpora_have_more_people_and_projects() -> None:
    def attendees_and_projects(size: int) -> tuple[int, int]:
        people, projects = set(), set()
        for document in generate(size):
            for line in document.body.splitlines():
                if line.startswith("Attendees: "):
                    people.update(line.removeprefix("Attendees: ").rstrip(".").split(", "))
            projects.update(re.findall(r"The (\w+ \w+) cutover", document.body))
        return len(people), len(projects)

    small, large = attendees_and_projects(60), attendees_and_projects(600)
    assert large[0] > small[0] * 2
    assert large[1] > small[1]


def test_the_rules_extractor_finds_claims_in_generated_documents() -> None:
    extractor = load_rules_extractor()
    documents = [d for d in generate(30) if d.media_type == "text/plain"][:4]
    inputs = [
        ExtractionInput(text=paragraph, said_on=d.said_on)
        for d in documents
        for paragraph in d.body.split("\n\n")[1:]
    ]
    claims = [c for batch in extractor.extract_batch(inputs) for c in batch]
    assert len(claims) >= 2 * len(documents)
    assert {c.subject_text for c in claims if c.subject_text} > set()


def test_memory_sampler_reads_this_process_tree() -> None:
    sampler = MemorySampler({"self": os.getpid()})
    sampler.sample()
    peak = sampler.peaks["self"]
    assert peak["peak_rss_mib"] > 10
    assert 0 < peak["peak_pss_mib"] <= peak["peak_rss_mib"]
    assert peak["root_hwm_mib"] >= peak["peak_rss_mib"] * 0.5
    assert peak["processes"] >= 1


def test_busy_seconds_sum_each_stage_from_work_item_results() -> None:
    rows = [
        SimpleNamespace(kind="ingest.extract", result={"seconds": {"convert": 0.5, "extract": 1}}),
        SimpleNamespace(kind="ingest.embed", result={"seconds": {"embed": 2, "embed_model": 1.5}}),
        SimpleNamespace(kind="adjudicate.version", result={"seconds": 3.25}),
        SimpleNamespace(kind="adjudicate.version", result=None),
    ]
    assert _busy_seconds(rows) == {
        "extract": 1.5,
        "embed": 2.0,
        "adjudicate": 3.25,
        "extract_model": 0.0,
        "embed_model": 1.5,
    }


def _run(documents: int, seconds: float) -> dict[str, object]:
    stage = {"wall_seconds": seconds / 2, "claims_per_second": 10.0, "busy_seconds": 1.0}
    return {
        "documents": documents,
        "claims": documents * 6,
        "facts": documents * 5,
        "stages": {"extract": stage, "embed": stage, "adjudicate": stage},
        "wall_seconds_end_to_end": seconds,
        "claims_per_second_end_to_end": documents * 6 / seconds,
        "decisions": {"add": 3, "update": 1},
        "memory": {
            "ingest": {"peak_rss_mib": 400.0, "processes": 1},
            "adjudicator": {"peak_rss_mib": 500.0, "processes": 3},
            "postgres": {"peak_pss_mib": 80.0, "processes": 12},
        },
    }


def test_report_renders_the_section_headline_rows_and_plot(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    data = {
        "corpus": {"seed": 7},
        "mode": "full",
        "sizes": {"100": _run(100, 20.0), "400": _run(400, 60.0)},
        "baseline": {
            "size": 400,
            "run": _run(400, 90.0),
            "speedup_adjudicate_claims_per_second": 1.5,
        },
    }
    (results / "pipeline_synthetic.json").write_text(json.dumps(data))
    report = tmp_path / "REPORT.md"
    write_report(results, report)
    text = report.read_text()
    assert "synthetic corpus at three sizes" in text
    assert "| 400 (sequential adjudicator) |" in text
    assert "ratio **1.50**" in text
    assert "| 8 | adjudicate claims/s vs sequential adjudicator (400 docs) | 1.500 | – |" in text
    assert "peak RSS of the largest service (adjudicator, MiB) | 500.0" in text
    assert "500.0 (3 proc.)" in text
    assert (tmp_path / "plots" / "pipeline_throughput.png").stat().st_size > 10_000


def test_report_without_synthetic_results_still_renders(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "pipeline_synthetic.json").write_text(json.dumps({"sizes": {}}))
    write_report(results, tmp_path / "REPORT.md")
    text = (tmp_path / "REPORT.md").read_text()
    assert "| 8 | synthetic corpus ingest → facts | – | – |" in text
