"""Find who a statement is attributed to ("Dana believes…", "according to the spec, …")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ATTRIBUTION_VERBS", "Attribution", "find_attribution", "speaking_frankly"]

ATTRIBUTION_VERBS = frozenset(
    {
        "say", "tell", "believe", "think", "claim", "report", "state", "mention", "argue",
        "feel", "announce", "confirm", "note", "explain", "expect", "assume", "suspect",
        "reckon", "insist", "estimate", "predict", "write", "guess", "know", "hear", "read",
        "warn", "admit", "agree", "suggest", "point", "add", "reply", "doubt", "conclude",
    }
)  # fmt: skip


# Verbs with which a group reports its own decision rather than a view.
_DECISION_VERBS = frozenset({"agree", "decide", "conclude", "confirm", "resolve"})


@dataclass(frozen=True)
class Attribution:
    """`holder` tokens (None when the holder is the speaker's "I") and the content head."""

    holder_tokens: tuple[Any, ...]
    content: Any
    frame_verb: Any | None
    # The frame asserts its content as the source's own statement (a decision the writers
    # report: "we agreed that …"); the claim is the content, not attributed.
    asserted: bool = False


def _subtree(token: Any) -> tuple[Any, ...]:
    return tuple(token.subtree)


_PERSONAL_PRONOUNS = frozenset({"him", "her", "them", "me", "us", "you"})


def _someone(obj: Any) -> bool:
    """Whether "according to <obj>" names someone who holds the view ("according to Bea",
    "according to Finance", "according to her"), not a source the writer cites ("according to
    their site", "according to the org chart"): the statement is then the writer's own."""
    if obj.lower_ in _PERSONAL_PRONOUNS:
        return True
    return any(
        t.pos_ == "PROPN" or t.ent_type_ in ("PERSON", "ORG", "NORP")
        for t in obj.subtree
        if t.dep_ not in ("poss", "det")
    )


# "in my view", "in Dana's opinion", "in our book": whose view the clause states.
_VIEW_NOUNS = frozenset({"view", "opinion", "eyes", "book", "estimation", "judgment", "judgement"})
_OPINION_ABBREVIATIONS = frozenset({"imo", "imho", "imvho"})
_FIRST_PERSON = frozenset({"me", "us"})


def _viewpoint(head: Any) -> Attribution | None:
    """A phrase that marks the clause as someone's view without a verb of saying: "In my view
    the vendor is overcharging us", "IMO the dashboard is clearer", "To me, the redesign looks
    rushed", "…, if you ask me". No holder tokens means the one speaking."""
    # The parser may hang the phrase on an auxiliary ("To me, the redesign [looks] rushed").
    auxiliaries = [c for c in head.children if c.dep_ in ("aux", "auxpass")]
    for child in [*head.children, *(g for a in auxiliaries for g in a.children)]:
        if child.lower_ in _OPINION_ABBREVIATIONS:
            return Attribution((), head, None)
        pobj = next((g for g in child.children if g.dep_ == "pobj"), None)
        if child.dep_ == "prep" and child.lower_ == "in" and pobj is not None:
            owner = next((g for g in pobj.children if g.dep_ == "poss"), None)
            if pobj.lemma_.lower() in _VIEW_NOUNS and owner is not None:
                return Attribution(tuple(t for t in owner.subtree if t.dep_ != "case"), head, None)
        fronted = child.i == head.sent.start and child.right_edge.i + 1 < len(head.doc)
        if (
            child.dep_ == "prep"
            and child.lower_ in ("to", "for")
            and fronted
            and pobj is not None
            and pobj.lower_ in _FIRST_PERSON
            and head.doc[child.right_edge.i + 1].text == ","
        ):
            return Attribution((pobj,), head, None)  # "To me, …", "For us, …"
        if child.dep_ == "advcl" and speaking_frankly(child):
            return Attribution((), head, None)  # "…, if you ask me", "If I'm honest, …"
    return None


def speaking_frankly(clause: Any) -> bool:
    """ "if you ask me", "if I'm honest", "if I'm being frank": a condition on the saying, not
    on what is said, which holds as the speaker's view."""
    if not any(c.dep_ == "mark" and c.lower_ == "if" for c in clause.children):
        return False
    objects = {c.lower_ for c in clause.children if c.dep_ == "dobj"}
    if clause.lemma_.lower() == "ask" and objects & _FIRST_PERSON:
        return True
    subject = next((c.lower_ for c in clause.children if c.dep_ == "nsubj"), "")
    honest = {c.lower_ for c in clause.children if c.dep_ == "acomp"} & {"honest", "frank"}
    return bool(subject in ("i", "we") and honest)


def find_attribution(head: Any) -> Attribution | None:
    """Attribution frame governed by `head` (a clause head), if any."""
    viewpoint = _viewpoint(head)
    if viewpoint is not None:
        return viewpoint
    for child in head.children:
        if child.lower_ == "according":
            to = next((c for c in child.children if c.lower_ == "to"), None)
            obj = next((c for c in to.children if c.dep_ == "pobj"), None) if to else None
            if obj is not None and _someone(obj):
                return Attribution(_subtree(obj), head, None)
    lemma = head.lemma_.lower()
    if lemma not in ATTRIBUTION_VERBS and lemma not in _DECISION_VERBS:
        return None
    comp = next((c for c in head.children if c.dep_ == "ccomp"), None)
    if comp is None and head.lemma_.lower() in ("feel", "think"):
        # "I feel like the group helped me" parses the content as an adverbial clause
        comp = next(
            (
                c
                for c in head.children
                if c.dep_ == "advcl" and any(m.lower_ == "like" for m in c.children)
            ),
            None,
        )
    if comp is None:
        return None
    subj = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subj is None:
        return None
    # "We agreed that Sofia stays on ingest": the writers state a decision, not a view.
    decided = subj.lower_ in ("we", "us") and lemma in _DECISION_VERBS
    if lemma not in ATTRIBUTION_VERBS and not decided:
        return None  # "Dana decided that …" stays a claim about Dana's decision
    return Attribution(_subtree(subj), comp, head, asserted=decided)
