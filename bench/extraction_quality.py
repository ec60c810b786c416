"""Score a claim extractor on the labelled extraction set and, optionally, on LoCoMo turns."""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.extraction_generalisation import generalisation_report, print_generalisation
from bench.locomo_entities import LABELLED, JunkEntityEstimator, agreement, normalisation_report
from services.ingest.extraction.base import ClaimExtractor, ExtractedClaim, ExtractionInput

__all__ = [
    "DEFAULT_LOCOMO",
    "DEFAULT_SET",
    "LabelledRow",
    "load_set",
    "locomo_report",
    "main",
    "score",
]

DEFAULT_SET = Path(__file__).resolve().parents[1] / "tests" / "data" / "extraction_set.jsonl"
DEFAULT_LOCOMO = Path("/work/shared/eval-data/locomo/locomo10.json")
RESULTS = Path(__file__).resolve().parent / "results" / "extraction_quality.json"
FIELDS = ("precision", "valid_from", "valid_until", "kind", "is_attributed", "holder", "polarity")
_WORD_RE = re.compile(r"[a-z][a-z']{3,}")


@dataclass(frozen=True)
class LabelledRow:
    """One labelled passage and the claims it should yield."""

    id: str
    genre: str
    input: ExtractionInput
    expected: list[dict[str, Any]]
    held_out: bool


