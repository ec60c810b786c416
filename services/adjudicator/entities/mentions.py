"""What the resolver works on: mentions, verdict outcomes, thresholds and the per-transaction
cache shared by the `resolve_mentions` calls of one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities import repository as repo
from shared.entities import lookup
from shared.entities.normalize import normalize_name

__all__ = ["Mention", "MentionRole", "ResolutionContext", "ResolvedMention", "ResolverThresholds"]

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

    trigram_nominate: float = 0.3
    fuzzy_accept: float = 0.5
    embedding_nominate: float = 0.6
    proposal_floor: float = 0.3
    nominees_per_step: int = 10


@dataclass
class ResolutionContext:
    """Caches of one transaction, so mentions of one claim or document cost one lookup each.

    Pass one to several `resolve_mentions` calls of the same session (a batch's claims, then
    their fallback anchors) to share what the first call read and wrote; it must not outlive
    the transaction, whose rollback would leave it pointing at entities that never were.
    """

    session: AsyncSession
    namespace: str
    exact: dict[str, list[lookup.AliasHit]] = field(default_factory=dict)
    doc_names: dict[UUID, dict[str, tuple[UUID, str]]] = field(default_factory=dict)
    neighbours: dict[UUID, set[UUID]] = field(default_factory=dict)
    # Verdicts naming no entity: nothing in the call reads them, so they go in one statement.
    unlinked: list[repo.Verdict] = field(default_factory=list)

    async def load_exact(self, names: Sequence[str]) -> None:
        missing = [name for name in set(names) if name and name not in self.exact]
        for name in missing:
            self.exact[name] = []
        for hit in await lookup.exact_alias_hits(self.session, self.namespace, missing):
            self.exact[hit.normalized_alias].append(hit)

    async def load_documents(self, document_ids: Sequence[UUID]) -> None:
        missing = [doc for doc in set(document_ids) if doc not in self.doc_names]
        for doc in missing:
            self.doc_names[doc] = {}
        for doc, text, entity_id, name in await repo.document_entities(
            self.session, self.namespace, missing
        ):
            self.doc_names[doc][normalize_name(text)] = (entity_id, name)

    async def load_neighbours(self, entity_ids: Sequence[UUID]) -> None:
        missing = [i for i in set(entity_ids) if i not in self.neighbours]
        if missing:
            self.neighbours.update(
                await lookup.entity_neighbours(self.session, self.namespace, missing)
            )

    def remember(self, mention: Mention, normalized: str, entity_id: UUID, name: str) -> None:
        hits = self.exact.setdefault(normalized, [])
        if all(h.entity_id != entity_id for h in hits):
            hits.append(lookup.AliasHit(entity_id, name, normalized, mention.text, normalized, 1))
        # An unloaded document map is read later from the verdicts, this one included.
        if mention.document_id in self.doc_names:
            self.doc_names[mention.document_id][normalized] = (entity_id, name)
