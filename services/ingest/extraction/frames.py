"""Subject, predicate and object of a clause, and the further relations its phrases state.

The predicate is a verb phrase in lemma form ("work for", "join", "part of") that the
adjudicator's normalizer maps onto the vocabulary; the subject and object are `Phrase`s naming
entities (see `arguments`). Some clauses state more than one relation: "was hired by Umbrella
from Hooli" also ends the employment at Hooli, "after leaving Square" ends one at Square, and
"Dana Whitfield, the CTO of Northwind," places Dana at Northwind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.acquisitions import change_of_hands
from services.ingest.extraction.anchoring import ATTITUDE_VERBS
from services.ingest.extraction.arguments import (
    ATTRIBUTE_HEADS,
    Phrase,
    entity_like,
    entity_phrase,
    is_role_word,
)
from services.ingest.extraction.claim_time import value_change
from services.ingest.extraction.claim_windows import rescheduled_thing
from services.ingest.extraction.coordination import (
    conjoined_objects,
    conjoined_places,
    conjoined_subjects,
    replaced_alternatives,
)
from services.ingest.extraction.copulas import copular, milestone_day, personal, personal_member
from services.ingest.extraction.descriptions import (
    GOVERNING_BODIES,
    body_of,
    descriptions,
    fronted_participles,
)
from services.ingest.extraction.former import formerly, held_before
from services.ingest.extraction.function_heads import works_at
from services.ingest.extraction.key_values import key_value_subject
from services.ingest.extraction.moves import (
    MOTION_VERBS,
    SEATS,
    SELF_MIGRATING,
    TRANSPORT_VERBS,
    is_place,
    is_unit,
    migrated,
    moved_to_place,
    object_of,
    placed_person,
)
from services.ingest.extraction.names import is_name
from services.ingest.extraction.other_names import other_names
from services.ingest.extraction.ownership import TAKE_OWNERSHIP, ownership_change
from services.ingest.extraction.placement_changes import (
    END_VERBS,
    START_VERBS,
    TRADING_VERBS,
    Relation,
    ended_before_joining,
    former_placements,
    handover,
    held_besides,
    job_taken_at,
    left_behind,
    subordinate_changes,
    there_antecedent,
)
from services.ingest.extraction.roles import (
    LIGHT_VERBS,
    appointment,
    appointment_verb,
    held_at,
    light_verb_object,
    reporting_line,
    role_holder,
    succession,
    with_roles,
)
from shared.entities.places import is_known_place

__all__ = ["Frame", "Relation", "read_frame"]

_OBJECT_DEPS = ("dobj", "attr", "oprd", "dative")
# Verbs of moving whose destination (or origin) may be a place ("moved to Denver", "left
# Boston") rather than a company.
_PLACE_VERBS = frozenset({"move", "relocate", "leave"})
_DIRECTIONS = frozenset({"back", "down", "away", "aside", "off", "out"})
# What "become" starts, by the state "be" states ("became CTO of X" starts working for X).
_BECOME = {"work for": "join", "member of": "join", "part of": "become part of"}
# Verbs whose object is an employer, so "the CTO of Acme" there stands for Acme.
_EMPLOYMENT_VERBS = frozenset(
    {"work", "join", "start", "hire", "employ", "leave", "quit", "recruit", "rehire"}
)
# Verbs done "at" a place without working there: one meets, visits or calls people at
# organisations that are not one's employer.
_VISITING_VERBS = frozenset(
    {
        "meet", "see", "visit", "call", "phone", "ring", "interview", "talk", "speak", "chat",
        "present", "demo", "pitch", "attend", "host", "stay", "eat", "dine", "find", "hear",
        "watch", "thank", "greet", "introduce", "join", "leave", "tour",
    }
)  # fmt: skip
# Nouns that look like objects but say how, not what ("works part-time at Globex").
_ADVERBIAL_NOUNS = frozenset({"time", "part-time", "full-time", "remote", "home", "today"})


@dataclass(frozen=True)
class Frame:
    """The clause's main relation and the further relations its phrases state."""

    main: Relation
    extras: tuple[Relation, ...] = ()


# Appointments within the organisation the person already works for.
_PROMOTIONS = frozenset({"promote", "reappoint"})


