"""Transaction-scoped advisory locks on text keys, taken in one statement in the keys' order."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["lock_keys_in_order"]

# Postgres advisory locks serialize writers without a lock table, and the xact variant releases
# them with the transaction, so a crashed worker cannot leave one behind.
_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))")
# Volatile functions in a target list run after ORDER BY (PostgreSQL >= 9.6), so the locks are
# taken in the order of the keys.
_LOCK_MANY = text(
    "SELECT pg_advisory_xact_lock(hashtextextended(u.key, 0))"
    " FROM unnest(CAST(:keys AS text[])) WITH ORDINALITY AS u(key, n) ORDER BY u.n"
)


async def lock_keys_in_order(session: AsyncSession, keys: Sequence[str]) -> None:
    """Take these keys' locks in one statement (none for no keys), in the order given."""
    if len(keys) == 1:
        await session.execute(_LOCK, {"key": keys[0]})
    elif keys:
        await session.execute(_LOCK_MANY, {"keys": list(keys)})
