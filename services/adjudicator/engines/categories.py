"""Categorical values: a status a thing is in, or the stance a holder takes.

"Project Falcon is amber" and "Project Falcon is red" state two values of one attribute the way
"$49" and "$59" do, so the engine must see them as values: the rest of the sentence (the
skeleton) names the attribute, and different values of it are rivals — a later one supersedes,
one stated for the same period conflicts. Without this the two statements differ by one content
word and look like unrelated propositions, and a status never changes.

Status words count only where the sentence assigns them (after a copula, "rated", "marked",
"turned", or a status line's "status:"), so "the red team" is not a status, nor "went live" (a
launch is an event). A stance
is the direction of the holder's position: "supports", "backs", "is in favour of" are one value and
"opposes", "is against", "rejects" the other, so "backs" after "opposes" is a change of stance
whatever verbs the two writers chose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.text.cancellations import CALLED_OFF

__all__ = ["Category", "find_categories", "strip_categories"]


@dataclass(frozen=True, slots=True)
class Category:
    """One value on a named axis: `status` (the word itself) or `stance` (`for` / `against`)."""

    axis: str
    value: str


_STATUS_WORDS = (
    "green|amber|yellow|red|on track|off track|at risk|blocked|unblocked|on hold|paused|"
    "resumed|cancelled|canceled|complete|completed|done|in progress|not started|live|"
    "active|inactive|deprecated|frozen|"
    # States a service, a place or a request is in ("the office is closed on Saturdays",
    # "SSO is enabled for all tenants", "the launch is behind schedule").
    "open|closed|enabled|disabled|available|unavailable|online|offline|delayed|postponed|"
    "on schedule|behind schedule|ahead of schedule|approved|pending|suspended|archived|"
    "under review|"
    # A system's health ("the payments gateway is down", "is back up", "has been restored");
    # "up 20%", "down 5%" are changes of an amount.
    r"down(?!\s*\d|\s+(?:to|by|from)\b)|up(?!\s*\d|\s+(?:to|by|from)\b)|degraded|operational|healthy|unhealthy|broken|restored|"
    "resolved|unresolved|fixed|mitigated|reopened|"
    # Whether someone is at work ("Hugo is on paternity leave from 2 March", then "Hugo is
    # back as of today"): an absence and the return that ends it.
    r"on\s+(?:\w+\s+)?leave|on\s+(?:vacation|holiday|sabbatical)|out\s+of\s+(?:the\s+)?office|"
    r"off\s+sick|away|back\s+(?:at|to)\s+work|back(?!\s+(?:to|from|in|on|at|up|down)\b)"
)
_STATUS = re.compile(
    r"\b(?:is|are|was|were|be|been|being|remains?|remained|stays?|stayed|turned|turns|"
    r"rated|marked|flagged|moved to|back to|now|(?:status|health)\s*[:\u2013\u2014-]|"
    # "status changed to green", "went to red", "flipped to amber", "was downgraded to at risk"
    r"(?:changed|changes|went|goes|gone|switched|flipped|shifted|dropped|set|upgraded|"
    r"downgraded|returned|slipped|slips|slid|fell|falls|moved|moves|improved|recovered|"
    r"escalated|reverted)\s+(?:from\s+(?:" + _STATUS_WORDS + r")\s+)?to)"
    r"\s+(?:(?:now|still|back|again|officially)\s+)?"
    rf"({_STATUS_WORDS})\b"
)
# A bare "support" or "oppose" is a stance only after its holder ("I support", "we now
# oppose"); elsewhere it is as often a noun ("the support plan").
_HOLDER = r"(?:i|we|they|you|he|she|still|now|also|fully|strongly|firmly)\s+"
# "is now fully in favour of", "was strongly opposed to": how firmly, not which way.
_DEGREE = r"(?:(?:now|still|fully|strongly|firmly|very\s+much|completely|totally|all)\s+){0,2}"
_STANCE_FOR = (
    rf"supports|supported|{_HOLDER}(?:support|back|favou?r|endorse)|backs|backed|favou?rs|"
    r"favou?red|endorses|endorsed|champions|championed|"
    # Coming to support it: "has come round to", "warmed to", "was won over to"
    r"(?:come|came|coming|comes)\s+(?:a)?round\s+to(?=\s+(?:\w+ing|it|the\s+(?:idea|plan|"
    r"proposal|policy|view|decision|move|change)s?)\b)|warm(?:ed|s)?\s+to|won\s+over\s+to|"
    rf"(?:is|are|was|were|been)\s+{_DEGREE}(?:in favou?r of|for)|"
    # Keen on it: "is keen on", "is enthusiastic about", "is on board with"
    r"(?:keen|enthusiastic)\s+(?:on|about)|on\s+board(?:\s+with|(?=\s*(?:now|too|as\s+well|after\s+all)?\s*(?:[.,;!]|$)))"
)
_STANCE_AGAINST = (
    rf"opposes|opposed|{_HOLDER}(?:oppose|reject|resist)|against|rejects|rejected|"
    r"objects? to|objected to|resists|resisted|"
    rf"(?:is|are|was|were|been)\s+{_DEGREE}opposed to|"
    # Turning against it: "turned against", "soured on", "cooled on"
    r"turn(?:ed|s)?\s+against|sour(?:ed|s)?\s+on|cool(?:ed|s)?\s+on|"
    # Doubting it: "is sceptical about", "is wary of", "has doubts about", "is not convinced by"
    r"(?:sceptical|skeptical|doubtful|wary|unconvinced)\s+(?:about|of|on)|"
    r"(?:has|have|had)\s+(?:serious\s+|real\s+|some\s+)?doubts\s+about|"
    r"not\s+convinced\s+(?:by|of|about)"
)
_LEFT_STATUS = re.compile(rf"\bfrom\s+(?:{_STATUS_WORDS})\s+to\b")
_STANCE = re.compile(rf"\b(?:({_STANCE_FOR})|({_STANCE_AGAINST}))\b")


def find_categories(lowered: str) -> list[tuple[int, Category]]:
    """(position, value) of every status and stance stated in lower-cased `lowered`."""
    found = [(m.start(1), Category("status", m.group(1))) for m in _STATUS.finditer(lowered)]
    # Calling a thing off in any voice ("we have called off the launch") is its status too.
    taken = {position for position, _ in found}
    found += [
        (m.start(1), Category("status", "cancelled"))
        for m in CALLED_OFF.finditer(lowered)
        if not any(m.start(1) <= t < m.end(1) for t in taken)
    ]
    for match in _STANCE.finditer(lowered):
        direction = "for" if match.group(1) else "against"
        found.append((match.start(), Category("stance", direction)))
    return found


def strip_categories(lowered: str) -> str:
    """`lowered` without its categorical values: what remains names the attribute."""
    without_status = _STATUS.sub(lambda m: m.group(0)[: m.start(1) - m.start(0)], lowered)
    without_status = CALLED_OFF.sub(" ", without_status)
    # "went from amber to red": the status left is a value too, not part of the attribute.
    without_status = _LEFT_STATUS.sub(" to", without_status)
    return _STANCE.sub(" ", without_status)
