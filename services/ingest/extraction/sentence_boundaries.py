"""Sentence boundaries set before the parser (which respects them): a semicolon, a line
ending in a full stop before a capitalised line, and the lines of a key-value list; and where
the parser may not cut: between a key and its value, inside a short line."""

from __future__ import annotations

import re
from typing import Any

from services.ingest.extraction.names import CALENDAR_WORDS

__all__ = ["is_emoji", "sentence_boundaries"]


def sentence_boundaries(doc: Any) -> Any:
    """A semicolon ends a statement ("the cutover is done; Kafka now carries refunds"), and so
    does a line ending in a full stop: the parser respects boundaries set before it, so each
    side gets a parse of its own."""
    for tok in doc[:-1]:
        if tok.text == ";":
            doc[tok.i + 1].is_sent_start = True
        elif "\n" in tok.whitespace_ or (tok.is_space and "\n" in tok.text):
            # A line that ends a sentence ("improved to 3h 10m.") and a capitalised line after
            # it are two statements; a hard-wrapped sentence runs on in lower case or without
            # its full stop.
            before = tok if not tok.is_space else doc[tok.i - 1] if tok.i else None
            after = next((t for t in doc[tok.i + 1 :] if not t.is_space), None)
            if before is not None and after is not None and _list_item(tok, before, after):
                # "- Chloe to own the shortlist" / "- budget is $80k": the bullets were masked
                # to spaces before the parse, so an item shows as an indented line. The
                # parser may not cut the item in two ("Chloe to own" | "the shortlist").
                after.is_sent_start = True
                _keep_line(doc, after.i)
            elif (
                before is not None
                and after is not None
                and after.text[:1].isupper()
                and (before.text[-1:] in ".!?" or _key_line(doc, after.i) or _key_line_end(before))
            ):
                # ... and so are the lines of a list of keys and values ("Owner: Lucia
                # Moreno" then "Status: green"), with or without full stops.
                after.is_sent_start = True
    _split_at_emoji(doc)
    _split_at_dashes(doc)
    for start in _line_starts(doc):
        _keep_fronted_date(doc, start.i)
        if _key_line(doc, start.i):
            _keep_together(doc, start.i)
            _split_at_comment(doc, start.i)
        elif _dash_key_line(doc, start.i):
            _split_trailing_note(doc, start.i)
        else:
            _keep_short_line(doc, start.i)
    return doc


# Pictographs, flags and their joiners: chat ends a sentence with one as often as with a stop.
_EMOJI_RE = re.compile("^[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f\u200d]+$")


def is_emoji(text: str) -> bool:
    """Whether a token is pictographs only (no word of a name or claim)."""
    return _EMOJI_RE.match(text) is not None


def _split_at_emoji(doc: Any) -> None:
    """ "Please welcome Dev Patel 🎉 Dev joins the Payments team", "Congrats to Mina Cho 👏
    she now leads Ads": an emoji after a word ends its sentence; the next word starts one."""
    for tok in doc[1:-1]:
        if not _EMOJI_RE.match(tok.text) or _EMOJI_RE.match(doc[tok.i - 1].text):
            continue
        if doc[tok.i - 1].is_space:
            continue  # an emoji opening a line ("🇸🇪 Yara moves …") ends nothing
        end = tok.i + 1  # past the run ("🚀🚀", "❤" and its variation selector)
        while end < len(doc) and _EMOJI_RE.match(doc[end].text):
            end += 1
        if end < len(doc) and doc[end].is_alpha and doc[end].is_sent_start is None:
            doc[end].is_sent_start = True


# A line this short with no full stop inside is one unit: a heading ("Project Heron") the
# parser cut in two, a name on its own.
_SHORT_LINE = 5


def _keep_short_line(doc: Any, start: int) -> None:
    line = []
    for tok in doc[start:]:
        if tok.is_space:
            break
        line.append(tok)
        if "\n" in tok.whitespace_ or len(line) > _SHORT_LINE:
            break
    if len(line) > _SHORT_LINE or any(t.text in ".!?;" for t in line[:-1]):
        return
    for tok in line[1:]:
        if tok.is_sent_start is None:
            tok.is_sent_start = False


