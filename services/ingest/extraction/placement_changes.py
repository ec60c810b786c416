"""The further placements a clause states about a job or team change, beside its main relation.

A change has two sides, and a sentence often names one in a phrase of the other's verb:
"was hired by Umbrella from Hooli" and "started at Stripe after leaving Square" also end the
old placement; "is leaving Fable Games to join Quarry AI", "left Copperleaf for Brightline" and
"quit Redwood to start at Halcyon" also start the new one; "spent five years at Delta before
joining Orbit" ends the old one where the new one starts; "took over the team from Omar" ends
Omar's. Each side is a `Relation` with the placement verb the normalizer maps ("join",
"leave"); the clause's date is the change's date for both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase
from services.ingest.extraction.moves import MOTION_VERBS, is_place, is_unit, object_of
from services.ingest.extraction.names import is_name

__all__ = [
    "END_VERBS",
    "START_VERBS",
    "TRADING_VERBS",
    "Relation",
    "ended_before_joining",
    "former_placements",
    "handover",
    "held_besides",
    "job_taken_at",
    "left_behind",
    "subordinate_changes",
    "there_antecedent",
]

# Verbs that start a placement; an origin ("joined Globex from Initech") ends the old one.
_HIRING_VERBS = frozenset({"hire", "recruit", "poach"})
START_VERBS = frozenset({"join", "start", "rejoin", "return", "begin"}) | _HIRING_VERBS
START_VERBS |= MOTION_VERBS
# Verbs that end a placement ("after leaving Square", "having quit Hooli").
END_VERBS = frozenset({"leave", "quit", "depart", "exit", "resign"})
# Verbs a purpose or "before" clause starts a placement with ("to join", "before starting at").
_JOINING_VERBS = frozenset(
    {"join", "start", "rejoin", "begin", "return", "move", "switch", "transfer"}
)
# Verbs of holding a placement for a time: "spent five years at Delta before joining Orbit".
_HOLDING_VERBS = frozenset({"work", "spend", "be", "serve", "stay", "remain", "last"})
_BEFORE = frozenset({"before", "prior"})
# "Marta Silva (formerly at Ubiq)", "Jun Park, previously with Koto,": a placement the
# subject held before the one the clause states.
_FORMERLY = frozenset({"formerly", "previously", "once", "earlier"})
_FORMER_PREPOSITIONS = frozenset({"at", "of", "with", "from", "in", "on"})


@dataclass(frozen=True)
class Relation:
    """One (subject, predicate, object) a clause states; phrases are token tuples."""

    subject: Phrase | None
    predicate: str
    object: Phrase | None
    dated: bool = True  # see `ExtractedRelation.dated`


# "After six years at Tandem, Sofia joined Pellucid": a time spent somewhere, then a start.
_STINTS = frozenset({"year", "month", "decade", "stint", "spell", "time", "tenure", "career"})


def _stint_ended(head: Any, subject: Phrase | None, inside: set[int]) -> list[Relation]:
    """ "After six years at Tandem Logistics, Sofia Reyes is joining Pellucid": the
    placement the time was spent in ends where the new one starts."""
    found = []
    for after in (c for c in head.children if c.dep_ == "prep" and c.lower_ == "after"):
        stint = object_of(after)
        if stint is None or stint.lemma_.lower() not in _STINTS:
            continue
        for prep in (c for c in stint.children if c.dep_ == "prep" and c.lower_ in ("at", "with")):
            pobj = object_of(prep)
            if pobj is not None and pobj.i in inside and is_name(pobj):
                left = entity_phrase(pobj, inside)
                if not is_place(left):
                    found.append(Relation(subject, "leave", left))
    return found


def left_behind(
    head: Any, subject: Phrase | None, inside: set[int], skip: set[int]
) -> list[Relation]:
    """ "hired by Umbrella from Hooli", "moved from search to payments": the place left.
    In the active voice the one who leaves is the one hired ("Northwind hired Carla Mendes
    from Contoso"), not the employer."""
    if head.lemma_.lower() not in START_VERBS:
        return []
    hired = None
    if head.lemma_.lower() in _HIRING_VERBS:
        hired = next((c for c in head.children if c.dep_ == "dobj" and c.i in inside), None)
        if hired is not None:
            if not is_name(hired):
                return []  # "we hired 3 engineers from Globex": no one named leaves
            subject = entity_phrase(hired, inside)
    found = _stint_ended(head, subject, inside)
    origins = [*head.children]
    if hired is not None:
        # "hired Jonas Berg from Halden Group": the parser hangs the origin on the one hired.
        origins += [c for c in hired.children if c.i > hired.i]
    if head.lemma_.lower() in _HIRING_VERBS:
        # "was poached by Lattice from Vireo": or, in the passive, on the one hiring.
        for agent in (c for c in head.children if c.dep_ == "agent"):
            employer = object_of(agent)
            origins += [c for c in employer.children if c.i > employer.i] if employer else []
    for prep in (c for c in origins if c.dep_ == "prep" and c.lower_ == "from"):
        pobj = object_of(prep)
        if pobj is not None and pobj.i in inside and pobj.i not in skip:
            left = entity_phrase(pobj, inside)
            if not is_place(left):  # "joins from Cape Town" leaves no employer
                found.append(Relation(subject, "leave", left))
    return found


# "accepted an offer from Lumen", "took a job at Ember", "starts a new role with Quarry":
# taking the job is joining where it is.
_TAKING_VERBS = frozenset({"accept", "take", "land", "get", "start", "begin", "secure"})
_JOB_NOUNS = frozenset({"offer", "job", "position", "role", "post"})
_JOB_PREPOSITIONS = frozenset({"from", "at", "with", "in", "on"})


def job_taken_at(head: Any, obj_tok: Any, inside: set[int], skip: set[int]) -> Any | None:
    """Where the job a clause's verb takes is: "accepted an offer from [Lumen Bio]"."""
    if head.lemma_.lower() not in _TAKING_VERBS or obj_tok.lemma_.lower() not in _JOB_NOUNS:
        return None
    # The parser hangs the preposition on the noun or, right after it, on the verb.
    after = [c for c in head.children if c.i > obj_tok.i]
    for prep in [*obj_tok.children, *after]:
        if prep.dep_ != "prep" or prep.lower_ not in _JOB_PREPOSITIONS or prep.i not in inside:
            continue
        pobj = object_of(prep)
        if pobj is None or pobj.i not in inside or pobj.i in skip:
            continue
        if is_name(pobj) or is_unit(entity_phrase(pobj, inside)):
            return pobj
    return None


def there_antecedent(head: Any, skip: set[int]) -> Any | None:
    """ "accepted an offer from Lumen Bio and starts there on 2 June": the organization
    named last before "there" in its sentence; a place ("moved to Oslo and works
    there") is where, not whom, one works for."""
    if head.lemma_.lower() not in START_VERBS | {"work"}:
        return None
    there = next((c for c in head.children if c.dep_ == "advmod" and c.lower_ == "there"), None)
    if there is None:
        return _job_started(head, skip)
    before = set(range(there.sent.start, there.i))
    for tok in reversed(there.doc[there.sent.start : there.i]):
        if tok.i in skip or tok.dep_ == "compound" or tok.ent_type_ in ("PERSON", "DATE"):
            continue
        if is_name(tok) and not is_place(entity_phrase(tok, before)):
            return tok
    return None


def _job_started(head: Any, skip: set[int]) -> Any | None:
    """ "has accepted a job at Lumen Bio and starts on 2 June": starting, with nothing named,
    is starting the job the verb it is coordinated with takes."""
    taker = head.head
    if head.dep_ != "conj" or head.lemma_.lower() not in ("start", "begin") or taker is head:
        return None
    job = next((c for c in taker.children if c.dep_ == "dobj"), None)
    return None if job is None else job_taken_at(taker, job, {t.i for t in taker.subtree}, skip)


def former_placements(
    subj_tok: Any, subject: Phrase | None, inside: set[int], skip: set[int]
) -> list[Relation]:
    """ "Marta Silva (formerly at Ubiq Systems) joined Trellis": the subject's modifier names a
    placement it has left; the parser hangs "at Ubiq" on the name with "formerly" inside."""
    if subj_tok is None or subject is None:
        return []
    found = []
    for prep in subj_tok.children:
        if prep.dep_ != "prep" or prep.lower_ not in _FORMER_PREPOSITIONS:
            continue
        if not any(c.dep_ == "advmod" and c.lower_ in _FORMERLY for c in prep.children):
            continue
        pobj = object_of(prep)
        if pobj is None or pobj.i not in inside or pobj.i in skip:
            continue
        left = entity_phrase(pobj, inside)
        if not (is_name(pobj) or is_unit(left)):
            continue  # "previously at version 2"; "previously with the Payments team" names one
        found.append(Relation(subject, "relocate from" if is_place(left) else "leave", left))
    return found


def _subordinate_verbs(head: Any, inside: set[int]) -> list[tuple[Any, Any]]:
    """(the word that subordinates it, the verb) of each verb phrase without a subject of its
    own hung on `head`: "after leaving Square", "to join Quarry AI", "before joining Orbit"."""
    found = []
    children = list(head.children)
    # "Prior to joining Fernway": the parser hangs the phrase on "prior", an adverb.
    for prior in (c for c in head.children if c.dep_ == "advmod" and c.lower_ == "prior"):
        children += [c for c in prior.children if c.dep_ == "prep" and c.lower_ == "to"]
    for child in children:
        if child.dep_ not in ("prep", "advcl", "xcomp") or child.i not in inside:
            continue
        verb = child if child.pos_ == "VERB" else None
        if verb is None:
            verb = next((g for g in child.children if g.dep_ == "pcomp" and g.pos_ == "VERB"), None)
        if verb is None:
            continue
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None and subject.tag_ != "PRP":
            continue  # a clause about someone else ("before Omar joined"); "before she joined"
        # The word that subordinates it: the preposition, or a clause's marker ("before").
        marker = next((c for c in verb.children if c.dep_ == "mark"), child)
        found.append((marker, verb))
    return found


def _placed_at(verb: Any, inside: set[int], skip: set[int]) -> tuple[str, Any] | None:
    """What a placement verb names, and the predicate it takes: "join X", "start at X"."""
    obj = next(
        (c for c in verb.children if c.dep_ == "dobj" and c.i in inside and c.i not in skip), None
    )
    if obj is not None:
        return verb.lemma_.lower(), obj
    for prep in (c for c in verb.children if c.dep_ == "prep"):
        pobj = object_of(prep)
        if pobj is not None and pobj.i in inside and pobj.i not in skip:
            return f"{verb.lemma_.lower()} {prep.lower_}", pobj
    return None


def _before(word: Any) -> bool:
    """ "before joining", "prior to joining" (the parser hangs "to" on "prior")."""
    return word.lower_ in _BEFORE or (word.lower_ == "to" and word.head.lower_ == "prior")


def subordinate_changes(
    head: Any, subject: Phrase | None, inside: set[int], skip: set[int]
) -> list[Relation]:
    """The other side of a change named in a verb phrase of the clause's verb: an end ("after
    leaving Square"), or a start after an ending verb or "before" ("is leaving Fable to join
    Quarry", "before joining Orbit"), or after "left A for B"."""
    lemma = head.lemma_.lower()
    found = []
    for word, verb in _subordinate_verbs(head, inside):
        verb_lemma = verb.lemma_.lower()
        joining = verb_lemma in _JOINING_VERBS and (lemma in END_VERBS or _before(word))
        if verb_lemma not in END_VERBS and not joining:
            continue
        placed = _placed_at(verb, inside, skip)
        if placed is None:
            continue
        predicate, obj = placed
        if not is_name(obj):
            continue  # "left to spend time with family"
        found.append(Relation(subject, "leave" if verb_lemma in END_VERBS else predicate,
                              entity_phrase(obj, inside)))  # fmt: skip
    left = next((c for c in head.children if c.dep_ == "dobj"), None)
    if lemma in END_VERBS and left is not None:
        # The parser hangs "for Sardis Bank" on the verb or on the employer left.
        after = [*head.children, *(c for c in left.children if c.i > left.i)]
        for prep in (c for c in after if c.dep_ == "prep" and c.lower_ == "for"):
            pobj = object_of(prep)
            if pobj is not None and pobj.i in inside and pobj.i not in skip and is_name(pobj):
                found.append(Relation(subject, "join", entity_phrase(pobj, inside)))
    return found + _jobs_traded(head, subject, inside, skip)


# "traded her role at Kestrel for a job at Nomad Labs", "swapped his post with Quanta for a
# position at Velo": one job left, another taken. Only jobs: "swapped Jira for Linear"
# names tools as often as employers, and nothing in the parse tells them apart.
TRADING_VERBS = frozenset({"trade", "swap", "exchange"})


def _jobs_traded(
    head: Any, subject: Phrase | None, inside: set[int], skip: set[int]
) -> list[Relation]:
    given = next((c for c in head.children if c.dep_ == "dobj" and c.i in inside), None)
    if head.lemma_.lower() not in TRADING_VERBS or given is None:
        return []
    if given.lemma_.lower() not in _JOB_NOUNS:
        return []
    wanted = next(
        (
            object_of(c)
            for c in [*head.children, *given.children]
            if c.dep_ == "prep" and c.lower_ == "for" and c.i > given.i
        ),
        None,
    )
    if wanted is None or wanted.lemma_.lower() not in _JOB_NOUNS:
        return []
    # The parser hangs a job's "at Kestrel" on the noun or, right after it, on the verb.
    old = _job_place(given, [c for c in head.children if given.i < c.i < wanted.i], inside, skip)
    new = _job_place(wanted, [], inside, skip)
    if old is None or new is None:
        return []
    return [
        Relation(subject, "leave", entity_phrase(old, inside)),
        Relation(subject, "join", entity_phrase(new, inside)),
    ]


def _job_place(job: Any, nearby: list[Any], inside: set[int], skip: set[int]) -> Any | None:
    for prep in [*job.children, *nearby]:
        if prep.dep_ != "prep" or prep.lower_ not in ("at", "with") or prep.i not in inside:
            continue
        place = object_of(prep)
        if place is not None and place.i in inside and place.i not in skip and is_name(place):
            return place
    return None


def ended_before_joining(head: Any, inside: set[int], skip: set[int]) -> bool:
    """ "Kai spent five years at Delta before joining Orbit in 2023": the placement the
    clause's verb holds ended when the one its "before" phrase starts began."""
    if head.lemma_.lower() not in _HOLDING_VERBS:
        return False
    return any(
        _before(word)
        and verb.lemma_.lower() in _JOINING_VERBS
        and _placed_at(verb, inside, skip) is not None
        for word, verb in _subordinate_verbs(head, inside)
    )


# A handover names both sides: "handed the team over to Femi" (Femi takes it over), "took
# over the team from Omar" (Omar hands it over).
_HANDOVERS = {"hand over": ("to", "take over"), "hand off": ("to", "take over")}
_HANDOVERS |= {"take over": ("from", "hand over"), "take charge of": ("from", "hand over")}


def handover(
    predicate: str, obj: Phrase | None, head: Any, inside: set[int], skip: set[int]
) -> list[Relation]:
    """The other side of a handover: "took over the Growth team from Sara" (Sara hands it over)."""
    counterpart = _HANDOVERS.get(predicate)
    if counterpart is None or obj is None:
        return []
    preposition, other_side = counterpart
    for prep in head.children:
        if prep.dep_ in ("prep", "dative") and prep.lower_ == preposition and prep.i in inside:
            pobj = object_of(prep)
            if pobj is not None and pobj.i in inside and pobj.i not in skip and is_name(pobj):
                return [Relation(entity_phrase(pobj, inside), other_side, obj)]
    return []


# "In addition to her job at Sable", "Besides running Orrin Labs", "Alongside his role as CEO
# of Vantage": a placement held beside the clause's, in a phrase before or after it.
_BESIDES = frozenset({"besides", "beside", "alongside"})
_ADDITION = {"in": "addition", "on": "top"}  # "in addition to", "on top of"
_HELD_NOUNS = _JOB_NOUNS | {"work", "day", "duty", "duties", "seat", "stint"}


def held_besides(head: Any, subject: Phrase | None, inside: set[int]) -> list[Relation]:
    """The placement a "besides"/"in addition to" phrase says the subject holds (the
    claim's own cue says it holds beside the main one, so neither succeeds the other)."""
    found = []
    for prep in (c for c in head.children if c.dep_ == "prep"):
        held = _besides_object(prep)
        if held is None or held.i not in inside:
            continue
        if held.pos_ == "VERB":  # "besides running Orrin Labs", "besides working at Koto"
            obj = next((c for c in held.children if c.dep_ == "dobj" and c.i in inside), None)
            if obj is not None and is_name(obj):
                found.append(Relation(subject, held.lemma_.lower(), entity_phrase(obj, inside)))
            for at in (c for c in held.children if c.dep_ == "prep" and c.lower_ in ("at", "for")):
                pobj = object_of(at)
                if pobj is not None and pobj.i in inside and is_name(pobj):
                    found.append(Relation(subject, "work at", entity_phrase(pobj, inside)))
        elif held.lemma_.lower() in _HELD_NOUNS:  # "her job at Sable", "his role as CEO of X"
            for at in (c for c in held.children if c.dep_ == "prep" and c.i in inside):
                pobj = object_of(at)
                if pobj is None or pobj.i not in inside:
                    continue
                place = entity_phrase(pobj, inside)  # "CEO of Vantage" names Vantage
                if any(is_name(t) for t in place.tokens) and not is_place(place):
                    found.append(Relation(subject, "work for", place))
                    break
    return found


def _besides_object(prep: Any) -> Any | None:
    if prep.lower_ in _BESIDES:
        return next((c for c in prep.children if c.dep_ in ("pobj", "pcomp")), None)
    noun = _ADDITION.get(prep.lower_)
    inner = next((c for c in prep.children if c.dep_ == "pobj" and c.lower_ == noun), None)
    if inner is None:
        return None
    to = next((c for c in inner.children if c.dep_ == "prep" and c.lower_ in ("to", "of")), None)
    return next((c for c in to.children if c.dep_ in ("pobj", "pcomp")), None) if to else None
