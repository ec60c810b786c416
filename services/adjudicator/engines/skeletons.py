"""The attribute words of an observation's statement: what it is a value of.

"The Pro plan costs $20" and "From 1 June the Pro plan is $25 a month" state one attribute (the
Pro plan's price) with two values. The *skeleton* of a statement is its content words without
stop words, values, dates, month names, categorical values (`categories`), cue words of a
change or a report ("raised to", "came in at"), a reason tail and a fronted adverbial; lightly
stemmed, with a few attribute synonyms. `jev` compares skeletons (`similarity`, `containment`)
to tell the same proposition and another value of the same attribute from unrelated facts.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

from services.adjudicator.engines.categories import strip_categories
from services.adjudicator.engines.corrections import CORRECTION
from services.adjudicator.engines.values import MONTHS, TEXT_CACHE
from services.adjudicator.predicates import IRREGULAR

__all__ = [
    "TRANSITION",
    "VALUE_SET",
    "containment",
    "content_tokens",
    "similarity",
    "without_fronted",
    "without_subject",
]

_STOP_WORDS = (
    "a an the of to in on at for by with from and or but is are was were be been being has have "
    "had will would shall should can could may might must do does did this that these those it "
    "its as than then so not no never also just still now currently already yet its their his "
    "her our your my we they he she you i there here which who whom whose what when where how "
    "into onto over under about after before during until since per via again honestly "
    "frankly basically actually really fully strongly firmly completely totally entirely"
)
_STOP = frozenset(_STOP_WORDS.split())
# A state or view the subject has left ("no longer with Trellisoft", "doesn't back it any
# more"): the normaliser's end of a placement, the engine's end of a view.
NO_LONGER = re.compile(r"\b(no longer|not any ?more|any ?more|no more)\b", re.IGNORECASE)
TRANSITION = re.compile(
    r"\b(moved to|moves to|moving to|transferred|switched|replaced|replaces|no longer|left|leaves|"
    r"joined|joins|now|took over|takes over|became|becomes|promoted|stepped down|handed over|"
    r"succeeded|succeeds|changed to|is back)\b"
)
# A controlled value set anew ("we lowered the Exports API limit to 30", "was raised to 250",
# "are growing to 85 seats"): the change of an attribute, said as the change it is.
VALUE_SET = re.compile(
    r"\b(raised|lowered|increased|decreased|reduced|cut|bumped|upped|dropped|lifted|"
    r"doubled|halved|grew|grown|rose|risen|fell|fallen|jumped|climbed|shrank|shrunk|"
    # "are growing to 85 seats", "is expanding to 120 licences": the change said under way
    r"growing|expanding|shrinking|increasing|decreasing|going up|going down|"
    r"went up|went down)\b[^.;]{0,60}?\bto\s+[$€£]?\d"
)
_WORD = re.compile(r"[a-z0-9]+")
# Why a value changed is not the attribute it is a value of ("moved to 9 June because of the
# bank holiday freeze", "is red because the vendor missed the API drop").
# What brought a view round is no part of it either ("now backs the move after seeing the
# benchmark", "supports it following reviewing the numbers").
_REASON_TAIL = re.compile(
    r"[,;]?\s*\b(?:because|due to|owing to|thanks to|as a result of|"
    r"(?:after|following|since)\s+\w+ing)\b.*$"
    # What follows from it is no part of it either ("moves to EUR 26, so your renewal quote
    # will reflect that").
    r"|[,;]\s*(?:so|which\s+means)\b.*$"
)
# The unit a price or rate is counted in ("EUR 26/user/month", "$40 per seat per year", "79
# dollars a month", "billed annually"): how the value is measured, not what it is of.
_PER_UNIT = re.compile(
    r"(?:\b(?:per|a|an|each|every)\s+|/)(?:user|seat|month|year|annum|head|person|employee|"
    r"licen[cs]e|member|"
    r"week|day|hour)s?\b|\bbilled\s+(?:annually|monthly|yearly|quarterly)\b"
)
# Words that open an adverbial fronted before the subject (see `without_fronted`).
_FRONTED = re.compile(r"^\s*(?:since|after|following|from|as of|starting|with|once)\b", re.I)
# Verbs of change that say how a value moved, not which attribute it is.
_CUE_STEMS = frozenset({"mov", "chang", "updat", "shift", "revis", "now"})
# Words that open the window a value holds in ("Starting 1 February", "effective June"): when,
# not what.
_CUE_STEMS |= {"start", "effective", "begin", "beginn", "onward", "onwards"}
# "Nova status: green" and "Nova is red" name one attribute: a status word says no more.
_CUE_STEMS |= {"statu"}
# How a quantity moved ("grew to 150 employees", "fell to 40"), not what it counts.
_CUE_STEMS |= {"grew", "grow", "rose", "ris", "fell", "fall", "jump", "climb", "shrank", "shrunk"}
# "totalled 1,200", "landed at 950", "came in at $3.8M", "stood at": how a figure was reported.
_CUE_STEMS |= {
    "total",
    "totall",
    "land",
    "came",
    "come",
    "cam",
    "com",
    "stood",
    "stand",
    "reach",
    "amount",
}
_CUE_STEMS |= {"clock", "topp", "hover"}
# "goes up to 250", "was raised to", "went down to": how a setting moved.
_CUE_STEMS |= {
    "go",
    "goe",
    "went",
    "gone",
    "gon",
    "up",
    "down",
    "rais",
    "lower",
    "increas",
    "decreas",
}
# "the SLA drops to 2 hours", "was cut to 30", "extended to 90 days": how a setting moved.
_CUE_STEMS |= {"drop", "dropp", "cut", "reduc", "extend", "shorten", "slash", "bump", "trim"}
_CUE_STEMS |= {"doubl", "halv", "tighten", "loosen", "relax", "hik", "hike"}
# "pushed back to", "brought forward to": which way a date moved, not what is dated.
_CUE_STEMS |= {"back", "forward", "brought", "got", "get", "gotten"}
# "is $79 right now": when, not what.
_RIGHT_NOW = re.compile(r"\b(?:right|just)\s+now\b")
# A currency said in words ("79 dollars") is the value's unit, not the attribute.
_CUE_STEMS |= {"dollar", "usd", "buck", "euro", "eur", "pound", "gbp", "quid"}
# Stems that name the same attribute ("planned for" = "scheduled for").
_SKELETON_SYNONYMS = {
    "plann": "schedul",
    "slat": "schedul",
    "due": "schedul",
    "target": "schedul",
    "expect": "schedul",
    "think": "believ",
    "feel": "believ",
    # A price in any of its verbs ("costs $48", "is priced at $40", "charges $5").
    "cost": "pric",
    "charg": "pric",
    # A limit in any of its words ("allows 100 requests", "the limit is 250 requests").
    "allow": "limit",
    "cap": "limit",
    "quota": "limit",
    "maximum": "limit",
    # A headcount in any of its words ("employs 120 people", "grew to 150 employees").
    "employ": "staff",
    "peopl": "staff",
    "headcount": "staff",
    "worker": "staff",
    "person": "staff",
    "employe": "staff",  # "employees", stemmed
    "member": "staff",
    "fte": "staff",
    "engineer": "staff",  # "the Payments team has 12 engineers" is its headcount
}


def _stem(word: str) -> str:
    word = IRREGULAR.get(word, word)  # "paid" and "pays" state one attribute in two tenses
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    # "approve" and "approved", "move" and "moving", "site" and "sites" must meet: drop a
    # final e once the word is long enough.
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


# When in a week or a day, not what: weekdays, clock words and time zones ("on Monday",
# "at 14:00 CET", "16:30 (UTC+2)") are dates as the month names are.
_CLOCK_WORDS = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "am", "pm",
        "noon", "midnight", "utc", "gmt", "cet", "cest", "eet", "eest", "bst", "ist", "jst",
        "pst", "pdt", "est", "edt", "cst", "cdt", "mst", "mdt", "aest", "sgt", "hkt",
    }
)  # fmt: skip


# Candidate texts are read again for every assertion compared with them: once per text.
@lru_cache(maxsize=TEXT_CACHE)
def content_tokens(text: str, *, skeleton: bool) -> frozenset[str]:
    """Content words; the skeleton also drops values and cue words, leaving the attribute."""
    lowered = text.lower()
    if skeleton:
        lowered = _REASON_TAIL.sub(" ", _RIGHT_NOW.sub(" ", lowered))
        lowered = _PER_UNIT.sub(" ", lowered)
        lowered = TRANSITION.sub(" ", CORRECTION.sub(" ", strip_categories(lowered)))
    kept = {_stem(w) for w in _WORD.findall(lowered) if w not in _STOP}
    if skeleton:
        kept = {
            _SKELETON_SYNONYMS.get(w, w)
            for w in kept
            if not any(ch.isdigit() for ch in w)
            and w not in MONTHS
            and w not in _CLOCK_WORDS
            and w not in _CUE_STEMS
        }
    return frozenset(kept)


def without_fronted(text: str, subject: str) -> str:
    """A statement without the adverbial fronted before its subject ("Since the pilot results
    Dana supports …", "After the merger Acme employs …"): when a value began, not which."""
    if not _FRONTED.match(text) or not subject:
        return text
    at = text.lower().find(subject.lower())
    return text[at:] if at > 0 else text


# A run of capitalised words: a name as written ("Rhea Kapoor", "The Pro").
_NAME_RUN = re.compile(r"(?<![\w'])[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*")


def without_subject(text: str, subject: str) -> str:
    """A statement with its subject named one way: every candidate is a fact about the
    assertion's subject, and writers name one entity differently ("Rhea Kapoor is against …",
    "Rhea now backs …", "The cutover for the billing migration …"), so a capitalised name that
    shares a word with the subject's (an alias, "Dana Okafor" of "Dana") and any of its words
    left elsewhere read as the one word `subject`. The subject still counts as a word both
    skeletons share: "2025 churn ended up at 4%" and "2025 churn was 6%" are of one attribute,
    named by their subject."""
    words = set(_WORD.findall(subject.lower())) - _STOP
    if not words:
        return text
    aliased = _NAME_RUN.sub(
        lambda m: " subject " if words & set(_WORD.findall(m.group(0).lower())) else m.group(0),
        text,
    )
    pattern = rf"(?i)(?<!\w)(?:{'|'.join(map(re.escape, sorted(words)))})(?:'s)?(?!\w)"
    replaced = re.sub(pattern, " subject ", aliased)
    return replaced if re.search(r"\bsubject\b", replaced) else f"subject {replaced}"


def containment(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Overlap coefficient: how much of the terser set the other holds."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def similarity(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    """Mean of Jaccard and overlap coefficient: robust to one statement being terser."""
    if not a or not b:
        return 0.0
    common = len(a & b)
    return 0.5 * (common / len(a | b) + common / min(len(a), len(b)))
