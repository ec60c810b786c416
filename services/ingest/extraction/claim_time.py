"""When a claim holds and what kind of time that is: tense, kind, a job change's shared date,
states begun by an event, and the clause's temporal tokens (for the rules extractor)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from services.ingest.extraction.anchoring import since_heads
from services.ingest.extraction.base import ExtractedClaim, ValidKind
from services.ingest.extraction.clauses import Clause
from services.ingest.extraction.dates import Tense, TimeWindow
from shared.text.temporal import ATOM_RES

__all__ = [
    "claim_kind",
    "date_since_then",
    "settle_window",
    "share_job_change_dates",
    "temporal_tokens",
    "tense_of",
    "value_change",
]

_STATE_VERBS = frozenset(
    {
        "be", "have", "work", "live", "lead", "manage", "own", "run", "head", "stay", "remain",
        "belong", "reside", "use", "study", "love", "like", "enjoy", "prefer", "hate", "know",
        "want", "need", "contain", "include", "require", "support", "depend", "consist", "mean",
        "seem", "feel", "serve", "teach", "date", "volunteer", "report", "cost", "keep",
        "store", "allow", "accept", "return", "handle", "expose", "target", "host", "follow",
        "apply", "oppose", "favor", "favour", "price", "charge",
    }
)  # fmt: skip
_PERIOD_STATES = frozenset(
    {"work", "live", "lead", "manage", "own", "run", "head", "stay", "reside", "serve", "teach"}
    | {"study", "date", "volunteer", "report", "remain", "apply"}
)
_MEASURE_VERBS = frozenset(
    {"be", "reach", "grow", "fall", "rise", "drop", "increase", "decrease", "total", "hit"}
    | {"average", "exceed", "decline", "generate", "earn", "make", "cost"}
    # "came in at $3.8M", "landed at", "stood at", "closed the quarter at", "topped $5M"
    | {"come", "land", "stand", "close", "finish", "post", "top", "climb", "shrink", "jump"}
)
# Placements that end, and those that begin: a job change's two halves share its date.
_ENDING_VERBS = frozenset({"leave", "quit", "depart", "exit", "resign"})
_NUMERIC_ENTS = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
# Verbs that set a value someone controls: "the rate limit was raised to 250 on 1 May", "we cut
# the price to $40 from March". The new value holds from that day on, open-ended.
_CHANGE_VERBS = frozenset(
    {
        "raise", "increase", "cut", "reduce", "lower", "bump", "change", "set", "update",
        "double", "halve", "lift", "drop", "decrease", "adjust", "reprice", "boost", "trim",
        "expand", "shrink", "move",
    }
)  # fmt: skip
# Values someone sets, which hold until set again (a flow such as revenue does not).
_SETTING_HEADS = frozenset(
    {"limit", "price", "fee", "quota", "cap", "rate", "threshold", "allowance", "budget"}
    | {"timeout", "retention", "surcharge", "discount", "salary", "rent"}
)
# Verbs a status is entered with, and the statuses (a subset of the adjudicator's categories:
# words that name a state only, so "turned to Dana" or "went to Berlin" enter none).
_STATUS_CHANGE_VERBS = frozenset(
    {"change", "turn", "go", "switch", "flip", "move", "shift", "return", "drop", "upgrade"}
    | {"downgrade", "slip", "slide", "fall", "improve", "recover", "revert", "escalate"}
)
_STATUS_WORDS = frozenset(
    {"green", "amber", "yellow", "red", "blocked", "unblocked", "risk", "track", "hold"}
    | {"paused", "active", "inactive", "live", "done", "complete", "completed", "frozen"}
    | {"schedule"}  # "behind schedule", "back on schedule"
)
# Verbs a count moves by itself with, and the counts that are levels rather than flows.
_GROWTH_VERBS = frozenset(
    {"grow", "rise", "fall", "climb", "jump", "shrink", "expand", "drop", "increase", "decrease"}
    | {"double", "halve"}
)
_STOCK_NOUNS = frozenset(
    {
        "employee", "staff", "people", "person", "headcount", "engineer", "worker", "member",
        "user", "customer", "client", "subscriber", "seat", "account", "store", "office",
        "location", "branch", "site", "team",
    }
)  # fmt: skip


# "From 1 March 2025, A joins X and B joins Y": a date fronted before the first clause,
# set off by a comma, dates every clause of the sentence.
_FRONTED_DATE = re.compile(
    r"^\W*(?:from|since|as\s+of|starting|effective|beginning|on|in|at\s+the\s+end\s+of)\s+"
    r"[^,]{3,40},",
    re.I,
)


def share_job_change_dates(
    found: Sequence[tuple[ExtractedClaim, str]],
) -> list[ExtractedClaim]:
    """ "Maria left Acme and joined Globex in March": one date for both halves of the change;
    "From 1 March, Hugo joins X and Mei joins Y": the fronted date for every clause."""
    claims = [c for c, _ in found]
    dated = [c for c in claims if c.claim_valid_from is not None]
    if len(claims) < 2 or len(dated) != 1:
        return claims
    verbs = {lemma for _, lemma in found}
    fronted = claims[0] is dated[0] and bool(_FRONTED_DATE.match(claims[0].claim_text))
    if not verbs & _ENDING_VERBS and not fronted:
        return claims
    source = dated[0]
    return [
        c
        if c.claim_valid_from is not None
        else replace(
            c,
            claim_valid_from=source.claim_valid_from,
            claim_valid_until=source.claim_valid_until,
            claim_valid_precision=source.claim_valid_precision,
            claim_valid_kind=source.claim_valid_kind,
        )
        for c in claims
    ]


# "Since then she has led its platform group": a state that began at the time just told of.
_SINCE_THEN = re.compile(
    r"\b(?:(?:ever\s+)?since\s+then|ever\s+since|from\s+then\s+on|since\s+that\s+(?:day|date|time)"
    r"|from\s+that\s+(?:day|date|point)\s+on(?:wards)?)\b",
    re.I,
)


def date_since_then(claims: Sequence[ExtractedClaim]) -> list[ExtractedClaim]:
    """ "Bea moved to Lintel on 12 May. Since then she has led its platform group": an undated
    claim that says "since then" holds from the start of the last dated claim before it in
    the passage, open-ended."""
    out: list[ExtractedClaim] = []
    last: ExtractedClaim | None = None
    for c in claims:
        if c.claim_valid_from is None and last is not None and _SINCE_THEN.search(c.source_span):
            assert last.claim_valid_from is not None
            c = replace(
                c,
                claim_valid_from=last.claim_valid_from,
                claim_valid_until=None,
                claim_valid_precision="open",
                claim_valid_kind="effective_period",
            )
        if c.claim_valid_from is not None:
            last = c
        out.append(c)
    return out


# A "by" just before the date: the time a change had happened by.
_BY_BEFORE = re.compile(r"\bby\s*$", re.I)


def settle_window(
    window: TimeWindow | None, text: str, clause: Clause, content: Any, *, reschedule: bool
) -> TimeWindow | None:
    """The clause's window read against its verb: a state begun by a dated event, and a new
    value that holds from its date on, whether it was set on that date or reached by it."""
    if window is None:
        return None
    since = replace(window, valid_until=None, precision="open", shape="since")
    if window.shape == "point" and after_since(clause, content, window):
        return since  # "has used the API since the 2024 pilot": begun with that event
    changed = not reschedule and (value_change(content) or status_change(content))
    if window.shape == "point" and changed:
        return since  # "was raised to 250 on 1 May", "turned red on 3 May"
    if (
        window.shape == "until"
        and changed
        and _BY_BEFORE.search(text[: window.start])
        and tense_of(content) == "past"
    ):
        # "headcount grew to 19 by the end of March", "had turned red by Friday": reached by
        # then and held from then on ("reduce latency to 400 ms by end of Q1", a target, keeps
        # its deadline).
        return replace(since, valid_from=window.valid_until)
    return window


def after_since(clause: Clause, content: Any, window: TimeWindow) -> bool:
    """Whether the window's phrase lies in what a "since" attached to the claim names."""
    heads = since_heads(content)
    base = clause.tokens[0].idx
    inside = {t.i for h in heads for t in h.subtree}
    return any(t.i in inside and window.start <= t.idx - base < window.end for t in clause.tokens)


