"""The cascade's trigram and phonetic steps as searches: one statement for the names of a call
that will reach them, read ahead, and a search of its own for a name read too early."""

from __future__ import annotations

from collections.abc import Sequence

from services.adjudicator.entities.mentions import ResolutionContext, ResolverThresholds
from shared.entities.nicknames import short_form_expansions
from shared.entities.normalize import phonetic_code
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
