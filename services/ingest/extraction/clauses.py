"""Split parsed sentences into self-contained clauses (which of them are claims: `selection`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.attribution import ATTRIBUTION_VERBS
from services.ingest.extraction.names import is_name, name_span
from services.ingest.extraction.parse_repairs import LABEL_DEP

__all__ = ["Clause", "anaphoric_time", "note_clause", "split_clauses"]


@dataclass(frozen=True)
class Clause:
    """A contiguous run of tokens with one finite head. `shared_subject` is the subject token
    of the verb this one is coordinated with, when it has none of its own ("Maria left Acme
    and joined Globex": "joined Globex" is Maria's)."""

    tokens: tuple[Any, ...]
    head: Any
    shared_subject: Any | None = None
    # The words of that subject outside the clause, in document order ("Maria"; for a relative
    # clause, the name it describes: "Thandiwe Dlamini, who joins the Trust & Safety team").
    subject_tokens: tuple[Any, ...] = ()


def _subject_of(tok: Any) -> Any | None:
    return next((c for c in tok.children if c.dep_ in ("nsubj", "nsubjpass", "expl")), None)


def _own_complement(tok: Any) -> bool:
    """A verb phrase that states something by itself: it has an object or a complement."""
    return any(
        c.dep_ in ("dobj", "attr", "acomp", "oprd", "xcomp", "ccomp", "dative", "agent")
        or (c.dep_ == "prep" and any(g.dep_ == "pobj" for g in c.children))
        for c in tok.children
    )


# Subordinators after which a clause with its own subject states something of its own
# ("…, so he now leads on-call", "…, because the vendor missed the date").
_SPLIT_MARKS = frozenset({"so", "because", "while", "whereas", "although", "though", "but"})
# Subordinators of a fronted clause the writer takes as true ("As I'm leaving Kestrel at the
# end of the year, here is where things stand"): a statement of its own. Not "since", "after"
# or "while", whose clause dates the main one ("Since he joined in April, Omari has led…"),
# nor "if"/"once"/"unless", whose clause is not asserted.
_FRONTED_SPLIT_MARKS = frozenset({"as", "because", "although", "though", "whereas"})


def _conj_heads(tok: Any, subject: Any | None) -> list[tuple[Any, Any | None]]:
    """Coordinated verbs under `tok` and the subject each stands with: its own, or `tok`'s
    when it has none and is a verb phrase of its own; and trailing subordinate clauses with
    their own subject."""
    found: list[tuple[Any, Any | None]] = []
    for c in tok.children:
        if (
            c.dep_ == "advcl"
            and c.i > tok.i
            and _subject_of(c) is not None
            and any(m.dep_ == "mark" and m.lower_ in _SPLIT_MARKS for m in c.children)
        ) or _spliced_clause(tok, c):
            found.append((c, None))
            continue
        if c.dep_ != "conj" or c.pos_ not in ("VERB", "AUX"):
            continue
        own = _subject_of(c)
        if own is not None:
            found.append((c, None))
            found.extend(_conj_heads(c, own))
        elif subject is not None and _own_complement(c):
            found.append((c, subject))
            found.extend(_conj_heads(c, subject))
    return found


def _spliced_clause(tok: Any, c: Any) -> bool:
    """A clause with its own subject joined on by a bare comma ("Thandiwe and I go way back,
    we were at Naspers together in 2019"), which the parser hangs as a complement of a verb
    that reports nothing: a statement of its own. What a verb of saying or thinking takes
    ("Dana said, we ship Friday") stays its content."""

    if _anaphoric_time_clause(tok, c):
        return True
    if c.dep_ != "ccomp" or c.i < tok.i or c.pos_ not in ("VERB", "AUX"):
        return False
    if tok.lemma_.lower() in ATTRIBUTION_VERBS or _subject_of(c) is None:
        return False
    if any(m.dep_ == "mark" for m in c.children):
        return False
    return _splice_comma(c) is not None


# "…, before that I was at DHL", "…, since then she has led Search": a clause dated by what
# the one before it said, joined on by a comma.
_ANAPHORIC_TIMES = frozenset({"that", "then", "this"})


def _anaphoric_time_clause(tok: Any, c: Any) -> bool:
    if c.dep_ != "advcl" or c.i < tok.i or _subject_of(c) is None:
        return False
    opener = c.left_edge
    if opener.i == 0 or opener.doc[opener.i - 1].text != ",":
        return False
    return anaphoric_time(c) is not None


def anaphoric_time(verb: Any) -> Any | None:
    """The "before"/"after"/"since" of "before that", "since then" opening `verb`'s clause
    (the parser makes it a preposition with its object or two markers)."""
    opener = verb.left_edge
    if opener.lower_ not in ("before", "after", "since") or opener.i + 1 >= len(opener.doc):
        return None
    word = opener.doc[opener.i + 1]
    if word.lower_ not in _ANAPHORIC_TIMES:
        return None
    if opener.dep_ == "prep" and word.dep_ == "pobj" and word.head.i == opener.i:
        return opener
    if opener.dep_ == word.dep_ == "mark" and opener.head.i == word.head.i == verb.i:
        return opener
    return None


def _splice_comma(head: Any) -> Any | None:
    """The comma or semicolon before a clause's own subject that joins it on, if any."""
    subject = _subject_of(head)
    if subject is None:
        return None
    own = next(
        (
            p
            for p in head.children
            if p.dep_ == "punct" and p.text in (",", ";") and p.i < subject.i < head.i
        ),
        None,
    )
    if own is not None:
        return own
    # The parser may hang the comma on the word before it ("… moving the cluster to
    # Frankfurt, latency for APAC will suffer"): the comma right before the clause still
    # joins it on.
    edge = head.left_edge
    before = head.doc[edge.i - 1] if edge.i > head.sent.start else None
    if before is not None and before.text in (",", ";") and before.head.i < before.i:
        return before if edge.i <= subject.i else None
    return None


def _clause_start(head: Any) -> int:
    """Where a split-off clause begins: its leftmost word, or right after the comma that
    splices it on (the parser may hang words of the clause before it under this one)."""
    comma = _splice_comma(head) if head.dep_ == "ccomp" else None
    start: int = head.left_edge.i if comma is None else comma.i + 1
    return start


_COMMAS = frozenset({",", ";"})
_CLAUSE_JOINS = _COMMAS | {"-", "–", "—"}


def _leading_clause(root: Any) -> Any | None:
    """A clause with its own subject that the parser hung under a later verb ("Olumide moved
    to the SRE team, so he now leads on-call" parses "moved" as a complement of "leads")."""

    if root.lemma_.lower() in ATTRIBUTION_VERBS:
        return None  # "Ravi, I think, …" and "Dana said …" keep their content
    for c in root.children:
        # An imperative before a clause with a subject of its own is another clause too
        # ("Please welcome Hana, she joined the Atlas team today").
        imperative = (
            c.tag_ == "VB"
            and _subject_of(c) is None
            and not any(a.dep_ == "aux" for a in c.children)  # "to set the scene" is none
            and _subject_of(root) is not None
        )
        if (
            c.dep_ in ("ccomp", "advcl")
            and c.right_edge.i < root.i
            and (_subject_of(c) is not None or imperative)
        ):
            between = root.doc[c.right_edge.i + 1 : root.i]
            # The comma may hang on the clause's last word ("I'm against moving it to
            # Frankfurt, latency will suffer"): it is then the clause's right edge.
            # A dash joins an imperative on too ("Please ignore my last email - Ben is not
            # leaving"); after a statement it more often opens an aside about it.
            joins = _CLAUSE_JOINS if imperative else _COMMAS
            separated = c.right_edge.text in joins or any(
                t.text in joins or t.lower_ in _SPLIT_MARKS for t in between
            )
            marks = [m.lower_ for m in c.children if m.dep_ == "mark"]
            if separated and (not marks or marks[0] in _FRONTED_SPLIT_MARKS):
                return c
    return None


def _after_label(root: Any) -> int:
    """Where the root's clause starts: after a line-opening label ("Members: …")."""
    start: int = root.sent.start
    label = next((c for c in root.children if c.dep_ == LABEL_DEP and c.i == start), None)
    # The repair hangs the colon on the label, so the label's subtree ends with it.
    return start if label is None else int(label.right_edge.i) + 1


def split_clauses(sent: Any) -> list[Clause]:
    """Split a sentence at coordinated clauses, with their own subject or sharing the first
    one's; the pieces are contiguous so each keeps an exact source span."""
    root = sent.root
    conj = sorted(_conj_heads(root, _subject_of(root)), key=lambda hs: _clause_start(hs[0]))
    heads = [(root, None), *conj]
    starts = [_after_label(root)] + [_clause_start(h) for h, _ in heads[1:]]
    lead = _leading_clause(root)
    if lead is not None:  # "Olumide moved teams, so he now leads on-call"
        heads.insert(0, (lead, None))
        starts = [sent.start, lead.right_edge.i + 1, *starts[1:]]
    ends = [*starts[1:], sent.end]
    doc = sent.doc
    clauses = []
    for (head, shared), s, e in zip(heads, starts, ends, strict=True):
        toks = [doc[i] for i in range(s, e)]
        while toks and (_trailing_mark(toks[-1]) or toks[-1].dep_ == "cc" or toks[-1].is_space):
            if toks[-1].text in ("?", "!", ".") and toks[-1].i == sent.end - 1:
                break  # keep the sentence's own final mark in the span
            if toks[-1].text == ")" and _opened(toks[:-1]):
                break  # "Owner: Camille Roux (took over on 9 February)" closes its bracket
            toks.pop()
        while toks and (
            toks[0].is_space
            or (toks[0].dep_ == "cc" and toks[0].i != sent.start)
            or (toks[0].is_punct and toks[0].i != sent.start)
        ):
            toks.pop(0)
        if toks:
            inside = {t.i for t in toks}
            words: tuple[Any, ...] = ()
            if shared is not None:
                words = tuple(
                    t for t in sorted(shared.subtree, key=lambda t: t.i) if t.i not in inside
                )
            clauses.append(Clause(tuple(toks), head, shared, words))
    return clauses + _relative_clauses(sent)


def _opened(tokens: list[Any]) -> bool:
    """Whether the tokens leave a bracket open."""
    opened: int = sum(t.text == "(" for t in tokens)
    closed: int = sum(t.text == ")" for t in tokens)
    return opened > closed


def _trailing_mark(tok: Any) -> bool:
    """Punctuation a clause's span drops at its end; a percent sign is the value's unit
    ("churn was 2.1%" without a full stop lost its "%")."""
    return bool(tok.is_punct) and tok.text not in ("%", "‰")


_RELATIVE_PRONOUNS = frozenset({"who", "which", "that", "whose"})


def _relative_clauses(sent: Any) -> list[Clause]:
    """ "Thandiwe Dlamini, who joins the Trust & Safety team today": what a relative clause
    says of a named thing is a claim of its own, about that thing."""
    found = []
    for verb in sent:
        if verb.dep_ != "relcl" or verb.pos_ not in ("VERB", "AUX"):
            continue
        pronoun = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        antecedent = verb.head
        if pronoun is None or pronoun.lower_ not in _RELATIVE_PRONOUNS or not is_name(antecedent):
            continue
        tokens = [t for t in sorted(verb.subtree, key=lambda t: t.i) if t.i > pronoun.i]
        while tokens and (_trailing_mark(tokens[-1]) or tokens[-1].is_space):
            tokens.pop()
        if tokens:
            name = name_span(antecedent) or (antecedent,)
            found.append(Clause(tuple(tokens), verb, antecedent, tuple(name)))
    return found


def note_clause(sent: Any, note: tuple[int, int]) -> Clause | None:
    """The clause inside a line's bracketed note (document offsets `note`), if it has a verb:
    "Owner: Sunita Rao (Felix moved to the Growth team)"."""
    tokens = [t for t in sent if note[0] <= t.idx < note[1] and not t.is_space]
    inside = {t.i for t in tokens}
    heads = [t for t in tokens if t.head.i not in inside or t.head is t]
    head = next((t for t in heads if t.pos_ in ("VERB", "AUX")), None)
    if head is None or _subject_of(head) is None:
        return None
    return Clause(tuple(tokens), head)