# Words a hard-wrapped line may end in mid-phrase: the indented line after them runs on.
_RUNS_ON = frozenset({",", "and", "or", "but", "to", "the", "a", "an", "of", "for", "with", "in"})


def _keep_line(doc: Any, start: int) -> None:
    """No sentence starts inside the line from `start`, except after its own full stops."""
    for tok in doc[start + 1 :]:
        if tok.is_space or "\n" in doc[tok.i - 1].whitespace_:
            return
        if doc[tok.i - 1].text in ".!?;":
            continue
        if tok.is_sent_start is None:
            tok.is_sent_start = False


def _list_item(newline: Any, before: Any, after: Any) -> bool:
    """Whether the line after `newline` is an item of a list (indented: its bullet masked)."""
    text = newline.text if newline.is_space else newline.whitespace_
    if not re.search(r"\n[ \t]{2,}$", text):
        return False
    return after.text[:1].isupper() or before.lower_ not in _RUNS_ON


# Words that open a fronted date ("from April 1st Loomwork Pro moves …"), and the words of
# the date itself.
_DATE_LEADS = frozenset({"from", "since", "starting", "effective", "beginning"})
_DATE_WORDS = CALENDAR_WORDS | {"next", "this", "the", "of", "on"}


def _keep_fronted_date(doc: Any, start: int) -> None:
    """A line opening in lower case with a date ("from april 1st Loomwork Pro moves to EUR 26",
    a chat line) is one sentence: the parser may cut it after the date, leaving the clause
    without its time."""
    if doc[start].lower_ not in _DATE_LEADS or not doc[start].is_lower:
        return
    at = start + 1
    while at < len(doc) and (doc[at].lower_ in _DATE_WORDS or doc[at].text[:1].isdigit()):
        at += 1
    if at == start + 1 or at >= len(doc) or doc[at].is_space or doc[at].is_punct:
        return
    if doc[at].is_sent_start is None:
        doc[at].is_sent_start = False


def _line_starts(doc: Any) -> list[Any]:
    """The first word of every line, after the spaces a masked bullet left ("- Owner: …")."""
    starts, at_start = [], True
    for tok in doc:
        if tok.is_space:
            at_start = at_start or "\n" in tok.text
            continue
        if at_start:
            starts.append(tok)
        at_start = "\n" in tok.whitespace_
    return starts


def _keep_together(doc: Any, start: int) -> None:
    """A key and its value are one statement: the parser split "Owner:" from "Sven Dahl"."""
    colon = next(t for t in doc[start : start + 5] if t.text == ":")
    for tok in doc[start + 1 : colon.i + 3]:
        if tok.is_space or "\n" in doc[tok.i - 1].whitespace_:
            return
        if tok.is_sent_start is None:
            tok.is_sent_start = False


_DASHES = frozenset({"—", "–", "-", "--"})
# Finite verbs (the tagger runs before this component): "slipped", "is", "will".
_FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})


def _line_words(doc: Any, start: int) -> list[Any]:
    """The words of the line opening at token `start`, past the spaces a masked mark left
    inside it ("**Status:** amber")."""
    line = []
    for tok in doc[start:]:
        if "\n" in tok.text:
            break
        if not tok.is_space:
            line.append(tok)
        if "\n" in tok.whitespace_:
            break
    return line


def _split_at_comment(doc: Any, start: int) -> None:
    """A key-value line with a spaced dash and a clause after it states two things: "Status:
    amber — invoice preview slipped to 6 March", "Status: green - all milestones are on
    track". A dash before a bare phrase ("Next milestone: invoice preview - 20 Feb", "Budget:
    $120k — down from $150k") stays part of the value."""
    line = _line_words(doc, start)
    colon = next(i for i, t in enumerate(line) if t.text == ":")
    for at, tok in enumerate(line[colon + 2 : -1], start=colon + 2):
        spaced = bool(line[at - 1].whitespace_) and bool(tok.whitespace_)
        if tok.text in _DASHES and spaced:
            if any(t.tag_ in _FINITE_TAGS for t in line[at + 1 :]):
                line[at + 1].is_sent_start = True
            return