def temporal_tokens(clause: Clause) -> set[int]:
    """Indices of the clause's tokens inside a temporal phrase (NER or the resolver's rules),
    plus a leading "Starting"/"Effective" that the parser may have made a noun."""
    first = clause.tokens[0]
    base = first.idx
    text = first.doc.text[base : clause.tokens[-1].idx + len(clause.tokens[-1].text)]
    ranges = [(m.start() + base, m.end() + base) for _, rx in ATOM_RES for m in rx.finditer(text)]
    found = {
        t.i
        for t in clause.tokens
        if t.ent_type_ in ("DATE", "TIME") or any(s <= t.idx < e for s, e in ranges)
    }
    for t in clause.tokens:
        if t.lower_ in ("starting", "effective", "beginning") and t.i + 1 in found:
            found.add(t.i)
    return found


# Verbs a timetable states in the present ("the office closes on 24 December", "the pilot
# starts on 3 May", "Ana takes over on 1 June"): a dated one is scheduled, not habitual.
_PLAN_VERBS = frozenset({"plan", "schedule", "slate", "expect", "target", "pencil", "book"})
_SCHEDULED_VERBS = frozenset(
    {
        "close", "open", "reopen", "start", "begin", "end", "finish", "launch", "kick", "leave",
        "arrive", "ship", "release", "expire", "renew", "resume", "commence", "go", "depart",
        "freeze", "wrap", "conclude", "happen", "take", "move", "switch", "join", "retire",
    }
)  # fmt: skip
_BE_FORMS = frozenset({"is", "are", "am", "'s", "'re", "’s", "’re"})


