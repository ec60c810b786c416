"""Roles given, held or given up, and light verbs: what a clause's verb means through its noun.

"was named head of sales at Veridian" starts a placement at Veridian, "took part in the summit"
is a predicate of verb, noun and preposition; a role in a phrase ("Dana Whitfield, the CTO of
Northwind") is a relation of its own. `frames.read_frame` uses these to build its relations.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase, is_role_word
from services.ingest.extraction.descriptions import GOVERNING_BODIES
from services.ingest.extraction.former import FORMERLY
from services.ingest.extraction.moves import is_place, is_unit, object_of
from services.ingest.extraction.names import is_name, is_organisation, is_person
from services.ingest.extraction.placement_changes import Relation

__all__ = [
    "APPOINTMENTS",
    "LIGHT_VERBS",
    "appointment",
    "appointment_verb",
    "held_at",
    "light_verb_object",
    "reporting_line",
    "role_holder",
    "succession",
    "welcomes_someone",
    "with_roles",
]

# Verbs that put someone into a role, keep them in it or take them out of it, by the placement
# they start, state or end: "was named head of sales at Veridian" starts working there,
# "serves as chief of staff at Halden" works there, "stepped down as head of the Payments
# team" ends the membership. Only with a role as the object, and only when the role names
# where it is held.
APPOINTMENTS = {
    "name": "join", "appoint": "join", "promote": "join", "elect": "join", "tap": "join",
    "choose": "join", "select": "join", "install": "join", "reappoint": "join",
    "welcome": "join",
    "serve": "work for", "act": "work for", "remain": "work for", "continue": "work for",
    "stay": "work for", "step": "leave", "resign": "leave", "retire": "leave",
}  # fmt: skip
# "step" is taken into a role or out of one by its particle: "steps up as acting VP", "stepped
# in as interim CFO" join; "stepped down as CTO", "steps aside as chair" leave.
_STEP_PARTICLES = {"up": "join", "in": "join", "into": "join", "down": "leave", "aside": "leave"}
_STEP_PARTICLES |= {"back": "leave", "away": "leave"}


def appointment_verb(head: Any) -> str | None:
    """The placement a verb of appointment starts, states or ends (`APPOINTMENTS`)."""
    lemma = head.lemma_.lower()
    if lemma != "step":
        return APPOINTMENTS.get(lemma)
    particle = next(
        (
            c.lower_
            for c in head.children
            if c.dep_ in ("prt", "advmod", "prep") and c.lower_ in _STEP_PARTICLES
        ),
        None,
    )
    return _STEP_PARTICLES.get(particle, "leave") if particle else "leave"


# Verbs whose bare noun object carries the meaning ("took part in", "took charge of", "has
# responsibility for", "has experience with"): the predicate is verb + noun + preposition.
LIGHT_VERBS = frozenset({"take", "have", "assume", "gain", "hold", "share", "keep", "bear"})
_LIGHT_PREPOSITIONS = frozenset({"of", "in", "for", "over", "on", "with"})


def light_verb_object(noun: Any, inside: set[int], skip: set[int]) -> tuple[str, Any] | None:
    """The preposition and its object after a light verb's bare noun: "part in the summit"."""
    if noun.pos_ != "NOUN" or any(c.dep_ in ("det", "poss", "nummod") for c in noun.children):
        return None
    # The parser hangs the preposition on the noun or, right after it, on the verb.
    after = [c for c in noun.head.children if c.i == noun.right_edge.i + 1]
    for prep in [*noun.children, *after]:
        if prep.dep_ == "prep" and prep.lower_ in _LIGHT_PREPOSITIONS and prep.i in inside:
            pobj = object_of(prep)
            if pobj is not None and pobj.i in inside and pobj.i not in skip:
                return prep.lower_, pobj
    return None


def held_at(head: Any, inside: set[int], skip: set[int]) -> Phrase | None:
    """ "retired as head of research at Moreau Labs": the organization the verb's "at" names
    when the parser hangs it on the verb rather than on the role."""
    return _organisation_at(head.children, inside, skip)


def _held_at_role(role: Any, inside: set[int], skip: set[int]) -> Phrase | None:
    """The organisation an "at" inside a role phrase names ("Head of Procurement at
    Brindlecote Foods"), wherever in the role the parser hung it."""
    return _organisation_at(role.subtree, inside, skip)


