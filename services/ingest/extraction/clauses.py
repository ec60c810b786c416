"""Split parsed sentences into self-contained clauses and say which ones are not claims."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.attribution import ATTRIBUTION_VERBS
from services.ingest.extraction.names import is_name, name_span
from services.ingest.extraction.parse_repairs import LABEL_DEP

__all__ = ["Clause", "drop_reason", "split_clauses"]

_SOCIAL_RE = re.compile(
    r"^\W*(hi|hey|hello|hiya|thanks|thank\s+you|thx|bye|goodbye|good\s+(morning|night|evening|"
    r"luck|job|to\s+(see|hear))|nice\s+to|great\s+to|glad\s+to|so\s+glad|congrat\w*|take\s+care|"
    r"see\s+you|talk\s+(to\s+you\s+)?(soon|later)|have\s+a\s+(good|great|nice|lovely)|"
    r"happy\s+(birthday|holidays)|welcome|you'?re\s+welcome|cheers|best\s+regards|regards|"
    r"wow|omg|lol|haha|yay|aww+|oh\s+(my|wow)|no\s+problem|sounds\s+(good|great|fun))\b",
    re.I,
)
_BOILERPLATE_RE = re.compile(
    r"copyright|all\s+rights\s+reserved|\bconfidential\b|do\s+not\s+distribute|"
    r"^\W*page\s+\d+|table\s+of\s+contents|unsubscribe|privacy\s+policy",
    re.I,
)
_EVALUATIVE = frozenset(
    {
        "great", "awesome", "amazing", "cool", "nice", "good", "bad", "terrible", "awful",
        "wonderful", "fantastic", "beautiful", "powerful", "inspiring", "impressive", "lovely",
        "incredible", "excellent", "brilliant", "perfect", "fun", "interesting", "exciting",
        "stunning", "gorgeous", "cute", "sweet", "horrible", "boring", "best", "worst", "neat",
        "fabulous", "superb", "outstanding", "messy", "ugly", "elegant", "clunky", "slick",
        "solid", "weak", "meaningful", "special", "touching", "inspirational", "adorable",
        "overrated", "underrated", "wrong", "right", "smart", "silly", "stupid", "crazy",
        "triumph", "disaster", "mess", "success", "failure", "flop", "nightmare", "joke",
        "masterpiece", "gem", "waste", "win", "hit", "bargain", "steal", "shambles", "dream",
        "delight", "pleasure", "letdown", "let-down", "disappointment", "embarrassment",
    }
)  # fmt: skip
# Sentence adverbs that mark what follows as the writer's own view.
_STANCE_ADVERBS = frozenset(
    {
        "honestly", "frankly", "personally", "truly", "seriously", "clearly", "obviously",
        "definitely", "absolutely", "really", "totally", "imo", "imho", "arguably",
    }
)  # fmt: skip
_HYPOTHETICAL_AUX = frozenset({"would", "could", "might", "may", "'d", "’d"})
_BACKSHIFTED = frozenset({"would", "'d", "’d"})
_ADVICE_AUX = frozenset({"should", "must", "ought", "need"})
_WISH_VERBS = frozenset({"hope", "wish", "imagine", "wonder", "bet", "suppose"})
_PERSONAL = frozenset({"i", "me", "we", "he", "she", "they"})


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
    from services.ingest.extraction.attribution import ATTRIBUTION_VERBS

    if c.dep_ != "ccomp" or c.i < tok.i or c.pos_ not in ("VERB", "AUX"):
        return False
    if tok.lemma_.lower() in ATTRIBUTION_VERBS or _subject_of(c) is None:
        return False
    if any(m.dep_ == "mark" for m in c.children):
        return False
    return _splice_comma(c) is not None


def _splice_comma(head: Any) -> Any | None:
    """The comma or semicolon before a clause's own subject that joins it on, if any."""
    subject = _subject_of(head)
    if subject is None:
        return None
    return next(
        (
            p
            for p in head.children
            if p.dep_ == "punct" and p.text in (",", ";") and p.i < subject.i < head.i
        ),
        None,
    )


