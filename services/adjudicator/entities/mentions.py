"""What the resolver works on: mentions, verdict outcomes, thresholds and the per-transaction
cache shared by the `resolve_mentions` calls of one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities import completion_repository
from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.rules import lone_forms
from shared.beliefs.locks import lock_names
from shared.entities import lookup_repository
from shared.entities.normalize import (
    is_bare_head_noun,
    normalize_name,
    phonetic_code,
    trigram_similarity,
    trigrams,
)
from shared.entities.trigram_search import NameHits

__all__ = [
    "Mention",
    "MentionRole",
    "ResolutionContext",
    "ResolvedMention",
    "ResolverThresholds",
    "with_lone_forms",
]

MentionRole = Literal["subject", "object", "holder"]


@dataclass(frozen=True)
class Mention:
    """One entity mention; `co_mentions` are the other names of its claim, turn or document."""

    text: str
    role: MentionRole
    claim_id: UUID | None
    document_id: UUID | None
    speaker: str | None = None
    co_mentions: tuple[str, ...] = ()
    # A declaration's two sides ("Northwind Robotics, formerly Nimbus Labs": see declared.py):
    # the other names the claim gives this one, or the name this one is another name of.
    other_names: tuple[str, ...] = ()
    alias_of: str | None = None

    def context_names(self) -> list[str]:
        """The names around the mention that can tell which entity it means."""
        names = [n for n in self.co_mentions if not is_bare_head_noun(n)]
        if self.speaker:
            names.append(self.speaker)
        return names


@dataclass(frozen=True)
class ResolvedMention:
    """The outcome for one mention; `entity_id` None means it names no entity."""

    mention: Mention
    entity_id: UUID | None
    canonical_name: str | None
    created: bool
    step: str


@dataclass(frozen=True)
class ResolverThresholds:
    """Nomination floors and acceptance bars of the cascade."""

    # The trigram step's floor for a lone word or a name with an initial: its given-name,
    # surname and initials matches score this low ("ravi" is 0.44 of "ravi patel"). Any other
    # name is searched at `fuzzy_accept`, since nothing less similar can be taken (see
    # `trigram_floor`).
    trigram_nominate: float = 0.3
    fuzzy_accept: float = 0.5
    embedding_nominate: float = 0.6
    proposal_floor: float = 0.3
    nominees_per_step: int = 10
    # Longer mentions skip the trigram and phonetic steps: they are descriptions ("nate first
    # video game tournament"), not names with a typo, and a near spelling of one is usually
    # another thing ("nate fourth video game tournament"). Their searches were also two fifths
    # of the trigram time on LoCoMo at a fifth of the names (a search reads the postings of
    # most of its trigrams, and a long phrase has sixty).
    fuzzy_max_words: int = 5

    def trigram_floor(self, normalized: str) -> float:
        """The least similarity at which a trigram nominee of `normalized` can change the
        verdict. A name of several full words can only be taken by a close spelling: the
        structural matches (given name, surname, initials: rules.match_kind) need a lone word
        or an initial, and a short form is searched by its expansions. Below `fuzzy_accept`
        its matches are other people ("ravi shah" is 0.31 of "ravi patel"), whose proposals
        were noise, and the search reads the postings of most of the name's trigrams instead
        of a third: three times the cost at 100k aliases (bench/entity_resolution.py)."""
        words = normalized.split()
        if len(words) > 1 and all(len(w) > 1 for w in words):
            return max(self.trigram_nominate, self.fuzzy_accept)
        return self.trigram_nominate


@dataclass
class ResolutionContext:
    """Caches of one transaction, so mentions of one claim or document cost one lookup each.

    Pass one to several `resolve_mentions` calls of the same session (a batch's claims, then
    their fallback anchors) to share what the first call read and wrote; it must not outlive
    the transaction, whose rollback would leave it pointing at entities that never were.
    """

    session: AsyncSession
    namespace: str
    exact: dict[str, list[lookup_repository.AliasHit]] = field(default_factory=dict)
    doc_names: dict[UUID, dict[str, tuple[UUID, str]]] = field(default_factory=dict)
    # Every entity chosen in a loaded document (two may share a name there).
    doc_entities: dict[UUID, set[UUID]] = field(default_factory=dict)
    neighbours: dict[UUID, set[UUID]] = field(default_factory=dict)
    # Verdicts naming no entity: nothing in the call reads them, so they go in one statement.
    unlinked: list[repo.Verdict] = field(default_factory=list)
    # Verdicts, aliases and entities decided but not yet written, and proposals: written in
    # one statement each at the end of the call, or earlier by `flush` when a read could see
    # them (see `flush_if_near`, `load_documents`, `load_neighbours`).
    written: list[repo.Written] = field(default_factory=list)
    proposals: list[repo.Proposal] = field(default_factory=list)
    # Lone-name entities a full name completed (see `complete`), renamed with the verdicts.
    completions: list[completion_repository.Completion] = field(default_factory=list)
    # Names this transaction holds the creation lock of (see EntityResolver.resolve_mentions).
    locked: set[str] = field(default_factory=set)
    # Texts of the mentions of the current call still to resolve: one embedding call serves
    # the first of them that reaches the embedding step and all the others.
    upcoming: list[str] = field(default_factory=list)
    embedded: dict[str, list[lookup_repository.AliasHit]] = field(default_factory=dict)
    profiles_exist: bool | None = None
    # Every verdict choosing an entity decided in this transaction, written or not, in order;
    # what was read ahead for a call's names, each with how many of those verdicts had been
    # decided when it was read: trigram/phonetic answers (see `read_ahead`) and the neighbours
    # of their candidates (taken by `load_neighbours` unless a verdict since changed them).
    decided: list[repo.Written] = field(default_factory=list)
    searched: dict[str, tuple[int, NameHits]] = field(default_factory=dict)
    # Lone words looked up ahead as first or last words of full names (`name_word_hits`),
    # with the same mark: a full name decided since may be one of them.
    name_words: dict[str, tuple[int, list[lookup_repository.AliasHit]]] = field(
        default_factory=dict
    )
    neighbours_ahead: dict[UUID, tuple[int, set[UUID]]] = field(default_factory=dict)
    # The entity each declared name resolved to (normalized name → id, name): its other
    # names join it (see declared.py).
    declared: dict[str, tuple[UUID, str]] = field(default_factory=dict)

    def decide(self, written: repo.Written) -> None:
        """Queue a verdict that chose (or created) an entity."""
        self.written.append(written)
        self.decided.append(written)

    async def flush(self, *, proposals: bool = False) -> None:
        """Write the verdicts decided so far, and with `proposals` the merge proposals too
        (nothing the resolver reads; their expected impact counts the written mentions)."""
        written, unlinked = self.written, self.unlinked
        self.written, self.unlinked = [], []
        await repo.write_mentions(self.session, self.namespace, written, unlinked)
        completions, self.completions = self.completions, []
        await completion_repository.write_completions(self.session, self.namespace, completions)
        if proposals:
            pending, self.proposals = self.proposals, []
            await repo.upsert_proposals(self.session, self.namespace, pending)

    async def flush_if_near(self, queries: Sequence[str], floor: float) -> None:
        """Flush before a trigram/phonetic search whose answer an unwritten alias could change:
        one at least `floor` trigram-similar to a query or sharing the first one's code."""
        if _near([w.normalized for w in self.written], queries, floor):
            await self.flush()

    def read_ahead(self, queries: Sequence[str], floor: float) -> NameHits | None:
        """The answer read ahead for `queries[0]`, unless an alias decided since could change
        it (as `flush_if_near` judges): then the name must be searched again."""
        found = self.searched.get(queries[0])
        if found is None:
            return None
        mark, hits = found
        return None if _near([w.normalized for w in self.decided[mark:]], queries, floor) else hits

    async def lock_names_ahead(self, texts: Sequence[str]) -> None:
        """Take, in one sorted statement, the creation locks resolving these texts would take
        (names the exact step does not settle, as EntityResolver.resolve_mentions decides),
        before the transaction locks anything else.

        A transaction that resolves in more than one call (mentions, then the anchors of
        claims whose subject named no entity) would otherwise take name locks in two sorted
        rounds, and two such transactions can each hold a name the other's second round
        wants: a deadlock. Locks taken here are in `locked`, so the calls take no more. Only
        what the resolver would lock: locking every text (bare head nouns, settled names)
        made two adjudicator processes wait on each other six times as often."""
        spelt = {normalize_name(t): t for t in texts if not is_bare_head_noun(t)}
        spelt.pop("", None)
        await self.load_exact(sorted(spelt))
        open_ = {n: t for n, t in spelt.items() if not self.settles(n)}
        wanted = sorted(with_lone_forms(open_) - self.locked)
        if wanted:
            await lock_names(self.session, self.namespace, wanted)
            self.locked.update(wanted)
            await self.load_exact_again(wanted)

    def complete(self, completion: completion_repository.Completion) -> None:
        """Queue the renaming of a lone-name entity to its full name; what this transaction
        has read of it carries the full name from now on."""
        self.completions.append(completion)
        for name, hits in self.exact.items():
            self.exact[name] = [
                replace(h, canonical_name=completion.name, normalized_name=completion.normalized)
                if h.entity_id == completion.entity_id
                else h
                for h in hits
            ]
        for names in self.doc_names.values():
            for key, (entity_id, _) in list(names.items()):
                if entity_id == completion.entity_id:
                    names[key] = (entity_id, completion.name)

    def settles(self, normalized: str) -> bool:
        """Whether the exact step alone decides the name: a full name with exactly one owner
        is taken whatever the context (see rules.choose)."""
        owners = {h.entity_id for h in self.exact.get(normalized, [])}
        return len(owners) == 1 and len(normalized.split()) > 1

    async def load_exact(self, names: Sequence[str]) -> None:
        missing = [name for name in set(names) if name and name not in self.exact]
        for name in missing:
            self.exact[name] = []
        for hit in await lookup_repository.exact_alias_hits(self.session, self.namespace, missing):
            self.exact[hit.normalized_alias].append(hit)

    async def load_exact_again(self, names: Sequence[str]) -> None:
        """Read these names' aliases anew (after their lock: a writer may have added some)."""
        for name in names:
            self.exact.pop(name, None)
        await self.load_exact(names)

    async def load_documents(self, document_ids: Sequence[UUID]) -> None:
        missing = [doc for doc in set(document_ids) if doc not in self.doc_names]
        if missing and self.written:
            await self.flush()  # the maps are read from the verdicts
        for doc in missing:
            self.doc_names[doc] = {}
            self.doc_entities[doc] = set()
        for doc, text, entity_id, name in await repo.document_entities(
            self.session, self.namespace, missing
        ):
            self.doc_names[doc][normalize_name(text)] = (entity_id, name)
            self.doc_entities[doc].add(entity_id)

    async def load_neighbours(self, entity_ids: Sequence[UUID]) -> None:
        missing = [i for i in set(entity_ids) if i not in self.neighbours]
        for entity_id in list(missing):
            ahead = self.neighbours_ahead.pop(entity_id, None)
            if ahead is not None and not _changes_neighbours(
                {entity_id}, self.decided[ahead[0] :], self.doc_entities
            ):
                self.neighbours[entity_id] = ahead[1]
                missing.remove(entity_id)
        if missing:
            self.neighbours.update(await self._read_neighbours(missing))

    async def load_neighbours_ahead(self, entity_ids: Sequence[UUID]) -> None:
        """Read, in one statement, neighbours that later mentions of the call may need; each
        is taken when first needed, as read then unless a verdict decided since changed it."""
        missing = [
            i
            for i in set(entity_ids)
            if i not in self.neighbours and i not in self.neighbours_ahead
        ]
        if not missing:
            return
        found = await self._read_neighbours(missing)
        mark = len(self.decided)
        self.neighbours_ahead.update((i, (mark, others)) for i, others in found.items())

    async def _read_neighbours(self, entity_ids: list[UUID]) -> dict[UUID, set[UUID]]:
        """Their neighbours as stored, after writing the verdicts that would change them."""
        if _changes_neighbours(set(entity_ids), self.written, self.doc_entities):
            await self.flush()
        return await lookup_repository.entity_neighbours(self.session, self.namespace, entity_ids)

    def remember(self, mention: Mention, normalized: str, entity_id: UUID, name: str) -> None:
        hits = self.exact.setdefault(normalized, [])
        if all(h.entity_id != entity_id for h in hits):
            hits.append(
                lookup_repository.AliasHit(entity_id, name, normalized, mention.text, normalized, 1)
            )
        # An unloaded document map is read later from the verdicts, this one included.
        if mention.document_id in self.doc_names:
            self.doc_names[mention.document_id][normalized] = (entity_id, name)
            self.doc_entities[mention.document_id].add(entity_id)


