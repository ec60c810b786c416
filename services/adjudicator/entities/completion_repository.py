"""SQL of name completion: the full names a lone word could stand for, and renaming a lone-name
entity to the full name that completed it (with the labels of its relations)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["Completion", "full_names_like", "write_completions"]


@dataclass(frozen=True, slots=True)
class Completion:
    """A lone-name entity that a full name completed, waiting to be renamed."""

    entity_id: UUID
    old_name: str
    old_normalized: str
    name: str
    normalized: str


_FULL_NAMES = text(
    "SELECT DISTINCT normalized_name FROM entities"
    " WHERE namespace = :ns AND redirect_to IS NULL AND normalized_name LIKE '% %'"
    " AND normalized_name LIKE ANY(CAST(:patterns AS text[])) AND normalized_name <> :norm"
    " LIMIT 64"
)


async def full_names_like(
    session: AsyncSession, namespace: str, patterns: Sequence[str], excluding: str
) -> list[str]:
    """Normalized names of live entities of two words or more matching one of the LIKE
    `patterns`, other than `excluding`; a sample (64) is all a caller needs to see one."""
    if not patterns:
        return []
    rows = await session.execute(
        _FULL_NAMES, {"ns": namespace, "patterns": list(patterns), "norm": excluding}
    )
    return [r.normalized_name for r in rows]


# Only a name still lone is renamed: a concurrent writer cannot have completed it under the
# name locks, but a merge could have redirected it.
_RENAME = text(
    "UPDATE entities SET canonical_name = :name, normalized_name = :norm, updated_at = now()"
    " WHERE namespace = :ns AND id = :id AND redirect_to IS NULL AND normalized_name = :old_norm"
)
# A relation's label is "<subject> <phrase> <object>" (normalization.relation_label).
_RELABEL_SUBJECT = text(
    "UPDATE facts SET label = :name || substr(label, length(:old) + 1), updated_at = now()"
    " WHERE namespace = :ns AND kind = 'relation' AND subject_entity_id = :id"
    " AND starts_with(label, :old || ' ')"
)
_RELABEL_OBJECT = text(
    "UPDATE facts SET label = left(label, length(label) - length(:old)) || :name,"
    " updated_at = now()"
    " WHERE namespace = :ns AND kind = 'relation' AND object_entity_id = :id"
    " AND right(label, length(:old) + 1) = ' ' || :old"
)


async def write_completions(
    session: AsyncSession, namespace: str, completions: Sequence[Completion]
) -> None:
    """Rename each entity to its full name and relabel the relations naming it, so they read
    as they would had the full name come first."""
    for c in completions:
        names = {"ns": namespace, "id": c.entity_id, "name": c.name, "old": c.old_name}
        await session.execute(
            _RENAME, {**names, "norm": c.normalized, "old_norm": c.old_normalized}
        )
        await session.execute(_RELABEL_SUBJECT, names)
        await session.execute(_RELABEL_OBJECT, names)
