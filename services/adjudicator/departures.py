"""A departure that names no employer: "Priya Raman has left the company", "Today is Marco's
last day", "has retired", "resigned last week", "is no longer with us".

The extractor keeps no object for "the company" (no entity), so the claim was an observation
beside the employment it ends, and "what is true now" still had her at Halvorsen Freight. Such
an observation is stored with phase `end`; the timeline reads it as a vacancy of its subject's
employer slot from the day it states (or the day it was said: she had left by then), so the
employment open before it is closed there, whichever of the two arrived first
(`shared.beliefs.slots`). A later employer still follows it as usual.
"""

from __future__ import annotations

import re

from services.adjudicator.domain import ClaimView

__all__ = ["departs"]

_LEAVING_VERBS = frozenset({"leave", "retire", "resign", "quit", "depart"})
# Verbs that are a departure from one's employer with nothing after them ("has retired",
# "resigned last week"); a bare "has left" may be the call or the building.
_WITHOUT_OBJECT = frozenset({"retire", "resign"})
_EMPLOYER = (
    r"(?:the\s+|our\s+)?(?:company|firm|business|organi[sz]ation|agency|startup|practice|"
    r"group|us\b)"
)
_LEFT_EMPLOYER = re.compile(rf"\b(?:left|leaving|leaves|leave|quit|quits)\s+{_EMPLOYER}", re.I)
_NO_LONGER_WITH = re.compile(rf"\bno\s+longer\s+(?:with|at|part\s+of)\s+{_EMPLOYER}", re.I)
_LAST_DAY = re.compile(r"\blast\s+(?:working\s+)?day\b", re.I)


def departs(claim: ClaimView) -> bool:
    """Whether the claim says its subject left their employer without naming it."""
    if claim.is_attributed or claim.object_text:
        return False
    text = claim.claim_text
    if _NO_LONGER_WITH.search(text):
        return True
    verb = (claim.predicate_text or "").split(" ")[0]
    if claim.polarity != "positive" or verb not in _LEAVING_VERBS:
        return False
    return bool(_LEFT_EMPLOYER.search(text) or _LAST_DAY.search(text) or verb in _WITHOUT_OBJECT)
