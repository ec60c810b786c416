"""Which clauses are claims (SPEC §2): questions, greetings and nods, boilerplate, fragments,
advice, hypotheticals and opinions with no holder are not; a plain declarative sentence is."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from services.ingest.extraction.attribution import ATTRIBUTION_VERBS, speaking_frankly
from services.ingest.extraction.clauses import Clause
from services.ingest.extraction.names import is_name
from services.ingest.extraction.roles import welcomes_someone
from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name

__all__ = ["drop_reason", "value_statement"]

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
    r"^\W*page\s+\d+|table\s+of\s+contents|unsubscribe|privacy\s+policy|"
    # A meeting's header lines: who came and when, not what was said ("Attendees: Leo, Maya")
    r"^\W*(?:attendees|attending|participants|present|apologies|absent|invitees|invited|"
    r"note[- ]?taker|scribe|cc)\s*:",
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
        "confusing", "frustrating", "annoying", "painful", "useless", "pointless", "unusable",
        "tedious", "flaky", "janky", "overkill", "overcomplicated", "clumsy", "awkward",
    }
)  # fmt: skip
# Degree words that make an adjective a judgment: "way too slow", "really confusing", "so
# good". A measurement states its number instead ("takes 40 minutes").
_DEGREE = frozenset(
    {
        "too", "really", "so", "super", "pretty", "incredibly", "extremely", "insanely",
        "ridiculously", "painfully", "very", "unbelievably", "terribly", "awfully",
    }
)  # fmt: skip
# Subjects that speak of everyone at once: "nobody reads the changelog" is a view, not a count.
_UNIVERSAL = frozenset({"nobody", "everybody", "everyone", "noone", "no-one"})
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


def _subject(head: Any) -> Any | None:
    return next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _is_evaluative(tok: Any) -> bool:
    if tok.lemma_.lower() in _EVALUATIVE or tok.lower_ in _EVALUATIVE:
        return True
    if tok.pos_ == "ADJ" and any(c.dep_ == "advmod" and c.lower_ in _DEGREE for c in tok.children):
        return not any(t.like_num for t in tok.sent)  # "way too slow", not "too slow by 40 ms"
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
    return not _about_a_person(subj)


def _about_a_person(subj: Any) -> bool:
    return bool(
        subj.lower_ in _PERSONAL
        or subj.ent_type_ == "PERSON"
        or (
            subj.pos_ in ("PROPN", "NOUN")
            and subj.text[:1].isupper()
            and is_given_name(normalize_name(subj.text))
        )
    )


def _stance_opinion(head: Any) -> bool:
    """ "Honestly, it is a triumph", "Frankly the new flow is clunky": a view with no holder."""
    if not any(c.dep_ == "advmod" and c.lower_ in _STANCE_ADVERBS for c in head.children):
        return False
    subj = _subject(head)
    if subj is not None and _about_a_person(subj):
        return False
    if subj is not None and subj.lower_ in _UNIVERSAL:
        return True  # "Honestly, nobody reads the changelog"
    return head.lemma_.lower() in ("be", "seem", "look", "sound", "feel") and any(
        c.dep_ in ("acomp", "attr") for c in head.children
    )


def drop_reason(sent: Any, clause: Clause, content: Any, attributed: bool) -> str | None:
    """Why this clause is not a claim (None when it is one). `content` is the head of the
    asserted proposition (the complement of an attribution frame, else the clause head)."""
    text = "".join(t.text_with_ws for t in clause.tokens).strip()
    words = [t for t in clause.tokens if not t.is_punct and not t.is_space]
    if sent.text.rstrip().endswith("?") or text.endswith("?") or _asks(clause.tokens):
        return "question"
    # A verb coordinated with another that names someone is no reply of its own ("… and
    # report to me"); "… and keep going", "but believe in yourself" are still nods.
    nod = _acknowledgement(clause.head, words) and not (
        clause.shared_subject is not None and _names_someone(words)
    )
    if clause.head.lemma_.lower() == "welcome" and _names_someone(words):
        # "Please welcome Dana Ruiz as our new CMO", "Welcome Omar to the Halden team": an
        # announcement of who joins, not a greeting nor advice; "We welcome Dana" greets.
        return None if welcomes_someone(clause.head, {t.i for t in clause.tokens}) else "social"
    if _SOCIAL_RE.search(text) or nod:
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
    if _cleft(head):
        return "fragment"  # "It was Maria, not Marta, who signed": the relative clause says it
    if (
        head.tag_ == "VB"
        and _subject(head) is None
        and clause.shared_subject is None
        and not any(c.dep_ in ("aux", "auxpass") for c in head.children)
    ):
        return "advice"  # imperative
    for h in {head, content}:
        reason = _modal_reason(h, clause.tokens)
        # "Selma thinks we should delay the launch": advice someone holds is their view,
        # kept as a claim about the holder (the advice alone is dropped).
        if reason and not (reason == "advice" and attributed):
            return reason
    if not attributed and (_holderless_opinion(content) or _stance_opinion(content)):
        return "opinion"
    return None


# Words whose "if"/"whether" clause is asked, not stated: "Not sure if Dana still runs the
# Berlin office", "wondering whether the API is up", "unclear if Omar left".
_ASKING = frozenset(
    {"sure", "certain", "know", "wonder", "clear", "unclear", "ask", "check", "doubt", "idea"}
)


def _asks(tokens: Sequence[Any]) -> bool:
    """Whether the clause asks a question in the indirect form, without a question mark."""
    return any(
        t.dep_ == "mark"
        and t.lower_ in ("if", "whether")
        and t.head.head.lemma_.lower() in _ASKING
        and t.head.dep_ in ("ccomp", "advcl", "xcomp", "acl", "prep", "pcomp")
        for t in tokens
    )


def _names_someone(words: list[Any]) -> bool:
    """Whether a short verb phrase's words name a person or thing: a name, or a pronoun for
    the speaker or someone talked about ("me", "him", "them"), not the one addressed nor an
    idiom's "it" ("keep at it")."""
    return any(
        is_name(t) or (t.pos_ == "PRON" and t.lower_ in ("me", "us", "him", "her", "them"))
        for t in words
        if t.dep_ in ("dobj", "pobj", "dative", "attr")
    )


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


def _cleft(head: Any) -> bool:
    """ "It was Maria Kowalczyk who signed the contract", "It's Fenwick that owns the gateway":
    the copula only puts the name in focus; the relative clause states the claim about it."""
    subject = _subject(head)
    return (
        head.lemma_.lower() == "be"
        and subject is not None
        and subject.lower_ == "it"
        and any(
            c.dep_ == "attr" and is_name(c) and any(r.dep_ == "relcl" for r in c.children)
            for c in head.children
        )
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
    if tokens and tokens[0].lower_ == "if" and not speaking_frankly(tokens[0].head):
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
        if c.dep_ == "advcl" and not speaking_frankly(c):
            out.extend(c.children)
    return out


def _has_to(head: Any) -> bool:
    return any(
        c.dep_ == "xcomp" and any(g.lower_ == "to" for g in c.children) for c in head.children
    )