def _organisation_at(tokens: Any, inside: set[int], skip: set[int]) -> Phrase | None:
    """The first named organisation (no place) an "at" among `tokens` governs."""
    for prep in (t for t in tokens if t.dep_ == "prep" and t.lower_ == "at"):
        pobj = object_of(prep)
        if pobj is not None and pobj.i in inside and pobj.i not in skip and is_name(pobj):
            place = entity_phrase(pobj, inside)
            if not is_place(place):
                return place
    return None


def appointment(
    head: Any, subj_tok: Any | None, inside: set[int], skip: set[int]
) -> tuple[Phrase, Phrase | None] | None:
    """(the one appointed, where) when an organisation puts a named person into a role:
    "Acme appointed Rita Diaz as CFO", "Fjordline has named Petter Aas as its new CEO",
    "Kestrel Mills promoted Sofia Lind to chief operating officer". The role's own "of X"
    says where ("named Lee head of sales at Veridian" is `frames`' case); else the
    organisation doing the appointing, when the subject is one."""
    if appointment_verb(head) != "join":
        return None
    objects = [c for c in head.children if c.dep_ in ("dobj", "oprd") and c.i in inside]
    person = next((c for c in objects if is_person(c)), None)
    role = None
    if person is None:
        # "appointed Piotr Zielinski CEO": the parser makes the name the role's compound.
        for c in objects:
            named = [k for k in c.children if k.dep_ == "compound" and is_person(k)]
            if is_role_word(c) and named:
                person, role = named[-1], c
    if person is None:
        return None
    role = role or _role_given(head, person, inside)
    welcome = head.lemma_.lower() == "welcome"
    if welcome and role is None:
        return _welcomed_to(head, person, inside)
    if role is None or role.i in skip:
        return None
    where = entity_phrase(role, inside)
    at = _held_at_role(role, inside, skip) or held_at(head, inside, skip)
    if at is not None and (role in where.tokens or person in where.tokens):
        where = at  # "as Head of Procurement at Brindlecote Foods"
    if (
        role in where.tokens
        or person in where.tokens  # "Piotr Zielinski CEO": the name read as the role's
        or all(t.pos_ == "PRON" for t in where.tokens)
    ):
        # No "of X", or "its new CEO": the organisation doing the appointing, or whose
        # board does ("The board of Corvane appointed …", "Corvane's board named …").
        if subj_tok is not None and subj_tok.lemma_.lower() in GOVERNING_BODIES:
            subj_tok = _governed(subj_tok)
        if subj_tok is None or subj_tok.i not in inside or not is_organisation(subj_tok):
            # "Please welcome Dana Ruiz as our new CMO": she joins, where the writers are.
            return (entity_phrase(person, inside), None) if welcome else None
        where = entity_phrase(subj_tok, inside)
    return entity_phrase(person, inside), where


def welcomes_someone(head: Any, inside: set[int]) -> bool:
    """Whether a clause welcomes a named person into a role or a named team or organisation
    ("Please welcome Dana Ruiz as our new CMO", "welcome Omar to the Halden team")."""
    return head.lemma_.lower() == "welcome" and appointment(head, None, inside, set()) is not None


def _welcomed_to(head: Any, person: Any, inside: set[int]) -> tuple[Phrase, Phrase] | None:
    """ "welcome Dana Ruiz to the Fenwick team", "welcomed Omar to Halden": the named team or
    organisation someone is welcomed to is one they join ("welcome her to the team" names
    none)."""
    for holder in (head, person):
        for c in holder.children:
            pobj = object_of(c) if c.dep_ in ("prep", "dative") and c.lower_ == "to" else None
            if pobj is None or pobj.i not in inside:
                continue
            where = entity_phrase(pobj, inside)
            # "the Nightjar team": the tagger may call a name before "team" an adjective.
            named = any(
                t.pos_ == "PROPN" or (t.text[:1].isupper() and not t.is_sent_start)
                for t in where.tokens
            )
            if named and (is_organisation(pobj) or is_unit(where)):
                return entity_phrase(person, inside), where
    return None


# Whom someone reports to, said as the other's role: "Noor's manager is Dana Kim", "Dana Kim
# is Noor's manager", "her line manager will be Omar Said".
_MANAGER_NOUNS = frozenset({"manager", "boss", "supervisor", "superior"})
_POSSESSIVE_PRONOUNS = frozenset({"my", "your", "his", "her", "their", "our"})


