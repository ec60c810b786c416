"""Calling a thing off, in any voice: "the offsite has been cancelled", "we have called off
the launch", "we're no longer going ahead with the deal", "scratch that, it's off".

One pattern for the two places that read it: the adjudicator's categories (the thing's status
becomes "cancelled", a rival of the plan it ends) and the slot loader (a value that calls the
others off, `shared.beliefs.timeline`). Group 1 is the words that say it.
"""

from __future__ import annotations

import re

__all__ = ["CALLED_OFF"]

CALLED_OFF = re.compile(
    r"\b(cancell?ed|cancell?ing|call(?:ed|ing)?\s+off|scrapp(?:ed|ing)|shelved|axed|"
    r"(?:no\s+longer|not)\s+going\s+ahead|no\s+longer\s+happening|"
    # "it's off", "the offsite is now off": only as the sentence's end ("is off to a good
    # start" is no cancellation)
    r"(?:is|are|was|were|'s|’s)\s+(?:now\s+|officially\s+)?off(?=\s*[.!]?$))\b",
    re.IGNORECASE,
)
