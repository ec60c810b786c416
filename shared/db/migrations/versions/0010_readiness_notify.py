"""Readiness changes are announced: NOTIFY on every write to version_stages.

`WatchReadiness` polled every open stream's versions five times a second; twenty idle
streams cost about 0.15 of a core. A statement-level trigger now sends the changed version
ids (comma-separated, or `*` when they would not fit a notification's payload) on channel
`rememberstack_readiness`; delivered at commit, so a woken stream reads what was committed.
Triggers catch every writer (ingest stages, the adjudicator, replays) without each
remembering to notify.

Revision ID: 0010
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0005"
branch_labels = None
depends_on = None

# Payloads are capped at 8,000 bytes; 200 ids of 37 characters stay well under it.
_FUNCTION = """
CREATE OR REPLACE FUNCTION notify_version_stages() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    ids text;
BEGIN
    SELECT CASE WHEN count(DISTINCT version_id) > 200 THEN '*'
                ELSE string_agg(DISTINCT version_id::text, ',') END
      INTO ids FROM changed;
    IF ids IS NOT NULL THEN
        PERFORM pg_notify('rememberstack_readiness', ids);
    END IF;
    RETURN NULL;
END
$$
"""


def upgrade() -> None:
    op.execute(_FUNCTION)
    # A trigger with a transition table may have only one event, hence two.
    for event in ("INSERT", "UPDATE"):
        op.execute(
            f"CREATE TRIGGER version_stages_notify_{event.lower()}"
            f" AFTER {event} ON version_stages REFERENCING NEW TABLE AS changed"
            " FOR EACH STATEMENT EXECUTE FUNCTION notify_version_stages()"
        )


def downgrade() -> None:
    for event in ("insert", "update"):
        op.execute(f"DROP TRIGGER IF EXISTS version_stages_notify_{event} ON version_stages")
    op.execute("DROP FUNCTION IF EXISTS notify_version_stages()")
