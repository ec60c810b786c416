"""The names a passage and its context mention, for pronouns and short forms to refer to."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from services.ingest.extraction.arguments import PLACE_HEADS, entity_phrase, is_bare
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.coref import (
    Mention,
    ShortForms,
    context_mentions,
    in_main_clause,
)
from services.ingest.extraction.names import (
    CALENDAR_WORDS,
    NAME_LABELS,
    ROLE_WORDS,
    is_name,
    name_span,
    without_honorific,
    without_possessive,
)
from services.ingest.extraction.unknown_words import english_word, is_english
from shared.entities.given_names import is_given_name
from shared.entities.nicknames import NICKNAMES
from shared.entities.normalize import normalize_name
from shared.text.units import ORGANISATION_WORDS, TEAM_HEADS

__all__ = [
    "PERSON_LABEL",
    "TITLE_WORDS",
    "entity_label",
    "full_names",
    "lone_names",
    "mentions",
    "organisations_named",
    "subject_things",
    "title_topic",
]

PERSON_LABEL = "PERSON"
_SUBJECT_DEPS = ("nsubj", "nsubjpass")
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*(?:[ \t]+[A-Z][\w'’-]*)*")
_FULL_NAME_RE = re.compile(r"\b([A-Z][a-z][\w'’-]*(?:[ \t]+[A-Z][a-z][\w'’-]*)+)")
# Capitalised words that open a sentence, not a name ("The Lisbon office", "Update Dana").
_NOT_NAME_STARTS = frozenset(
    {
        "The", "A", "An", "This", "That", "These", "Those", "Our", "Their", "His", "Her", "My",
        "Your", "We", "They", "It", "In", "On", "At", "For", "And", "But", "If", "When", "Then",
        "So", "As", "By", "To", "Of", "From", "With", "Update", "Correction", "Note",
        # Greetings and sign-offs open an email's lines ("Hi all,", "Thanks, Jo"); several are
        # given names somewhere, none is one there.
        "Hi", "Hey", "Hello", "Dear", "Thanks", "Thank", "Cheers", "Best", "Regards", "Kind",
        "Warm", "Welcome", "Morning", "Yes", "No", "Ok", "Okay", "Sure", "Great", "Congrats",
    }
)  # fmt: skip
# Lower-case words inside a person's name: "Sanne de Vries", "Ana dos Santos".
_NAME_PARTICLES = frozenset(
    {"de", "da", "do", "dos", "das", "di", "del", "della", "van", "von", "der", "den", "ter"}
    | {"ten", "le", "la", "du", "bin", "binti", "al", "el", "y", "zu", "af"}
)
# Last words that make a name an organisation's or a place's, whatever its first word.
_ORGANISATION_WORDS = ORGANISATION_WORDS | TEAM_HEADS | PLACE_HEADS
# Verbs whose subject is a person. The small NER often calls a lone given name a place, a
# product or a work ("Kenji joined Umbrella": GPE; "Ines manages Pablo": PRODUCT); as the
# subject of one of these it is the person, so "he"/"she" after it can find them.
_PEOPLE_VERBS = frozenset(
    {
        "join", "rejoin", "leave", "quit", "resign", "retire", "hire", "recruit", "manage",
        "supervise", "mentor", "coach", "lead", "head", "chair", "say", "tell", "think",
        "believe", "feel", "argue", "insist", "reckon", "admit", "agree", "disagree",
        "suggest", "reply", "ask", "want", "prefer", "oppose", "support", "promise",
        "volunteer", "meet", "interview", "marry", "visit",
    }
)  # fmt: skip


def entity_label(ent_label: str) -> str | None:
    """PERSON for people, ORG for any other named thing, None for values."""
    if ent_label == PERSON_LABEL:
        return PERSON_LABEL
    return "ORG" if ent_label in NAME_LABELS else None


def mentions(
    inp: ExtractionInput,
    doc: Any,
    known: dict[str, str],
    expand_short_form: Callable[[str], str | None] = lambda _: None,
    topic: str | None = None,
) -> list[Mention]:
    """Everything a pronoun of this passage may refer to, in order. `expand_short_form` gives
    the full name the document used that a lone word stands for: its kind (a person's given
    name or surname) outranks the small NER's guess ("Kenji" tagged a place)."""
    found = []
    places: set[int] = set()  # one-word places after a preposition ("moved to Lima")
    if inp.context:
        tail_names = {}
        for m in _CAPITALISED_RE.finditer(inp.context[-1500:]):
            run = without_possessive(m.group(0))  # "Dana Kim's opinion": Dana Kim
            for cand in (run, *(without_possessive(w) for w in run.split())):
                if cand in known:
                    tail_names[cand] = known[cand]
                elif _person_name(cand):
                    tail_names.setdefault(cand, PERSON_LABEL)
        found.extend(context_mentions(inp.context, tail_names))
    for whole in doc.ents:
        # "Dr. Lena Brandt" is mentioned as "Lena Brandt": the title of address is no name.
        ent = whole[len(whole) - len(without_honorific(tuple(whole))) :]
        label = entity_label(whole.label_)  # (a slice of a span has no label)
        full = expand_short_form(ent.text) if len(ent) == 1 else None
        subject = _main_subject(ent.root)
        if (full is not None and _person_name(full)) or (label and _acts_as_person(ent, subject)):
            label = PERSON_LABEL
        elif label == PERSON_LABEL and _workplace_of_role(ent):
            label = "ORG"
        if label:
            start = inp.base_offset + ent.start_char
            if whole.label_ in ("GPE", "LOC") and len(ent) == 1 and ent.root.dep_ == "pobj":
                places.add(ent.start_char)  # "moved to Lima"; "ping Nadia" names a person
            found.append(
                Mention(
                    ent.text,
                    label,
                    ent.start_char,
                    start,
                    start + len(ent.text),
                    subject,
                    personal=_person_name(ent.text) and ent.start_char not in places,
                )
            )
    taken = {m.position for m in found}
    found.extend(_people_ner_missed(inp, doc, taken, expand_short_form))
    named = {m.position: m.name for m in found}
    found.extend(subject_things(inp, doc, named, topic))
    # Whether each name reads as a person's, whatever label the NER gave it (see Mention).
    # A one-word place ("Lima") may also be a given name; the NER's reading stands.
    return [
        m if m.personal or m.position in places else replace(m, personal=_person_name(m.name))
        for m in found
    ]