def _clause_start(head: Any) -> int:
    """Where a split-off clause begins: its leftmost word, or right after the comma that
    splices it on (the parser may hang words of the clause before it under this one)."""
    comma = _splice_comma(head) if head.dep_ == "ccomp" else None
    start: int = head.left_edge.i if comma is None else comma.i + 1
    return start


def _leading_clause(root: Any) -> Any | None:
    """A clause with its own subject that the parser hung under a later verb ("Olumide moved
    to the SRE team, so he now leads on-call" parses "moved" as a complement of "leads")."""
    from services.ingest.extraction.attribution import ATTRIBUTION_VERBS

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
            separated = any(t.text in (",", ";") or t.lower_ in _SPLIT_MARKS for t in between)
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
        while toks and (toks[-1].is_punct or toks[-1].dep_ == "cc" or toks[-1].is_space):
            if toks[-1].text in ("?", "!", ".") and toks[-1].i == sent.end - 1:
                break  # keep the sentence's own final mark in the span
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
        while tokens and (tokens[-1].is_punct or tokens[-1].is_space):
            tokens.pop()
        if tokens:
            name = name_span(antecedent) or (antecedent,)
            found.append(Clause(tuple(tokens), verb, antecedent, tuple(name)))
    return found


def _subject(head: Any) -> Any | None:
    return next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _is_evaluative(tok: Any) -> bool:
    if tok.lemma_.lower() in _EVALUATIVE or tok.lower_ in _EVALUATIVE:
        return True
    return any(c.dep_ == "amod" and c.lower_ in _EVALUATIVE for c in tok.children)


def _holderless_opinion(head: Any) -> bool:
    """ "This is great", "sounds amazing", "the new UI is clunky": an evaluation of a thing."""
    if head.lemma_.lower() not in ("be", "seem", "look", "sound", "feel", "get"):
        return False
    comps = [c for c in head.children if c.dep_ in ("acomp", "attr", "oprd")]
    if not comps or not any(_is_evaluative(c) for c in comps):
        return False
    subj = _subject(head)
    if subj is None:
        return True
    # "Caroline is so happy" is a statement about a person's state, not an evaluation
    return not (subj.lower_ in _PERSONAL or subj.ent_type_ == "PERSON")


def _stance_opinion(head: Any) -> bool:
    """ "Honestly, it is a triumph", "Frankly the new flow is clunky": a view with no holder."""
    if not any(c.dep_ == "advmod" and c.lower_ in _STANCE_ADVERBS for c in head.children):
        return False
    subj = _subject(head)
    if subj is not None and (subj.lower_ in _PERSONAL or subj.ent_type_ == "PERSON"):
        return False
    return head.lemma_.lower() in ("be", "seem", "look", "sound", "feel") and any(
        c.dep_ in ("acomp", "attr") for c in head.children
    )


def drop_reason(sent: Any, clause: Clause, content: Any, attributed: bool) -> str | None:
    """Why this clause is not a claim (None when it is one). `content` is the head of the
    asserted proposition (the complement of an attribution frame, else the clause head)."""
    text = "".join(t.text_with_ws for t in clause.tokens).strip()
    words = [t for t in clause.tokens if not t.is_punct and not t.is_space]
    if sent.text.rstrip().endswith("?") or text.endswith("?"):
        return "question"
    if _SOCIAL_RE.search(text) or _acknowledgement(clause.head, words):
        return "social"
    if _BOILERPLATE_RE.search(text):
        return "boilerplate"
    # A verb coordinated with another counts that one's subject ("… and joined Globex").
    shared = len(list(clause.shared_subject.subtree)) if clause.shared_subject is not None else 0
    verbless = not any(t.pos_ in ("VERB", "AUX") for t in words)
    if (len(words) + shared < 3 or verbless) and not value_statement(clause.tokens):
        return "fragment"
    if sent.text.rstrip().endswith(":") and (verbless or sent.root.pos_ in ("NOUN", "NUM")):
        return "fragment"  # "Two changes this month:" introduces what follows
    first = words[0]
    if first.lower_ in ("let", "let's", "please") or (first.lower_ == "let" and len(words) > 1):
        return "advice"
    head = clause.head
    if _presentational(head, first):
        return "boilerplate"
    if (
        head.tag_ == "VB"
        and _subject(head) is None
        and clause.shared_subject is None
        and not any(c.dep_ in ("aux", "auxpass") for c in head.children)
    ):
        return "advice"  # imperative
    for h in {head, content}:
        reason = _modal_reason(h, clause.tokens)
        if reason:
            return reason
    if not attributed and (_holderless_opinion(content) or _stance_opinion(content)):
        return "opinion"
    return None


