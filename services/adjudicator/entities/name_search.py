"""The cascade's trigram and phonetic steps as searches: one statement for the names of a call
that will reach them, read ahead, and a search of its own for a name read too early. A lone
word is also looked up as the first or last word of full names, the same way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.adjudicator.entities.mentions import ResolutionContext, ResolverThresholds
from shared.entities import lookup_repository
from shared.entities.nicknames import short_form_expansions
from shared.entities.normalize import phonetic_code, trigram_similarity, trigrams
from shared.entities.trigram_search import (
    NameHits,
    NameSearch,
    TrigramRarity,
    trigram_phonetic_hits,
)

__all__ = ["NameSearcher"]


class NameSearcher:
    """Searches names by spelling and sound for one resolver (and keeps its trigram counts)."""

    def __init__(self, thresholds: ResolverThresholds) -> None:
        self._t = thresholds
        self._rarity = TrigramRarity()

    def search_of(self, norm: str) -> NameSearch:
        """What the steps look up for a normalized name: short forms are searched by their
        expansions too ("mel smith" -> "melanie smith")."""
        first, *rest = norm.split()
        expansions = [" ".join([full, *rest]) for full in short_form_expansions(first)]
        return NameSearch((norm, *expansions), phonetic_code(norm), self._t.trigram_floor(norm))

    async def search(self, call: ResolutionContext, norm: str) -> NameHits:
        """The name's answer: as read ahead, unless an alias the call decided since could
        change it; then searched now, after writing what such a search must see."""
        search = self.search_of(norm)
        found = call.read_ahead(search.queries, search.min_similarity)
        if found is None:
            await call.flush_if_near(search.queries, search.min_similarity)
            (found,) = await self._run(call, [search])
        return found

    async def search_ahead(
        self, call: ResolutionContext, names: Sequence[str]
    ) -> list[tuple[str, NameHits]]:
        """Search these names in one statement and keep the answers in `call` (see
        `ResolutionContext.read_ahead`); returns each name not searched before with its
        answer."""
        searches = [self.search_of(n) for n in dict.fromkeys(names) if n not in call.searched]
        if not searches:
            return []
        found = await self._run(call, searches)
        mark = len(call.decided)
        answers = [(search.queries[0], hits) for search, hits in zip(searches, found, strict=True)]
        for norm, hits in answers:
            call.searched[norm] = (mark, hits)
        return answers

    async def _run(self, call: ResolutionContext, searches: list[NameSearch]) -> list[NameHits]:
        return await trigram_phonetic_hits(
            call.session, call.namespace, searches, self._t.nominees_per_step, self._rarity
        )

    async def name_words_ahead(self, call: ResolutionContext, names: Sequence[str]) -> None:
        """Look up, in one statement, the lone words among these names as first or last words
        of full names, and keep the answers in `call` (see `name_word_hits`)."""
        await self._look_up_words(call, [n for n in dict.fromkeys(names) if _lone_word(n)])

    async def name_word_hits(
        self, call: ResolutionContext, norm: str, spelt: Sequence[lookup_repository.AliasHit]
    ) -> list[lookup_repository.AliasHit]:
        """The full names a lone word is the first or last word of, that its spelling search
        missed: "Leo" is too short to reach "Leo Whitaker" by trigrams (migration 0011). As
        looked up ahead, unless a full name decided since is one of them; then looked up now,
        after writing it."""
        if not _lone_word(norm):
            return []
        mark, found = call.name_words.get(norm, (0, None))
        if found is None or any(_first_or_last(w.normalized, norm) for w in call.decided[mark:]):
            if any(_first_or_last(w.normalized, norm) for w in call.written):
                await call.flush()
            found = (await self._look_up_words(call, [norm]))[norm]
        seen = {(h.entity_id, h.normalized_alias) for h in spelt}
        query = trigrams(norm)
        return [
            replace(h, score=trigram_similarity(query, trigrams(h.normalized_alias)))
            for h in found
            if (h.entity_id, h.normalized_alias) not in seen
        ]

    async def _look_up_words(
        self, call: ResolutionContext, words: list[str]
    ) -> dict[str, list[lookup_repository.AliasHit]]:
        if not words:
            return {}
        found = await lookup_repository.name_word_hits(
            call.session, call.namespace, words, self._t.nominees_per_step
        )
        mark = len(call.decided)
        call.name_words.update((word, (mark, hits)) for word, hits in found.items())
        return found


def _lone_word(norm: str) -> bool:
    return " " not in norm and len(norm) >= 2


def _first_or_last(name: str, word: str) -> bool:
    words = name.split()
    return len(words) > 1 and word in (words[0], words[-1])
