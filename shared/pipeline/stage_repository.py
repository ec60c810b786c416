"""SQL of `version_stages`: the one place either service writes a version's stage rows.

Each stage writes its row in the same transaction as its data, so readiness never runs ahead
of what readers can see. Two write forms, for two situations:

- `set_stages` updates rows that exist (ingest created all of them with the version); with
  `only_from` it leaves rows alone that have moved on, so a late or retried item cannot reopen
  a settled stage.
- `record_stage` upserts one stage's row (the adjudicator's): a version can reach the
  adjudicator without stage rows (enqueued directly by tools and tests), and its stage must
  still show what happened.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping

from sqlalchemy import func, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import VersionStage
from shared.pipeline.stages import PIPELINE_STAGES, UNFINISHED_STATUSES

__all__ = ["create_stages", "record_stage", "record_stage_failure", "set_stages"]

# Recording a failure must not queue up behind the failed handler's own locks for long.
_FAILURE_LOCK_TIMEOUT = text("SET LOCAL lock_timeout = '5s'")


async def create_stages(
    session: AsyncSession, namespace: str, version_id: uuid.UUID, statuses: Mapping[str, str]
) -> None:
    """One row per pipeline stage of a new version, with the given statuses."""
    await session.execute(
        insert(VersionStage).values(
            [
                {
                    "namespace": namespace,
                    "version_id": version_id,
                    "stage": stage,
                    "status": statuses[stage],
                }
                for stage in PIPELINE_STAGES
            ]
        )
    )


async def set_stages(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    statuses: Mapping[str, str],
    *,
    attempts: int | None = None,
    last_error: str | None = None,
    only_from: Collection[str] | None = None,
) -> None:
    """Set each named stage's status (and clear or set `last_error`; `attempts` when given);
    with `only_from`, only stages currently in one of those statuses."""
    for stage, status in statuses.items():
        values: dict[str, object] = {
            "status": status,
            "last_error": last_error,
            "updated_at": func.now(),
        }
        if attempts is not None:
            values["attempts"] = attempts
        conditions = [
            VersionStage.namespace == namespace,
            VersionStage.version_id == version_id,
            VersionStage.stage == stage,
        ]
        if only_from is not None:
            conditions.append(VersionStage.status.in_(list(only_from)))
        await session.execute(update(VersionStage).where(*conditions).values(**values))


async def record_stage_failure(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    stages: Collection[str],
    status: str,
    *,
    attempts: int,
    error: str,
) -> None:
    """Mark unfinished `stages` failed (or dead-lettered). Run from the queue worker's failure
    hook, in the transaction that records the failed attempt on the work item (the handler's
    own has rolled back), so the stage rows and the item never disagree."""
    await session.execute(_FAILURE_LOCK_TIMEOUT)
    await set_stages(
        session,
        namespace,
        version_id,
        dict.fromkeys(stages, status),
        attempts=attempts,
        last_error=error,
        only_from=UNFINISHED_STATUSES,
    )


async def record_stage(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    stage: str,
    status: str,
    attempts: int,
    last_error: str | None = None,
) -> None:
    """Write one stage's row whatever it held before, creating it when the version has none."""
    statement = insert(VersionStage).values(
        namespace=namespace,
        version_id=version_id,
        stage=stage,
        status=status,
        attempts=attempts,
        last_error=last_error,
    )
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=["version_id", "stage"],
            set_={
                "status": statement.excluded.status,
                "attempts": statement.excluded.attempts,
                "last_error": statement.excluded.last_error,
                "updated_at": statement.excluded.updated_at,
            },
        )
    )
