"""The names a claim's subject and object are given: a phrase rendered with its short forms
and pronouns resolved, or, for a bare common noun, what the document says it stands for.

In prose a bare subject ("the contract renews on 1 November", "Headcount is 64") is said of
what the title names; a bare definite object ("left the committee", "joined the project") is
the thing a description just before gave ("the steering committee") or the one the title
names with that noun ("Project Harbor — weekly status"). Otherwise a bare noun names nothing.
"""

from __future__ import annotations

import re
from typing import Any

from services.ingest.extraction.arguments import (
    PLACE_HEADS,
    Phrase,
    entity_like,
    is_bare,
    opens_line,
)
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.coref import Rewriter
from services.ingest.extraction.sentence_boundaries import is_emoji
from shared.text.units import is_team_head

__all__ = ["object_text", "render", "subject_text"]

_WE = frozenset({"we", "us"})
# How far back a definite description may repeat ("the committee" after "the calibration
# committee"), and the words that end a description instead of modifying its noun.
_DESCRIPTION_REACH = 600
_NOT_MODIFIERS = frozenset(
    {"of", "on", "in", "at", "for", "to", "and", "or", "by", "with", "from", "is", "was", "the"}
    | {"a", "an", "that", "this", "who", "which", "new", "old", "other", "next", "last"}
)


def render(phrase: Phrase | None, rewriter: Rewriter) -> str | None:
    """The phrase's text in document order, short forms and pronouns resolved."""
    tokens = [t for t in phrase.tokens if not is_emoji(t.text)] if phrase else []
    if not tokens:
        return None  # (an emoji NER ran into a name is no part of it: "Corvane ❤️")
    rendered = rewriter.render(sorted(tokens, key=lambda t: t.i), capitalise=False)
    # A blanked mark inside a name ("Alexandra 'Sasha' Petrov") leaves a run of spaces.
    return re.sub(r"[ \t]{2,}", " ", rendered) or None


def _line_key(phrase: Phrase) -> bool:
    """Whether the phrase is the key of a key-value line ("Go-live date: 18 May")."""
    first, last = phrase.tokens[0], phrase.tokens[-1]
    doc = first.doc
    if last.i + 1 >= len(doc) or doc[last.i + 1].text != ":":
        return False
    if any(t.pos_ == "PROPN" or t.ent_type_ for t in phrase.tokens if t is not first):
        return False  # "Project Nova status: green" is Project Nova's
    return opens_line(first)


def subject_text(
    phrase: Phrase | None,
    rewriter: Rewriter,
    topic: str | None,
    inp: ExtractionInput,
    attribution: Any,
) -> str | None:
    """The subject's name; in prose, a bare noun ("the contract renews on 1 November",
    "Headcount is 64") is said of what the document is about, which its title names."""
    if is_bare(phrase) and attribution is None:
        assert phrase is not None
        described = _described_before(phrase, inp)
        if described is not None:
            return described
    keyed = phrase is not None and _line_key(phrase)
    if topic and inp.speaker is None and attribution is None and (is_bare(phrase) or keyed):
        assert phrase is not None
        nouns = [t for t in phrase.tokens if t.pos_ == "NOUN"]
        rendered = (render(phrase, rewriter) or "").lower()
        if len(nouns) < 2 or topic.lower() in rendered or _line_key(phrase):
            return topic  # "Go-live date: 18 May" in the Larkspur report is Larkspur's
        # "The search service runs on Solr" under the title "Search": a compound names its
        # own thing, which the title may only mention in part.
    if phrase is None and inp.speaker and attribution is None:
        return inp.speaker  # "Selam: starting on the churn model today"
    if phrase is not None and len(phrase.tokens) == 1 and phrase.tokens[0].lower_ in _WE:
        # "We shipped it": the writers and others, no one entity. The claim is anchored on
        # the speaker or the document instead (and its text says "<speaker> and others").
        # On a team's page (or under its heading) "we" is the team: "We own the gateway".
        if topic and inp.speaker is None and (is_team_head(topic) or _page_of_its_own(inp)):
            return topic
        return None
    if phrase is not None and len(phrase.tokens) == 1 and phrase.tokens[0].tag_ == "PRP$":
        # "His last day is Friday": the owner the possessive means, not "Tomasz Nowak's"
        owner = render(phrase, rewriter)
        return owner[: -len("'s")] if owner and owner.endswith("'s") else None
    return render(phrase, rewriter)


