"""Offline rule-based claim extractor over a spaCy parse (no model calls, deterministic)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from services.ingest.extraction.addressees import addressee
from services.ingest.extraction.argument_names import object_text, subject_text
from services.ingest.extraction.arguments import (
    Phrase,
)
from services.ingest.extraction.attribution import find_attribution
from services.ingest.extraction.base import (
    ExtractedClaim,
    ExtractionInput,
    Span,
)
from services.ingest.extraction.cancellations import about_what_is_called_off
from services.ingest.extraction.claim_fields import (
    POSSESSIVE,
    extra_relations,
    holder_name,
    holder_phrase,
    polarity,
)
from services.ingest.extraction.claim_time import (
    claim_kind,
    date_since_then,
    share_job_change_dates,
    temporal_tokens,
)
from services.ingest.extraction.claim_windows import WindowReader
from services.ingest.extraction.clauses import Clause, note_clause, split_clauses
from services.ingest.extraction.coref import Mention, Rewriter, ShortForms
from services.ingest.extraction.dates import DateResolver
from services.ingest.extraction.frames import Relation, read_frame
from services.ingest.extraction.markers import mask_markers
from services.ingest.extraction.mentions import (
    PERSON_LABEL,
    entity_label,
    full_names,
    lone_names,
    mentions,
    organisations_named,
    subject_things,
    title_topic,
)
from services.ingest.extraction.person_lines import person_line
from services.ingest.extraction.role_lines import (
    heading_topic,
    opened_at,
    role_claim,
    role_line,
    value_since,
)
from services.ingest.extraction.sections import lists_members, member_line, section_topic
from services.ingest.extraction.selection import drop_reason
from services.ingest.extraction.signatures import signature, signature_claim
from services.ingest.extraction.spacy_pipeline import SPACY_MODEL, load_pipeline
from services.ingest.extraction.speaker_labels import (
    introduced,
    part_label_blanked,
    speaker_label,
    speaker_lines,
)
from services.ingest.extraction.successors import left_held_post, took_over_from

__all__ = ["SPACY_MODEL", "RulesExtractor", "load_rules_extractor"]

_PRONOUN_RE = re.compile(r"\b(he|she|him|her|his|hers|it|its|they|them|their)\b", re.I)
_CONTEXT_NER_CHARS = 300
# Passages opening with a pronoun for a thing or an organisation named just before.
_OPENING_PRONOUNS = frozenset({"it", "its", "they", "their"})
_INNER_NAME_RE = re.compile(r"[a-z,] ([A-Z][a-z]+(?: [A-Z][a-z]+)*)")


def load_rules_extractor() -> RulesExtractor:
    """The rules extractor with the packaged small English pipeline, loaded on first use."""
    return RulesExtractor(load_pipeline)


class RulesExtractor:
    """Sentences → clauses → filters → attribution, coreference and dates → claims."""

    name = "rules"
    version = "2.20.0"

    def __init__(self, nlp_loader: Callable[[], Any], batch_size: int = 128) -> None:
        self._loader = nlp_loader
        self._nlp: Any | None = None
        self._batch_size = batch_size
        self._dates = DateResolver()
        self._windows = WindowReader(self._dates)
        self.last_sentence_count = 0

    def _pipeline(self) -> Any:
        if self._nlp is None:
            self._nlp = self._loader()
        return self._nlp

    def extract_batch(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        """Extract claims from each input (one list per input, in order)."""
        self._pipeline()  # loaded first: reading chat lines uses its English word lists
        pieces = [
            (index, piece) for index, inp in enumerate(inputs) for piece in speaker_lines(inp)
        ]
        found: list[list[ExtractedClaim]] = [[] for _ in inputs]
        for (index, _), claims in zip(
            pieces, self._extract_pieces([p for _, p in pieces]), strict=True
        ):
            found[index].extend(claims)
        return found

    def _extract_pieces(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        nlp = self._pipeline()
        inputs = [_with_speaker_label(i) for i in inputs]
        # Discourse markers ("Update:", "Correction:") are blanked, not cut, so offsets hold.
        masked = [mask_markers(i.text) for i in inputs]
        docs = list(nlp.pipe(masked, batch_size=self._batch_size))
        self.last_sentence_count = sum(1 for doc in docs for _ in doc.sents)
        known: dict[str, str] = {}
        seen: set[str] = set()
        for doc in docs:
            for ent in doc.ents:
                seen.add(ent.text)
                label = entity_label(ent.label_)
                # "Challenges will come": a common word opening a sentence names nothing
                opener = len(ent) == 1 and ent[0].is_sent_start and ent[0].pos_ != "PROPN"
                if label and not opener:
                    known.setdefault(ent.text, label)
        for tail_doc in self._context_docs(nlp, inputs, seen):
            for ent in tail_doc.ents:
                label = entity_label(ent.label_)
                opener = len(ent) == 1 and ent[0].is_sent_start and ent[0].pos_ != "PROPN"
                if label and not opener:
                    # NER alone (no repairs here) may end a name with its possessive.
                    name = (
                        ent[:-1].text if len(ent) > 1 and ent[-1].lower_ in POSSESSIVE else ent.text
                    )
                    known.setdefault(name, label)
        for inp in inputs:
            for person in (inp.speaker, inp.author):
                if person:
                    known[person] = PERSON_LABEL
        titles = sorted(
            {i.document_title for i in inputs if i.document_title}
            | {h for i in inputs for h in i.headings}
        )
        topics = dict(
            zip(
                titles, map(title_topic, nlp.pipe(titles, batch_size=self._batch_size)), strict=True
            )
        )
        before = self._antecedents_before(nlp, inputs, docs, topics)
        return [
            self._extract_one(inp, doc, known, before.get(i, []), section_topic(inp, topics))
            for i, (inp, doc) in enumerate(zip(inputs, docs, strict=True))
        ]

    def _antecedents_before(
        self,
        nlp: Any,
        inputs: Sequence[ExtractionInput],
        docs: Sequence[Any],
        topics: dict[str, str | None],
    ) -> dict[int, list[Mention]]:
        """For passages that open with "It …": the things the preceding text's last sentence
        was about ("Orion shipped in January." then "It went live …"), from a parse of the
        context's tail. Only those passages pay for the parse."""
        wanted = {
            i: inp.context[-_CONTEXT_NER_CHARS:]
            for i, (inp, doc) in enumerate(zip(inputs, docs, strict=True))
            if inp.context and len(doc) and doc[0].lower_ in _OPENING_PRONOUNS
        }
        if not wanted:
            return {}
        tails = sorted(set(wanted.values()))
        parsed = dict(zip(tails, nlp.pipe(tails, batch_size=self._batch_size), strict=True))
        found: dict[int, list[Mention]] = {}
        for i, tail in wanted.items():
            sents = list(parsed[tail].sents)
            if not sents:
                continue
            last = about = sents[-1]
            if len(sents) > 1 and _pronoun_subject(last):
                # "Halcyon Bio has been a customer since 2023. They use our Lab Scheduler …":
                # the pronoun continued the subject before it, which is still what is meant.
                about = sents[-2]
            topic = topics.get(inputs[i].document_title or "")
            things = subject_things(ExtractionInput(text=tail), about.as_doc(), {}, topic)
            found[i] = [
                Mention(
                    m.name,
                    m.label,
                    m.position + about.start_char - len(tail),
                    is_subject=m.is_subject,
                )
                for m in things
            ]
            # "Quick recap of the call with Grayhaven. Their procurement lead, …": an
            # organisation named anywhere in that sentence, which the small NER may miss.
            found[i] += [
                Mention(text, "ORG", start - len(tail))
                for text, start in organisations_named(last)
                if all(m.name != text or m.label != "ORG" for m in found[i])
            ]
        return found

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
        self,
        inp: ExtractionInput,
        doc: Any,
        known: dict[str, str],
        before: list[Mention],
        topic: str | None,
    ) -> list[ExtractedClaim]:
        short_forms = ShortForms.from_names(full_names(inp, doc, known))
        if inp.speaker and " " not in inp.speaker:
            # "Selam: starting on the churn model today" under "Standup — Selam Tesfaye, …".
            inp = replace(inp, speaker=short_forms.expand(inp.speaker) or inp.speaker)
        named = before + mentions(inp, doc, known, short_forms.expand, topic)
        lone = lone_names(doc, short_forms)
        addressed = addressee(doc, known, short_forms.expand, inp.speaker, inp.context)
        first_person = inp.speaker or inp.author
        claims: list[ExtractedClaim] = []
        signed = signature(inp.text)
        if signed is not None and signed.organisation is not None:
            claims.append(signature_claim(inp, signed))
        document_topic = topic
        for sent in doc.sents:
            if signed is not None and sent.start_char >= signed.start:
                break  # "Best, / Nadia Rahman / Head of Partnerships, Tessel Labs": read above
            heading = heading_topic(sent)
            if heading is not None:  # "Project Kite" over "Owner: …", "Status: …" lines
                topic = heading
                continue
            if topic is not document_topic and sent.text.strip() and _after_blank_line(sent):
                topic = document_topic  # the heading's block ended
            found: list[tuple[ExtractedClaim, str]] = []
            clauses = None
            line = (
                (member_line(sent) if lists_members(inp) else None)
                or role_line(sent)
                or person_line(sent)
            )
            if line is not None:  # "Owner: Lucia Moreno": no clause the parser reads well
                render = Rewriter(
                    named, first_person, inp.document_title, inp.base_offset, short_forms, lone
                ).render
                since = self._dates.resolve(line.since, inp.said_on) if line.since else None
                claim = role_claim(inp, sent, line, partial(render, capitalise=False), topic, since)
                if claim is not None:
                    claims.append(claim)
                    # "(Felix moved to the Growth team)": the line's note is a clause of its own.
                    noted = note_clause(sent, line.note) if line.note else None
                    clauses = [noted] if noted is not None else []
            for clause in split_clauses(sent) if clauses is None else clauses:
                rewriter = Rewriter(
                    named,
                    first_person,
                    inp.document_title,
                    inp.base_offset,
                    short_forms,
                    lone,
                    addressed,
                    topic,
                )
                built = self._claim(inp, sent, clause, rewriter, topic)
                if built is not None:
                    found.append(built)
            value_date = value_since(sent)  # "Budget: $150k (raised on 20 February)"
            opened = self._dates.resolve(value_date, inp.said_on) if value_date else None
            if opened is not None:
                found = [(opened_at(claim, opened), lemma) for claim, lemma in found]
            claims.extend(share_job_change_dates(found))
        return date_since_then(took_over_from(left_held_post(claims)))

    def _claim(
        self,
        inp: ExtractionInput,
        sent: Any,
        clause: Clause,
        rewriter: Rewriter,
        topic: str | None,
    ) -> tuple[ExtractedClaim, str] | None:
        attribution = find_attribution(clause.head)
        content = attribution.content if attribution else clause.head
        if attribution is not None and attribution.asserted:
            attribution = None  # a decision the writers report: its content is the claim
        if drop_reason(sent, clause, content, attribution is not None):
            return None
        holder = None
        temporal = temporal_tokens(clause)
        inside = {t.i for t in clause.tokens}
        shared = clause.shared_subject
        if shared is not None:
            inside |= {t.i for t in clause.subject_tokens} | {shared.i}
        holder_roles: tuple[Relation, ...] = ()
        if attribution is not None:
            held_by = holder_phrase(attribution.holder_tokens, inside)
            holder = holder_name(sorted(held_by.tokens, key=lambda t: t.i), rewriter, inp.speaker)
            # The holder's role is held as of the telling, not at the time of what they say
            # ("Sabine Hart, CEO of Fenwick, said the arm will ship in July").
            holder_roles = tuple(
                Relation(Phrase(held_by.tokens), role.predicate, Phrase(role.target), False)
                for role in held_by.roles
            )
        frame = read_frame(content, inside, temporal, shared)
        frame = replace(
            frame,
            main=about_what_is_called_off(frame.main, content),
            extras=holder_roles + frame.extras,
        )
        first, last = clause.tokens[0], clause.tokens[-1]
        local_start, local_end = first.idx, last.idx + len(last.text)
        window = self._windows.read(inp.text, clause, content, inp.said_on, temporal)
        kind = claim_kind(content, clause, window)
        claim_text = rewriter.render(clause.tokens)
        if clause.subject_tokens:
            subject = rewriter.render(clause.subject_tokens)
            claim_text = f"{subject} {claim_text[:1].lower()}{claim_text[1:]}"
        # Masked marks ("**Headcount:** 8") left runs of spaces: a claim reads as one line.
        claim_text = re.sub(r"[ \t]{2,}", " ", re.sub(r"[.!]+$", "", claim_text)).strip()
        main = frame.main
        start = inp.base_offset + local_start
        end = inp.base_offset + local_end
        evidence = [Span(start, end, inp.text[local_start:local_end])]
        if clause.subject_tokens:
            s_tokens = clause.subject_tokens
            s_start, s_end = s_tokens[0].idx, s_tokens[-1].idx + len(s_tokens[-1].text)
            evidence.append(
                Span(inp.base_offset + s_start, inp.base_offset + s_end, inp.text[s_start:s_end])
            )
        for m in rewriter.used:
            if m.char_start is not None and m.char_end is not None:
                span = Span(m.char_start, m.char_end, m.name)
                if span not in evidence:
                    evidence.append(span)
        subject_name = subject_text(main.subject, rewriter, topic, inp, attribution)
        object_name = object_text(main.object, rewriter, topic, inp)
        if main.predicate == "be" and object_name and object_name in (subject_name, inp.speaker):
            # "I'm Tomasz Wrobel", "it's Tomasz again", said by him: an introduction
            return None
        claim = ExtractedClaim(
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
            polarity=polarity(clause, content, attribution),
            subject_text=subject_name,
            predicate_text=main.predicate,
            object_text=object_name,
            extra_relations=extra_relations(frame, rewriter, (subject_name, object_name)),
        )
        return claim, content.lemma_.lower()


def _pronoun_subject(sent: Any) -> bool:
    """Whether the sentence's main subject is "it" or "they"."""
    return any(
        t.dep_ in ("nsubj", "nsubjpass") and t.head.i == sent.root.i and t.lower_ in ("it", "they")
        for t in sent
    )


def _after_blank_line(sent: Any) -> bool:
    before: str = sent.doc.text[: sent.start_char]
    return before.rstrip(" \t").endswith("\n\n")


def _with_speaker_label(inp: ExtractionInput) -> ExtractionInput:
    """A prose line opening with a person's name and a colon is that person speaking
    ("Dmitri: blocked on access to the S3 bucket")."""
    if inp.speaker is not None:
        return inp
    found = speaker_label(inp.text, introduced(f"{inp.context or ''}\n{inp.text}"))
    if found is None:
        blanked = part_label_blanked(inp.text)  # "Assistant: Congratulations!"
        return inp if blanked is None else replace(inp, text=blanked)
    name, text = found
    return replace(inp, speaker=name, text=text)
