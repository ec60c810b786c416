"""Which temporal phrases of a clause date its proposition, read from the dependency parse.

A date governs a claim only when it is an adjunct of the claim's own verb ("moved to Berlin in
June", "is on 14 April", "starting Q3, …"). A date inside a noun phrase names a thing ("the June
date is too tight", "Acme's 2025 audit", "the Q3 roadmap"); a date in another clause dates that
clause ("is on the team, as agreed twice today"; "said on Monday that …" dates the saying). Those
are mentioned in passing and never become the claim's world time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ATTITUDE_VERBS",
    "DatingHeads",
    "dating_subtrees",
    "governing_filter",
    "measured_subject",
    "since_heads",
]

_NOUN_MODIFIER_DEPS = frozenset({"compound", "amod", "nmod", "poss", "nummod", "quantmod"})
# Clauses with a proposition of their own: their dates are theirs.
_OWN_CLAUSE_DEPS = frozenset({"relcl", "acl", "ccomp", "csubj", "csubjpass", "parataxis", "conj"})
_NOMINAL = frozenset({"NOUN", "PROPN", "PRON"})
_START_WORDS = frozenset({"effective", "starting", "beginning"})
_LIGHT_VERBS = frozenset({"reach", "sign", "strike", "conclude", "hold", "make", "finalise"})
_LIGHT_VERBS |= {"finalize", "seal", "agree"}
_PERIOD_BOUNDS = frozenset({"from", "until", "till", "through", "thru", "between"})
# Verbs of a stance towards a proposal: "supports moving the launch to June", "is against
# moving it to Q3" are views held now, about June or Q3; the complement's dates are the
# proposal's, not the claim's. Intentions are not stances: "wants to roll it out from 1
# December" is dated by its plan.
ATTITUDE_VERBS = frozenset(
    {
        "support", "oppose", "favour", "favor", "back", "endorse", "reject", "resist",
        "welcome", "advocate", "object", "dislike",
    }
)  # fmt: skip
_ATTITUDE_PREPOSITIONS = frozenset({"against", "for"})
# What a change is measured from: "up from 800 in April" dates the old value, not the claim.
_COMPARED = frozenset({"up", "down", "higher", "lower", "more", "less", "rising", "falling"})


def _temporal_word(tok: Any, temporal: set[int]) -> bool:
    return tok.i in temporal or tok.ent_type_ in ("DATE", "TIME")


def _own_clause(verb: Any) -> bool:
    """A subordinate verb with its own proposition (not "after leaving Square")."""
    if verb.dep_ in _OWN_CLAUSE_DEPS:
        return True
    if verb.dep_ == "advcl":
        return any(c.dep_ in ("mark", "nsubj", "nsubjpass") for c in verb.children)
    return False


@dataclass(frozen=True)
class DatingHeads:
    """Heads whose subtree dates the clause even inside a noun phrase or another clause: the
    subject of a measurement ("revenue in Q3 was $4M": its own date words, not those of
    another noun inside it) and what a "since" names (its whole subtree: "since the beta
    started on 1 April", "since the merger in March")."""

    measured: frozenset[int] = frozenset()
    events: frozenset[int] = frozenset()

    def date(self, root: Any, temporal: set[int]) -> bool:
        x = root
        for _ in range(64):
            if x.i in self.events:
                return True
            if x.i in self.measured:
                # "revenue in Q4", "the 2025 report"; not "a correction to yesterday's notes",
                # which names the notes' day, not the period of the value it corrects.
                return not any(
                    t.pos_ in _NOMINAL and not _temporal_word(t, temporal)
                    for t in _between(root, x)
                )
            if x.head.i == x.i:
                return False
            x = x.head
        return False


def _between(low: Any, high: Any) -> list[Any]:
    """The tokens strictly between `low` and its ancestor `high`."""
    found, x = [], low.head
    while x.i != high.i and x.head.i != x.i:
        found.append(x)
        x = x.head
    return found


def governs(
    root: Any, content: Any, temporal: set[int], through: DatingHeads = DatingHeads()
) -> bool:
    """Whether the temporal phrase whose syntactic root is `root` dates `content`'s clause;
    `through` the heads that date it from inside a noun phrase or another clause."""
    if through.date(root, temporal):
        return True
    x = root
    for _ in range(64):  # parses are trees; the bound only guards against a malformed one
        if x.i == content.i:
            return True
        if x.lower_ in _START_WORDS and x.i != root.i:
            # "stepped down as CTO of Velloran effective 14 May": a start word opens the
            # clause's period, whichever noun the parser hangs it on.
            return True
        parent = x.head
        if parent.i == x.i:
            return False  # the sentence root, and `content` was not on the way
        if x.lower_ == "from" and parent.lower_ in _COMPARED:
            return False  # "1,200 users, up from 800 in April": the old value's date
        if x.lower_ in ("compared", "versus", "vs", "vs."):
            return False  # "compared with 800 in April", "vs 800 in April"
        if x.pos_ in ("VERB", "AUX") and _own_clause(x):
            return False
        if x.pos_ == "VERB" and x.tag_ == "VBN" and x.dep_ in ("advcl", "acl") and x.i < content.i:
            return False  # "Founded in 2009 by Maren Aas, Quillfeather builds …": the founding's
        if (
            x.pos_ == "VERB"
            and x.dep_ in ("xcomp", "pcomp", "dobj", "ccomp")
            and (parent.lemma_.lower() in ATTITUDE_VERBS or parent.lower_ in _ATTITUDE_PREPOSITIONS)
        ):
            return False  # what a stance is about: "supports moving the launch to June"
        if parent.i == content.i:
            return True  # an adjunct of the claim's own head (a verb, or a verbless value)
        if (
            x.dep_ in _NOUN_MODIFIER_DEPS
            and parent.pos_ in _NOMINAL
            and not _temporal_word(parent, temporal)
        ):
            return False  # "the June date", "the 2025 audit"
        # "the launch in May": the launch's date, not the clause's. A name takes no date of
        # its own: "moved it to Kafka in May" is the parser hanging the clause's date on it.
        misattached = parent.pos_ == "PROPN" and parent.dep_ == "pobj"
        # "is on leave from 21 to 27 September", "the price until May": a period's bounds
        # are the clause's, whichever noun the parser hangs them on.
        misattached = misattached or x.lower_ in _PERIOD_BOUNDS
        # "is back to green as of 17 March": "as of" opens a state's period, like "from".
        misattached = misattached or (
            x.lower_ == "as" and any(c.lower_ == "of" for c in x.children)
        )
        # "joined Contoso as a data engineer in March": a role or capacity the subject takes
        # ("as …") holds for the clause's time; it has no date of its own to give.
        misattached = misattached or _in_capacity_phrase(parent, content)
        # "reached an agreement with Kestrel in May", "signed a contract in March": the
        # object of a light verb is the event the verb performs, so its date is the clause's.
        misattached = misattached or (
            parent.dep_ == "dobj"
            and parent.head.i == content.i
            and content.lemma_.lower() in _LIGHT_VERBS
        )
        if (
            x.pos_ == "ADP"
            and parent.pos_ in _NOMINAL
            and not _temporal_word(parent, temporal)
            and not misattached
        ):
            return False
        if x.pos_ in ("VERB", "AUX") and _own_clause(x):
            return False
        if x.pos_ == "VERB" and x.tag_ == "VBN" and x.dep_ in ("advcl", "acl") and x.i < content.i:
            return False  # "Founded in 2009 by Maren Aas, Quillfeather builds …": the founding's
        x = parent
    return False


def _in_capacity_phrase(tok: Any, content: Any) -> bool:
    """Whether `tok` lies in an "as" phrase of the clause ("as a contractor for the migration")."""
    x = tok
    for _ in range(64):
        if x.i == content.i or x.head.i == x.i:
            return False
        if x.dep_ == "pobj" and x.head.lower_ == "as":
            return True
        x = x.head
    return False


def _span_root(tokens: Sequence[Any]) -> Any:
    """The token of a span whose head lies outside it (the last one if the parse is odd)."""
    indices = {t.i for t in tokens}
    for tok in tokens:
        if tok.head.i not in indices or tok.head.i == tok.i:
            return tok
    return tokens[-1]


def _phrase_root(tokens: Sequence[Any], temporal: set[int]) -> Any:
    """The root of a temporal phrase. A span that is no one phrase ("to yesterday" of
    "correction to yesterday's notes", its preposition governing the notes) is judged by its
    possessive date word's own place in the parse: the notes', said in passing."""
    indices = {t.i for t in tokens}
    roots = [t for t in tokens if t.head.i not in indices or t.head.i == t.i]
    possessive = [t for t in roots if t.dep_ == "poss" and _temporal_word(t, temporal)]
    if len(roots) > 1 and possessive:
        return possessive[-1]
    return _span_root(tokens)


# A temporal phrase that opens the clause after one of these is the clause's adverbial; the
# small parser sometimes hangs it on the subject ("Since 10 March 2025 Project Falcon …").
_OPENING_ADVERBIAL = re.compile(
    r"^\W*(?:since|from|as\s+of|starting(?:\s+(?:on|from|in))?|beginning|effective|in|on|by|"
    r"until|till|after|before|during)?\s*$",
    re.IGNORECASE,
)
_MEASURED = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
_MEASURE_VERBS = frozenset(
    {"be", "reach", "grow", "fall", "rise", "drop", "increase", "decrease", "total", "hit"}
    | {"average", "exceed", "decline", "put", "stand", "come", "run"}
    # A value planned or landed for the period the subject names: "headcount for 2027 is
    # planned at 55", "Q3 revenue is forecast at $4M", "churn in May ended at 2%".
    | {"plan", "budget", "forecast", "project", "estimate", "target", "set", "cap", "expect"}
    | {"end", "close", "finish", "land", "remain", "stay", "hold"}
)


_YEAR_NUMBER = re.compile(r"(?:19|20)\d{2}")


def _amount(tok: Any) -> bool:
    """Whether `tok` is part of an amount. The small model often misses one ("EUR 4.2
    million" is an ORG to it, a lone "40" before a line break a DATE): a number that is no
    year, alone in its entity, counts as well."""
    if tok.ent_type_ in _MEASURED:
        return True
    if not tok.like_num:
        return False
    if tok.ent_type_ not in ("DATE", "TIME"):
        return True
    alone = tok.ent_iob_ == "B" and (
        tok.i + 1 >= len(tok.doc) or tok.doc[tok.i + 1].ent_iob_ != "I"
    )
    return alone and not _YEAR_NUMBER.fullmatch(tok.text)


def measured_subject(head: Any) -> bool:
    """Whether `head` is the subject of a measurement ("churn for May ended at 2.1%"), whose
    period is the value's time."""
    verb = head.head
    return bool(
        head.dep_ in ("nsubj", "nsubjpass")
        and verb.lemma_.lower() in _MEASURE_VERBS
        and any(_amount(t) for t in verb.subtree)
    )


def dating_subtrees(clause_tokens: Sequence[Any], content: Any) -> DatingHeads:
    """Heads that date the clause from inside: a measurement's subject names the period the
    value covers ("Snowflake spend in October was $39,800", "the 2025 report puts it at 71%"),
    and a state that began with an event starts at that event ("has used the API since the
    2024 pilot")."""
    measured: frozenset[int] = frozenset()
    if any(_amount(t) for t in clause_tokens) and content.lemma_.lower() in _MEASURE_VERBS:
        measured = frozenset(c.i for c in content.children if c.dep_ in ("nsubj", "nsubjpass"))
    return DatingHeads(measured, frozenset(c.i for c in since_heads(content)))


_AFTER = frozenset({"after", "following"})
# Verbs of a state held (not an occurrence): what follows an event holds from it on.
_STATE_VERBS = frozenset(
    {
        "be", "sit", "report", "lead", "own", "run", "work", "belong", "live", "manage",
        "handle", "use", "have", "head", "oversee", "remain", "stay", "fall", "roll",
    }
)  # fmt: skip


def _holds(verb: Any) -> bool:
    return bool(verb.lemma_.lower() in _STATE_VERBS and verb.tag_ in ("VBZ", "VBP", "VBD"))


def _after_mark(clause: Any) -> bool:
    return any(m.dep_ == "mark" and m.lower_ in _AFTER for m in clause.children)


def since_heads(content: Any) -> list[Any]:
    """The "since" phrases of the claim's verb: "since May", "since the review on 9 June",
    "since the beta started". The small parser often hangs them on a verb the main one
    governs ("has opposed outsourcing X since …" attaches to "outsourcing"), so the verb's
    open complements count too."""
    verbs = [content, *(c for c in content.children if c.dep_ == "xcomp" and c.pos_ == "VERB")]
    heads: list[Any] = []
    for verb in verbs:
        found = [c for c in verb.children if c.lower_ == "since" and c.dep_ in ("prep", "mark")]
        found += [
            c
            for c in verb.children
            if c.dep_ == "advcl" and any(m.lower_ == "since" for m in c.children)
        ]
        if verb is content and _holds(verb):
            # "After the reorganisation in June, the Data team sits under Finance": a state
            # that followed a dated event began with it, as "since" says.
            # Said after the verb, "now" marks the state as the event's outcome: "Payments
            # headcount is now 12 after two new hires in April".
            now = any(c.dep_ == "advmod" and c.lower_ == "now" for c in verb.children)
            # The parser hangs a trailing "after" on the value as often as on the verb.
            values = [c for c in verb.children if c.dep_ in ("attr", "acomp")] if now else []
            found += [
                c
                for c in [*verb.children, *(g for v in values for g in v.children)]
                if (c.i < verb.i or now)
                and c.lower_ in _AFTER
                and (c.dep_ == "prep" or (c.dep_ == "advcl" and _after_mark(c)))
            ]
        heads += found
        # "since the reorg on 1 July": the date right after the event dates it, though the
        # parser hangs it on the verb.
        ends = {max(t.i for t in h.subtree) for h in found}
        heads += [
            c
            for c in verb.children
            if c.dep_ == "prep"
            and c.i - 1 in ends
            and any(t.ent_type_ == "DATE" for t in c.subtree)
        ]
    return heads


def governing_filter(
    clause_tokens: Sequence[Any], content: Any, temporal: set[int]
) -> Callable[[int, int], bool]:
    """A predicate over character ranges relative to the clause start: does the temporal
    phrase there date the clause? `temporal` holds the indices of temporal tokens."""
    base = clause_tokens[0].idx
    through = dating_subtrees(clause_tokens, content)
    text = "".join(t.text_with_ws for t in clause_tokens)

    def keep(start: int, end: int) -> bool:
        if _OPENING_ADVERBIAL.match(text[:start]):
            # "Since 10 March 2025 Project Falcon is green": the clause's, however parsed.
            return True
        tokens = [
            t
            for t in clause_tokens
            if t.idx - base < end and start < t.idx - base + len(t.text) and not t.is_space
        ]
        if not tokens:
            return True
        return governs(_phrase_root(tokens, temporal), content, temporal, through)

    return keep