def _acts_as_person(ent: Any, subject: bool) -> bool:
    """A name the NER did not call a person or an organisation that reads as a person's name
    and is the main subject of a verb only people do (see `_PEOPLE_VERBS`) or has a role in
    apposition."""
    if ent.label_ in (PERSON_LABEL, "ORG") or not _person_name(ent.text):
        return False
    if any(c.dep_ == "appos" and c.lemma_.lower() in ROLE_WORDS for c in ent.root.children):
        return True  # "Sanne de Vries, the head of digital at Ferrovia"
    return subject and ent.root.head.lemma_.lower() in _PEOPLE_VERBS


def _workplace_of_role(ent: Any) -> bool:
    """ "the lead engineer at Fiora", "the CTO of Northwind": where a role is held is an
    organisation, whatever the NER guessed."""
    prep = ent.root.head
    return (
        ent.root.dep_ == "pobj"
        and prep.lower_ in ("at", "of")
        and prep.head.lemma_.lower() in ROLE_WORDS
    )


def _main_subject(tok: Any) -> bool:
    """The subject of its sentence's main clause (or of a verb coordinated with it), not of a
    relative clause ("Quill is the app that Marrow Labs sells")."""
    return tok.dep_ in _SUBJECT_DEPS and in_main_clause(tok)


