"""Per-field scoring of a claim extractor on the claims generalisation set (issue 16).

The set (tests/data/claims_generalisation_{tune,holdout}.jsonl, documented in
tests/data/claims_generalisation.md) was written by someone other than the person tuning the
rules. Both halves are scored; only the tune half's failures are ever written out, so the
holdout half can stay an honest estimate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ClaimExtractor, ExtractedClaim, ExtractionInput
from services.ingest.extraction.signatures import author

__all__ = [
    "DATA_DIR",
    "DROP_REASONS",
    "FIELDS",
    "HALVES",
    "PHASES",
    "PRECISIONS",
    "REGISTERS",
    "GeneralisationRow",
    "load_half",
    "score_generalisation",
    "scored_fields",
]

DATA_DIR = Path(__file__).resolve().parents[1] / "tests" / "data"
HALVES = ("tune", "holdout")
REGISTERS = ("wiki", "meeting", "chat", "email", "status", "transcript")
DROP_REASONS = (
    "question",
    "holderless_opinion",
    "advice",
    "hypothetical",
    "social",
    "boilerplate",
)
PRECISIONS = ("unknown", "instant", "day", "month", "quarter", "year", "open")
PHASES = ("start", "end")
FIELDS = (
    "subject",
    "object",
    "predicate",
    "phase",
    "polarity",
    "is_attributed",
    "holder",
    "valid_from",
    "valid_until",
    "precision",
)
OBSERVATION = "observation"
_LEADING_WORDS = re.compile(r"^(?:the|a|an|our|their|his|her|its|my|your|this|that)\s+")
_EDGE_PUNCT = " \t\n\"'“”‘’.,;:!?()[]"


@dataclass(frozen=True)
class GeneralisationRow:
    """One passage of the set, the claims it must yield and the sentences it must not."""

    id: str
    document_id: str
    register: str
    input: ExtractionInput
    expected: list[dict[str, Any]]
    dropped: list[dict[str, str]]


def _instant(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def load_half(half: str, data_dir: Path = DATA_DIR) -> list[GeneralisationRow]:
    """Read one half ("tune" or "holdout") of the set."""
    if half not in HALVES:
        raise ValueError(f"unknown half {half!r}; expected one of {HALVES}")
    path = data_dir / f"claims_generalisation_{half}.jsonl"
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    # As the pipeline does: the document's writer (an email's signature) is every prose
    # passage's `author`; a document is its rows' texts in order.
    texts: dict[str, list[str]] = {}
    for r in raw:
        texts.setdefault(r["document_id"], []).append(r["text"])
    writers = {doc: author("\n\n".join(parts)) for doc, parts in texts.items()}
    rows = []
    for r in raw:
        inp = ExtractionInput(
            text=r["text"],
            said_on=_instant(r["said_on"]),
            speaker=r["speaker"],
            document_title=r["document_title"],
            context=r["context"],
            author=None if r["speaker"] else writers[r["document_id"]],
        )
        rows.append(
            GeneralisationRow(
                r["id"], r["document_id"], r["register"], inp, r["expected"], r["dropped"]
            )
        )
    return rows


def scored_fields(claim: ExtractedClaim, vocabulary: PredicateVocabulary) -> list[dict[str, Any]]:
    """The one place that maps an extracted claim onto the scored fields: one dict for the
    claim's main statement, then one per further relation it states.

    It follows the normalizer: an attributed claim is an observation anchored on its holder; a
    claim with a subject, an object and a predicate phrase the vocabulary maps is that relation
    (subject and object swapped when the phrase is inverted, e.g. "manages"; a placement is
    membership when the object is a team); anything else is an observation on its subject. A
    relation's phase is the phrase's (joined: start, left: end), and its window is the state's:
    a start opens it, an end closes it at the end of the stated time.
    """
    common = {
        "phase": None,
        "polarity": claim.polarity,
        "is_attributed": claim.is_attributed,
        "holder": claim.holder,
        "valid_from": claim.claim_valid_from,
        "valid_until": claim.claim_valid_until,
        "precision": claim.claim_valid_precision,
    }
    if claim.is_attributed:
        main = {"subject": claim.holder, "object": None, "predicate": OBSERVATION} | common
    else:
        main = _relation_fields(
            claim, claim.subject_text, claim.predicate_text, claim.object_text, vocabulary
        )
    extras = [
        _relation_fields(
            claim if r.dated else _undated(claim),
            r.subject_text,
            r.predicate_text,
            r.object_text,
            vocabulary,
        )
        | {"is_attributed": False, "holder": None}
        for r in claim.extra_relations
    ]
    return [main, *(e for e in extras if e["predicate"] != OBSERVATION)]


def _undated(claim: ExtractedClaim) -> ExtractedClaim:
    """The claim as a role its apposition describes is read: held when said, no window."""
    return replace(
        claim,
        claim_valid_from=None,
        claim_valid_until=None,
        claim_valid_precision="unknown",
        claim_valid_kind=None,
    )


def _relation_fields(
    claim: ExtractedClaim,
    subject: str | None,
    predicate_text: str | None,
    obj: str | None,
    vocabulary: PredicateVocabulary,
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "subject": subject,
        "object": obj,
        "predicate": OBSERVATION,
        "phase": None,
        "polarity": claim.polarity,
        "is_attributed": claim.is_attributed,
        "holder": claim.holder,
        "valid_from": claim.claim_valid_from,
        "valid_until": claim.claim_valid_until,
        "precision": claim.claim_valid_precision,
    }
    if not (subject and obj and predicate_text):
        return fields
    stored = vocabulary.relation(subject, predicate_text, obj)
    if stored is None:
        return fields
    fields["subject"], directed, fields["object"] = stored
    fields["predicate"] = directed.predicate
    if directed.phase == "start":
        fields |= {"phase": "start", "valid_until": None}
        fields["precision"] = "open" if claim.claim_valid_from else "unknown"
    elif directed.phase == "end":
        fields |= {"phase": "end", "valid_from": None}
    return fields


def _entity_key(text: str | None) -> str | None:
    """Exact entity text up to case, a leading article or possessive, and edge punctuation."""
    if text is None:
        return None
    key = " ".join(text.strip(_EDGE_PUNCT).split()).lower()
    key = _LEADING_WORDS.sub("", key)
    key = re.sub(r"(?:'s|’s)$", "", key).strip(_EDGE_PUNCT)
    return key or None


def _options(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _same_time(got: datetime | None, want: str | None) -> bool:
    if got is None or want is None:
        return got is None and want is None
    if "T" in want:
        return got.astimezone(UTC) == _instant(want)
    return got.astimezone(UTC).date().isoformat() == want


def field_applies(name: str, exp: dict[str, Any], got: dict[str, Any]) -> bool:
    """Object is scored on relations only; phase where either side states one."""
    if name == "object":
        return exp["predicate"] is not None
    if name == "phase":
        return exp.get("phase") is not None or got["phase"] is not None
    return True


def field_correct(name: str, exp: dict[str, Any], got: dict[str, Any]) -> bool:
    """Whether the scored field `got[name]` is what the label `exp` says."""
    want = exp.get(name)
    value = got[name]
    if name in ("subject", "object", "holder"):
        return _entity_key(value) in {_entity_key(o) for o in _options(want)}
    if name == "predicate":
        return bool(value == (want or OBSERVATION))
    if name in ("valid_from", "valid_until"):
        return _same_time(value, want)
    return bool(value == want)


def _shown(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _contains(claim: ExtractedClaim, exp: dict[str, Any]) -> bool:
    text = claim.claim_text.lower()
    return all(part.lower() in text for part in exp["contains"])


def _match(
    expected: list[dict[str, Any]], fields: list[dict[str, Any]], claims: Sequence[ExtractedClaim]
) -> dict[int, int]:
    """Expected index -> claim index. Every claim whose text holds the `contains` words is a
    candidate; pairs that agree on more fields are taken first, so a compound sentence's two
    claims are not assigned crosswise."""
    pairs = []
    for ei, exp in enumerate(expected):
        for ci, claim in enumerate(claims):
            if _contains(claim, exp):
                agree = sum(
                    field_applies(n, exp, fields[ci]) and field_correct(n, exp, fields[ci])
                    for n in ("subject", "object", "predicate", "holder")
                )
                pairs.append((-agree, ei, ci))
    taken: dict[int, int] = {}
    used: set[int] = set()
    for _, ei, ci in sorted(pairs):
        if ei not in taken and ci not in used:
            taken[ei] = ci
            used.add(ci)
    return taken


class _Tally:
    """Counts for one slice (a half, or a register within it)."""

    def __init__(self) -> None:
        self.rows = self.tp = self.fp = self.fn = 0
        self.dropped = self.dropped_kept_out = 0
        self.dropped_by_reason: dict[str, list[int]] = {r: [0, 0] for r in DROP_REASONS}
        self.correct = dict.fromkeys(FIELDS, 0)
        self.total = dict.fromkeys(FIELDS, 0)

    def result(self) -> dict[str, Any]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "rows": self.rows,
            "expected_claims": self.tp + self.fn,
            "predicted_claims": self.tp + self.fp,
            "detection": {"precision": precision, "recall": recall, "f1": f1},
            "dropped_sentences": self.dropped,
            "dropped_accuracy": self.dropped_kept_out / self.dropped if self.dropped else None,
            "dropped_accuracy_by_reason": {
                r: (kept / n if n else None) for r, (kept, n) in self.dropped_by_reason.items()
            },
            "field_accuracy": {
                n: self.correct[n] / self.total[n] if self.total[n] else None for n in FIELDS
            },
            "field_counts": dict(self.total),
        }


def _overlaps(claim: ExtractedClaim, start: int, end: int) -> bool:
    return claim.char_start < end and start < claim.char_end


def _score_row(
    row: GeneralisationRow,
    claims: Sequence[ExtractedClaim],
    vocabulary: PredicateVocabulary,
    tallies: Iterable[_Tally],
    failures: list[dict[str, Any]] | None,
) -> None:
    tallies = list(tallies)
    # One unit per statement: a claim's main one, then the further relations it states.
    units = [(ci, f) for ci, c in enumerate(claims) for f in scored_fields(c, vocabulary)]
    fields = [f for _, f in units]
    unit_claims = [claims[ci] for ci, _ in units]
    matched = _match(row.expected, fields, unit_claims)
    matched_claims = {units[ui][0] for ui in matched.values()}
    # A claim none of whose statements was expected is spurious; an unmatched further
    # relation of a matched claim is a reading the labels did not ask for, not a claim.
    spurious = [c for ci, c in enumerate(claims) if ci not in matched_claims]
    for t in tallies:
        t.rows += 1
        t.fp += len(spurious)
    for ei, exp in enumerate(row.expected):
        if ei not in matched:
            if not exp.get("optional"):
                for t in tallies:
                    t.fn += 1
                if failures is not None:
                    failures.append({"id": row.id, "missed": exp["contains"]})
            continue
        if exp.get("optional"):
            # a secondary reading the labeller allows but does not require: it neither counts
            # nor makes the claim it absorbed spurious
            continue
        got = fields[matched[ei]]
        for t in tallies:
            t.tp += 1
        for name in FIELDS:
            if not field_applies(name, exp, got):
                continue
            ok = field_correct(name, exp, got)
            for t in tallies:
                t.total[name] += 1
                t.correct[name] += ok
            if not ok and failures is not None:
                failures.append(
                    {
                        "id": row.id,
                        "claim": exp["contains"],
                        "field": name,
                        "got": _shown(got[name]),
                        "want": exp.get(name),
                    }
                )
    for drop in row.dropped:
        start = row.input.text.find(drop["text"]) + row.input.base_offset
        end = start + len(drop["text"])
        kept_out = not any(_overlaps(c, start, end) for c in spurious)
        for t in tallies:
            t.dropped += 1
            t.dropped_kept_out += kept_out
            t.dropped_by_reason[drop["reason"]][0] += kept_out
            t.dropped_by_reason[drop["reason"]][1] += 1
        if not kept_out and failures is not None:
            failures.append({"id": row.id, "not_dropped": drop["reason"]})
    if failures is not None:
        failures.extend({"id": row.id, "spurious": c.claim_text} for c in spurious)


def extract_per_document(
    extractor: ClaimExtractor, rows: Sequence[GeneralisationRow]
) -> list[list[ExtractedClaim]]:
    """The claims of each row, extracted one document at a time as ingest does (a batch is one
    document version's passages): names one document's parse labels must not decide how
    another document's passages read."""
    by_document: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        by_document.setdefault(row.document_id, []).append(index)
    predicted: list[list[ExtractedClaim]] = [[] for _ in rows]
    for indices in by_document.values():
        for index, claims in zip(
            indices, extractor.extract_batch([rows[i].input for i in indices]), strict=True
        ):
            predicted[index] = claims
    return predicted


def score_generalisation(
    extractor: ClaimExtractor,
    rows: Sequence[GeneralisationRow],
    *,
    with_failures: bool,
    vocabulary: PredicateVocabulary | None = None,
) -> dict[str, Any]:
    """Detection, dropped-sentence accuracy and per-field accuracy, overall and per register.

    `with_failures` lists every miss, wrong field and spurious claim; pass it for the tune half
    only, never for the holdout."""
    vocabulary = vocabulary or PredicateVocabulary()
    predicted = extract_per_document(extractor, rows)
    overall = _Tally()
    per_register = {reg: _Tally() for reg in REGISTERS}
    failures: list[dict[str, Any]] | None = [] if with_failures else None
    for row, claims in zip(rows, predicted, strict=True):
        _score_row(row, claims, vocabulary, (overall, per_register[row.register]), failures)
    result = overall.result() | {
        "extractor": f"{extractor.name}/{extractor.version}",
        "per_register": {reg: t.result() for reg, t in per_register.items() if t.rows},
    }
    if failures is not None:
        result["failures"] = failures
    return result


def generalisation_report(extractor: ClaimExtractor, data_dir: Path = DATA_DIR) -> dict[str, Any]:
    """Both halves scored separately; failures only for the tune half."""
    return {
        half: score_generalisation(
            extractor, load_half(half, data_dir), with_failures=half == "tune"
        )
        for half in HALVES
    }


def _fmt(value: float | None) -> str:
    return "   n/a" if value is None else f"{value:6.3f}"


def print_generalisation(report: dict[str, Any]) -> None:
    """The per-field table: one column per half, then detection F1 per register."""
    tune, holdout = report["tune"], report["holdout"]
    print(f"claims generalisation set ({tune['extractor']}): tune / holdout")
    print(f"{'metric':<26}{'tune':>8}{'holdout':>9}   n (tune / holdout)")
    for name in ("precision", "recall", "f1"):
        t, h = tune["detection"][name], holdout["detection"][name]
        print(f"{'detection ' + name:<26}{_fmt(t):>8}{_fmt(h):>9}")
    print(
        f"{'dropped-sentence accuracy':<26}{_fmt(tune['dropped_accuracy']):>8}"
        f"{_fmt(holdout['dropped_accuracy']):>9}   "
        f"{tune['dropped_sentences']} / {holdout['dropped_sentences']}"
    )
    for name in FIELDS:
        t, h = tune["field_accuracy"][name], holdout["field_accuracy"][name]
        counts = f"{tune['field_counts'][name]} / {holdout['field_counts'][name]}"
        print(f"{name + ' accuracy':<26}{_fmt(t):>8}{_fmt(h):>9}   {counts}")
    for reg in REGISTERS:
        t = tune["per_register"].get(reg, {}).get("detection", {}).get("f1")
        h = holdout["per_register"].get(reg, {}).get("detection", {}).get("f1")
        print(f"{'detection f1 ' + reg:<26}{_fmt(t):>8}{_fmt(h):>9}")
