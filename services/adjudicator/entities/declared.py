"""Names a source declares to be one thing's: "Northwind Robotics, formerly Nimbus Labs",
"Bluewater Analytics (BWA)", "Nimbus Labs has been renamed Northwind Robotics".

The extractor states each as "<name> also known as <other name>" (the name the thing goes by
now first: services/ingest/extraction/other_names.py). The claim's two mentions are resolved
before the rest of the call, so the document's other mentions of either name find one entity:

- the name goes the usual way, except that a name with no entity of its own whose other name
  has exactly one takes that entity and renames it ("Nimbus Labs" met first, in another
  document, becomes "Northwind Robotics"; arriving the other way round the entity is created
  as "Northwind Robotics" with "Nimbus Labs" its alias: one entity, one name, either order);
- the other name becomes an alias of the name's entity when it has no other owner; when it has
  one, joining the two is a merge, which is a reviewer's call (SPEC §3): a proposal is recorded
  and the other name keeps its own entity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from uuid import UUID

from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.completion_repository import Completion
from services.adjudicator.entities.mentions import Mention, ResolutionContext
from shared.entities import ALSO_KNOWN_AS
from shared.entities.normalize import display_name, normalize_name

__all__ = ["declares", "entity_by_other_name", "entity_of_declared_name", "with_declarations"]


def declares(mention: Mention) -> bool:
    """Whether the mention is one side of a declaration (resolved first in a call)."""
    return bool(mention.other_names) or mention.alias_of is not None


def entity_by_other_name(
    call: ResolutionContext, mention: Mention, normalized: str
) -> tuple[UUID, str] | None:
    """The entity a declared name with no entity of its own takes from its other name (renamed
    to it), or None to resolve it the usual way."""
    if not mention.other_names or call.exact.get(normalized):
        return None
    owned = {
        hit.entity_id: hit
        for other in mention.other_names
        for hit in call.exact.get(normalize_name(other), [])
    }
    if len(owned) != 1:
        return None
    (hit,) = owned.values()
    name = display_name(mention.text)
    call.complete(
        Completion(hit.entity_id, hit.canonical_name, hit.normalized_name, name, normalized)
    )
    return hit.entity_id, name


def entity_of_declared_name(
    call: ResolutionContext, mention: Mention, normalized: str
) -> tuple[UUID, str] | None:
    """The entity the other name joins: the one its declared name resolved to, unless the
    other name has another owner (then a merge proposal is recorded and None returned)."""
    if mention.alias_of is None:
        return None
    target = call.declared.get(normalize_name(mention.alias_of))
    if target is None:
        return None
    others = {h.entity_id for h in call.exact.get(normalized, [])} - {target[0]}
    if not others:
        return target
    if len(others) == 1:
        evidence = {
            "mention": mention.text,
            "rule": "declared_other_name",
            "declared_name": mention.alias_of,
            "document_id": str(mention.document_id) if mention.document_id else None,
        }
        call.proposals.append(repo.Proposal(target[0], others.pop(), 1.0, evidence))
    return None


def with_declarations(
    mentions: list[Mention], relations: Sequence[tuple[str, str, str]], base: Mention
) -> list[Mention]:
    """The claim's mentions with its declarations' two sides marked: the name gets its other
    names, the other name the name it is another name of (each added, from `base`, when the
    claim's other assertions did not mention it)."""
    found = list(mentions)
    for name, predicate, other in relations:
        if predicate != ALSO_KNOWN_AS:
            continue
        at = next((i for i, m in enumerate(found) if m.text == name), None)
        if at is None:
            found.append(replace(base, text=name, role="subject"))
            at = len(found) - 1
        found[at] = replace(found[at], other_names=(*found[at].other_names, other))
        at = next((i for i, m in enumerate(found) if m.text == other), None)
        if at is None:
            found.append(replace(base, text=other, role="object"))
            at = len(found) - 1
        found[at] = replace(found[at], alias_of=name)
    return found
