"""Transaction-scoped advisory locks that serialize writers of the same entity or name."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["lock_entities", "lock_names", "name_lock_key"]

# Adjudication of one subject entity and creation of one normalized name must never interleave
# across workers; Postgres advisory locks give that without a lock table, and the xact variant
# releases them with the transaction, so a crashed worker cannot leave one behind.
_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")
# Volatile functions in a target list run after ORDER BY (PostgreSQL >= 9.6), so the locks are
# taken in the sorted order of the keys.
_LOCK_MANY = text(
    "SELECT pg_advisory_xact_lock(hashtextextended(u.key, 0))"
    " FROM unnest(CAST(:keys AS text[])) WITH ORDINALITY AS u(key, n) ORDER BY u.n"
)


async def _lock_sorted(session: AsyncSession, keys: list[str]) -> None:
    """Take these (sorted) keys' locks in one statement, in their order."""
    if len(keys) == 1:
        await session.execute(_LOCK, {"key": keys[0]})
    elif keys:
        await session.execute(_LOCK_MANY, {"keys": keys})


async def lock_entities(session: AsyncSession, namespace: str, entity_ids: Iterable[UUID]) -> None:
    """Lock entities in a global order (sorted ids), so two writers can never deadlock.

    One statement for the whole set, acquiring in the sorted order.
    """
    keys = [f"entity:{namespace}:{entity_id}" for entity_id in sorted(set(entity_ids))]
    await _lock_sorted(session, keys)


def name_lock_key(namespace: str, normalized_name: str) -> str:
    """The advisory-lock key of one normalized name (hashed by `hashtextextended`)."""
    return f"name:{namespace}:{normalized_name}"


async def lock_names(session: AsyncSession, namespace: str, normalized: Iterable[str]) -> None:
    """Lock normalized names while deciding whether they become new entities: one statement,
    in sorted order, so two writers locking overlapping sets cannot deadlock on them."""
    await _lock_sorted(session, [name_lock_key(namespace, n) for n in sorted(set(normalized))])
