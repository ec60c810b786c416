"""Tests for the LoCoMo BM25 baseline and retrieval metrics, including the README reference."""

from __future__ import annotations

import pytest

from bench.locomo.bm25 import BM25Index, rank_turns, tokenize
from bench.locomo.corpus import DEFAULT_DATA_PATH, Question, load_questions, load_sessions
from bench.locomo.metrics import OVERALL, CategoryScores, evaluate, render_table


def _question(qid: str, category: int, evidence: tuple[str, ...]) -> Question:
    return Question(qid, 0, category, "q", evidence)


def test_tokenize_lowercases_keeps_alphanumerics_and_drops_stop_words() -> None:
    assert tokenize("What did Caroline see at the LGBTQ+ parade in 2023?") == [
        "caroline",
        "see",
        "lgbtq",
        "parade",
        "2023",
    ]


def test_bm25_ranks_rare_term_match_above_common_term_match() -> None:
    index = BM25Index(["cat sat", "cat ran", "cat hid", "dog barked"])
    ranking = index.rank("dog cat")
    assert ranking[0] == 3
    assert index.scores("unseen words")[0] == 0.0


def test_bm25_prefers_shorter_document_for_same_term_frequency() -> None:
    index = BM25Index(["lake trip with many more words here", "lake", "road", "hill", "sun"])
    assert index.rank("lake")[:2] == [1, 0]


def test_metrics_on_hand_ranked_lists_match_definitions() -> None:
    questions = [
        _question("a", 1, ("D1:1", "D1:2")),
        _question("b", 4, ("D2:1",)),
        _question("c", 5, ("D1:1",)),  # adversarial: never scored
        _question("d", 2, ()),  # no evidence: never scored
    ]
    rankings = {
        "a": ["D1:3", "D1:3", "D1:2", "D1:4", "D1:5", "D1:6", "D1:1"],
        "b": ["D2:1"],
    }
    results = evaluate(questions, rankings, ks=(1, 5))
    multi = results["multi-hop"]
    # "D1:3" repeats, so deduplicated ranks are D1:3, D1:2, D1:4, D1:5, D1:6, D1:1.
    assert (multi.n, multi.mrr) == (1, 0.5)
    assert multi.recall == {1: 0.0, 5: 0.5}
    assert multi.all_evidence == {1: 0.0, 5: 0.0}
    assert multi.any_evidence == {1: 0.0, 5: 1.0}
    overall = results[OVERALL]
    assert (overall.n, overall.mrr) == (2, 0.75)
    assert overall.recall == {1: 0.5, 5: 0.75}
    assert results["temporal"].n == 0


def test_question_missing_from_rankings_scores_zero() -> None:
    results = evaluate([_question("a", 4, ("D1:1",))], {})
    assert results["single-hop"].n == 1
    assert results["single-hop"].mrr == 0.0


def test_render_table_has_header_and_one_row_per_category() -> None:
    results = {OVERALL: CategoryScores(OVERALL, 3, 0.5, {10: 0.25}, {10: 0.125}, {10: 1.0})}
    assert render_table(results).splitlines() == [
        "| category | n | MRR | R@10 | all@10 | any@10 |",
        "|---|---|---|---|---|---|",
        "| overall | 3 | 0.500 | 0.250 | 0.125 | 1.000 |",
    ]


@pytest.mark.skipif(not DEFAULT_DATA_PATH.exists(), reason="LoCoMo data not available")
def test_bm25_on_locomo10_reproduces_readme_reference_within_0_01() -> None:
    questions = load_questions()
    rankings = rank_turns(load_sessions(), questions)
    results = evaluate(questions, rankings)
    overall = results[OVERALL]
    assert overall.n == 1536
    measured = {
        "MRR": overall.mrr,
        "R@1": overall.recall[1],
        "R@5": overall.recall[5],
        "R@10": overall.recall[10],
        "all@10": overall.all_evidence[10],
        "multi-hop R@10": results["multi-hop"].recall[10],
    }
    reference = {
        "MRR": 0.423,
        "R@1": 0.284,
        "R@5": 0.503,
        "R@10": 0.567,
        "all@10": 0.520,
        "multi-hop R@10": 0.266,
    }
    for name, expected in reference.items():
        assert measured[name] == pytest.approx(expected, abs=0.01), name
    session_any = evaluate(questions, rankings, sessions=True)
    assert session_any[OVERALL].any_evidence[10] == pytest.approx(0.937, abs=0.01)
