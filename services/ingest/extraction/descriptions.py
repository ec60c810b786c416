"""What a description says about the thing it describes, besides the clause's main relation.

"Ferrovia Freight is a rail logistics operator based in Rotterdam, and a division of Van
Leeuwen Holding" states where Ferrovia is and what it is part of; "Nimbus, a subsidiary of
Halden Group, is based in Oslo" states, in the apposition, what Nimbus belongs to;
"Brightwave is a Warsaw-based analytics firm" where Brightwave is. A copula's complements
(and their conjuncts) and a name's appositions are read from the parse: a noun of a whole
("division", "subsidiary", "part") with "of" is membership of that whole, a participle of
location ("based", "headquartered", "located") with "in", or a "<Place>-based" modifier, is
where the described thing is.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase
from services.ingest.extraction.moves import object_of
from services.ingest.extraction.names import ROLE_WORDS, is_name, is_person, name_span
from services.ingest.extraction.placement_changes import Relation
from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name
from shared.text.units import could_name_a_person, is_team_head

__all__ = ["RELATIONAL_NOUNS", "body_of", "descriptions"]

# Nouns that relate what they describe to a whole: "is part of", "a subsidiary of".
RELATIONAL_NOUNS = frozenset(
    {
        "part", "subsidiary", "division", "unit", "arm", "branch", "component", "member",
        "subset", "piece", "portion", "section", "affiliate", "department", "module", "subteam",
        "sub-team", "offshoot",
    }
)  # fmt: skip
# Participles that say where the described thing is.
_LOCATING = frozenset({"base", "headquarter", "locate", "headquartered", "based", "located"})
# A governing body named by what it governs ("the board of the Lagos Tech Fund").
GOVERNING_BODIES = frozenset({"board", "council", "trustees"})


def body_of(pobj: Any, inside: set[int]) -> Phrase:
    """The whole after "of": "the board of the Lagos Tech Fund" is the organization whose
    governing body it is, "the Dutch group Van Leeuwen Holding" the group so named."""
    if pobj.lemma_.lower() in GOVERNING_BODIES:
        prep = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        owner = object_of(prep) if prep is not None else None
        if owner is not None and owner.i in inside and is_name(owner):
            return entity_phrase(owner, inside)
    if pobj.pos_ == "NOUN":  # "the Dutch group Van Leeuwen Holding": the name it is given
        named = next((c for c in pobj.children if c.dep_ == "appos" and is_name(c)), None)
        if named is not None and named.i in inside:
            return entity_phrase(named, inside)
    return entity_phrase(pobj, inside)


def descriptions(
    subject: Phrase | None, subj_tok: Any | None, head: Any, inside: set[int], main_attr: Any
) -> list[Relation]:
    """Relations the copula's complements (other than `main_attr`, the one the main relation
    already reads) and the subject's appositions state about the subject."""
    if subject is None or subj_tok is None:
        return []
    nouns: list[tuple[Any, bool]] = []
    if head.lemma_.lower() == "be":
        complements = [c for c in head.children if c.dep_ == "attr" and c.i in inside]
        for attr in complements:
            nouns.append((attr, main_attr is None or attr.i != main_attr.i))
            nouns += [(c, True) for c in attr.conjuncts if c.i in inside]
        if complements:  # "is an operator …, and a division of Y": the parser may hang the
            # second complement on the copula as a conjunct of its own.
            nouns += [
                (c, True)
                for c in head.children
                if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN") and c.i in inside
            ]
    nouns += [(c, True) for c in subj_tok.children if c.dep_ == "appos" and c.i in inside]
    found: list[Relation] = []
    for noun, relational in nouns:
        if relational:
            found += _whole(subject, noun, inside)
        found += _location(subject, noun, inside)
    found += _bracketed_placement(subject, subj_tok, inside)
    return found


_OTHER_NAME_WORDS = frozenset({"formerly", "previously", "aka", "a.k.a.", "née", "nee", "now"})