def _person_name(text: str) -> bool:
    """A name that opens with a common given name ("Olumide", "Sofia Lindqvist", "Sanne de
    Vries") and does not end in a word that names an organisation ("Van Leeuwen Holding")."""
    words = text.split()
    return (
        0 < len(words) <= 4
        and words[0][:1].isupper()
        and words[-1][:1].isupper()
        and all(w[:1].isupper() or w in _NAME_PARTICLES for w in words[1:-1])
        and words[0] not in _NOT_NAME_STARTS
        and words[-1].lower() not in _ORGANISATION_WORDS
        and is_given_name(normalize_name(words[0]))
        and not (len(words) == 1 and words[0].lower() in CALENDAR_WORDS)
    )


def _people_ner_missed(
    inp: ExtractionInput,
    doc: Any,
    taken: set[int],
    expand_short_form: Callable[[str], str | None],
) -> list[Mention]:
    """People the small NER missed ("Olumide moved …, so he now leads on-call"): proper nouns
    that open with a common given name, and a lone word of a full name the document used even
    where the tagger read it as a common noun ("Kenji said his team…" after "Kenji
    Watanabe"), so a later "he"/"she"/"his" can find them."""
    found = []
    for tok in doc:
        if tok.ent_type_ or tok.dep_ in ("compound", "flat"):
            continue
        full = expand_short_form(tok.text) if tok.text[:1].isupper() else None
        document_name = full is not None and _person_name(full)
        if tok.pos_ != "PROPN" and not (
            (document_name or _unlisted_given_name(tok)) and _stands_alone_as_noun(tok)
        ):
            continue
        span = name_span(tok) or (tok,)
        text = "".join(t.text_with_ws for t in span).strip()
        if span[0].idx in taken or not (_person_name(text) or document_name):
            continue
        start = inp.base_offset + span[0].idx
        subject = span[-1].dep_ in ("nsubj", "nsubjpass")
        found.append(
            Mention(
                text, PERSON_LABEL, span[0].idx, start, start + len(text), subject, personal=True
            )
        )
    return found


_INDEFINITE_PRONOUNS = frozenset(
    {
        "anyone", "anybody", "anything", "someone", "somebody", "something", "everyone",
        "everybody", "everything", "no one", "nobody", "nothing", "whoever", "whatever",
    }
)  # fmt: skip


def subject_things(
    inp: ExtractionInput, doc: Any, named: dict[int, str], topic: str | None = None
) -> list[Mention]:
    """Things the subjects of this passage name ("Orion shipped in January", "the new routing
    engine shipped"): what a later "it" most likely means. People and plurals are not "it";
    nor is a lone given name, which is a person NER missed. `named` holds the names already
    found, by position: a subject that only opens with one ("Brightwave's Kraków office") is
    a thing of its own."""
    found = []
    for sent in doc.sents:
        for tok in sent:
            if tok.dep_ not in ("nsubj", "nsubjpass"):
                continue
            # A plural is no "it", but a company's name may look like one ("Halden Foods").
            if tok.tag_ not in ("NN", "NNP") and not (tok.tag_ == "NNPS" and tok.ent_type_):
                continue
            if tok.ent_type_ == PERSON_LABEL or tok.lower_ in NICKNAMES:
                continue
            if tok.lower_ in _INDEFINITE_PRONOUNS:
                continue  # "Did anyone confirm …? They expect …": "anyone" names no one
            phrase = entity_phrase(tok, {t.i for t in sent})
            words = sorted(phrase.tokens, key=lambda t: t.i)
            if not words:
                continue
            text = "".join(t.text_with_ws for t in words).strip()
            text = re.sub(r"^(?:[Tt]he|[Aa]n?|[Oo]ur|[Tt]his)\s+", "the ", text)
            if topic and is_bare(phrase) and sum(t.pos_ == "NOUN" for t in words) < 2:
                text = topic  # "The firm was spun out …": the document's topic, as its claim says
            known = named.get(words[0].idx)
            if known is not None and len(known) >= len(text):
                continue  # the name found there already is the whole subject
            start = inp.base_offset + words[0].idx
            subject = _main_subject(tok)
            found.append(Mention(text, "ORG", words[0].idx, start, start + len(text), subject))
    return found