# Titles of a page a unit or company keeps about itself ("Platform Data - team page", "About
# Brindlecote"), on which "we" is the page's topic whatever its name's head.
_OWN_PAGE = re.compile(r"\bteam\s+(?:page|wiki|site|charter|overview)\b|^\s*about\s+\S", re.I)


def _page_of_its_own(inp: ExtractionInput) -> bool:
    return bool(inp.document_title and _OWN_PAGE.search(inp.document_title))


def object_text(
    phrase: Phrase | None, rewriter: Rewriter, topic: str | None, inp: ExtractionInput
) -> str | None:
    """The object's name. A bare "the committee" or "the project" names nothing alone; it
    names the thing a description just before gave ("the steering committee") or, when the
    title says what kind of thing it is about ("Project Harbor — weekly status"), that thing."""
    if phrase is None:
        return None
    if len(phrase.tokens) == 1 and phrase.tokens[0].pos_ == "PRON":
        word = phrase.tokens[0].lower_
        named = None if word in _WE else render(phrase, rewriter)
        # "starts with us": the writers and others; "can't make it": a pronoun nothing
        # before it names. Neither is an entity.
        return None if named is None or named.lower() == word else named
    if entity_like(phrase):
        return render(phrase, rewriter)
    noun = _bare_noun(phrase)
    if noun is None:
        return None
    described = _described_before(phrase, inp)
    if described is not None:
        return described
    title = inp.document_title or ""
    if not topic or inp.speaker is not None or noun in PLACE_HEADS:
        return None  # "has run the office since it opened": a place, not a unit
    proper = any(w[:1].isupper() and w.lower() != noun for w in topic.split())
    if (noun in topic.lower().split() and proper) or re.search(
        rf"\b{noun}\s+{re.escape(topic)}\b", title, re.IGNORECASE
    ):
        return topic  # "the project" under "Project Harbor — weekly status"
    if re.search(rf"\b{re.escape(topic)}\s+{noun}\b", title, re.IGNORECASE):
        return f"{topic} {noun}"  # "the board" under "Brightwave board update"
    return None


def _bare_noun(phrase: Phrase) -> str | None:
    """The noun of a phrase that is only "the" and a common noun ("the project")."""
    words = sorted(phrase.tokens, key=lambda t: t.i)
    if len(words) != 2 or words[0].lower_ != "the" or words[1].pos_ != "NOUN":
        return None
    return str(words[1].lower_)


def _described_before(phrase: Phrase, inp: ExtractionInput) -> str | None:
    """A definite "the committee" that repeats, shorter, a description the text gave just
    before ("the calibration committee, chaired by Ngozi"): that description. Only "the" and
    a single noun: "the new committee" or "a committee" may be another one."""
    noun = _bare_noun(phrase)
    if noun is None:
        return None
    words = sorted(phrase.tokens, key=lambda t: t.i)
    before = (inp.context or "")[-_DESCRIPTION_REACH:] + "\n" + inp.text[: words[0].idx]
    pattern = rf"\b[Tt]he((?:\s+[\w&'’-]+){{1,3}}?)\s+{re.escape(noun)}\b"
    found = [m for m in re.finditer(pattern, before) if m.group(1).strip().lower() != noun]
    if not found:
        return None
    modifiers = found[-1].group(1).split()
    if any(m.lower() in _NOT_MODIFIERS for m in modifiers):
        return None  # "the people on the committee": another phrase, not a description
    return f"the {' '.join(modifiers)} {words[1].text}"