def _first(head: Any, deps: tuple[str, ...], inside: set[int], skip: set[int]) -> Any | None:
    return next(
        (c for c in head.children if c.dep_ in deps and c.i in inside and c.i not in skip), None
    )


def _adverbial(tok: Any) -> bool:
    words = {tok.lower_, "-".join(t.lower_ for t in tok.subtree if not t.is_punct)}
    return bool(words & _ADVERBIAL_NOUNS)


def _workplace(
    head: Any, subject: Phrase | None, obj: Phrase | None, inside: set[int]
) -> list[Relation]:
    """ "I run supply chain analytics at Fresco Markets", "I look after enterprise accounts at
    Vantablue": what a person does at an organization says they work there. The parser hangs
    the "at" on the verb or on the work done (a common noun, not a name)."""
    if (
        subject is None
        or not personal(subject)
        or head.lemma_.lower() in _EMPLOYMENT_VERBS | _VISITING_VERBS | TRADING_VERBS
    ):
        return []
    if obj is not None and obj.tokens:
        done = [t for t in obj.tokens if t.head not in obj.tokens]
    else:  # "ran sales at Wayne Corp": the work done may be no entity of its own
        done = [c for c in head.children if c.dep_ == "dobj" and c.i in inside]
    work = [t for t in done if t.pos_ == "NOUN" and not is_role_word(t)]
    if obj is None and not work:
        return []
    holders = [head, *work]
    for prep in (c for h in holders for c in h.children if c.dep_ == "prep" and c.lower_ == "at"):
        pobj = object_of(prep)
        if pobj is None or pobj.i not in inside or not is_name(pobj):
            continue
        org = entity_phrase(pobj, inside)
        if not is_place(org):
            return [Relation(subject, "work at", org)]
    return []


# Verbs whose gerund complement is proposed, not done (see `read_frame`).
_PROPOSAL_VERBS = ATTITUDE_VERBS | {"propose", "suggest", "recommend", "prefer", "consider"}


def _known_place(phrase: Phrase) -> bool:
    return is_known_place(" ".join(t.text for t in phrase.tokens))


def changed_object(head: Any, inside: set[int]) -> Any | None:
    """The verb's direct object inside the clause, if any."""
    return next((c for c in head.children if c.dep_ == "dobj" and c.i in inside), None)


