"""Find who a statement is attributed to ("Dana believes…", "according to the spec, …")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ATTRIBUTION_VERBS", "Attribution", "find_attribution"]

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


def find_attribution(head: Any) -> Attribution | None:
    """Attribution frame governed by `head` (a clause head), if any."""
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
