"""The entity a noun phrase names, read from spaCy's parse (NER, compounds, heads, appositions).

A subject or object of a clause is a whole subtree in the parse ("Maria Lopez from the Berlin
sales office", "Dana Whitfield, the CTO of Northwind"), but the entity it names is a part of it:
the name (a NER span, or a run of proper nouns), or a common noun with the modifiers that make it
nameable ("the billing migration"). What else the phrase says becomes a relation of its own when
it is a role ("the CTO of Northwind": works for Northwind) and is dropped otherwise (a place of
origin, a relative clause). A possessed thing ("Acme's 2025 audit") is anchored on its possessor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.anchoring import measured_subject
from services.ingest.extraction.former import formerly, given_up
from services.ingest.extraction.measured import ATTRIBUTE_HEADS, measured_thing, names_a_unit
from services.ingest.extraction.names import (
    NAME_LABELS,
    SYSTEM_HEADS,
    counted_unit,
    is_camel_case,
    is_name,
    is_person,
    is_proper,
    name_span,
    possessive_name,
)
from services.ingest.extraction.positions import (
    holds_position,
    is_role_word,
    position_workplace,
    role_predicate,
    role_target,
)
from shared.entities.normalize import describes
from shared.entities.places import is_known_place
from shared.text.units import TEAM_HEADS

__all__ = [
    "ATTRIBUTE_HEADS",
    "PLACE_HEADS",
    "Phrase",
    "Role",
    "entity_like",
    "entity_phrase",
    "holds_position",
    "is_bare",
    "is_role_word",
    "opens_line",
    "position_workplace",
    "role_predicate",
]

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


# Names that own what they are compounded with ("the Looker contract", "the Acme deal").
_OWNER_LABELS = frozenset({"ORG", "PERSON"})
# Heads that with a name before them name a place of their own ("the Berlin office").
PLACE_HEADS = frozenset({"office", "site", "branch", "campus", "store", "warehouse", "plant"})
# Sites a name before them only locates ("the Accra hub", "the Gdansk depot"): the hub is no
# thing of Accra's, whatever NER calls the name. Not for `is_place`: "Marlow Studio" and
# "Riverside Hospital" are employers.
_SITE_HEADS = PLACE_HEADS | {
    "hub", "depot", "lab", "laboratory", "facility", "factory", "centre", "center",
    "headquarters", "hq", "studio", "shop", "showroom", "outlet", "clinic", "hospital",
    "terminal", "yard",
}  # fmt: skip

_HEADQUARTERS = frozenset({"hq", "headquarters"})


def opens_line(tok: Any) -> bool:
    """The first word of its sentence, after any masked bullet or mark ("- **Headcount:** 8")."""
    at = tok.i  # back over the spaces only: no walk to the start of a long sentence
    while at > 0 and tok.doc[at - 1].is_space and "\n" not in tok.doc[at - 1].text:
        at -= 1
    return at == 0 or tok.doc[at].is_sent_start or "\n" in tok.doc[at - 1].text


def is_bare(phrase: Phrase | None) -> bool:
    """A phrase naming nothing by itself: determiners, describing adjectives and a common noun
    ("the contract", "Headcount", "our main contact"), which a document uses of the thing it is
    about. An adjective of kind names the kind ("the free tier"; `describes`)."""
    if phrase is None or not phrase.tokens:
        return False
    first = phrase.tokens[0]
    if len(phrase.tokens) == 1 and first.lower_ in ATTRIBUTE_HEADS and opens_line(first):
        return True  # "Status: green" on a line of its own: the tagger may call "Status" a name
    if entity_like(phrase):
        return False
    if any(t.text[:1].isupper() and not t.is_sent_start for t in phrase.tokens):
        return False  # "The Basic plan": a capital inside the sentence marks a name
    return all(
        t.pos_ in ("DET", "NOUN", "NUM", "PART")
        or (t.pos_ == "ADJ" and describes(t.lower_))
        or t.dep_ == "poss"
        for t in phrase.tokens
    )


def _nameable_target(role: Any, obj: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """A role's object that is no proper name: a team ("head of the payments team"), or
    anything nameable an owner owns ("the owner of the billing export")."""
    span = _team_phrase(obj, inside)
    if not span and role.lower_ == "owner":
        owned = entity_phrase(obj, inside)
        span = owned.tokens if entity_like(owned) else None
    return span


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
        if child.i > head.i and child.doc[child.left_edge.i - 1].text == ",":
            continue  # "the PG16 upgrade, due March 31": an aside, not part of the name
        if child.dep_ in _NAME_DEPS or (
            child.dep_ == "prep"
            and child.lower_ in _COMPLEMENT_PREPOSITIONS
            and child.i > head.i
            # "on leave for the next two weeks": a stretch of time is no part of a name
            and not (_period(child) and (measured_subject(head) or _stretch(child)))
        ):
            keep.update(t.i for t in child.subtree if t.i in inside)
    doc = head.doc
    # A hyphen inside a kept compound ("the go-live", "co-founder") stays with its words.
    keep.update(i for i in range(min(keep), max(keep)) if doc[i].tag_ == "HYPH")
    tokens = [doc[i] for i in sorted(keep)]
    # Trim punctuation at the edges ("the team," keeps no comma).
    while tokens and (tokens[-1].is_punct or tokens[-1].is_space):
        tokens.pop()
    while tokens and (tokens[0].is_punct or tokens[0].is_space):
        tokens.pop(0)
    return tuple(tokens)


_STRETCH_UNITS = frozenset({"day", "week", "month", "year", "fortnight", "hour"})


def _stretch(prep: Any) -> bool:
    """ "for the next two weeks", "for three days": how long, not which period ("the roadmap
    for 2027" names its year)."""
    return prep.lower_ == "for" and any(
        t.lemma_.lower() in _STRETCH_UNITS and any(c.dep_ in ("nummod", "amod") for c in t.children)
        for t in prep.subtree
    )


def _period(prep: Any) -> bool:
    """ "churn for May ended at 2.1%": a period the thing is measured over, which is the
    claim's time, not part of the thing's name."""
    words = [t for t in prep.subtree if t.i != prep.i and not t.is_punct]
    return bool(words) and all(t.ent_type_ in ("DATE", "TIME") for t in words)


def _appositive_roles(head: Any, holder: tuple[Any, ...], inside: set[int]) -> list[Role]:
    roles = []
    for child in head.children:
        if child.dep_ != "appos" or child.i not in inside:
            continue
        if holds_position(child, inside):
            target = role_target(child, inside, _nameable_target)
            if target:
                tokens = _core(child, inside)
                predicate = role_predicate(child.lower_, _text(target))
                predicate = formerly(predicate) if given_up(child) else predicate
                roles.append(Role(predicate, target, tokens))
    return roles


def _text(tokens: Sequence[Any]) -> str:
    return "".join(t.text_with_ws for t in tokens).strip()


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
    named = next(
        (c for c in head.children if c.dep_ == "appos" and c.i in inside and is_name(c)), None
    )
    if named is None and is_role_word(head):
        # "The chief of staff at Arvo, Ines Moreau, …": the parser may hang the holder's name
        # on the object of the role's preposition.
        named = _named_in_role_object(head, inside)
    if keep_roles and is_role_word(head):
        # "reports to the CTO, Marcus Webb": the role's holder is named; it is that person
        # (the parser may hang the name on the verb instead of the role), who holds the role
        # where it names ("spoke to the Ostwind CTO, Ravi Kumar": Ravi works for Ostwind).
        named = named or _named_after(head, inside)
        if named is not None:
            holder = name_span(named) or (named,)
            target = role_target(head, inside, _nameable_target)
            if target is None or holder[0] in target:
                return Phrase(holder)
            predicate = role_predicate(head.lower_, _text(target))
            return Phrase(holder, (Role(predicate, target, _core(head, inside)),))
    if holds_position(head, inside) and not keep_roles:
        target = role_target(head, inside, _nameable_target)
        if named is not None:  # "Northwind's CTO, Dana Whitfield"
            holder = name_span(named) or (named,)
            if target is None:
                return Phrase(holder)
            predicate = role_predicate(head.lower_, _text(target))
            predicate = formerly(predicate) if given_up(head) else predicate
            role = Role(predicate, target, _core(head, inside))
            return Phrase(holder, (role,))
        if target:  # "the CTO of Acme": an unnamed person of Acme
            return Phrase(target)
    if named is not None and is_role_word(head):
        # "Our new VP of Sales, Camila Reyes, starts on Monday": the role's holder, named.
        return Phrase(name_span(named) or (named,))
    if (
        named is not None
        and head.pos_ == "NOUN"
        and head.lower_ not in TEAM_HEADS
        and any(c.dep_ in ("det", "poss") for c in head.children)
    ):
        # "The vendor, Corvane Systems, says …", "our biggest customer, Harbourline, renewed":
        # the thing described is the one named.
        return Phrase(name_span(named) or (named,))
    if anchor_possessor and head.lower_ in _HEADQUARTERS:
        # "Acme's HQ is in Rotterdam": an organisation's headquarters are where it is located,
        # no site of its own (a bare "HQ" would be one entity for every company).
        owner = next((c for c in head.children if c.dep_ == "poss" and is_name(c)), None)
        if owner is not None and owner.i in inside:
            return Phrase(name_span(owner) or (owner,))
    if (
        anchor_possessor
        and head.lemma_.lower() in ATTRIBUTE_HEADS
        and (head.is_lower or head.is_sent_start)
    ):
        # Before the name: NER may take "Exports API limit" whole for a name.
        measured = measured_thing(head, inside, _measured_after)
        if measured is not None:  # "the Exports API rate limit is 60": the Exports API's
            return Phrase(measured)
    owned_name = possessive_name(head, inside)
    if owned_name:  # "St Brigid's Hospice", "Halloran's Bakery": one name
        return Phrase(owned_name)
    span = name_span(head)
    if span:
        return Phrase(span, tuple(_appositive_roles(head, span, inside)))
    named_thing_owner = _owner_of_named_thing(head, inside)
    if named_thing_owner:
        core = _core(head, inside - named_thing_owner)
        return Phrase(core, tuple(_appositive_roles(head, core, inside)))
    if anchor_possessor and head.lower_ not in TEAM_HEADS | _SITE_HEADS:
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
                    or (c.dep_ == "compound" and _event_of_name(head, c))
                )
            ),
            None,
        )
        if owner is not None:
            return Phrase(name_span(owner) or (owner,))
    core = _core(head, inside)
    return Phrase(core, tuple(_appositive_roles(head, core, inside)))