def reporting_line(
    subj_tok: Any, attr: Any | None, inside: set[int]
) -> tuple[Phrase, Phrase] | None:
    """(the one managed, the manager) when a copula says who someone's manager is, else None.
    A manager is no employer: "Dana Kim is Noor's manager" was "Dana Kim works for Noor"."""
    if attr is None:
        return None
    for noun, other in ((subj_tok, attr), (attr, subj_tok)):
        if noun.lemma_.lower() not in _MANAGER_NOUNS or not (is_person(other) or _pronoun(other)):
            continue
        if _job_title(noun):
            continue  # "our account manager at Trellisoft": a post at Trellisoft, no line
        owner = next((c for c in noun.children if c.dep_ == "poss" and c.i in inside), None)
        if owner is not None and (is_person(owner) or owner.lower_ in _POSSESSIVE_PRONOUNS):
            return entity_phrase(owner, inside), entity_phrase(other, inside)
    return None


def _job_title(noun: Any) -> bool:
    """A manager by trade ("account manager", "engineering manager", "manager at Lumio"), not
    someone's manager ("my manager", "her line manager")."""
    return any(
        (c.dep_ == "compound" and c.lower_ not in ("line", "direct", "reporting"))
        or (c.dep_ == "prep" and c.lower_ in ("at", "with", "from"))
        for c in noun.children
    )


def _pronoun(tok: Any) -> bool:
    return tok.pos_ == "PRON" and tok.lower_ in ("i", "he", "she", "you", "me", "him")


def _role_given(head: Any, person: Any, inside: set[int]) -> Any | None:
    """The role in "as CFO", "to chief operating officer" (on the verb or on the person, as
    the parser hangs it) or a bare object predicate ("named her CEO")."""
    for holder in (head, person):
        for c in holder.children:
            role = object_of(c) if c.dep_ == "prep" and c.lower_ in ("as", "to") else c
            if (
                c.dep_ in ("prep", "oprd")
                and role is not None
                and role.i in inside
                and is_role_word(role)
            ):
                return role
    return None


def _governed(body: Any) -> Any | None:
    """The organisation a governing body governs: its "of" object or its possessor."""
    for child in body.children:
        if child.dep_ == "poss":
            return child
        if child.dep_ == "prep" and child.lower_ == "of":
            owner: Any | None = object_of(child)
            return owner
    return None


def role_holder(role: Any, inside: set[int]) -> Phrase | None:
    """ "appointed Ravi Menon chief financial officer": the parser may make the person a
    modifier of the role; the one appointed is then the clause's subject."""
    person = next(
        (
            c
            for c in role.children
            if c.dep_ in ("nmod", "compound") and c.i in inside and c.ent_type_ == "PERSON"
        ),
        None,
    )
    return entity_phrase(person, inside) if person is not None else None


def with_roles(relation: Relation) -> list[Relation]:
    """The roles the subject's and object's phrases state, as relations of their own."""
    found = []
    for phrase in (relation.subject, relation.object):
        if phrase is None:
            continue
        for role in phrase.roles:
            # A role held is described as of the telling; one given up ended by the clause's
            # date ("Mina, previously at Larkspur, joined Northgate on 1 April").
            held = not role.predicate.startswith(FORMERLY)
            found.append(
                Relation(Phrase(phrase.tokens), role.predicate, Phrase(role.target), not held)
            )
    return found


# "Mia Chen replaced Tom Hart as head of the Sales team", "Nadia Karim succeeded Omar Said as
# CFO of Tessera Bank", "Leo Park took over from Ana Lima as lead of the Web team": a role
# changes hands, so the one named second leaves where the role is held and the subject joins.
_SUCCESSION_VERBS = frozenset({"replace", "succeed", "relieve"})


def succession(head: Any, inside: set[int], skip: set[int]) -> tuple[Phrase, Phrase] | None:
    """(where the role is held, the predecessor) when the clause hands a role on."""
    lemma = head.lemma_.lower()
    over = any(c.dep_ == "prt" and c.lower_ == "over" for c in head.children)
    if lemma in _SUCCESSION_VERBS:
        before = next((c for c in head.children if c.dep_ == "dobj" and c.i in inside), None)
    elif lemma == "take" and over:
        source = next((c for c in head.children if c.dep_ == "prep" and c.lower_ == "from"), None)
        before = object_of(source) if source is not None else None
    else:
        return None
    if before is None:
        return None
    # The parser hangs "as CEO of Fjordline" on the verb or on the one replaced.
    as_prep = next(
        (c for t in (head, before) for c in t.children if c.dep_ == "prep" and c.lower_ == "as"),
        None,
    )
    role = object_of(as_prep) if as_prep is not None else None
    if role is None or before.i in skip or role.i not in inside:
        return None
    where = entity_phrase(role, inside)
    if role in where.tokens or not where.tokens:
        return None  # "replaced Tom as the main contact": no place the role is held in
    return where, entity_phrase(before, inside)
