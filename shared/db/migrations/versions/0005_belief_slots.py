"""Slots of successive values, phases and concurrency of assertions, and actions on transcripts.

- `facts.slot_id`: observations that are values of one attribute (a price, a headcount, a
  stance) share a slot; their windows are placed by the timeline (`shared/beliefs/timeline.py`)
  from what their claims state, in any arrival order. Relations need no column: their slot is
  (subject, functional predicate).
- `assertions.phase` (`state`, `start`, `end`): whether the phrase stated a state, its start
  ("joined") or its end ("left"); `assertions.concurrent`: the claim says the value holds beside
  others ("also works part-time at …"), so it never supersedes nor contradicts them.
- `decision_transcripts.action`: the decision behind an outcome (`add`, `confirm`, `adjust`,
  `supersede`, `contradict_evidence`, `contradict_group`, and the timeline's `supersede`,
  `reopen`, `contradict_group`, `separate`), so readers need not parse rationales.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column("facts", sa.Column("slot_id", postgresql.UUID(as_uuid=True), nullable=True))
    op.create_index(
        "ix_facts_slot",
        "facts",
        ["namespace", "slot_id"],
        postgresql_where=sa.text("slot_id IS NOT NULL"),
    )
    op.add_column(
        "assertions",
        sa.Column("phase", sa.Text(), nullable=False, server_default=sa.text("'state'")),
    )
    op.create_check_constraint(
        op.f("ck_assertions_phase"), "assertions", "phase IN ('state', 'start', 'end')"
    )
    op.add_column(
        "assertions",
        sa.Column("concurrent", sa.Boolean(), nullable=False, server_default=sa.text("false")),
    )
    op.add_column("decision_transcripts", sa.Column("action", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("decision_transcripts", "action")
    op.drop_column("assertions", "concurrent")
    op.drop_constraint(op.f("ck_assertions_phase"), "assertions")
    op.drop_column("assertions", "phase")
    op.drop_index("ix_facts_slot", "facts")
    op.drop_column("facts", "slot_id")
