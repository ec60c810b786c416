"""LoCoMo retrieval metrics: recall@k, all-evidence@k, any@k and MRR per QA category."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.locomo.corpus import Question

__all__ = [
    "CATEGORY_NAMES",
    "DEFAULT_KS",
    "OVERALL",
    "CategoryScores",
    "evaluate",
    "render_table",
    "session_ranking",
]

# Category 5 (adversarial) cites the confusable turn, so it is not a retrieval target.
CATEGORY_NAMES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
}
OVERALL = "overall"
DEFAULT_KS: tuple[int, ...] = (1, 5, 10)


@dataclass(slots=True)
class CategoryScores:
    """Means over the scorable questions of one category (or of all, for ``overall``)."""

    name: str
    n: int = 0
    mrr: float = 0.0
    recall: dict[int, float] = field(default_factory=dict)
    all_evidence: dict[int, float] = field(default_factory=dict)
    any_evidence: dict[int, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form, k as string keys."""
        raw = asdict(self)
        for key in ("recall", "all_evidence", "any_evidence"):
            raw[key] = {str(k): v for k, v in raw[key].items()}
        return raw


def _dedupe(ranked: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(ranked))


def session_ranking(ranked_turns: Iterable[str]) -> list[str]:
    """Sessions (``D3``) in the order their first turn appears in a turn ranking."""
    return _dedupe(turn_id.split(":", 1)[0] for turn_id in ranked_turns)


@dataclass(slots=True)
class _Sums:
    n: int = 0
    reciprocal_rank: float = 0.0
    recall: dict[int, float] = field(default_factory=dict)
    all_evidence: dict[int, float] = field(default_factory=dict)
    any_evidence: dict[int, float] = field(default_factory=dict)

    def add(self, evidence: set[str], ranked: Sequence[str], ks: Sequence[int]) -> None:
        self.n += 1
        first = next((rank for rank, item in enumerate(ranked, 1) if item in evidence), None)
        self.reciprocal_rank += 0.0 if first is None else 1.0 / first
        for k in ks:
            found = len(evidence.intersection(ranked[:k]))
            self.recall[k] = self.recall.get(k, 0.0) + found / len(evidence)
            self.all_evidence[k] = self.all_evidence.get(k, 0.0) + float(found == len(evidence))
            self.any_evidence[k] = self.any_evidence.get(k, 0.0) + float(found > 0)

    def mean(self, name: str, ks: Sequence[int]) -> CategoryScores:
        n = max(self.n, 1)
        return CategoryScores(
            name=name,
            n=self.n,
            mrr=self.reciprocal_rank / n,
            recall={k: self.recall.get(k, 0.0) / n for k in ks},
            all_evidence={k: self.all_evidence.get(k, 0.0) / n for k in ks},
            any_evidence={k: self.any_evidence.get(k, 0.0) / n for k in ks},
        )


def evaluate(
    questions: Iterable[Question],
    rankings: Mapping[str, Sequence[str]],
    ks: Sequence[int] = DEFAULT_KS,
    *,
    sessions: bool = False,
) -> dict[str, CategoryScores]:
    """Score ranked turn ids per question id, per category 1–4 and ``overall``.

    Questions without evidence, or in category 5, are skipped; a question absent from
    ``rankings`` counts as retrieving nothing. Rankings are deduplicated in rank order, so
    several hits on one turn (e.g. claims from the same turn) occupy one rank. With
    ``sessions``, turns and evidence are lifted to their sessions first.
    """
    sums = {category: _Sums() for category in CATEGORY_NAMES}
    for question in questions:
        if question.category not in sums or not question.evidence:
            continue
        ranked = _dedupe(rankings.get(question.question_id, ()))
        evidence = set(question.evidence)
        if sessions:
            ranked = session_ranking(ranked)
            evidence = set(session_ranking(evidence))
        sums[question.category].add(evidence, ranked, ks)
    overall = _Sums()
    for part in sums.values():
        overall.n += part.n
        overall.reciprocal_rank += part.reciprocal_rank
        for target, source in (
            (overall.recall, part.recall),
            (overall.all_evidence, part.all_evidence),
            (overall.any_evidence, part.any_evidence),
        ):
            for k, value in source.items():
                target[k] = target.get(k, 0.0) + value
    results = {CATEGORY_NAMES[c]: part.mean(CATEGORY_NAMES[c], ks) for c, part in sums.items()}
    results[OVERALL] = overall.mean(OVERALL, ks)
    return results


def render_table(results: Mapping[str, CategoryScores]) -> str:
    """Markdown table, one row per category then ``overall``."""
    ks = sorted({k for scores in results.values() for k in scores.recall})
    header = ["category", "n", "MRR"] + [f"R@{k}" for k in ks]
    header += [f"all@{k}" for k in ks] + [f"any@{k}" for k in ks]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for scores in results.values():
        cells = [scores.name, str(scores.n), f"{scores.mrr:.3f}"]
        cells += [f"{scores.recall[k]:.3f}" for k in ks]
        cells += [f"{scores.all_evidence[k]:.3f}" for k in ks]
        cells += [f"{scores.any_evidence[k]:.3f}" for k in ks]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
