"""The entity a noun phrase names, read from spaCy's parse (NER, compounds, heads, appositions).

A subject or object of a clause is a whole subtree in the parse ("Maria Lopez from the Berlin
sales office", "Dana Whitfield, the CTO of Northwind"), but the entity it names is a part of it:
the name (a NER span, or a run of proper nouns), or a common noun with the modifiers that make it
nameable ("the billing migration"). What else the phrase says becomes a relation of its own when
it is a role ("the CTO of Northwind": works for Northwind) and is dropped otherwise (a place of
origin, a relative clause). A possessed thing ("Acme's 2025 audit") is anchored on its possessor.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.coref import is_honorific
from shared.text.units import TEAM_HEADS, is_team_head

__all__ = [
    "ATTRIBUTE_HEADS",
    "NAME_LABELS",
    "PLACE_HEADS",
    "SYSTEM_HEADS",
    "Phrase",
    "Role",
    "entity_like",
    "entity_phrase",
    "holds_position",
    "is_bare",
    "is_name",
    "is_role_word",
    "name_span",
    "position_workplace",
    "role_predicate",
    "without_honorific",
]

# NER labels whose spans are names of things an agent may ask about. Dates, numbers and money
# are values, never entities.
NAME_LABELS = frozenset(
    {"PERSON", "ORG", "PRODUCT", "GPE", "LOC", "FAC", "NORP", "WORK_OF_ART", "EVENT", "LAW"}
)
# Titles and positions: "the CTO of Northwind" names a person through their role in Northwind.
_ROLE_WORDS = frozenset(
    {
        "ceo", "cto", "cfo", "coo", "cio", "ciso", "cmo", "cpo", "cro", "vp", "svp", "evp",
        "president", "chair", "chairman", "chairwoman", "chairperson", "director", "manager",
        "head", "lead", "founder", "cofounder", "co-founder", "owner", "partner", "principal",
        "engineer", "developer", "designer", "analyst", "architect", "consultant", "advisor",
        "adviser", "counsel", "officer", "chief", "secretary", "treasurer", "editor",
        "researcher", "scientist", "recruiter", "administrator", "coordinator", "specialist",
        "strategist", "marketer", "accountant", "lawyer", "attorney", "intern", "contractor",
        "employee", "member", "staffer", "representative", "rep", "spokesperson", "spokesman",
        "spokeswoman", "ambassador", "executive", "supervisor", "controller", "auditor",
        "evangelist", "steward", "captain",
    }
)  # fmt: skip
_FOUNDER_WORDS = frozenset({"founder", "cofounder", "co-founder"})
_ROLE_PREPOSITIONS = frozenset({"of", "at", "for", "with"})
# Children of a noun that belong to its name; everything else (prepositional modifiers,
# relative clauses, appositions) says something about it and is not part of the name.
_NAME_DEPS = frozenset({"det", "compound", "amod", "nmod", "nummod", "quantmod", "poss", "case"})
_NAME_DEPS |= {"flat", "predet"}
# "for"/"of" complements make a common head nameable ("the cutover for the billing migration").
_COMPLEMENT_PREPOSITIONS = frozenset({"of", "for"})


@dataclass(frozen=True)
class Role:
    """A relation a noun phrase states about the entity it names ("the CTO of Northwind")."""

    predicate: str  # a verb phrase the normalizer maps: "work for", "member of", "found"
    target: tuple[Any, ...]  # tokens naming the organization (or team)
    tokens: tuple[Any, ...]  # the role phrase, for the claim text ("the CTO of Northwind")


@dataclass(frozen=True)
class Phrase:
    """The tokens naming an entity (in document order) and the roles the phrase gives it."""

    tokens: tuple[Any, ...]
    roles: tuple[Role, ...] = ()


_PERIOD_NAME = re.compile(r"(?:[QH][1-4]|FY\d{2,4}|W\d{1,2})", re.IGNORECASE)


def _proper(tok: Any) -> bool:
    """A proper noun as written (the small tagger also calls "cutover" one), never a month or
    a weekday ("the June date")."""
    return bool(
        tok.pos_ == "PROPN"
        and tok.text[:1].isupper()
        and tok.ent_type_ not in ("DATE", "TIME")
        and not _PERIOD_NAME.fullmatch(tok.text)
    )


# Names that own what they are compounded with ("the Looker contract", "the Acme deal").
_OWNER_LABELS = frozenset({"ORG", "PERSON"})
# Heads that with a name before them name a place of their own ("the Berlin office").
PLACE_HEADS = frozenset({"office", "site", "branch", "campus", "store", "warehouse", "plant"})
# Heads that with a name before them name a system or product of that name ("the Ledger
# service", "the Lynx app"): the name is the whole phrase, not an owner of the head.
SYSTEM_HEADS = frozenset(
    {
        "service", "app", "application", "api", "platform", "scheduler", "database", "db",
        "pipeline", "cluster", "queue", "library", "sdk", "portal", "dashboard", "system",
        "engine", "bot", "tool", "product", "plan", "tier", "account", "programme", "program",
        "project", "initiative", "workspace", "repo", "repository", "model", "module",
        "component", "gateway", "cli", "console", "website", "site", "server", "store",
    }
)  # fmt: skip
# "CockroachDB", "PagerDuty", "GitHub": a capital after lower-case letters inside a word marks
# a product name, whatever tag the small model gives it.
_CAMEL_CASE = re.compile(r"[A-Z]?[a-z]+[A-Z][A-Za-z0-9]*")


def is_bare(phrase: Phrase | None) -> bool:
    """A phrase naming nothing by itself: determiners, adjectives and a common noun ("the
    contract", "Headcount", "our main contact"), which a document uses of the thing it is
    about."""
    if phrase is None or not phrase.tokens or entity_like(phrase):
        return False
    if any(t.text[:1].isupper() and not t.is_sent_start for t in phrase.tokens):
        return False  # "The Basic plan": a capital inside the sentence marks a name
    return all(
        t.pos_ in ("DET", "ADJ", "NOUN", "NUM", "PART") or t.dep_ == "poss" for t in phrase.tokens
    )


# Units a number counts in ("10 GB of storage", "200 MB uploads"): the small model tags them
# proper nouns, even organisations.
_UNITS = frozenset(
    {"kb", "mb", "gb", "tb", "pb", "kw", "mw", "gw", "kwh", "mwh", "kg", "km", "fte", "ms", "rps"}
)


def _counted_unit(tok: Any) -> bool:
    """What a number before it counts ("10 GB", "3 engineers", "200 MB uploads"): a quantity,
    never a name. "Android 10" is one (its number comes after), and so is "the 3 Sigma team"
    (a singular head a number names)."""
    counted = any(c.dep_ == "nummod" and c.i < tok.i and c.like_num for c in tok.children)
    counted |= tok.i > 0 and tok.doc[tok.i - 1].like_num
    return counted and (tok.lower_ in _UNITS or tok.tag_ == "NNS")


def is_name(tok: Any) -> bool:
    """A token inside a name: a NER name span (not a title NER mislabelled) or a proper noun."""
    if tok.lower_ in _ROLE_WORDS or _PERIOD_NAME.fullmatch(tok.text) or _counted_unit(tok):
        return False
    return (tok.ent_type_ in NAME_LABELS) or _proper(tok) or bool(_CAMEL_CASE.fullmatch(tok.text))


def name_span(tok: Any) -> tuple[Any, ...] | None:
    """The whole name `tok` is part of: its NER span, else its run of compound proper nouns."""
    if not is_name(tok):
        return None
    if tok.ent_type_ in NAME_LABELS:
        for ent in tok.doc.ents:
            if ent.start <= tok.i < ent.end:
                words = tuple(t for t in ent if not t.is_punct or t.text in ("&", "-", "."))
                words = tuple(t for t in words if t.lower_ not in ("the", "'s", "’s"))
                # The small NER sometimes runs a name into the verb after it ("[Leo is]
                # Quill's new VP"): a lower-case verb ending the span is no part of the name.
                while len(words) > 1 and words[-1].pos_ in ("AUX", "VERB") and words[-1].is_lower:
                    words = words[:-1]
                if len(words) == 1 and words[0].lower_ in SYSTEM_HEADS:
                    return None  # "the payments [API]": a kind of system, named by its modifiers
                if words and all(t.lower_ not in _ROLE_WORDS for t in words):
                    return without_honorific(_with_leading_compounds(words))
    if not _proper(tok):
        return (tok,)
    head = tok
    while head.dep_ in ("compound", "flat") and _proper(head.head) and head.head.i > head.i:
        head = head.head
    # The proper nouns right before the head: "Priya Shah", never "Berlin sales office".
    doc, start = head.doc, head.i
    while (
        start > 0
        and _proper(doc[start - 1])
        and doc[start - 1].dep_ in ("compound", "flat")
        and doc[start - 1].lower_ not in _ROLE_WORDS
    ):
        start -= 1
    return without_honorific(_with_leading_compounds(tuple(doc[start : head.i + 1])))


def without_honorific(words: tuple[Any, ...]) -> tuple[Any, ...]:
    """The name's tokens less a leading title of address ("Dr.", "Ms")."""
    while len(words) > 1 and is_honorific(words[0].text):
        words = words[1:]
    return words


def role_predicate(role_word: str, target_text: str) -> str:
    """The verb phrase a role maps to: founders founded it, owners own it, members of a team
    are members, and holding any other position in an organization is working for it."""
    if role_word.lower() in _FOUNDER_WORDS:
        return "found"
    if role_word.lower() == "owner":
        return "own"  # "Dana, the owner of the Ledger API": the API's owner, not an employer
    return "member of" if is_team_head(target_text) else "work for"


def is_role_word(tok: Any) -> bool:
    """A title or position ("CTO", "head", "engineer")."""
    return tok.lower_ in _ROLE_WORDS or tok.lemma_.lower() in _ROLE_WORDS


# Nouns that stand "at <Org>" without working there: its customers and visitors, the events
# held there, and study (which is not employment).
_NOT_POSITIONS = frozenset(
    {
        "customer", "client", "guest", "visitor", "patient", "user", "investor", "shareholder",
        "speaker", "attendee", "tenant", "subscriber", "fan", "regular", "buyer", "supplier",
        "vendor", "competitor", "rival", "student", "alumnus", "alumna", "graduate", "resident",
        "meeting", "workshop", "event", "conference", "session", "talk", "offsite", "review",
        "demo", "presentation", "training", "call", "interview", "visit", "trip", "launch",
        "party", "dinner", "lunch", "outage", "incident", "deal", "contract", "project",
    }
)  # fmt: skip


def position_workplace(attr: Any, copula: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The organisation a copula's complement is a position in when the parser hung the "at"
    on the verb ("Chen Jie is a paralegal at Harlow Finch": "at" under "is")."""
    if attr.pos_ != "NOUN" or attr.lemma_.lower() in _NOT_POSITIONS:
        return None
    if any(c.dep_ == "prep" for c in attr.children):
        return None
    workplace = _named_workplace(copula, inside)
    if workplace is None or any(t.ent_type_ in ("GPE", "LOC") for t in workplace):
        return None
    return workplace if workplace[0].i > attr.i else None


def holds_position(tok: Any, inside: set[int]) -> bool:
    """A position: a title from the list, or any common noun held at a named organisation
    ("a professor at Kessler University", "a nurse with Mercy Health"): the structure says it
    is a job when the title is one nobody listed."""
    if is_role_word(tok):
        return True
    if tok.pos_ != "NOUN" or tok.lemma_.lower() in _NOT_POSITIONS:
        return False
    workplace = _named_workplace(tok, inside)
    return workplace is not None and not any(t.ent_type_ in ("GPE", "LOC") for t in workplace)


def _role_target(head: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The organization a role noun is held in: "CTO of/at Northwind", "Northwind's CTO"."""
    for child in head.children:
        if child.i not in inside:
            continue
        if child.dep_ == "poss":
            span = name_span(child)
            if span:
                return span
        if child.dep_ == "prep" and child.lower_ in _ROLE_PREPOSITIONS:
            pobj = next((g for g in child.children if g.dep_ == "pobj"), None)
            if pobj is not None:
                # "VP of Marketing at Arbor Labs", "director of engineering at Corvid": the
                # function is "of"; the organization is the named place of work after it.
                held_at = _named_workplace(pobj, inside) if child.lower_ == "of" else None
                span = held_at or name_span(pobj) or _team_phrase(pobj, inside)
                if not span and head.lower_ == "owner":  # owns anything nameable
                    owned = entity_phrase(pobj, inside)
                    span = owned.tokens if entity_like(owned) else None
                if span:
                    return span
    for child in head.children:  # "the Northwind CTO"
        if child.dep_ == "compound" and child.i in inside:
            span = name_span(child)
            if span:
                return span
    return None


def _named_workplace(tok: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The name after an "at"/"with" that `tok` governs ("engineering at Corvid Health")."""
    for child in tok.children:
        if child.dep_ == "prep" and child.lower_ in ("at", "with") and child.i in inside:
            pobj = next((g for g in child.children if g.dep_ == "pobj"), None)
            if pobj is not None and pobj.i in inside:
                span = name_span(pobj)
                if span:
                    return span
    return None


def _team_phrase(tok: Any, inside: set[int]) -> tuple[Any, ...] | None:
    if tok.lower_ not in TEAM_HEADS:
        return None
    return _core(tok, inside)


def _core(head: Any, inside: set[int]) -> tuple[Any, ...]:
    """A common noun with the modifiers that name it and a "for"/"of" complement."""
    keep = {head.i}
    for child in head.children:
        if child.i not in inside:
            continue
        if child.dep_ in _NAME_DEPS or (
            child.dep_ == "prep" and child.lower_ in _COMPLEMENT_PREPOSITIONS and child.i > head.i
        ):
            keep.update(t.i for t in child.subtree if t.i in inside)
    doc = head.doc
    tokens = [doc[i] for i in sorted(keep)]
    # Trim punctuation at the edges ("the team," keeps no comma).
    while tokens and (tokens[-1].is_punct or tokens[-1].is_space):
        tokens.pop()
    while tokens and (tokens[0].is_punct or tokens[0].is_space):
        tokens.pop(0)
    return tuple(tokens)


def _appositive_roles(head: Any, holder: tuple[Any, ...], inside: set[int]) -> list[Role]:
    roles = []
    for child in head.children:
        if child.dep_ != "appos" or child.i not in inside:
            continue
        if holds_position(child, inside):
            target = _role_target(child, inside)
            if target:
                tokens = _core(child, inside)
                roles.append(Role(role_predicate(child.lower_, _text(target)), target, tokens))
    return roles


def _text(tokens: Sequence[Any]) -> str:
    return "".join(t.text_with_ws for t in tokens).strip()


def _hyphenated_word_before(doc: Any, start: int) -> int | None:
    """The first token of a capitalised hyphenated word ending right before `start` (or
    running into it) and compounded onto it ("Hye-jin" before "Park", which the tagger
    splits into three tokens of any tag), else None."""
    if (
        start >= 2
        and doc[start - 1].text == "-"
        and not doc[start - 1].whitespace_
        and not doc[start - 2].whitespace_
        and doc[start - 2].text[:1].isupper()
        and doc[start - 2].text.isalpha()
    ):
        return start - 2  # "Ana-[Maria Popescu]": the span starts inside the word
    end = start - 1
    if end < 2 or not doc[end].whitespace_ or doc[end].dep_ not in ("compound", "flat", "amod"):
        return None
    first = end
    while first > 0 and not doc[first - 1].whitespace_ and doc[first - 1].text != "\n":
        first -= 1
    pieces = doc[first : end + 1]
    if len(pieces) < 3 or not any(t.text == "-" for t in pieces):
        return None
    return first if pieces[0].text[:1].isupper() and pieces[0].text.isalpha() else None


def _with_leading_compounds(words: tuple[Any, ...]) -> tuple[Any, ...]:
    """A NER span grown over the proper nouns compounded onto it from the left: the small
    model often labels only the surname ("Harriet [Cole]"), and the parse still joins them."""
    doc, start, inside = words[0].doc, words[0].i, {t.i for t in words}
    while start > 0:
        hyphenated = _hyphenated_word_before(doc, start)
        if hyphenated is not None:  # "Hye-jin Park", "Jean-Luc Picard": one given name
            start = hyphenated
            inside.update(range(start, words[0].i))
            continue
        before = doc[start - 1]
        if not (
            _proper(before)
            and before.dep_ in ("compound", "flat")
            and before.head.i in inside
            and before.lower_ not in _ROLE_WORDS
            and before.ent_type_ in ("", *NAME_LABELS)
        ):
            break
        start -= 1
        inside.add(start)
    return tuple(doc[start : words[0].i]) + words


def entity_phrase(
    head: Any, inside: set[int], *, anchor_possessor: bool = False, keep_roles: bool = False
) -> Phrase:
    """What the noun phrase headed by `head` names (only tokens whose index is in `inside`).

    `anchor_possessor`: a possessed common noun names its possessor ("Acme's 2025 audit found
    two gaps" is about Acme); used for subjects, whose phrase anchors an observation.
    `keep_roles`: an unnamed role holder stays the role ("reports to the Head of Product" is a
    person), rather than the organization (as in "works for the CTO of Acme").
    """
    if head.pos_ == "PRON":
        return Phrase((head,))
    if holds_position(head, inside) and not keep_roles:
        target = _role_target(head, inside)
        named = next(
            (c for c in head.children if c.dep_ == "appos" and c.i in inside and is_name(c)), None
        )
        if named is not None:  # "Northwind's CTO, Dana Whitfield"
            holder = name_span(named) or (named,)
            if target is None:
                return Phrase(holder)
            role = Role(role_predicate(head.lower_, _text(target)), target, _core(head, inside))
            return Phrase(holder, (role,))
        if target:  # "the CTO of Acme": an unnamed person of Acme
            return Phrase(target)
    span = name_span(head)
    if span:
        return Phrase(span, tuple(_appositive_roles(head, span, inside)))
    named_thing_owner = _owner_of_named_thing(head, inside)
    if named_thing_owner:
        core = _core(head, inside - named_thing_owner)
        return Phrase(core, tuple(_appositive_roles(head, core, inside)))
    if anchor_possessor and head.lemma_.lower() in ATTRIBUTE_HEADS:
        measured = _measured_thing(head, inside)
        if measured is not None:  # "the Exports API rate limit is 60": the Exports API's
            return Phrase(measured)
    if anchor_possessor and head.lower_ not in TEAM_HEADS | PLACE_HEADS:
        # "Acme's 2025 audit", "the Looker contract": a thing of a named owner is about it. A
        # compound counts only when NER calls it an owner and the head is no system or product
        # kind: "the Starter plan" and "the Ledger service" are names of their own.
        owner_compound = head.lower_ not in SYSTEM_HEADS
        owner = next(
            (
                c
                for c in head.children
                if c.i in inside
                and is_name(c)
                and (
                    c.dep_ == "poss"
                    or (owner_compound and c.dep_ == "compound" and c.ent_type_ in _OWNER_LABELS)
                )
            ),
            None,
        )
        if owner is not None:
            return Phrase(name_span(owner) or (owner,))
    core = _core(head, inside)
    return Phrase(core, tuple(_appositive_roles(head, core, inside)))


# Nouns naming a quantity or setting of the thing compounded before them ("the Exports API
# rate limit", "the Growth plan price"): a value of that thing, which the subject anchors on,
# so "The Exports API allows 60 requests" and "the Exports API limit is 30" share an anchor.
ATTRIBUTE_HEADS = frozenset(
    {
        "limit", "price", "cost", "fee", "budget", "quota", "headcount", "capacity", "rate",
        "threshold", "cap", "allowance", "pricing", "sla", "latency", "timeout", "retention",
        "status", "health", "eta",
    }
)  # fmt: skip


def _capitalised_modifier(tok: Any) -> bool:
    """A capitalised adjective inside a sentence is part of a name ("the Pro plan")."""
    return bool(tok.dep_ == "amod" and tok.text[:1].isupper() and tok.i != tok.sent.start)


def _measured_thing(head: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The named thing an attribute noun is a value of: the compounds before it, less the
    attribute words ("rate" of "rate limit"), when one of them is a name."""
    words = [
        t
        for t in head.subtree
        if t.i < head.i and t.i in inside and t.lemma_.lower() not in ATTRIBUTE_HEADS
        and (t.dep_ == "compound" or _capitalised_modifier(t))
    ]  # fmt: skip
    if not words:
        return _measured_after(head, inside)
    if not any(is_name(t) or _capitalised_modifier(t) for t in words):
        return None
    if any(b.i - a.i != 1 for a, b in itertools.pairwise(words)):
        return None  # not one run of words
    return tuple(words)


def _measured_after(head: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The named thing in a complement of the attribute noun ("headcount at the Lyon office",
    "the price of the Pro plan", "the rate limit for the Search API")."""
    for prep in head.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("at", "of", "for", "in") or prep.i < head.i:
            continue
        pobj = next((g for g in prep.children if g.dep_ == "pobj" and g.i in inside), None)
        if pobj is not None:
            phrase = entity_phrase(pobj, inside)
            if entity_like(phrase):
                return phrase.tokens
    return None


def _owner_of_named_thing(head: Any, inside: set[int]) -> set[int]:
    """The possessor's tokens when the possessed place, unit or system carries a name of its
    own ("Brightwave's Kraków office", "Ji-woo Park's Osaka office", "Acme's Atlas API"): it is
    named by "Kraków office", whoever owns it; an unnamed possessed thing keeps its owner."""
    if head.lower_ not in PLACE_HEADS | TEAM_HEADS | SYSTEM_HEADS:
        return set()  # "the team's monthly Snowflake bill": a vendor's name, not the bill's
    named = any(
        c.i in inside and c.dep_ == "compound" and any(_proper(t) for t in c.subtree)
        for c in head.children
    )
    if not named:
        return set()
    return {t.i for c in head.children if c.dep_ == "poss" and c.i in inside for t in c.subtree}


def entity_like(phrase: Phrase | None) -> bool:
    """Whether a phrase can name an entity a relation points at: a name, a pronoun (resolved
    later), or a noun the modifiers before it make nameable ("the data platform team", "the
    billing migration"). A bare or merely described noun ("the party", "her previous
    employer") names no entity of its own."""
    if phrase is None or not phrase.tokens:
        return False
    inside = {t.i for t in phrase.tokens}
    head = next((t for t in phrase.tokens if t.head.i not in inside or t.head is t), None)
    if head is not None and _counted_unit(head):
        return False  # "10 GB of storage", "200 MB uploads", "3 engineers": a quantity
    if any(
        _proper(t)
        or t.pos_ == "PRON"
        or t.ent_type_ in NAME_LABELS
        or _CAMEL_CASE.fullmatch(t.text)
        for t in phrase.tokens
    ):
        return True
    # A compound modifier names the head whatever the tagger calls it ("the churn model":
    # "churn" tagged an adjective).
    if any(t.dep_ == "compound" and t.pos_ in ("NOUN", "PROPN", "ADJ") for t in phrase.tokens):
        return True
    head = max(phrase.tokens, key=lambda t: t.i)
    # "the ingest team": a unit of people named by any modifier; "the cutover for the billing
    # migration": a head a complement names.
    modified = any(t.dep_ in ("amod", "nmod") for t in phrase.tokens)
    return (head.lower_ in TEAM_HEADS and modified) or any(t.dep_ == "prep" for t in phrase.tokens)