def organisations_named(sent: Any) -> list[tuple[str, int]]:
    """Names in a sentence that read as no person's (text, character offset in the doc):
    what "their"/"they" may mean when the small NER labelled none of them."""
    found = []
    for tok in sent:
        span = name_span(tok) if is_name(tok) else None
        if not span or tok.i != span[-1].i or tok.ent_type_ in ("DATE", "TIME"):
            continue  # (the small NER calls many companies people: the name decides)
        text = " ".join(t.text for t in span)
        if _person_name(text) or span[0].is_sent_start:
            continue
        found.append((text, span[0].idx))
    return found


def full_names(inp: ExtractionInput, doc: Any, known: dict[str, str]) -> list[str]:
    """Multi-word names the document used before (its context) or in this passage."""
    names = [n for n in known if " " in n and inp.context and n in inp.context]
    if inp.context:
        for m in _FULL_NAME_RE.finditer(inp.context[-2000:]):
            words = m.group(1).split()
            while words and words[0] in _NOT_NAME_STARTS:
                words.pop(0)
            if words:  # "In Dana Kim's opinion": the possessive is no part of the name
                words[-1] = without_possessive(words[-1])
            if len(words) >= 2:
                names.append(" ".join(words))
    for ent in doc.ents:
        if entity_label(ent.label_) and len(ent) > 1:
            names.append(ent.text)
    return names


# Words titles use for the kind of document, never its topic ("Weekly status: Lighthouse").
TITLE_WORDS = frozenset(
    {
        "re", "fwd", "fw", "weekly", "monthly", "quarterly", "daily", "status", "project",
        "report", "notes", "standup", "review", "sync", "call", "meeting", "update", "retro",
        "customer", "sales", "design", "vendor", "interview", "profile", "account", "offer",
        "welcome", "handover", "glossary", "faq", "summary", "minutes", "agenda", "recap",
        "postmortem", "incident", "all-hands", "town", "hall", "dm", "q&a", "page", "wiki",
        "w/e", "wk", "ending", "email", "e-mail", "mail", "memo", "announcement",
        "newsletter", "changelog", "notice", "about", "crm", "qbr", "escalation", "renewal",
        "kickoff", "onboarding", "debrief", "followup", "follow-up", "1:1", "one-on-one",
    }
)  # fmt: skip


def title_topic(title: Any) -> str | None:
    """What a document title names as its topic, from its parse: the first name that is not a
    word for the kind of document ("Halcyon Bio — customer account", "Project Lighthouse",
    "Kraków office"), else its first noun phrase ("Hiring committee — 3 September")."""
    if title.text.startswith("#"):
        return None  # a chat channel names a room, not a topic
    # Single letters are abbreviations' debris ("w/e 9 Jan"), no topic.
    words = [t for t in title if t.lower_ not in TITLE_WORDS and not t.is_punct and len(t.text) > 1]
    for tok in words:
        if is_name(tok) and tok.ent_type_ not in ("DATE", "TIME", "CARDINAL", "PERCENT"):
            span = [t for t in name_span(tok) or (tok,) if t.lower_ not in TITLE_WORDS]
            while span and span[0].i > 0 and _title_word_of_name(title[span[0].i - 1]):
                span.insert(0, title[span[0].i - 1])  # "Orbit Systems": "Orbit" read as a verb
            if len(span) == 1 and not (
                _named_alone(span[0]) or _whole_title(span[0]) or not english_word(span[0])
            ):
                continue  # "Board intro", "Cutover plan": a capitalised word, not a name
            head = tok
            while head.dep_ in ("compound", "flat", "amod") and head.head.i > head.i:
                head = head.head
            if head.lower_ in TEAM_HEADS | PLACE_HEADS and span:  # "Kraków office"
                span = [*span, head] if head not in span else span
            text = " ".join(t.text for t in sorted(span, key=lambda t: t.i))
            return text or None
    for chunk in title.noun_chunks:
        core = [
            t
            for t in chunk
            if (t.pos_ in ("NOUN", "PROPN", "ADJ") or t.tag_ == "VBG")
            and t.lower_ not in TITLE_WORDS
            and len(t.text) > 1
        ]
        core = [t for t in core if t.lower_ not in CALENDAR_WORDS and not t.like_num]
        # One common noun is no topic ("Team update", "Ops notes", "Staff sync"): it names
        # nothing a bare subject could mean. "Hiring committee", "Billing service" do.
        if len(core) >= 2 and core[-1].pos_ in ("NOUN", "PROPN"):
            return " ".join(t.text for t in core)
    return None