def _bracketed_placement(subject: Phrase, subj_tok: Any, inside: set[int]) -> list[Relation]:
    """ "Ines (Risk team) presented the review", "Jun Park (Koto) joined the call": a team or
    an organisation in brackets right after a person's name is where they are placed."""
    if subj_tok.ent_type_ not in ("", "PERSON") or not subj_tok.text[:1].isupper():
        return []
    named = " ".join(t.text for t in subject.tokens)
    if not (is_person(subj_tok) or could_name_a_person(named)):
        return []  # "Northbeam Freight (NBF)": a company's short name, no placement
    found = []
    for appos in (c for c in subj_tok.children if c.dep_ == "appos" and c.i in inside):
        bracketed = any(c.text == "(" for c in appos.children) or (
            appos.left_edge.i > 0 and appos.doc[appos.left_edge.i - 1].text == "("
        )
        if not bracketed:
            continue
        if any(t.lower_ in _OTHER_NAME_WORDS for t in appos.subtree):
            continue  # "(formerly BDS)", "(a.k.a. Ostryx)": another name of the same one
        phrase = entity_phrase(appos, inside)
        words = [t for t in phrase.tokens if t.text not in "()"]
        if not words:
            continue
        if any(t.lower_ in ROLE_WORDS for t in words):
            continue  # "Priya Anand (Ops Manager)": her position, not where she works
        if is_team_head(" ".join(t.text for t in words)):
            found.append(Relation(subject, "member of", Phrase(tuple(words))))
        elif all(is_name(t) for t in words) and not is_given_name(normalize_name(words[0].text)):
            # the small NER calls "(Koto Labs)" a person too; a given name first makes one
            found.append(Relation(subject, "work for", Phrase(tuple(words))))
    return found


def _whole(subject: Phrase, noun: Any, inside: set[int]) -> list[Relation]:
    lemma = noun.lemma_.lower()
    if lemma not in RELATIONAL_NOUNS:
        return []
    prep = next((c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    pobj = object_of(prep) if prep is not None else None
    if pobj is None or pobj.i not in inside:
        return []
    return [Relation(subject, f"{lemma} of", body_of(pobj, inside))]


def _location(subject: Phrase, noun: Any, inside: set[int]) -> list[Relation]:
    found = []
    for child in noun.children:
        if child.i not in inside or child.lemma_.lower() not in _LOCATING:
            continue
        if child.dep_ == "acl":  # "an operator based in Rotterdam"
            prep = next((c for c in child.children if c.dep_ == "prep" and c.lower_ == "in"), None)
            place = object_of(prep) if prep is not None else None
            if place is not None and place.i in inside:
                found.append(Relation(subject, "be based in", entity_phrase(place, inside)))
        elif child.dep_ == "amod":  # "a Warsaw-based firm"
            named = next((c for c in child.children if c.dep_ in ("npadvmod", "compound")), None)
            span = name_span(named) if named is not None else None
            if span:
                found.append(Relation(subject, "be based in", Phrase(span)))
    return found


def fronted_participles(subject: Phrase | None, head: Any, inside: set[int]) -> list[Relation]:
    """What a participle fronted before the subject says of it with its agent: "Founded in
    2009 by Maren Aas and Olu Bello, Quillfeather builds …" (each founded Quillfeather),
    "Acquired by Kestrel in 2024, Fernhill sells …" (part of Kestrel). Its date is its own
    (`anchoring`), so the relation is said undated."""
    if subject is None:
        return []
    found: list[Relation] = []
    for clause in (c for c in head.children if c.dep_ == "advcl" and c.tag_ == "VBN"):
        if clause.i > head.i or clause.i not in inside:
            continue
        agent = next(
            (c for c in clause.children if c.dep_ in ("agent", "prep") and c.lower_ == "by"),
            None,
        )
        doer = object_of(agent) if agent is not None else None
        if doer is None or doer.i not in inside or not is_name(doer):
            continue
        for named in (doer, *doer.conjuncts):
            if named.i in inside and is_name(named):
                particles = [c.lower_ for c in clause.children if c.dep_ == "prt"]
                predicate = " ".join([clause.lemma_.lower(), *particles, "by"])
                found.append(Relation(subject, predicate, entity_phrase(named, inside)))
    return found
