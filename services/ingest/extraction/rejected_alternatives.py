"""A rejected alternative: "Maria Kowalczyk, not Marta", "Head of Research, not Design",
"40 euros, not 45".

A correction names what holds and, after a comma and "not", what was said wrongly. The parser
hangs the rejected one on the right one as an apposition (or a conjunct), where every reader
of names, roles and relative clauses takes it for a second name of the same thing: "it was
Maria Kowalczyk, not Marta, who signed" stored "Marta signed the contract", and "Lucia is
Head of Research, not Design" placed Lucia at Design. The repair gives the alternative a
dependency of our own (`REJECTED_DEP`) that no reader follows, and hangs a relative clause
the parser attached to it on the name that holds.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REJECTED_DEP", "repair_rejected_alternatives"]

REJECTED_DEP = "rejected_alternative"
_ALTERNATIVE_DEPS = frozenset({"appos", "conj", "npadvmod", "dep"})


def repair_rejected_alternatives(sent: Any) -> None:
    """Mark each ", not Y" after a noun in `sent` as rejected (`REJECTED_DEP`)."""
    for tok in sent:
        if tok.dep_ not in _ALTERNATIVE_DEPS or tok.head.i >= tok.i:
            continue
        if not (_nominal(tok) and _nominal(tok.head)):
            continue
        negation = _negation_before(tok)
        if negation is None:
            continue
        tok.dep_ = REJECTED_DEP
        if negation.head.i != tok.i and negation.i not in {t.i for t in tok.subtree}:
            negation.head = tok  # the parser hangs "not" on the right one: it negates nothing
        for clause in [c for c in tok.children if c.dep_ == "relcl"]:
            clause.head = tok.head  # "it was Maria, not Marta, who signed": Maria signed


def _nominal(tok: Any) -> bool:
    return tok.pos_ in ("PROPN", "NOUN", "NUM")


def _negation_before(tok: Any) -> Any | None:
    """The "not" that opens `tok`'s phrase right after a comma or dash (", not Marta")."""
    doc = tok.doc
    edge = tok.left_edge
    if edge.lower_ == "not":
        negation = edge
    elif edge.i > 0 and doc[edge.i - 1].lower_ == "not":
        negation = doc[edge.i - 1]
    else:
        return None
    if negation.i == 0 or doc[negation.i - 1].text not in (",", "—", "–", "-"):
        return None
    return negation