# A dated event of the thing named before it ("the Helios go-live", "the Falcon release",
# "the Pelican cutover"): the thing's, whatever label NER gave the name, so "Helios goes live
# on 21 April" and "The Helios go-live is on 14 April" are about one entity.
_EVENT_HEADS = frozenset(
    {"launch", "release", "live", "golive", "cutover", "rollout", "kickoff", "deadline", "demo"}
    | {"deployment", "upgrade", "beta", "offsite", "ga"}
)


def _event_of_name(head: Any, name: Any) -> bool:
    """ "the Berlin launch" happens in Berlin; "the Helios launch" (NER: a place) is Helios's."""
    return (
        head.lower_ in _EVENT_HEADS
        and name.pos_ == "PROPN"
        and name.ent_type_ not in ("LOC", "DATE", "TIME")
        and not is_known_place(name.text)
    )


def _named_in_role_object(role: Any, inside: set[int]) -> Any | None:
    """A person's name the parser hung on the object of a role's preposition ("VP of Sales,
    Camila Reyes": "Reyes" an apposition of "Sales")."""
    for prep in (c for c in role.children if c.dep_ == "prep"):
        for pobj in (g for g in prep.children if g.dep_ == "pobj"):
            for name in pobj.children:
                if name.dep_ == "appos" and name.i in inside and is_person(name):
                    return name
    return None


