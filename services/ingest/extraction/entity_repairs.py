"""Repairs of the small English model's NER spans that the same model's parse contradicts.

- **A name span across a verb.** "Ahmed joined Cobaltline in 2019", "Hana manages Mateus and
  four other engineers" come out as one ORG entity covering subject, verb and object, while the
  parser reads the verb correctly. No name contains a lower-case verb of its own sentence, so
  the span is cut at its verbs; each side that still holds a proper noun stays a name, a person
  when it opens with a common given name, else with the label the span had.
- **A name span across a preposition of the clause.** "was hired by Brightwave from Halden
  Group" gives one ORG "Brightwave from Halden Group", and "started at Pellucid on 2 June" one
  "Pellucid on 2 June", stored as the employer. A lower-case preposition whose head the parse
  puts outside the span, or that opens a date, is the clause's: the span is cut there, each
  side holding a proper noun stays a name, and a date is none. "left Pellion for Sardis Bank"
  is cut at its "for" too, which the parser hangs on the employer left.
- **Half a hyphenated name.** "Hyun-woo will report to Declan" gives the PERSON "Hyun": the
  span takes the rest of the hyphenated word.
- **A name swallowed by a date.** "From 1 June Ben takes over the rota" gives the DATE "1 June
  Ben". Capitalised proper nouns after the date's own words, the first a clause's subject (or
  its compound), are a name of their own.
- **A month compounded onto a name.** "Since 3 May Priya owns the runbook" makes "May" a
  compound of "Priya"; after a day number it is the date's head (`_month_off_a_name`).
- **A possessive ending inside a span.** "In Dana Kim's opinion" may give the PERSON "Dana
  Kim's"; a pronoun meaning her then said "Dana Kim's". The span ends before the "'s".
- **A person span without its given name.** "Tomasz Nowak is leaving" may give the PERSON
  "Nowak" alone, though the parser hangs "Tomasz" on it as a compound; a pronoun meaning him
  would then say "Nowak"; "Ana Lima" may give the place "Lima". A given name compounded onto
  a person span's word (or a one-word name span's), right before it and in no span of its
  own, is the span's first word, and the span a person.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.names import CALENDAR_WORDS, NAME_LABELS
from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name
from shared.text.temporal import MONTHS

__all__ = ["repair_entities"]


_VERB_TAGS = frozenset({"VERB", "AUX"})
_LEAVING = frozenset({"leave", "quit", "exit", "ditch"})


def repair_entities(doc: Any) -> Any:
    """A spaCy pipeline component (after the parser and NER): re-cut crossing name spans."""
    from spacy.tokens import Span

    for tok in doc:
        _month_off_a_name(tok)
    spans: list[Any] = []
    changed = False
    for ent in doc.ents:
        start, joined = _hyphen_start(ent), _hyphen_end(ent)
        if (start, joined) != (ent.start, ent.end):
            # "Hyun-woo", "Jean-Luc": a hyphenated name is one name, NER took half of it
            # ("Hyun-woo Bae" gave the place "Bae"), so the span takes the whole of it.
            ent = Span(doc, start, joined, label="PERSON" if start < ent.start else ent.label_)
            changed = True
        given = _given_name_before(ent)
        if given is not None:
            ent = Span(doc, given.i, ent.end, label="PERSON")
            changed = True
        if len(ent) > 1 and ent[-1].tag_ == "POS":
            # "In [Dana Kim's] opinion": the possessive ending is no part of the name.
            ent = Span(doc, ent.start, ent.end - 1, label=ent.label_)
            changed = True
        name_at = _name_after_date(ent)
        if name_at is not None:
            # "From 1 June Ben takes over the rota": NER ran the date on into the name.
            first = normalize_name(doc[name_at].text)
            spans.append(Span(doc, ent.start, name_at, label=ent.label_))
            spans.append(
                Span(doc, name_at, ent.end, label="PERSON" if is_given_name(first) else "ORG")
            )
            changed = True
            continue
        if ent.label_ not in NAME_LABELS or not any(_breaks(t, ent) for t in ent):
            spans.append(ent)
            continue
        changed = True
        for n, (start, end) in enumerate(_pieces(ent)):
            first = doc[start].text
            label = "PERSON" if is_given_name(normalize_name(first)) else ent.label_
            if n and label == "PERSON" and doc[start - 1].text == "(":
                label = "ORG"  # "Jun Park (Koto Labs)": what the brackets name is no person
            spans.append(Span(doc, start, end, label=label))
    if changed:
        doc.ents = spans
    return doc


def _hyphen_end(ent: Any) -> int:
    """Where a name span ends once the rest of a hyphenated word is in it."""
    doc, end = ent.doc, ent.end
    while (
        end + 1 < len(doc)
        and doc[end].text in ("-", "‐")
        and not doc[end - 1].whitespace_
        and not doc[end].whitespace_
        and doc[end + 1].is_alpha
        and not doc[end + 1].ent_type_
    ):
        end += 2
    return int(end)


def _hyphen_start(ent: Any) -> int:
    """Where a name span starts once a hyphenated given name right before it is in it."""
    doc, start = ent.doc, ent.start
    if start < 3:
        return int(start)
    first, hyphen, second = doc[start - 3], doc[start - 2], doc[start - 1]
    if (
        hyphen.text in ("-", "‐")
        and not first.whitespace_
        and not hyphen.whitespace_
        and second.whitespace_
        and first.text[:1].isupper()
        and first.is_alpha
        and second.is_alpha
        and not first.ent_type_
    ):
        return int(start - 3)
    return int(start)


def _name_after_date(ent: Any) -> int | None:
    """Where a name begins that a date span swallowed: capitalised proper nouns that are no
    calendar words, after the date's own words, the first of them a clause's subject."""
    if ent.label_ not in ("DATE", "TIME"):
        return None
    at: int = ent.end
    while at > ent.start and _name_word(ent.doc[at - 1]):
        at -= 1
    if at in (ent.start, ent.end) or ent.doc[at].dep_ not in ("nsubj", "nsubjpass", "compound"):
        return None
    return at


def _name_word(tok: Any) -> bool:
    return bool(
        tok.pos_ == "PROPN"
        and tok.text[:1].isupper()
        and tok.lower_ not in CALENDAR_WORDS
        and not tok.like_num
    )


def _month_off_a_name(month: Any) -> None:
    """ "Since 3 May Priya owns the runbook": the parser compounds "May" onto the name and
    leaves "3" the preposition's object. A month name after a day number is the date's head,
    so the name after it is one word of its own."""
    if month.lower_ not in MONTHS or month.dep_ != "compound" or month.i == 0:
        return
    day = month.doc[month.i - 1]
    if not (day.like_num and day.dep_ == "pobj" and day.head.pos_ in ("ADP", "SCONJ")):
        return
    month.head, month.dep_ = day.head, "pobj"
    day.head, day.dep_ = month, "nummod"


def _given_name_before(ent: Any) -> Any | None:
    """The given name right before a person span that the parser compounds onto it."""
    if ent.start == 0 or not (
        ent.label_ == "PERSON" or (len(ent) == 1 and ent.label_ in NAME_LABELS)
    ):
        return None  # "Ana [Lima]" tagged a place: a surname after a given name
    before = ent.doc[ent.start - 1]
    if (
        before.ent_type_
        or before.pos_ != "PROPN"
        or before.dep_ != "compound"
        or not ent.start <= before.head.i < ent.end
        or not before.text[:1].isupper()
        or not is_given_name(normalize_name(before.text))
    ):
        return None
    return before


def _clause_verb(tok: Any) -> bool:
    """A verb of the sentence: lower-case, or its imperative opener ("Meet Ravi Patel")."""
    opener = tok.i == tok.sent.start and tok.tag_ == "VB"
    return tok.pos_ in _VERB_TAGS and (tok.text[:1].islower() or opener)


def _breaks(tok: Any, ent: Any) -> bool:
    """Whether the span crosses a clause's own word here: a lower-case verb, or a lower-case
    preposition that the parse hangs outside the span ("Brightwave [from] Halden Group" under
    "hired") or that opens a date ("Pellucid [on] 2 June"). "Bank of America" keeps its "of",
    whose head is inside the name."""
    if _clause_verb(tok) or tok.text in ("(", ")"):
        return True  # a bracket ends a name: "Jun Park (Koto Labs)" is two
    if tok.i > ent.start and "\n" in tok.doc[tok.i - 1].whitespace_:
        return True  # no name runs over a line break ("Lucia Moreno\nStatus: green")
    if tok.pos_ != "ADP" or not tok.is_lower or tok.i in (ent.start, ent.end - 1):
        return False
    after = tok.doc[tok.i + 1]
    dated = after.like_num or after.lower_ in CALENDAR_WORDS
    # "left Pellion for Sardis Bank": the new employer, however the parser hangs the "for".
    left_for = tok.lower_ == "for" and tok.head.head.lemma_.lower() in _LEAVING
    return dated or left_for or not ent.start <= tok.head.i < ent.end


def _pieces(ent: Any) -> list[tuple[int, int]]:
    """The runs of `ent` between its breaks, trimmed to start and end on a proper noun; a run
    that is only a date ("2 June") is no name."""
    pieces: list[tuple[int, int]] = []
    run: list[Any] = []
    for tok in [*ent, None]:
        if tok is not None and not _breaks(tok, ent):
            run.append(tok)
            continue
        proper = [t for t in run if t.pos_ == "PROPN"]
        if proper and not all(t.lower_ in CALENDAR_WORDS for t in proper):
            pieces.append((proper[0].i, proper[-1].i + 1))
        run = []
    return pieces
