"""A full name completes the lone name that arrived before it (issue 17, order independence).

Read oldest first, "Samantha Reyes … Samantha said" makes one entity: the lone word's sole full
name takes it (`rules.sole_full_name`). Arriving the other way round, "Samantha" found no full
name and became an entity of its own, and "Samantha Reyes" found no alias and became another.
The mirror rule closes that gap without merging existing entities (SPEC §3): a proper full name
with no alias of its own is resolved to the entity known only by one of its lone forms (first
word; of a person the surname or a short form of the given name) when that lone word could
stand for no other full name in memory, as `sole_full_name` requires the other way round. The
entity takes the full name as its canonical name and its relations are relabelled.

When several lone-name entities qualify ("Sam" and "Reyes" both came first), the most named
takes the full name (then given name before surname before short form, then name, then id)
and a merge proposal is recorded for each of the others: joining those is a merge, which is a
reviewer's call by default.

The same name written better renames its entity the same way: "#platform-data" (a channel's
title) and "Platform Data" (the team's page) are one entity whichever arrived first, and its
name is the better-written of the forms seen, not the first (`better_written`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from uuid import UUID

from services.adjudicator.entities import completion_repository
from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.completion_repository import Completion
from services.adjudicator.entities.mentions import Mention, ResolutionContext
from services.adjudicator.entities.rules import Nominee, abbreviates, lone_forms, match_kind
from shared.entities.nicknames import short_form_expansions
from shared.entities.normalize import display_name, normalize_name

__all__ = ["better_written", "lone_candidates", "take_full_name"]

_KIND_RANK = {"given_name": 0, "unit_name": 0, "surname": 1, "short_form": 2}


async def lone_candidates(
    call: ResolutionContext, mention: Mention, normalized: str
) -> list[Nominee]:
    """The lone-name entities this full name completes, the one to take it first; empty when
    none qualifies. Needs the exact aliases of `lone_forms` loaded (the resolver does)."""
    forms = lone_forms(normalized, mention.text)
    found: dict[UUID, Nominee] = {}
    for word, kind in forms:
        hits = call.exact.get(word, [])
        if any(hit.normalized_name != word and " " in hit.normalized_name for hit in hits):
            # The word already stands for a full name: what it names is settled elsewhere.
            return []
        for hit in hits:
            if not hit.alias[:1].isupper():
                continue  # a lone word `sole_full_name` would not complete: written lower-case
            found.setdefault(
                hit.entity_id,
                Nominee(
                    hit.entity_id,
                    hit.canonical_name,
                    hit.normalized_name,
                    hit.alias,
                    hit.normalized_alias,
                    "exact_alias",
                    1.0,
                    kind,
                    None,
                    False,
                    hit.mention_count,
                ),
            )
    if not found:
        return []
    words = {n.normalized_alias for n in found.values()}
    if await _stands_for_another(call, words, normalized):
        return []
    return sorted(
        found.values(),
        key=lambda n: (-n.mention_count, _KIND_RANK[n.kind], n.canonical_name, str(n.entity_id)),
    )


def take_full_name(
    call: ResolutionContext,
    mention: Mention,
    normalized: str,
    lone: Nominee,
    nominees: Sequence[Nominee],
) -> Nominee:
    """`lone` (the first of `lone_candidates`) takes the mention's full name; every other
    lone-name entity among `nominees` is proposed for merging into it. They are the only
    exact-alias nominees there: the full name has no alias of its own."""
    name = display_name(mention.text)
    call.complete(
        Completion(lone.entity_id, lone.canonical_name, lone.normalized_name, name, normalized)
    )
    for other in nominees:
        if other.step == "exact_alias" and other.entity_id != lone.entity_id:
            evidence = {
                "mention": mention.text,
                "rule": "completes_lone_name",
                "kind": other.kind,
                "document_id": str(mention.document_id) if mention.document_id else None,
            }
            call.proposals.append(repo.Proposal(lone.entity_id, other.entity_id, 1.0, evidence))
    return replace(lone, canonical_name=name, normalized_name=normalized)


async def _stands_for_another(call: ResolutionContext, words: set[str], normalized: str) -> bool:
    """Whether one of the lone `words` could stand for a full name other than `normalized`
    already in memory, or named by a mention of this call still to come ("Dan Moreau works in
    Finance. Dan Ishikawa works in Engineering.": the lone "Dan" that came first is neither),
    by the abbreviations `sole_full_name` accepts."""
    for text in call.upcoming:
        other = normalize_name(text)
        if (
            " " in other
            and other != normalized
            and any(abbreviates(match_kind(word, other, other), other) for word in words)
        ):
            return True
    if call.written:
        await call.flush()  # a full name created earlier in this transaction counts
    patterns = sorted(
        {_like(word) + " %" for word in words}
        | {"% " + _like(word) for word in words}
        | {_like(full) + " %" for word in words for full in short_form_expansions(word)}
        | {_like(word) + "%" for word in words}
    )
    for name in await completion_repository.full_names_like(
        call.session, call.namespace, patterns, normalized
    ):
        if name in words:
            continue  # the lone entity itself, when its name is of several words
        if any(abbreviates(match_kind(word, name, name), name) for word in words):
            return True
    return False


def _like(word: str) -> str:
    return word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def better_written(
    call: ResolutionContext, mention: Mention, normalized: str, entity_id: UUID, name: str
) -> str:
    """The entity's name once `mention` resolved to it by its exact name: the mention's form
    when it reads better (no channel "#" or handle "@", capitals, then the smaller string)
    and normalizes to the entity's own name, renaming the entity; else `name`. The name is
    then the best of every form seen, whatever order they came in."""
    written = display_name(mention.text)
    hit = next((h for h in call.exact.get(normalized, []) if h.entity_id == entity_id), None)
    if hit is None or hit.normalized_name != normalized or not _reads_better(written, name):
        return name
    if normalize_name(name) != normalized:
        return (
            name  # completed to a full name since the aliases were read ("Pieter" → "… van Dijk")
        )
    call.complete(Completion(entity_id, name, normalized, written, normalized))
    return written


def _reads_better(written: str, name: str) -> bool:
    def rank(text: str) -> tuple[bool, bool, str]:
        return text[:1] in "#@", text == text.lower(), text

    return written != name and rank(written) < rank(name)
