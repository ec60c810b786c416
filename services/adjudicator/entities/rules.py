"""The offline rule model that makes the final "existing candidate or new" choice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID

from jellyfish import jaro_winkler_similarity as jaro_winkler

from shared.entities.given_names import is_given_name
from shared.entities.nicknames import is_short_form_of, short_forms_of
from shared.text.units import is_team_head

__all__ = [
    "Choice",
    "Nominee",
    "Support",
    "abbreviates",
    "choose",
    "describe",
    "lone_forms",
    "match_kind",
    "sole_full_name",
    "takeable",
]

Support = Literal["document", "co_mentioned", "related"]
_SUPPORT_RANK: dict[str, int] = {"document": 0, "co_mentioned": 1, "related": 2}
# Heads at least this close are taken as spellings of one word ("Patel"/"Patil").
_HEAD_SPELLING = 0.85


@dataclass(frozen=True, slots=True)
class Nominee:
    """A candidate entity with the step that nominated it and what the context says of it."""

    entity_id: UUID
    canonical_name: str
    normalized_name: str
    matched_alias: str
    normalized_alias: str
    step: str
    score: float
    kind: str
    support: Support | None
    disjoint: bool
    mention_count: int = 0


@dataclass(frozen=True, slots=True)
class Choice:
    """The verdict: a nominee (None = create a new entity), the rule that decided, and the
    nominee to propose a merge with when a new entity is created."""

    chosen: Nominee | None
    rule: str
    propose: Nominee | None = None


def match_kind(mention: str, alias: str, candidate_name: str) -> str:
    """How the normalized mention relates to a normalized alias/name of the candidate."""
    if mention in (alias, candidate_name):
        return "exact"
    m, a = mention.split(), candidate_name.split()
    if len(m) == 1 and len(a) > 1 and m[0] == a[0]:
        return "given_name"
    if len(m) == 1 and len(a) > 1 and m[0] == a[-1]:
        return "surname"
    if len(m) >= 2 and len(a) == len(m):
        if m[1:] == a[1:] and len(m[0]) == 1 and a[0][0] == m[0]:
            return "initials"  # "R. Patel" -> "Ravi Patel"
        if m[:-1] == a[:-1] and len(m[-1]) == 1 and a[-1][0] == m[-1]:
            return "initials"  # "John S." -> "John Smith"
    if m and a and is_short_form_of(m[0], a[0]) and (len(m) == 1 or m[1:] == a[1:]):
        return "short_form"
    if len(m) >= 2 and a[:-1] == m and is_team_head(candidate_name):
        return "unit_name"  # "Search Relevance" of "Search Relevance team"
    if _other_head(m, a):
        return "other_head"
    if not _misspelling(m, alias.split()):
        return "other_words"
    return "fuzzy"


def _misspelling(m: list[str], a: list[str]) -> bool:
    """Whether one could be the other misspelt: the same words, each spelt nearly the same.
    "last time" is not another spelling of "time", nor "maria and others both" of "maria and
    others", nor "nate fourth video game tournament" of "nate first video game tournament",
    however many trigrams they share."""
    return len(m) == len(a) and all(
        x == y or jaro_winkler(x, y) >= _HEAD_SPELLING for x, y in zip(m, a, strict=True)
    )


def takeable(kind: str, score: float, fuzzy_accept: float) -> bool:
    """Whether the rule model may take a nominee of this kind: never a compound with another
    head or other words than a misspelling has, and a misspelling only when close."""
    return kind not in ("other_head", "other_words") and (kind != "fuzzy" or score >= fuzzy_accept)


def _other_head(m: list[str], a: list[str]) -> bool:
    """Whether two names share their modifiers but end in different heads: "billing migration
    cutover" is a part of "billing migration" and a sibling of "billing migration spec", not
    another name for either; "Ravi Shah" is not "Ravi Patel". A near-spelling of the head
    ("Patil") is left to the fuzzy rule."""
    if len(m) + len(a) < 3 or m[-1] == a[-1] or jaro_winkler(m[-1], a[-1]) >= _HEAD_SPELLING:
        return False
    shorter, longer = (m, a) if len(m) <= len(a) else (a, m)
    return longer[: len(shorter)] == shorter or m[:-1] == a[:-1]


def _best_supported(nominees: Sequence[Nominee]) -> Nominee | None:
    """The single entity the strongest kind of context points at, or None if none or a tie."""
    supported = [n for n in nominees if n.support is not None]
    if not supported:
        return None
    top = min(_SUPPORT_RANK[n.support] for n in supported if n.support is not None)
    best = {n.entity_id: n for n in supported if n.support and _SUPPORT_RANK[n.support] == top}
    if len(best) != 1:
        return None
    return max((n for n in supported if n.entity_id in best), key=lambda n: n.score)


def choose(
    normalized: str, nominees: Sequence[Nominee], *, proposal_floor: float, fuzzy_accept: float
) -> Choice:
    """Exact aliases are taken unless the name is a lone token whose contexts conflict or the
    alias is shared; a structural match (given name, initials, short form, phonetic code) or a
    close spelling needs context support; everything else becomes new, with a proposal."""
    if not nominees:
        return Choice(None, "no_candidate")
    best_score = max(nominees, key=lambda n: n.score)
    propose = best_score if best_score.score >= proposal_floor else None
    exact = [n for n in nominees if n.kind == "exact"]
    # A loose spelling match next to a co-mentioned namesake ("Ravi Patel" vs "Priya Patel")
    # must not ride on that support: plain fuzzy matches need a close score as well.
    # A compound with another head names a different thing, however much context it shares.
    eligible = [n for n in nominees if takeable(n.kind, n.score, fuzzy_accept)]
    supported = _best_supported(exact or eligible)
    if supported is not None:
        return Choice(supported, f"{supported.kind}+{supported.support}")
    if exact:
        distinct = {n.entity_id for n in exact}
        if len(distinct) == 1:
            only = exact[0]
            # Full names, and lone names of companies, products and places, are specific
            # enough to reuse; a lone given name ("Dana") whose context shares nothing with the
            # entity's is as likely someone else: new entity, proposal.
            if not only.disjoint or not is_given_name(normalized):
                return Choice(only, "exact_unique")
            return Choice(None, "exact_context_disjoint", only)
        # Namesakes exist already and the context picks none: the one the sources name most
        # takes it (ties: the canonical name, then the id), so an ambiguity that stays
        # unresolved never mints a further namesake per mention. The verdict lists them all.
        chosen = max(exact, key=lambda n: (n.mention_count, n.canonical_name, str(n.entity_id)))
        return Choice(chosen, "exact_ambiguous_most_named")
    return Choice(None, "unsupported_candidates", propose)


# How a lone word can stand for a full name: the name's first word, its last (a person's
# surname), a short form of the first ("Mel"), or already an alias of it.
_ABBREVIATING = frozenset({"exact", "given_name", "surname", "short_form", "unit_name"})


def abbreviates(kind: str, full_name: str) -> bool:
    """Whether a lone word that matched the normalized `full_name` by `kind` (`match_kind`) can
    stand for it: a full name's first word, a person's surname (the name starts with a given
    name: "Ortiz" of Melanie Ortiz, not "Logistics" of Northwind Logistics), a short form of
    its first word, or an alias of it already."""
    return (
        kind in _ABBREVIATING
        and " " in full_name
        and (kind != "surname" or is_given_name(full_name.split()[0]))
    )


def sole_full_name(normalized: str, nominees: Sequence[Nominee]) -> Nominee | None:
    """The one full name a lone capitalised word can stand for, when the nominees hold exactly
    one: "Mel", "Melanie" or "Ortiz" in a document that never names her in full is Melanie
    Ortiz when she is the only such name in memory, whatever the document is about (a
    different context is no evidence of a different person when there is no other candidate).
    None when two full names qualify, or when an entity known by the lone word alone exists
    (the lone names stay with the rules of `choose`: "Dana" in two unrelated contexts)."""
    if " " in normalized and not any(n.kind == "unit_name" for n in nominees):
        return None  # a name of several words abbreviates only its unit ("Search Relevance")
    if any(
        n.kind == "exact" and (" " not in n.normalized_name or n.normalized_name == normalized)
        for n in nominees
    ):
        return None
    # Only a name whose own lone forms hold the word (`lone_forms`, the mirror rule): "Platform
    # status w/e 9 Jan", a document's title, is no full name "Platform" abbreviates, and the
    # completion would otherwise happen in one arrival order only.
    found = {
        n.entity_id: n
        for n in nominees
        if abbreviates(n.kind, n.normalized_name)
        and normalized in {word for word, _ in lone_forms(n.normalized_name, n.canonical_name)}
    }
    if len(found) != 1:
        return None
    return next(iter(found.values()))


# Lower-case words a person's full name may hold ("Ana de Souza", "Ludwig van Beethoven").
_NAME_PARTICLES = frozenset(
    {"al", "bin", "da", "de", "del", "der", "di", "du", "la", "le", "van", "von"}
)


def lone_forms(normalized: str, text: str) -> tuple[tuple[str, str], ...]:
    """The lone words a full name may have been written as before it was, each with its match
    kind: the first word ("Northwind" of "Northwind Logistics", "Samantha"), and of a person
    (the first word a given name) the surname and the given name's short forms ("Reyes",
    "Sam"). The mirror of `sole_full_name`. Empty unless `text` is written as a proper name,
    every word capitalised but particles, or but a unit's head ("Search team", whose lone
    "Search" `sole_full_name` completes the other way round): "billing migration" abbreviates
    nothing."""
    words, written = normalized.split(), text.split()
    if len(words) < 2:
        return ()
    if is_team_head(text):
        # "the Search team", "the support team": the article and the head are not the name,
        # and a unit is named by its function however it is cased ("Support" becomes "the
        # support team" as `sole_full_name` reads it the other way round); a name of several
        # words is written without its head too ("Search Relevance").
        if len(words) > 2:
            return ((" ".join(words[:-1]), "unit_name"),)
        return ((words[0], "given_name"),)
    if not all(word[:1].isupper() or word in _NAME_PARTICLES for word in written):
        return ()
    first, last = words[0], words[-1]
    forms = [(first, "given_name")]
    if is_given_name(first):
        if last != first:
            forms.append((last, "surname"))
        forms += [(short, "short_form") for short in short_forms_of(first) if short != last]
    return tuple(forms)


def describe(nominee: Nominee) -> dict[str, Any]:
    """A nominee as its verdict records it."""
    return {
        "entity_id": str(nominee.entity_id),
        "name": nominee.canonical_name,
        "alias": nominee.matched_alias,
        "step": nominee.step,
        "score": round(nominee.score, 4),
        "kind": nominee.kind,
        "support": nominee.support,
        "disjoint": nominee.disjoint,
    }