def _named_after(head: Any, inside: set[int]) -> Any | None:
    """A person named right after the phrase of `head` and a comma ("our head of product,
    Dana Kim"), wherever the parser hung the name."""
    doc, comma = head.doc, head.right_edge.i + 1
    if comma + 1 >= len(doc) or doc[comma].text != "," or comma + 1 not in inside:
        return None
    first = doc[comma + 1]
    span = name_span(first) if first.ent_type_ == "PERSON" else None
    return span[-1] if span else None


def _measured_after(head: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The named thing in a complement of the attribute noun ("headcount at the Lyon office",
    "the price of the Pro plan", "the rate limit for the Search API")."""
    for prep in head.children:
        if prep.dep_ != "prep" or prep.lower_ not in ("at", "of", "for", "in") or prep.i < head.i:
            continue
        pobj = next((g for g in prep.children if g.dep_ == "pobj" and g.i in inside), None)
        if pobj is None:
            continue
        phrase = entity_phrase(pobj, inside)
        if entity_like(phrase):
            return phrase.tokens
        if names_a_unit(head, prep, pobj):  # "headcount in support"
            return (pobj,)
    return None


def _owner_of_named_thing(head: Any, inside: set[int]) -> set[int]:
    """The possessor's tokens when the possessed place, unit or system carries a name of its
    own ("Brightwave's Kraków office", "Ji-woo Park's Osaka office", "Acme's Atlas API"): it is
    named by "Kraków office", whoever owns it; an unnamed possessed thing keeps its owner."""
    if head.lower_ not in _SITE_HEADS | TEAM_HEADS | SYSTEM_HEADS:
        return set()  # "the team's monthly Snowflake bill": a vendor's name, not the bill's
    named = any(
        c.i in inside and c.dep_ == "compound" and any(is_proper(t) for t in c.subtree)
        for c in head.children
    )
    if not named:
        return set()
    return {t.i for c in head.children if c.dep_ == "poss" and c.i in inside for t in c.subtree}


def _word_hyphen(tok: Any) -> bool:
    """A hyphen joining two words ("on-call"), not a number to its unit ("a 30-day trial")."""
    if tok.tag_ != "HYPH" or tok.i == 0:
        return False
    before = tok.doc[tok.i - 1]
    return before.is_alpha and not before.like_num


def entity_like(phrase: Phrase | None) -> bool:
    """Whether a phrase can name an entity a relation points at: a name, a pronoun (resolved
    later), or a noun the modifiers before it make nameable ("the data platform team", "the
    billing migration"). A bare or merely described noun ("the party", "her previous
    employer") names no entity of its own."""
    if phrase is None or not phrase.tokens:
        return False
    inside = {t.i for t in phrase.tokens}
    head = next((t for t in phrase.tokens if t.head.i not in inside or t.head is t), None)
    if head is not None and counted_unit(head):
        return False  # "10 GB of storage", "200 MB uploads", "3 engineers": a quantity
    if any(
        is_proper(t) or t.pos_ == "PRON" or t.ent_type_ in NAME_LABELS or is_camel_case(t.text)
        for t in phrase.tokens
    ):
        return True
    # A compound modifier names the head whatever the tagger calls it ("the churn model":
    # "churn" tagged an adjective).
    if any(t.dep_ == "compound" and t.pos_ in ("NOUN", "PROPN", "ADJ") for t in phrase.tokens):
        return True
    head = max(phrase.tokens, key=lambda t: t.i)
    indefinite = any(t.dep_ == "det" and t.lower_ in ("a", "an", "another") for t in phrase.tokens)
    if not indefinite and any(_word_hyphen(t) for t in phrase.tokens if t.i < head.i):
        return True  # "the on-call rota" names a thing as a compound would; "an in-house tool" not

    # "the ingest team": a unit of people named by any modifier; "the cutover for the billing
    # migration": a head a complement names.
    modified = any(t.dep_ in ("amod", "nmod") for t in phrase.tokens)
    return (head.lower_ in TEAM_HEADS and modified) or any(t.dep_ == "prep" for t in phrase.tokens)