def with_lone_forms(names: dict[str, str]) -> set[str]:
    """These normalized names (each with a spelling of it) and the lone words each may have
    been written as before (`rules.lone_forms`): resolving a full name may complete the entity
    of one of them (see `completion`), so their creation locks are the full name's too."""
    return set(names) | {word for n, t in names.items() for word, _ in lone_forms(n, t)}


def _near(aliases: Sequence[str], queries: Sequence[str], floor: float) -> bool:
    """Whether a trigram/phonetic search of `queries` could find one of `aliases`: one at least
    `floor` trigram-similar to a query, or sharing the first query's phonetic code."""
    if not aliases:
        return False
    grams = [trigrams(q) for q in queries]
    code = phonetic_code(queries[0])
    for alias in aliases:
        mine = trigrams(alias)
        if phonetic_code(alias) == code or any(trigram_similarity(g, mine) >= floor for g in grams):
            return True
    return False


def _changes_neighbours(
    entity_ids: set[UUID],
    verdicts: Sequence[repo.Written],
    doc_entities: dict[UUID, set[UUID]],
) -> bool:
    """Whether one of `verdicts` changes what `entity_neighbours` reads for these entities:
    one choosing them, or one in a document they were chosen in (known from the document
    map; a document without one counts as shared)."""
    for w in verdicts:
        if w.entity_id in entity_ids:
            return True
        if w.claim_id is None:
            continue  # a verdict without a claim belongs to no document
        chosen = doc_entities.get(w.document_id) if w.document_id else None
        if chosen is None or not chosen.isdisjoint(entity_ids):
            return True
    return False
