"""Write-time entity resolution: the alias → trigram → phonetic → embedding cascade and the
rule model's final choice, recorded as one verdict per mention (SPEC §3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.completion import (
    better_written,
    lone_candidates,
    take_full_name,
)
from services.adjudicator.entities.declared import (
    declares,
    entity_by_other_name,
    entity_of_declared_name,
)
from services.adjudicator.entities.mentions import (
    Mention,
    ResolutionContext,
    ResolvedMention,
    ResolverThresholds,
    with_lone_forms,
)
from services.adjudicator.entities.name_search import NameSearcher
from services.adjudicator.entities.nominees import nominee
from services.adjudicator.entities.rules import (
    Choice,
    Nominee,
    choose,
    describe,
    match_kind,
    sole_full_name,
    takeable,
)
from shared.beliefs.locks import lock_names
from shared.embedding import Embedder, embed_async
from shared.entities import lookup_repository
from shared.entities.normalize import (
    display_name,
    is_bare_head_noun,
    normalize_name,
    trigram_similarity,
    trigrams,
)

if TYPE_CHECKING:
    # Only the type: the chooser (and the openai client) load where one is configured.
    from services.adjudicator.entities.model_choice import ChatModelChooser

__all__ = [
    "RESOLVER_VERSION",
    "EntityResolver",
    "Mention",
    "ResolutionContext",
    "ResolvedMention",
    "ResolverThresholds",
]

RESOLVER_VERSION = "entity-rules-6"


class EntityResolver:
    """Resolves mentions inside the caller's transaction; never commits."""

    def __init__(
        self,
        embedder: Embedder | None,
        *,
        resolver_version: str = RESOLVER_VERSION,
        thresholds: ResolverThresholds | None = None,
        chooser: ChatModelChooser | None = None,
    ) -> None:
        """`chooser`, when given, makes the final choice the rule model makes otherwise."""
        self._embedder = embedder
        self._chooser = chooser
        self._version = resolver_version
        self._t = thresholds or ResolverThresholds()
        # Namespaces whose row this resolver already upserted; rows are never deleted.
        self._namespaces: set[str] = set()
        self._profiles_seen = False
        self._searcher = NameSearcher(self._t)

    async def resolve_mentions(
        self,
        session: AsyncSession,
        namespace: str,
        mentions: Sequence[Mention],
        *,
        context: ResolutionContext | None = None,
    ) -> list[ResolvedMention]:
        """One verdict per mention, in input order; creates entities and aliases as needed.
        `context` shares caches with earlier calls of the same session and namespace.

        Pass all the mentions of a batch in one call: its name locks, document maps, writes
        (entities, aliases, verdicts: one statement) and proposals cost one round trip each
        for the whole call. A write waits until the end of the call unless a read of a later
        mention could see it (see ResolutionContext), so the verdicts are those of one call
        per mention."""
        if context is not None and (
            context.session is not session or context.namespace != namespace
        ):
            raise ValueError("a resolution context serves only its own session and namespace")
        if not mentions:
            return []
        if namespace not in self._namespaces:
            await repo.ensure_namespace(session, namespace)
            self._namespaces.add(namespace)
        call = context if context is not None else ResolutionContext(session, namespace)
        names = [normalize_name(m.text) for m in mentions]
        co_names = [
            normalize_name(n)
            for m in mentions
            for n in (*m.context_names(), *m.other_names, *filter(None, [m.alias_of]))
        ]
        await call.load_exact(names + co_names)
        open_ = [
            (m, n)
            for m, n in zip(mentions, names, strict=True)
            if n and not is_bare_head_noun(m.text) and not call.settles(n)
        ]
        # Every name the exact step does not settle may become a new entity: its creation is
        # serialized by a lock per normalized name, all of the call's taken at once (sorted).
        # A writer may have created one between the read above and the lock, hence the read
        # again; the document maps are read after the lock for the same reason.
        # With the lone forms a full name may complete (see `completion`), locked and read.
        wanted = with_lone_forms({n: m.text for m, n in open_})
        to_lock = sorted(wanted - call.locked)
        await call.load_exact(sorted(wanted & call.locked))
        if to_lock:
            await lock_names(session, namespace, to_lock)
            call.locked.update(to_lock)
            await call.load_exact_again(to_lock)
        await call.load_documents([m.document_id for m, _ in open_ if m.document_id])
        await self._search_ahead(call, open_)
        call.upcoming = [m.text for m, _ in open_]
        # A declaration's two names first, so every other mention of either finds one entity.
        order = sorted(range(len(mentions)), key=lambda i: not declares(mentions[i]))
        verdicts: dict[int, ResolvedMention] = {}
        for i in order:
            verdict = verdicts[i] = await self._resolve_one(call, mentions[i], names[i])
            if mentions[i].other_names and verdict.entity_id is not None:
                call.declared[names[i]] = (verdict.entity_id, verdict.canonical_name or "")
        resolved = [verdicts[i] for i in range(len(mentions))]
        call.upcoming = []
        call.neighbours_ahead.clear()  # the adjudicator may write facts before the next call
        await call.flush(proposals=True)
        return resolved

    async def _resolve_one(
        self, call: ResolutionContext, mention: Mention, norm: str
    ) -> ResolvedMention:
        scores: dict[str, Any] = {
            "normalized": norm,
            "document_id": str(mention.document_id) if mention.document_id else None,
            "speaker": mention.speaker,
        }
        if not norm or is_bare_head_noun(mention.text):
            self._record(call, mention, "model", scores | {"rule": "bare_noun"})
            return ResolvedMention(mention, None, None, False, "model")
        if mention.text in call.upcoming:
            call.upcoming.remove(mention.text)
        declared = entity_of_declared_name(call, mention, norm) or entity_by_other_name(
            call, mention, norm
        )
        if declared is not None:
            return self._accept(
                call, mention, norm, declared, "exact_alias", "declared_other_name", scores
            )
        if call.settles(norm):
            # A full name with one owner is taken whatever the context (see rules.choose), so
            # neither the document map nor the other steps are needed.
            (hit,) = {h.entity_id: h for h in call.exact[norm]}.values()
            target = (hit.entity_id, hit.canonical_name)
            return self._accept(call, mention, norm, target, "exact_alias", "exact_unique", scores)
        await call.load_documents([mention.document_id] if mention.document_id else [])
        pinned = self._same_document(call, mention, norm)
        if pinned is not None:
            return self._accept(call, mention, norm, pinned, "exact_alias", "same_document", scores)
        choice, nominees = await self._cascade(call, mention, norm)
        scores["candidates"] = [describe(n) for n in nominees[:8]]
        step: str | None = None
        version = self._version
        completing = choice.chosen if choice.rule == "completes_lone_name" else None
        # A full name with one owner leaves nothing to choose (see rules.choose).
        if self._chooser is not None and nominees and choice.rule != "exact_unique":
            choice, scores["model"] = await self._chooser.choose(
                mention.text, mention.context_names(), nominees, choice
            )
            version = self._chooser.version
            step = None if "fallback" in scores["model"] else "model"
        if completing is not None and choice.chosen == completing:
            choice = Choice(take_full_name(call, mention, norm, completing, nominees), choice.rule)
        if choice.chosen is not None:
            chosen = choice.chosen
            return self._accept(
                call,
                mention,
                norm,
                (chosen.entity_id, chosen.canonical_name),
                step or chosen.step,
                choice.rule,
                scores,
                version,
            )
        return self._create(call, mention, norm, choice, scores, step or "new", version)

    def _same_document(
        self, call: ResolutionContext, mention: Mention, norm: str
    ) -> tuple[UUID, str] | None:
        if mention.document_id is None:
            return None
        return call.doc_names.get(mention.document_id, {}).get(norm)

    async def _cascade(
        self, call: ResolutionContext, mention: Mention, norm: str
    ) -> tuple[Choice, list[Nominee]]:
        """Run the nominating steps in order until the rule model accepts a candidate."""
        t = self._t
        pool: dict[UUID, Nominee] = {}
        choice = Choice(None, "no_candidate")
        # Hits a step fetched ahead for a later one (the trigram search brings phonetic hits).
        prefetched: dict[str, list[lookup_repository.AliasHit]] = {}
        # A description (more words than a name has) is not searched by spelling or sound.
        fuzzy = len(norm.split()) <= t.fuzzy_max_words
        steps = ("exact_alias", "trigram", "phonetic") if fuzzy else ("exact_alias",)
        for step in (*steps, "embedding"):
            hits = await self._nominate(call, step, norm, mention.text, prefetched)
            fresh = [h for h in hits if h.entity_id not in pool]
            if not fresh:
                continue
            if (
                step == "exact_alias"
                and len(norm.split()) > 1
                and len({h.entity_id for h in fresh}) == 1
            ):
                # A full name with one owner is taken whatever the context (rules.choose).
                only = nominee(call, mention, norm, step, fresh[0])
                return Choice(only, "exact_unique"), [only]
            # The phonetic hits came with the trigram ones: their context is read with them.
            await call.load_neighbours(
                self._context_ids(norm, fresh, prefetched.get("phonetic", []))
            )
            # An entity found through several aliases is nominated by its closest one.
            for hit in sorted(fresh, key=lambda h: h.score):
                pool[hit.entity_id] = nominee(call, mention, norm, step, hit)
            ranked = sorted(pool.values(), key=lambda n: -n.score)
            choice = choose(
                norm, ranked, proposal_floor=t.proposal_floor, fuzzy_accept=t.fuzzy_accept
            )
            if choice.chosen is not None:
                return choice, ranked
        ranked = sorted(pool.values(), key=lambda n: -n.score)
        if " " in norm and not call.exact.get(norm):
            lone = await lone_candidates(call, mention, norm)
            if lone:
                return Choice(lone[0], "completes_lone_name"), [*lone, *ranked]
        sole = sole_full_name(norm, ranked) if mention.text[:1].isupper() else None
        if sole is not None:
            return Choice(sole, "sole_full_name"), ranked
        return choice, ranked

    async def _nominate(
        self,
        call: ResolutionContext,
        step: str,
        norm: str,
        text: str,
        prefetched: dict[str, list[lookup_repository.AliasHit]],
    ) -> list[lookup_repository.AliasHit]:
        t, session, ns = self._t, call.session, call.namespace
        if step == "exact_alias":
            return call.exact.get(norm, [])
        if step == "trigram":
            found = await self._searcher.search(call, norm)
            prefetched["phonetic"] = found.phonetic
            spelt = [hit for hits in found.per_query for hit in hits]
            return spelt + await self._searcher.name_word_hits(call, norm, spelt)
        if step == "phonetic":
            # The trigram step always runs first and brought them.
            return _spelling_scored(norm, prefetched.pop("phonetic"))
        if self._embedder is None or not await self._profiles_exist(call):
            return []
        if text not in call.embedded:
            # One model call and one query for this mention and the call's later ones.
            texts = [x for x in dict.fromkeys([text, *call.upcoming]) if x not in call.embedded]
            vectors = await embed_async(self._embedder, texts)
            per_text = await lookup_repository.embedding_hits_many(
                session, ns, vectors.tolist(), t.embedding_nominate, t.nominees_per_step
            )
            call.embedded.update(zip(texts, per_text, strict=True))
        return call.embedded[text]

    async def _search_ahead(
        self, call: ResolutionContext, open_: Sequence[tuple[Mention, str]]
    ) -> None:
        """Search, in one statement, every open name that will reach the trigram step: one
        with no exact alias that its document does not pin (the others may stop earlier and
        are searched when they get there). Entities created by earlier mentions of the call
        are not in these answers: `read_ahead` sends a name that one could match to a search
        of its own."""
        names = [
            norm
            for mention, norm in open_
            if not call.exact.get(norm)
            and len(norm.split()) <= self._t.fuzzy_max_words
            and self._same_document(call, mention, norm) is None
        ]
        await self._searcher.name_words_ahead(call, names)
        # Whose context the cascade will read (see `_cascade`), all in one statement.
        await call.load_neighbours_ahead(
            [
                entity_id
                for norm, hits in await self._searcher.search_ahead(call, names)
                for entity_id in self._context_ids(
                    norm, [h for query in hits.per_query for h in query], hits.phonetic
                )
            ]
        )

    async def _profiles_exist(self, call: ResolutionContext) -> bool:
        """Whether any entity has a profile embedding: without one the embedding step can
        nominate nothing, and the model call it would cost is skipped. Once one exists it is
        never asked again (profiles are rebuilt, not removed)."""
        if self._profiles_seen:
            return True
        if call.profiles_exist is None:
            call.profiles_exist = await lookup_repository.any_profile_embedding(call.session)
            self._profiles_seen = call.profiles_exist
        return call.profiles_exist

    def _context_ids(
        self,
        norm: str,
        nominated: Sequence[lookup_repository.AliasHit],
        phonetic: Sequence[lookup_repository.AliasHit],
    ) -> list[UUID]:
        """The entities whose neighbours the choice among these hits needs: the step's own
        hits and the phonetic ones fetched with them (scored by spelling, as that step will)."""
        hits = [*nominated, *_spelling_scored(norm, phonetic)]
        return [h.entity_id for h in hits if self._context_matters(norm, h)]

    def _context_matters(self, norm: str, hit: lookup_repository.AliasHit) -> bool:
        """Whether the entities around a nominee can change the choice: not for a match the
        rule model never takes (another head, other words, a loose spelling), unless a chat
        model, which is shown them, chooses. Their context is then neither read nor recorded."""
        if self._chooser is not None:
            return True
        kind = match_kind(norm, hit.normalized_alias, hit.normalized_name)
        return takeable(kind, hit.score, self._t.fuzzy_accept)

    def _accept(
        self,
        call: ResolutionContext,
        mention: Mention,
        norm: str,
        target: tuple[UUID, str],
        step: str,
        rule: str,
        scores: dict[str, Any],
        version: str | None = None,
    ) -> ResolvedMention:
        entity_id, name = target
        name = better_written(call, mention, norm, entity_id, name)
        self._write(call, mention, norm, entity_id, None, step, scores | {"rule": rule}, version)
        call.remember(mention, norm, entity_id, name)
        return ResolvedMention(mention, entity_id, name, False, step)

    def _create(
        self,
        call: ResolutionContext,
        mention: Mention,
        norm: str,
        choice: Choice,
        scores: dict[str, Any],
        step: str = "new",
        version: str | None = None,
    ) -> ResolvedMention:
        name = display_name(mention.text)
        other = choice.propose
        if other is not None:
            scores["proposed_merge_with"] = str(other.entity_id)
        # The id is chosen here so later mentions can point at the entity before it is written.
        entity_id = uuid4()
        scores |= {"rule": choice.rule}
        self._write(call, mention, norm, entity_id, name, step, scores, version)
        call.remember(mention, norm, entity_id, name)
        if other is not None:
            evidence = {
                "mention": mention.text,
                "rule": choice.rule,
                "kind": other.kind,
                "step": other.step,
                "document_id": scores["document_id"],
            }
            call.proposals.append(repo.Proposal(entity_id, other.entity_id, other.score, evidence))
        return ResolvedMention(mention, entity_id, name, True, step)

    def _write(
        self,
        call: ResolutionContext,
        mention: Mention,
        norm: str,
        entity_id: UUID,
        new_name: str | None,
        step: str,
        scores: dict[str, Any],
        version: str | None,
    ) -> None:
        call.decide(
            repo.Written(
                entity_id,
                new_name,
                mention.text,
                norm,
                mention.claim_id,
                mention.role,
                step,
                scores,
                version or self._version,
                mention.document_id,
            )
        )

    def _record(
        self, call: ResolutionContext, mention: Mention, step: str, scores: dict[str, Any]
    ) -> None:
        call.unlinked.append(
            repo.Verdict(mention.claim_id, mention.text, mention.role, step, scores, self._version)
        )


def _spelling_scored(
    norm: str, hits: Sequence[lookup_repository.AliasHit]
) -> list[lookup_repository.AliasHit]:
    """Phonetic hits scored by their trigram similarity to the mention, as trigram hits are."""
    grams = trigrams(norm)
    return [replace(h, score=trigram_similarity(grams, trigrams(h.normalized_alias))) for h in hits]