_ACKNOWLEDGED = frozenset({"sense", "problem", "worries", "point", "thanks", "thank"})


def _acknowledgement(head: Any, words: list[Any]) -> bool:
    """ "yep got it", "Confirmed, looks good", "will do", "makes sense": a short reply with no
    subject of its own (or an interjection for one) that names nothing, a chat turn's nod."""
    if len(words) > 4:
        return False
    subject = _subject(head)
    if subject is not None and subject.tag_ != "UH":
        return False
    return not any(
        t.pos_ in ("PROPN", "NUM") or (t.pos_ == "NOUN" and t.lower_ not in _ACKNOWLEDGED)
        for t in words
    )


def _presentational(head: Any, first: Any) -> bool:
    """ "Here is where things stand", "Here's the plan", "Here are the numbers": a line that
    announces what follows states nothing itself. One that introduces someone by name
    ("Here is Dana, our new designer") does."""
    named = any(c.dep_ in ("nsubj", "attr") and is_name(c) for c in head.children)
    return (
        first.lower_ == "here"
        and first.head.i == head.i
        and head.lemma_.lower() == "be"
        and not named
        and not any(c.dep_ == "neg" for c in head.children)
    )


_MEASURED = frozenset({"MONEY", "PERCENT", "QUANTITY"})
_WHEN = frozenset({"DATE", "TIME"})


def value_statement(tokens: Sequence[Any]) -> bool:
    """A verbless line that states a value of something ("Overall status: amber", "Cost to
    date: $212k of a $260k budget", "11.4% in September"): status reports and chats say much
    in this form, and a plain statement is never dropped for being short. A bare count ("3
    kids lol") is chatter, not a value."""
    words = [t for t in tokens if not t.is_space]
    if len(words) < 2:
        return False
    colon = next((k for k, t in enumerate(words[:5]) if t.text == ":"), None)
    keyed = colon is not None and 0 < colon < len(words) - 1
    kinds = {t.ent_type_ for t in words}
    valued = bool(kinds & _MEASURED) or ("CARDINAL" in kinds and bool(kinds & _WHEN))
    named = any(t.pos_ in ("NOUN", "PROPN", "ADJ") for t in words)
    return named and (keyed or valued)


def _modal_reason(head: Any, tokens: Sequence[Any]) -> str | None:
    aux = {c.lower_ for c in head.children if c.dep_ in ("aux", "auxpass")}
    subj = _subject(head)
    subj_low = subj.lower_ if subj is not None else ""
    if any(c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in _clauses_of(head)):
        return "hypothetical"
    if head.lemma_.lower() in _WISH_VERBS and subj is not None:
        return "hypothetical"
    if aux & _HYPOTHETICAL_AUX and not _reported_future(head, aux):
        return "hypothetical"
    if subj_low in ("you", "we", "u") and (
        aux & _ADVICE_AUX or (head.lemma_.lower() in ("need", "have") and _has_to(head))
    ):
        return "advice"
    if tokens and tokens[0].lower_ == "if":
        return "hypothetical"
    return None


def _reported_future(head: Any, aux: set[str]) -> bool:
    """ "Lena said Ravi would join in June": after a past verb of saying, "would" is the
    reported "will" (the future seen from then), not a condition ("if"/"unless" clauses are
    hypothetical before this is asked)."""
    speech = head.head
    return (
        aux & _HYPOTHETICAL_AUX <= _BACKSHIFTED
        and head.dep_ == "ccomp"
        and speech.tag_ == "VBD"
        and speech.lemma_.lower() in ATTRIBUTION_VERBS
    )


def _clauses_of(head: Any) -> list[Any]:
    out = list(head.children)
    for c in head.children:
        if c.dep_ == "advcl":
            out.extend(c.children)
    return out


def _has_to(head: Any) -> bool:
    return any(
        c.dep_ == "xcomp" and any(g.lower_ == "to" for g in c.children) for c in head.children
    )
