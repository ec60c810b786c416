"""Pipeline: the Postgres work queue every worker claims from."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index
from sqlalchemy import text as sql
from sqlalchemy.orm import Mapped, mapped_column

from shared.db.models.base import (
    WORK_STATUSES,
    Base,
    check_in,
    created_at_column,
    namespace_column,
    updated_at_column,
    uuid_pk,
)

__all__ = ["WorkItem"]


class WorkItem(Base):
    """One unit of pipeline work; see shared.db.queue for its life cycle."""

    __tablename__ = "work_items"
    __table_args__ = (
        check_in("status", WORK_STATUSES),
        Index(
            "uq_work_items_dedupe",
            "namespace",
            "kind",
            "dedupe_key",
            unique=True,
            postgresql_where=sql("dedupe_key IS NOT NULL"),
        ),
        Index("ix_work_items_claimable", "status", "run_after"),
        Index("ix_work_items_version", "namespace", "version_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    kind: Mapped[str]
    payload: Mapped[dict[str, Any]] = mapped_column(server_default=sql("'{}'"))
    status: Mapped[str] = mapped_column(server_default=sql("'pending'"))
    # Counted when claimed, so a worker that crashes mid-item still uses up an attempt.
    attempts: Mapped[int] = mapped_column(server_default=sql("0"))
    max_attempts: Mapped[int] = mapped_column(server_default=sql("3"))
    run_after: Mapped[datetime] = created_at_column()
    locked_by: Mapped[str | None]
    locked_until: Mapped[datetime | None]
    last_error: Mapped[str | None]
    dedupe_key: Mapped[str | None]
    version_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("document_versions.id"))
    # What a finished item reports back to a waiting caller (e.g. counts of a deletion).
    result: Mapped[dict[str, Any] | None]
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = updated_at_column()