def _time(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def load_set(path: Path = DEFAULT_SET) -> list[LabelledRow]:
    """Read the labelled JSONL set."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        inp = ExtractionInput(
            text=r["text"],
            said_on=_time(r["said_on"]),
            speaker=r["speaker"],
            document_title=r["document_title"],
            context=r["context"],
        )
        rows.append(LabelledRow(r["id"], r["genre"], inp, r["expected"], bool(r.get("held_out"))))
    return rows


def _day(value: datetime | None) -> str | None:
    return value.date().isoformat() if value is not None else None


def _field(claim: ExtractedClaim, name: str) -> Any:
    return {
        "precision": claim.claim_valid_precision,
        "valid_from": _day(claim.claim_valid_from),
        "valid_until": _day(claim.claim_valid_until),
        "kind": claim.claim_valid_kind,
        "is_attributed": claim.is_attributed,
        "holder": claim.holder.lower() if claim.holder else None,
        "polarity": claim.polarity,
    }[name]


def _expected(exp: dict[str, Any], name: str) -> Any:
    value = exp.get(name)
    return value.lower() if name == "holder" and value else value


def _matches(claim: ExtractedClaim, exp: dict[str, Any]) -> bool:
    text = claim.claim_text.lower()
    return all(part.lower() in text for part in exp["contains"])


def score(extractor: ClaimExtractor, rows: Sequence[LabelledRow]) -> dict[str, Any]:
    """Detection precision/recall/F1, per-field accuracy on matched claims, and failures."""
    predicted = extractor.extract_batch([r.input for r in rows])
    tp = fp = fn = 0
    correct = dict.fromkeys(FIELDS, 0)
    total = dict.fromkeys(FIELDS, 0)
    failures: list[dict[str, Any]] = []
    for row, claims in zip(rows, predicted, strict=True):
        unmatched = list(claims)
        for exp in row.expected:
            hit = next((c for c in unmatched if _matches(c, exp)), None)
            if hit is None:
                fn += 1
                failures.append({"id": row.id, "missed": exp["contains"]})
                continue
            unmatched.remove(hit)
            tp += 1
            for name in FIELDS:
                if name == "kind" and "kind" not in exp:
                    continue
                total[name] += 1
                got, want = _field(hit, name), _expected(exp, name)
                if got == want:
                    correct[name] += 1
                else:
                    failures.append({"id": row.id, "field": name, "got": got, "want": want})
        fp += len(unmatched)
        failures.extend({"id": row.id, "spurious": c.claim_text} for c in unmatched)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "extractor": f"{extractor.name}/{extractor.version}",
        "rows": len(rows),
        "expected_claims": tp + fn,
        "predicted_claims": tp + fp,
        "detection": {"precision": precision, "recall": recall, "f1": f1},
        "field_accuracy": {n: correct[n] / total[n] if total[n] else None for n in FIELDS},
        "field_counts": total,
        "failures": failures,
    }


def _session_time(raw: str) -> datetime:
    return datetime.strptime(raw, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _turn_ids(raw: Any) -> list[str]:
    items = raw if isinstance(raw, list) else [raw]
    return [t for item in items for t in re.split(r"[;,\s]+", str(item)) if t]


def locomo_inputs(path: Path = DEFAULT_LOCOMO) -> tuple[list[ExtractionInput], list[str], Any]:
    """One input per turn, laid out as the ingest service stores a session document
    (`[<turn-id> | <timestamp>] <speaker>: <text>` per line)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    inputs: list[ExtractionInput] = []
    keys: list[str] = []
    for ci, conv in enumerate(data):
        c = conv["conversation"]
        for key, turns in c.items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            said_on = _session_time(c[f"{key}_date_time"])
            stamp = said_on.isoformat().replace("+00:00", "Z")
            document = ""
            for turn in turns:
                prefix = f"[{turn['dia_id']} | {stamp}] {turn['speaker']}: "
                inputs.append(
                    ExtractionInput(
                        text=turn["text"],
                        said_on=said_on,
                        speaker=turn["speaker"],
                        context=document or None,
                        base_offset=len(document) + len(prefix),
                    )
                )
                keys.append(f"{ci}:{turn['dia_id']}")
                document += prefix + turn["text"] + "\n"
    return inputs, keys, data


def locomo_report(extractor: Any, path: Path = DEFAULT_LOCOMO, chunk: int = 512) -> dict[str, Any]:
    """Coverage of the silver observations by claims of the same turn, and throughput."""
    inputs, keys, data = locomo_inputs(path)
    claims: list[list[ExtractedClaim]] = []
    sentences = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for i in range(0, len(inputs), chunk):
        claims.extend(extractor.extract_batch(inputs[i : i + chunk]))
        sentences += getattr(extractor, "last_sentence_count", 0)
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    by_turn = dict(zip(keys, claims, strict=True))
    observations = covered = overlapped = 0
    for ci, conv in enumerate(data):
        for per_speaker in conv["observation"].values():
            for items in per_speaker.values():
                for sentence, raw_ids in items:
                    observations += 1
                    turn_claims = [
                        c for t in _turn_ids(raw_ids) for c in by_turn.get(f"{ci}:{t}", [])
                    ]
                    covered += bool(turn_claims)
                    words = set(_WORD_RE.findall(sentence.lower()))
                    overlapped += any(
                        len(words & set(_WORD_RE.findall(c.claim_text.lower()))) >= 2
                        for c in turn_claims
                    )
    total_claims = sum(len(c) for c in claims)
    estimator = JunkEntityEstimator.load()
    entities = normalisation_report([c for turn in claims for c in turn], estimator)
    entities["estimator_agreement"] = {
        name: agreement(estimator, path) for name, path in LABELLED.items()
    }
    return {
        "turns": len(inputs),
        "sentences": sentences,
        "claims": total_claims,
        "turns_with_claims": sum(1 for c in claims if c),
        "observations": observations,
        "coverage_same_turn": covered / observations if observations else 0.0,
        "coverage_same_turn_2_shared_words": overlapped / observations if observations else 0.0,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "turns_per_second": len(inputs) / elapsed if elapsed else 0.0,
        "sentences_per_second": sentences / elapsed if elapsed else 0.0,
        "entities": entities,
    }


def print_entities(entities: dict[str, Any]) -> None:
    """Relations vs observations and the junk-entity estimate on LoCoMo."""
    print(
        f"locomo relations {entities['relations']} ({entities['relation_share']:.3f}) / "
        f"observations {entities['observations']} ({entities['observation_share']:.3f}) "
        f"of {entities['claims']} claims; "
        f"{entities['relations_lost_to_junk_entities']} mapped predicates lost to junk entities"
    )
    print(
        f"locomo junk entity phrases {entities['junk_phrases_distinct']} of "
        f"{entities['entity_phrases_distinct']} distinct ({entities['junk_share_distinct']:.3f}), "
        f"{entities['junk_share_uses']:.3f} of uses"
    )
    for name, agree in entities["estimator_agreement"].items():
        print(
            f"junk estimator vs hand labels ({name}, n={agree['phrases']}): accuracy "
            f"{agree['accuracy']:.3f}, kappa {agree['cohen_kappa']:.3f}, junk precision "
            f"{agree['junk_precision']:.3f}, recall {agree['junk_recall']:.3f}"
        )


def _print_table(result: dict[str, Any]) -> None:
    det = result["detection"]
    print(f"extractor {result['extractor']}  rows {result['rows']}")
    print(f"{'metric':<22}{'value':>8}")
    for name in ("precision", "recall", "f1"):
        print(f"{'detection ' + name:<22}{det[name]:>8.3f}")
    for name, value in result["field_accuracy"].items():
        shown = "n/a" if value is None else f"{value:.3f}"
        print(f"{name + ' accuracy':<22}{shown:>8}  (n={result['field_counts'][name]})")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark and write bench/results/extraction_quality.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("--locomo", action="store_true", help="also run over the LoCoMo corpus")
    parser.add_argument("--locomo-path", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--verbose", action="store_true", help="print every failure")
    parser.add_argument(
        "--generalisation",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="score the claims generalisation set per field (tune and holdout halves)",
    )
    args = parser.parse_args(argv)
    from services.ingest.extraction.rules import load_rules_extractor

    extractor = load_rules_extractor()
    rows = load_set(args.set)
    result = score(extractor, rows)
    _print_table(result)
    # rows written after the rules were tuned: the honest estimate
    result["held_out"] = score(extractor, [r for r in rows if r.held_out])
    print("held-out rows only:")
    _print_table(result["held_out"])
    if args.verbose:
        for failure in result["failures"]:
            print(failure)
    if args.generalisation:
        result["generalisation"] = generalisation_report(extractor)
        print_generalisation(result["generalisation"])
        if args.verbose:
            # the tune half only: the holdout's failures are never shown or written
            for failure in result["generalisation"]["tune"]["failures"]:
                print(failure)
    if args.locomo:
        result["locomo"] = locomo_report(extractor, args.locomo_path)
        for key, value in result["locomo"].items():
            if isinstance(value, dict):
                continue
            print(
                f"locomo {key:<34}{value:>10.3f}"
                if isinstance(value, float)
                else f"locomo {key:<34}{value:>10}"
            )
        print_entities(result["locomo"]["entities"])
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    main()
