"""A nominated entity as the rule model sees it: the hit and how the mention's surroundings
support it (its document, the names around it, the entities related to those)."""

from __future__ import annotations

from services.adjudicator.entities.mentions import Mention, ResolutionContext
from services.adjudicator.entities.rules import Nominee, Support, match_kind
from shared.entities import lookup_repository
from shared.entities.normalize import normalize_name

__all__ = ["nominee"]


def nominee(
    call: ResolutionContext,
    mention: Mention,
    norm: str,
    step: str,
    hit: lookup_repository.AliasHit,
) -> Nominee:
    """`hit` as a nominee of the mention's step, with how its surroundings support it: the
    same document, a co-mentioned name, or a neighbour of those (a context that shares none
    of them with the hit's neighbours makes it `disjoint`)."""
    doc_entities = (
        {e for e, _ in call.doc_names.get(mention.document_id, {}).values()}
        if mention.document_id
        else set()
    )
    co_ids = {
        h.entity_id
        for name in mention.context_names()
        for h in call.exact.get(normalize_name(name), [])
        if normalize_name(name) != norm
    }
    context = (doc_entities | co_ids) - {hit.entity_id}
    neighbours = call.neighbours.get(hit.entity_id, set())
    support: Support | None = None
    if hit.entity_id in doc_entities:
        support = "document"
    elif hit.entity_id in co_ids:
        support = "co_mentioned"
    elif neighbours & context:
        support = "related"
    has_context = bool(context) or any(normalize_name(n) != norm for n in mention.context_names())
    disjoint = support is None and has_context and bool(neighbours)
    kind = match_kind(norm, hit.normalized_alias, hit.normalized_name)
    return Nominee(
        hit.entity_id,
        hit.canonical_name,
        hit.normalized_name,
        hit.alias,
        hit.normalized_alias,
        step,
        hit.score,
        kind,
        support,
        disjoint,
        hit.mention_count,
    )
