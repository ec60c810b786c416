"""The extraction-quality section of bench/REPORT.md: the old set, the generalisation set per
field (tune and holdout halves), and LoCoMo coverage, normalisation and junk entities."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.extraction_generalisation import FIELDS, REGISTERS

__all__ = ["SECTIONS"]

Section = Callable[[dict[str, Any], Path], list[str]]


def _f(value: Any) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _old_set(data: dict[str, Any]) -> list[str]:
    det = data["detection"]
    held = data.get("held_out", {}).get("detection", {})
    lines = [
        f"Labelled extraction set (`tests/data/extraction_set.jsonl`, {data['rows']} rows, "
        f"extractor {data['extractor']}):",
        "",
        "| figure | all rows | held-out rows |",
        "|---|---|---|",
    ]
    for name in ("precision", "recall", "f1"):
        lines.append(f"| detection {name} | {_f(det[name])} | {_f(held.get(name))} |")
    held_fields = data.get("held_out", {}).get("field_accuracy", {})
    for name, value in data["field_accuracy"].items():
        lines.append(f"| {name} accuracy | {_f(value)} | {_f(held_fields.get(name))} |")
    return lines


def _generalisation(gen: dict[str, Any]) -> list[str]:
    tune, holdout = gen["tune"], gen["holdout"]
    lines = [
        "",
        "Claims generalisation set (issue 16; `tests/data/claims_generalisation.md`): written",
        "independently of the rules, split 70/30 by document before scoring. Tune on the tune",
        "half only; the holdout half is reported, never inspected.",
        "",
        "| figure | tune | holdout | n (tune / holdout) |",
        "|---|---|---|---|",
    ]
    for name in ("precision", "recall", "f1"):
        lines.append(
            f"| detection {name} | {_f(tune['detection'][name])} | "
            f"{_f(holdout['detection'][name])} | "
            f"{tune['expected_claims']} / {holdout['expected_claims']} claims |"
        )
    lines.append(
        f"| dropped-sentence accuracy | {_f(tune['dropped_accuracy'])} | "
        f"{_f(holdout['dropped_accuracy'])} | "
        f"{tune['dropped_sentences']} / {holdout['dropped_sentences']} |"
    )
    for name in FIELDS:
        lines.append(
            f"| {name} accuracy | {_f(tune['field_accuracy'][name])} | "
            f"{_f(holdout['field_accuracy'][name])} | "
            f"{tune['field_counts'][name]} / {holdout['field_counts'][name]} |"
        )
    lines += ["", "| register | detection F1 tune / holdout | subject accuracy tune / holdout |"]
    lines.append("|---|---|---|")
    for reg in REGISTERS:
        t, h = tune["per_register"].get(reg), holdout["per_register"].get(reg)
        if t is None or h is None:
            continue
        lines.append(
            f"| {reg} | {_f(t['detection']['f1'])} / {_f(h['detection']['f1'])} | "
            f"{_f(t['field_accuracy']['subject'])} / {_f(h['field_accuracy']['subject'])} |"
        )
    return lines


def _locomo(loc: dict[str, Any]) -> list[str]:
    lines = [
        "",
        f"LoCoMo ({loc['turns']} turns, {loc['claims']} claims): silver observations covered by "
        f"a claim of the same turn {_f(loc['coverage_same_turn'])} (sharing two words "
        f"{_f(loc['coverage_same_turn_2_shared_words'])}); extraction {loc['seconds']:.1f} s "
        f"wall, {loc['cpu_seconds']:.1f} s CPU.",
    ]
    ent = loc.get("entities")
    if ent is None:
        return lines
    lines += [
        "",
        "| LoCoMo normalisation | value |",
        "|---|---|",
        f"| claims that would be relations | {ent['relations']} ({_f(ent['relation_share'])}) |",
        f"| claims that would be observations | {ent['observations']} "
        f"({_f(ent['observation_share'])}) |",
        f"| predicate maps, subject and object present | "
        f"{ent['predicate_maps_with_subject_and_object']} |",
        f"| of those, lost to a junk subject or object | "
        f"{ent['relations_lost_to_junk_entities']} |",
        f"| attributed claims (observations on the holder) | {ent['attributed']} |",
        f"| junk entity phrases (distinct) | {ent['junk_phrases_distinct']} of "
        f"{ent['entity_phrases_distinct']} ({_f(ent['junk_share_distinct'])}) |",
        f"| junk entity phrases (share of uses) | {_f(ent['junk_share_uses'])} |",
    ]
    for name, agree in ent["estimator_agreement"].items():
        lines.append(
            f"| junk estimator vs hand labels, {name} set (n={agree['phrases']}) | accuracy "
            f"{_f(agree['accuracy'])}, kappa {_f(agree['cohen_kappa'])}, junk precision "
            f"{_f(agree['junk_precision'])}, recall {_f(agree['junk_recall'])} |"
        )
    top = ", ".join(
        f"“{j['phrase']}” ({j['role']}, {j['uses']})" for j in ent["top_junk_phrases"][:8]
    )
    lines += ["", f"Most used junk phrases: {top}."]
    return lines


def extraction_quality(data: dict[str, Any], _plots: Path) -> list[str]:
    lines = _old_set(data)
    if "generalisation" in data:
        lines += _generalisation(data["generalisation"])
    if "locomo" in data:
        lines += _locomo(data["locomo"])
    lines += [
        "",
        "Reproduce: `.venv/bin/python -m bench.extraction_quality --locomo` "
        "(`--verbose` prints the tune half's failures only).",
    ]
    return lines


SECTIONS: dict[str, tuple[str, Section]] = {
    "extraction_quality": ("Extraction quality (issues 2 and 16)", extraction_quality),
}