def _title_word_of_name(tok: Any) -> bool:
    """A capitalised word right before a name in a title, which the NER left out of it."""
    return bool(tok.text[:1].isupper() and tok.is_alpha and tok.lower_ not in TITLE_WORDS)


def _whole_title(tok: Any) -> bool:
    """A proper noun that is the whole title: a page named after its subject ("Corvane")."""
    words = [t for t in tok.doc if not t.is_punct and not t.is_space]
    return words == [tok] and tok.pos_ == "PROPN" and tok.lower_ not in CALENDAR_WORDS


def _named_alone(tok: Any) -> bool:
    """A one-word title name the NER also calls a name ("Falcon report", "Orbit status")."""
    return tok.ent_type_ in NAME_LABELS and tok.lower_ not in CALENDAR_WORDS


def lone_names(doc: Any, short_forms: ShortForms) -> frozenset[int]:
    """Indices of the tokens that are a whole name by themselves (a bare "Leo"), the only ones
    a short form may expand. A word of a full name the document used is one even where the
    tagger calls it a common noun ("Mateus is interested…" after "Mateus Oliveira"): the
    document's own names outrank the small model's guess."""
    return frozenset(
        t.i
        for t in doc
        if t.text[:1].isupper()
        and (
            ((t.pos_ == "PROPN" or t.ent_type_ in NAME_LABELS) and len(name_span(t) or ()) == 1)
            or _short_form_as_noun(t, short_forms)
        )
        and not _ends_its_full_name(t, short_forms)
        # "joined Pelican Freight, not Pelican Air": a word before another name's word is
        # part of that name however NER labelled it alone, no short form of "Pelican Air".
        and not (t.dep_ == "compound" and t.head.pos_ == "PROPN" and t.head.i == t.i + 1)
    )


def _ends_its_full_name(token: Any, short_forms: ShortForms) -> bool:
    """Whether the name a short form would expand to is written out right here, ending at
    `token` ("VP Engineering", whose "VP" the name's span leaves out): nothing to expand."""
    full = short_forms.expand(token.text)
    return full is not None and token.doc.text[: token.idx + len(token.text)].endswith(full)


def _short_form_as_noun(token: Any, short_forms: ShortForms) -> bool:
    """A word of one of the document's full names that the tagger read as a common noun:
    "Mateus is interested…" after "Mateus Oliveira"."""
    return _stands_alone_as_noun(token) and short_forms.expand(token.text) is not None


def _unlisted_given_name(token: Any) -> bool:
    """ "Ines is handing the lead over to Bram": a capitalised subject the tagger read as a
    common noun that is a given name and no English word ("Bill is due Friday" is a bill)."""
    word = token.text
    return (
        token.dep_ in ("nsubj", "nsubjpass")
        and word[:1].isupper()
        and word[1:].islower()
        and is_given_name(word.lower())
        and not is_english(word.lower())
    )


def _stands_alone_as_noun(token: Any) -> bool:
    """A common noun (or adjective) by itself, not inside a compound or modifying one: the only
    place where the tagger's "common noun" may be overruled by a name the document used."""
    return (
        token.pos_ in ("NOUN", "ADJ")
        and token.dep_ not in ("compound", "flat", "amod")
        and not any(c.dep_ in ("compound", "flat") for c in token.children)
    )