# Tags that may open a clause's subject after a dash ("- he was a contractor", "- the vendor
# slipped", "- Dana leads it now").
_SUBJECT_OPENERS = frozenset({"PRP", "PRP$", "NNP", "NNPS", "NN", "NNS", "DT", "EX", "CD"})


def _split_at_dashes(doc: Any) -> None:
    """A spaced dash between two clauses, each with a finite verb, ends the first ("Lorcan
    never worked for Trellisoft - he was a contractor", "Dana joined Lumio in May - she leads
    the data team now"): the parser otherwise makes the first a complement of the second, and
    its claim is lost. A dash before a verbless phrase ("$80k - down from $100k") stays."""
    for dash in doc[1:-1]:
        spaced = bool(doc[dash.i - 1].whitespace_) and bool(dash.whitespace_)
        if dash.text not in _DASHES or not spaced or "\n" in dash.whitespace_:
            continue
        after = doc[dash.i + 1]
        if after.tag_ not in _SUBJECT_OPENERS:
            continue
        if _finite_in(doc, dash.i, -1) and _finite_in(doc, dash.i, 1):
            after.is_sent_start = True


def _finite_in(doc: Any, at: int, step: int) -> bool:
    """Whether the clause on one side of `at` (up to a sentence end or line break) has a
    finite verb."""
    i = at + step
    while 0 <= i < len(doc):
        tok = doc[i]
        if tok.text in ".!?;" or "\n" in tok.whitespace_ or tok.is_space or tok.text in _DASHES:
            return tok.tag_ in _FINITE_TAGS
        if tok.tag_ in _FINITE_TAGS:
            return True
        i += step
    return False


def _key_line(doc: Any, start: int) -> bool:
    """Whether the line opening at token `start` is "Key: value" (a colon within its first
    four words)."""
    for tok in doc[start : start + 5]:
        if tok.text == ":":
            return bool(tok.i > start)
        if "\n" in tok.whitespace_ or tok.is_space or tok.text in (".", "!", "?"):
            return False  # a key holds no full stop ("Beatriz. To confirm: …")
    return False


def _dash_key_line(doc: Any, start: int) -> bool:
    """Whether the line opening at token `start` is "Key — value" (a spaced dash after one to
    three capitalised words: "Team — $12 per editor / month", "Business - $29 a seat")."""
    words = [t for t in doc[start : start + 8] if not t.is_space or "\n" in t.text][:4]
    for tok in words:
        spaced = bool(doc[tok.i - 1].whitespace_) or doc[tok.i - 1].is_space
        if tok.text in _DASHES and tok.i > start and spaced:
            return all(t.text[:1].isupper() for t in doc[start : tok.i] if not t.is_space)
        if "\n" in tok.whitespace_ or "\n" in tok.text:
            return False
    return False


def _split_trailing_note(doc: Any, start: int) -> None:
    """ "Team — $12 per editor / month (billed annually)": a bracketed clause that ends a
    "Key — value" line is a note of its own, parsed apart, so its verb never becomes the
    line's."""
    line = _line_words(doc, start)
    if len(line) < 4 or line[-1].text != ")":
        return
    opening = next((t for t in reversed(line[:-1]) if t.text == "("), None)
    if opening is None or opening.i <= start + 2 or opening.is_sent_start is not None:
        return
    # A clause ("(billed annually)"), not a list ("(6 engineers, 1 EM)"); the tagger has run,
    # the attribute ruler that sets `pos_` has not.
    if any(t.tag_.startswith("VB") for t in doc[opening.i : line[-1].i]):
        opening.is_sent_start = True


def _key_line_end(last: Any) -> bool:
    """Whether the line ending at `last` was itself a "Key: value" line."""
    doc, start = last.doc, last.i
    while start > 0 and "\n" not in doc[start - 1].whitespace_ and not doc[start - 1].is_space:
        start -= 1
    return _key_line(doc, start)
