"""The claims generalisation set: schema of every row, the 70/30 split, and the per-field scorer."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from bench.extraction_generalisation import (
    DATA_DIR,
    DROP_REASONS,
    FIELDS,
    HALVES,
    PHASES,
    PRECISIONS,
    REGISTERS,
    field_correct,
    load_half,
    score_generalisation,
    scored_fields,
)
from bench.locomo_entities import LABELLED
from services.adjudicator.normalization import PredicateVocabulary
from services.adjudicator.predicates import CORE_PREDICATES
from services.ingest.extraction.base import ExtractedClaim
from shared.beliefs.slots import OWNED_BY_ESCAPE

ROW_FIELDS = {
    "id",
    "document_id",
    "register",
    "text",
    "said_on",
    "speaker",
    "document_title",
    "context",
    "expected",
    "dropped",
}
CLAIM_FIELDS = {
    "contains",
    "subject",
    "object",
    "predicate",
    "polarity",
    "is_attributed",
    "holder",
    "valid_from",
    "valid_until",
    "precision",
}
OPTIONAL_CLAIM_FIELDS = {"phase", "optional"}


def _raw(half: str) -> list[dict[str, Any]]:
    path = DATA_DIR / f"claims_generalisation_{half}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def halves() -> dict[str, list[dict[str, Any]]]:
    return {half: _raw(half) for half in HALVES}


def _when(value: str) -> datetime:
    if "T" in value:
        assert value.endswith("Z"), value
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)


def _entity_texts(value: Any) -> list[str | None]:
    return value if isinstance(value, list) else [value]


def _check_claim(row: dict[str, Any], claim: dict[str, Any]) -> None:
    rid = row["id"]
    assert CLAIM_FIELDS <= claim.keys() <= CLAIM_FIELDS | OPTIONAL_CLAIM_FIELDS, rid
    assert 1 <= len(claim["contains"]) <= 4 and all(p.strip() for p in claim["contains"]), rid
    # The core vocabulary, or the owner escape the default vocabulary stores owners under.
    assert claim["predicate"] in (None, *CORE_PREDICATES, OWNED_BY_ESCAPE), rid
    assert claim.get("phase") in (None, *PHASES), rid
    assert claim["polarity"] in ("positive", "negative"), rid
    assert claim["precision"] in PRECISIONS, rid
    assert claim["is_attributed"] == (claim["holder"] is not None), rid
    if claim["predicate"] is not None:
        assert None not in _entity_texts(claim["subject"]), rid
        assert None not in _entity_texts(claim["object"]), rid
    else:
        assert claim["object"] is None, rid
    start, end = claim["valid_from"], claim["valid_until"]
    if claim["precision"] == "unknown":
        assert start is None and end is None, rid
    elif claim["precision"] == "open":
        assert start is not None and end is None, rid
    else:
        assert start is not None or end is not None, rid
    if start is not None and end is not None:
        assert _when(start) <= _when(end), rid
    for value in (start, end):
        if value is not None:
            _when(value)
            if "T" in value:
                assert claim["precision"] in ("instant", "open"), rid
            elif claim["precision"] == "instant":
                raise AssertionError(f"{rid}: an instant needs a clock time")
    known = " ".join(
        filter(None, (row["text"], row["context"], row["document_title"], row["speaker"]))
    ).lower()
    for key in ("subject", "object", "holder"):
        names = [n for n in _entity_texts(claim[key]) if n]
        assert not names or any(n.lower() in known for n in names), (rid, key, names)


def test_every_row_has_known_fields_valid_enums_and_valid_dates(
    halves: dict[str, list[dict[str, Any]]],
) -> None:
    for rows in halves.values():
        for row in rows:
            assert set(row) == ROW_FIELDS, row["id"]
            assert row["register"] in REGISTERS
            assert row["id"].startswith(row["document_id"] + "-")
            _when(row["said_on"])
            assert row["expected"] or row["dropped"], row["id"]
            for claim in row["expected"]:
                _check_claim(row, claim)
            for drop in row["dropped"]:
                assert set(drop) == {"text", "reason"}
                assert drop["reason"] in DROP_REASONS
                assert drop["text"] in row["text"], row["id"]


def test_set_has_300_rows_in_six_registers_split_70_30_by_whole_documents(
    halves: dict[str, list[dict[str, Any]]],
) -> None:
    tune, holdout = halves["tune"], halves["holdout"]
    ids = [r["id"] for r in tune + holdout]
    assert len(ids) == len(set(ids)) >= 300
    assert {r["document_id"] for r in tune}.isdisjoint({r["document_id"] for r in holdout})
    per_register = {h: Counter(r["register"] for r in rows) for h, rows in halves.items()}
    assert set(per_register["tune"]) == set(per_register["holdout"]) == set(REGISTERS)
    for register in REGISTERS:
        total = per_register["tune"][register] + per_register["holdout"][register]
        assert total >= 50, register
        assert 0.25 <= per_register["holdout"][register] / total <= 0.35, register


def test_hand_labelled_locomo_phrases_have_a_label_role_and_source_claim() -> None:
    for path in LABELLED.values():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 100
        for row in rows:
            assert isinstance(row["junk"], bool)
            assert row["role"] in ("subject", "object")
            assert row["phrase"].strip() and row["claim_text"].strip()


def _claim(text: str, **fields: Any) -> ExtractedClaim:
    base = ExtractedClaim(
        claim_text=text,
        char_start=0,
        char_end=len(text),
        source_span=text,
        evidence_spans=(),
        claim_valid_from=None,
        claim_valid_until=None,
        claim_valid_precision="unknown",
        claim_valid_kind=None,
        is_attributed=False,
        holder=None,
        polarity="positive",
        subject_text=None,
        predicate_text=None,
        object_text=None,
    )
    return replace(base, **fields)


def test_inverted_predicate_phrase_scores_as_the_relation_with_roles_swapped() -> None:
    expected = {
        "subject": "Mateus Oliveira",
        "object": "Hana Kobayashi",
        "predicate": "reports_to",
    }
    claim = _claim(
        "Hana Kobayashi manages Mateus Oliveira",
        subject_text="Hana Kobayashi",
        predicate_text="manages",
        object_text="the Mateus Oliveira",
    )
    (got,) = scored_fields(claim, PredicateVocabulary())
    assert all(field_correct(name, expected, got) for name in expected)
    (unmapped,) = scored_fields(replace(claim, predicate_text="admires"), PredicateVocabulary())
    assert unmapped["predicate"] == "observation"
    assert not field_correct("subject", expected, unmapped)


def test_attributed_claim_scores_as_an_observation_on_its_holder_with_dates_compared() -> None:
    expected = {
        "subject": "Miriam Adeyemi",
        "predicate": None,
        "holder": "Miriam Adeyemi",
        "is_attributed": True,
        "valid_from": "2026-09-01",
        "valid_until": "2026-09-30",
        "precision": "month",
    }
    claim = _claim(
        "Miriam Adeyemi expects the Basel lab to move over in late Q3",
        is_attributed=True,
        holder="Miriam Adeyemi",
        subject_text="the Basel lab",
        predicate_text="move",
        object_text="Basel",
        claim_valid_from=datetime(2026, 9, 1, tzinfo=UTC),
        claim_valid_until=datetime(2026, 9, 30, tzinfo=UTC),
        claim_valid_precision="month",
    )
    (got,) = scored_fields(claim, PredicateVocabulary())
    assert all(field_correct(name, expected, got) for name in expected)
    whole_quarter = replace(claim, claim_valid_from=datetime(2026, 7, 1, tzinfo=UTC))
    assert not field_correct(
        "valid_from", expected, scored_fields(whole_quarter, PredicateVocabulary())[0]
    )


def test_a_further_relation_scores_as_its_own_statement_with_its_phase() -> None:
    from services.ingest.extraction.base import ExtractedRelation

    claim = _claim(
        "Omar was hired by Umbrella from Hooli in January",
        subject_text="Omar",
        predicate_text="hire by",
        object_text="Umbrella",
        extra_relations=(ExtractedRelation("Omar", "leave", "Hooli"),),
        claim_valid_from=datetime(2026, 1, 1, tzinfo=UTC),
        claim_valid_until=datetime(2026, 1, 31, tzinfo=UTC),
        claim_valid_precision="month",
    )
    hired, left = scored_fields(claim, PredicateVocabulary())
    assert (hired["object"], hired["predicate"], hired["phase"]) == (
        "Umbrella",
        "works_for",
        "start",
    )
    assert (hired["valid_until"], hired["precision"]) == (None, "open")
    assert (left["object"], left["predicate"], left["phase"]) == ("Hooli", "works_for", "end")
    assert (left["valid_from"], left["valid_until"]) == (None, datetime(2026, 1, 31, tzinfo=UTC))


def test_scorer_on_a_few_tune_rows_reports_every_field_and_counts_each_labelled_claim() -> None:
    from services.ingest.extraction.rules import load_rules_extractor

    extractor = load_rules_extractor()
    rows = load_half("tune")
    sample = [next(r for r in rows if r.register == reg) for reg in REGISTERS]
    result = score_generalisation(extractor, sample, with_failures=True)
    required = sum(1 for r in sample for c in r.expected if not c.get("optional"))
    assert result["rows"] == len(sample)
    assert result["expected_claims"] == required
    assert result["dropped_sentences"] == sum(len(r.dropped) for r in sample)
    assert set(result["field_accuracy"]) == set(FIELDS)
    assert set(result["per_register"]) == set(REGISTERS)
    for value in result["field_accuracy"].values():
        assert value is None or 0.0 <= value <= 1.0
    holdout = score_generalisation(extractor, load_half("holdout")[:3], with_failures=False)
    assert "failures" not in holdout