def tense_of(head: Any) -> Tense:
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
    if head.tag_ == "VBN" and not aux and any(c.dep_ == "nsubj" for c in head.children):
        return "past"  # "The fix shipped on Tuesday": the tagger's participle is the past
    # A dated arrangement: "we are closing the office on 24 December", "the pilot ends on
    # 30 June" (present simple of a scheduled event, no auxiliary).
    if head.tag_ == "VBG" and words & _BE_FORMS and head.lemma_.lower() != "be":
        return "future"
    if head.tag_ in ("VBZ", "VBP") and not aux and head.lemma_.lower() in _SCHEDULED_VERBS:
        return "future"
    if head.lemma_.lower() in _PLAN_VERBS and words & {"is", "are", "'s", "'re"}:
        return "future"  # "the offsite is planned for October": what is planned lies ahead
    return "present"


def _ranges_to(prep: Any) -> bool:
    return any(t.lower_ == "to" and t.dep_ == "quantmod" for t in prep.subtree)


def value_change(content: Any) -> bool:
    """ "was raised to 250 requests per second", "we cut the price to $40": a controlled value
    set to a number (passive, or with an object), not a measurement that rose by itself. A
    count of what an organisation has ("grew to 150 employees", "the team shrank to 9 people")
    moves the same way: it stays at the new number until it moves again, where revenue that
    "rose to $5M in Q3" is what Q3 measured."""
    lemma = content.lemma_.lower()
    # "to $15", or "from $12 to $15", which the parser reads as one range after "from".
    targets = [
        prep
        for prep in content.children
        if prep.dep_ == "prep"
        and (prep.lower_ == "to" or (prep.lower_ == "from" and _ranges_to(prep)))
        and any(t.ent_type_ in _NUMERIC_ENTS or t.like_num for t in prep.subtree)
    ]
    # "goes up to 250 requests": the parser reads "up to" as a bound of the number.
    gone_to = lemma == "go" and any(
        t.lower_ in ("up", "down")
        and t.i + 2 < len(t.doc)
        and t.doc[t.i + 1].lower_ == "to"
        and t.doc[t.i + 2].like_num
        for t in content.subtree
    )
    if not targets and not gone_to:
        return False
    if lemma in _CHANGE_VERBS and any(
        c.dep_ in ("auxpass", "dobj", "nsubjpass") for c in content.children
    ):
        return True
    moved = (
        lemma in _GROWTH_VERBS
        or gone_to
        or (
            lemma == "go"
            and any(c.dep_ == "prt" and c.lower_ in ("up", "down") for c in content.children)
        )
    )
    if not moved:
        return False
    subject = next((c for c in content.children if c.dep_ == "nsubj"), None)
    if subject is not None and subject.lemma_.lower() in _SETTING_HEADS:
        # "the Exports API limit goes up to 250", "the fee rises to $15": a setting holds
        # at its new value until it is changed again.
        return True
    counted = [t for prep in targets for t in prep.subtree]
    counted += [t for t in subject.subtree] if subject is not None else []
    return any(t.lemma_.lower() in _STOCK_NOUNS for t in counted)


def status_change(content: Any) -> bool:
    """ "status changed to green", "turned red", "moved to at risk", "went from amber to red":
    a status entered, which holds from then until the next one (as "is blocked since")."""
    if content.lemma_.lower() not in _STATUS_CHANGE_VERBS:
        return False
    entered = [
        t
        for c in content.children
        if (c.dep_ == "prep" and c.lower_ in ("to", "from")) or c.dep_ in ("acomp", "oprd")
        for t in c.subtree
    ]
    return any(t.lower_ in _STATUS_WORDS for t in entered)


def claim_kind(content: Any, clause: Clause, window: TimeWindow | None) -> ValidKind:
    lemma = content.lemma_.lower()
    if window is not None and window.shape == "since" and value_change(content):
        return "effective_period"
    progressive = content.tag_ == "VBG" and any(c.dep_ == "aux" for c in content.children)
    if lemma in _MEASURE_VERBS and any(t.ent_type_ in _NUMERIC_ENTS for t in clause.tokens):
        return "measurement_period"
    if window is not None and window.shape in ("since", "until", "range"):
        return "effective_period"
    if lemma == "be" and window is not None:
        return "event_time"  # "the call is at 16:30 on 14 May": something happens then
    if progressive and lemma not in _STATE_VERBS and window is not None:
        return "event_time"  # "tomorrow I'm taking the kids to the museum"
    if lemma in _STATE_VERBS or progressive:
        if lemma in _PERIOD_STATES or progressive or window is not None:
            return "effective_period"
        return "proposition_validity"
    if window is None and any(
        c.dep_ == "auxpass" and c.tag_ in ("VBZ", "VBP") for c in content.children
    ):
        return "proposition_validity"  # "is blocked by a vendor issue", "are owned by": a state
    return "event_time"