def _preposition(prep: Any) -> tuple[list[str], Any | None]:
    """The words and object of a preposition, "out of" included ("works out of the London
    office": the parser hangs "of" on "out", which has no object of its own)."""
    pobj = object_of(prep)
    if pobj is None and prep.lower_ == "out":
        inner = next((c for c in prep.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        if inner is not None:
            return ["out", "of"], object_of(inner)
    return [prep.lower_], pobj


def read_frame(
    content: Any, inside: set[int], temporal: set[int], shared_subject: Any | None = None
) -> Frame:
    """Read the clause whose content head is `content`. `inside` is the clause's token indices
    (plus a shared subject's, for a verb coordinated with another: "left Acme and joined
    Globex"); `temporal` holds tokens of temporal phrases, which are never arguments."""
    skip = temporal
    subj_tok = _first(content, ("nsubj", "nsubjpass"), inside, skip)
    if subj_tok is None or (shared_subject is not None and subj_tok.tag_ in ("WP", "WDT")):
        subj_tok = shared_subject  # coordinated verbs share it; "who" is the name it follows
    subject = entity_phrase(subj_tok, inside, anchor_possessor=True) if subj_tok else None
    head = content
    pred = [head.lemma_.lower()]
    key = key_value_subject(content, inside) if subject is None else None
    if key is not None:  # "Project Nova status: green" says Project Nova's status is green
        subject, pred = key, ["be"]
    xcomp = next((c for c in head.children if c.dep_ == "xcomp" and c.pos_ == "VERB"), None)
    if head.lemma_.lower() in _PROPOSAL_VERBS:
        # "now backs moving the gateway to Kubernetes", "suggested switching to Linear": the
        # complement is the proposal the holder's view is about, not something that happened.
        xcomp = None
    if xcomp is not None and not any(c.dep_ in _OBJECT_DEPS for c in head.children):
        pred += ["to", xcomp.lemma_.lower()]
        head = xcomp
    pred += [c.lower_ for c in head.children if c.dep_ == "prt"]
    # "stepped back from the board": the parser makes "back" an adverb holding the phrase.
    direction = next(
        (
            c
            for c in head.children
            if c.dep_ == "advmod" and c.lower_ in _DIRECTIONS and c.i == head.i + 1
        ),
        None,
    )
    if direction is not None:
        pred.append(direction.lower_)
    obj: Phrase | None = None
    conjoined: Any | None = None
    moved_thing: tuple[Phrase, Any, Any | None] | None = None
    lemma = head.lemma_.lower()
    # NER may take "last day" for a date, so the milestone's subject is read past `skip`.
    said_of = next(
        (c for c in content.children if c.dep_ in ("nsubj", "nsubjpass") and c.i in inside), None
    )
    milestone = None
    if lemma == "be" and len(pred) == 1:
        # "Omar's last day at Initech is 30 June", and the day said first: "Today is Marcus
        # Feld's last day at Brindle Health", "Friday will be my last day at Corvane".
        said_as = _first(head, ("attr",), inside, set())
        milestone = milestone_day(said_of, inside) or milestone_day(said_as, inside)
    if milestone is not None:
        subject, predicate_words, obj = milestone
        pred = [predicate_words]
    elif lemma in ("be", "become") and len(pred) == 1:
        stated = copular(head, inside, skip)
        if stated is not None:
            verb, obj = stated
            if verb == "part of" and personal_member(subject, obj):
                verb = "member of"  # "I'm part of the Security team": a person's team
            # "became CTO of Ostara Cloud", "will become part of Orbitra": the state starts.
            pred = (_BECOME.get(verb, verb) if lemma == "become" else verb).split()
            if pred == ["be", "in"] and obj is not None and _known_place(obj):
                pred = ["be", "based", "in"]  # "Acme's HQ is in Rotterdam" (not "in beta")
        attr = _first(head, ("attr",), inside, skip)
        line = reporting_line(said_of, attr, inside) if said_of is not None else None
        if line is not None:  # "Noor's manager is Dana Kim", "Dana Kim is Noor's manager"
            (subject, obj), pred = line, ["report", "to"]
    else:
        obj_tok = _first(head, _OBJECT_DEPS, inside, skip)
        if obj_tok is not None and (
            _adverbial(obj_tok) or (obj_tok.dep_ == "dative" and obj_tok.pos_ == "ADP")
        ):
            obj_tok = None  # "is run for us by …": a beneficiary, not the object
        if obj_tok is not None and lemma in MOTION_VERBS and obj_tok.lemma_.lower() in SEATS:
            # "moved its headquarters to Utrecht": the subject moves, the destination is it.
            obj_tok, pred = None, ["relocate"]
        moved = moved_to_place(head, obj_tok, inside, skip) if obj_tok is not None else None
        if moved is not None:
            subject, obj_tok, pred = moved[0], moved[1], ["relocate", "to"]
        placed = placed_person(head, obj_tok, inside, skip) if obj_tok is not None else None
        if placed is not None:  # the mover is not the one placed
            subject, obj_tok, pred = entity_phrase(obj_tok, inside), placed, ["move", "to"]
        moved_tok = obj_tok if obj_tok is not None else subj_tok
        moved_thing = migrated(head, moved_tok, inside, skip) if moved_tok is not None else None
        if moved_thing is not None:
            subject, obj_tok, pred = moved_thing[0], moved_thing[1], ["migrate", "to"]
        if obj_tok is None:
            holders = (head,) if direction is None else (head, direction)
            preps = [
                c
                for h in holders
                for c in h.children
                if c.dep_ in ("prep", "agent") and c.i in inside
            ]
            # A phrase fronted before the verb is an adverbial ("Alongside her job at A, she
            # has worked for B"); the verb's complement follows it.
            # A passive's agent is its other party ("is run for us by the Platform team").
            preps.sort(key=lambda p: (p.i < head.i, p.dep_ != "agent"))
            if lemma in MOTION_VERBS:  # the destination, not the origin
                preps.sort(key=lambda p: p.lower_ != "to")
            for prep in preps:
                words, pobj = _preposition(prep)
                if (
                    pobj is not None
                    and pobj.i not in skip
                    and pobj.ent_type_ not in ("DATE", "TIME")
                ):
                    if prep.lower_ == "from" and lemma in START_VERBS:
                        continue  # the origin: see `left_behind`
                    pred += words
                    obj_tok = pobj
                    break
        if obj_tok is None and (there := there_antecedent(head, skip)) is not None:
            pred.append("at")  # "… and starts there on 2 June"
            obj_tok = there
        if obj_tok is not None and lemma in LIGHT_VERBS:
            light = light_verb_object(obj_tok, inside, skip)
            if light is not None:  # "took part in X", "has responsibility for X"
                pred += [obj_tok.lemma_.lower(), light[0]]
                obj_tok = light[1]
        taken_at = None if obj_tok is None else job_taken_at(head, obj_tok, inside, skip)
        if taken_at is not None:  # "accepted an offer from Lumen Bio": joining it
            pred, obj_tok = ["join"], taken_at
        appointed = appointment_verb(head)
        if appointed is not None and obj_tok is not None and not is_role_word(obj_tok):
            # "The board named Marco Bell head of sales": the one named, and the role.
            role_tok = _first(head, ("oprd", "attr"), inside, skip)
            if role_tok is not None and is_role_word(role_tok) and is_name(obj_tok):
                subject, obj_tok = entity_phrase(obj_tok, inside), role_tok
        if obj_tok is not None:
            appointed = appointed if is_role_word(obj_tok) else None
            # Only employment collapses an unnamed role into its organization ("works for the
            # CTO of Acme"); one reports to, meets or thanks the person in it.
            # "was taken on as a contractor at Belvedere": a capacity is a position held.
            capacity = pred[-1] == "as"
            keep_roles = lemma not in _EMPLOYMENT_VERBS and appointed is None and not capacity
            obj = (
                body_of(obj_tok, inside)
                if obj_tok.lemma_.lower() in GOVERNING_BODIES
                else entity_phrase(obj_tok, inside, keep_roles=keep_roles)
            )
            if capacity and appointed is None and (obj_tok in obj.tokens or not entity_like(obj)):
                # "was recruited as head of data at Corvane": held where the verb's "at" says;
                # "joined as head of data" names no organisation, so there is no relation.
                workplace = held_at(head, inside, skip)
                if workplace is not None or is_role_word(obj_tok):
                    obj = workplace
            if appointed is not None and obj is not None:
                holder = role_holder(obj_tok, inside)
                held: Phrase | None = obj if obj_tok not in obj.tokens else None
                if (
                    held is not None
                    and holder is not None
                    and set(held.tokens) & set(holder.tokens)
                ):
                    held = None  # "named [Colm Byrne] director": the person, not the employer
                held = held or held_at(head, inside, skip)
                if held is not None:  # the role named where it is held
                    pred, obj = appointed.split(), held
                    subject = holder or subject
            conjoined = obj_tok
    if head is xcomp and is_role_word(head) and obj is not None:
        # "was promoted to lead the Observability team": the parser reads the role as a verb.
        appointed = appointment_verb(content)
        if appointed is not None and appointed != "work for":
            # ("continues to lead Platform", "remains to run it": the verb that holds says it.)
            pred = appointed.split()
    predicate = " ".join(pred)
    # "spent five years at Delta before joining Orbit": the placement held ended there.
    ended = obj is not None and ended_before_joining(head, inside, skip)
    if ended:
        predicate = "leave"
    if obj is not None and lemma in _PLACE_VERBS and is_place(obj):
        # "moved to Denver", "left Boston": where someone lives, not where they work
        # "left for Berlin" goes there; "left Boston" leaves it.
        leaving = lemma in END_VERBS and predicate.split()[-1] != "for"
        predicate = "relocate from" if leaving else "relocate to"
    if moved_thing is None:
        origin = left_behind(head, subject, inside, skip)
    else:  # the system it left, if named
        left = moved_thing[2]
        origin = (
            [] if left is None else [Relation(subject, "migrate from", entity_phrase(left, inside))]
        )
    if (
        lemma in TRANSPORT_VERBS - SELF_MIGRATING
        and is_unit(subject)
        and obj is not None
        and not is_place(obj)
    ):
        # "The Open Tide project moved from the Harbor Foundation to Coastal Commons": a
        # project or team changes the whole it belongs to, it is not employed by it.
        predicate = "become part of"
        origin = [Relation(r.subject, "cease to be part of", r.object) for r in origin]
    led_at = works_at(head, changed_object(head, inside))
    if led_at is not None and subject is not None:  # "heads product at Tidewater"
        obj, predicate = entity_phrase(led_at, inside), "work at"
    appointed_to = appointment(head, subj_tok, inside, skip)
    if appointed_to is not None:  # "Acme appointed Rita Diaz as CFO": she joins Acme
        (subject, obj), predicate = appointed_to, "join"
    handed_to = ownership_change(head, subj_tok, inside, skip)
    if handed_to is not None:  # "Ownership of X passed to Y": Y owns X from then on
        (subject, obj), predicate, origin = handed_to, " ".join(TAKE_OWNERSHIP), []
    changed_hands = change_of_hands(head, subj_tok, inside) if head is content else None
    if changed_hands is not None:  # "Orrin sold Fernhill to Kestrel": Fernhill's new parent
        main_change, origin = changed_hands
        subject, predicate, obj = main_change.subject, main_change.predicate, main_change.object
    changed = changed_object(head, inside)
    if changed is not None and value_change(head):
        # "We lowered the Exports API limit to 30", "Finance cut the travel budget to $2,000",
        # "we increased the Team plan from $12 to $15": the value is the limit's, the budget's,
        # the plan's, as in the passive "the limit was lowered to 30"; who set it anchors
        # nothing. A named agent keeps a bare attribute ("Acme raised the price").
        changed_phrase = entity_phrase(changed, inside, anchor_possessor=True)
        attribute = changed.lemma_.lower() in ATTRIBUTE_HEADS
        unnamed_agent = subj_tok is None or subj_tok.pos_ == "PRON"
        # "we raised the free tier to 5 projects": a described setting ("the free tier") is
        # what changed, as "The free tier allows 3 projects" says of it.
        described = any(
            c.dep_ in ("det", "amod") and c.lower_ not in ("a", "an") for c in changed.children
        ) and any(c.dep_ == "amod" for c in changed.children)
        if (unnamed_agent and (attribute or described or entity_like(changed_phrase))) or (
            attribute and entity_like(changed_phrase)
        ):
            subject, obj = changed_phrase, None
    rescheduled = rescheduled_thing(content, subj_tok, inside, temporal)
    if rescheduled is not None:  # "we've pushed the release back a week": the release's date
        subject, obj = entity_phrase(rescheduled, inside, anchor_possessor=True), None
    handed_on = succession(head, inside, skip)
    if handed_on is not None:  # "replaced Tom Hart as head of the Sales team"
        obj, predecessor = handed_on
        predicate, origin = "join", [*origin, Relation(predecessor, "leave", obj)]
    former = held_before(content, head)
    main = Relation(subject, formerly(predicate) if former else predicate, obj)
    extras = [*with_roles(main), *origin]
    if lemma in _PROMOTIONS and obj is not None and not any(is_role_word(t) for t in obj.tokens):
        # "was promoted to VP of Engineering at Larkspur": a new title where the person
        # already works. The date is the title's; the employment holds, from before it.
        main = Relation(subject, "promote to", None)
        extras.append(Relation(subject, "work for", obj, dated=False))
    if conjoined is not None:
        extras += conjoined_objects(main, conjoined, inside)
    extras += conjoined_places(main, inside)
    extras += conjoined_subjects(main, subj_tok, inside)
    extras += replaced_alternatives(main, inside, head.doc)
    if not ended:
        extras += [
            Relation(r.subject, formerly(r.predicate) if former else r.predicate, r.object)
            for r in _workplace(head, subject, obj, inside)
        ]
    extras += subordinate_changes(head, subject, inside, skip)
    extras += handover(predicate, obj, head, inside, skip)
    extras += former_placements(subj_tok, subject, inside, skip)
    extras += held_besides(head, subject, inside)
    main_attr = _first(head, ("attr",), inside, skip) if lemma == "be" else None
    extras += descriptions(subject, subj_tok, head, inside, main_attr)
    extras += fronted_participles(subject, content, inside)
    extras += other_names(head, subject, inside)
    return Frame(main, tuple(extras))
