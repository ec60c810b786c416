"""Transaction-scoped advisory locks that serialize writers of the same entity or name."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.advisory_locks import lock_keys_in_order

__all__ = ["lock_entities", "lock_names", "name_lock_key"]

# Adjudication of one subject entity and creation of one normalized name must never interleave
# across workers. Every set of keys is locked in its sorted order, one statement for the set,
# so two writers locking overlapping sets can never deadlock.


async def lock_entities(session: AsyncSession, namespace: str, entity_ids: Iterable[UUID]) -> None:
    """Lock entities in a global order (sorted ids), so two writers can never deadlock.

    One statement for the whole set, acquiring in the sorted order.
    """
    keys = [f"entity:{namespace}:{entity_id}" for entity_id in sorted(set(entity_ids))]
    await lock_keys_in_order(session, keys)


def name_lock_key(namespace: str, normalized_name: str) -> str:
    """The advisory-lock key of one normalized name (hashed by `hashtextextended`)."""
    return f"name:{namespace}:{normalized_name}"


async def lock_names(session: AsyncSession, namespace: str, normalized: Iterable[str]) -> None:
    """Lock normalized names while deciding whether they become new entities: one statement,
    in sorted order, so two writers locking overlapping sets cannot deadlock on them."""
    await lock_keys_in_order(
        session, [name_lock_key(namespace, n) for n in sorted(set(normalized))]
    )
