"""Claims keep the further relations one statement makes, beside its main one.

"Dana Whitfield, the CTO of Northwind, approved the budget" states an approval and Dana's place
at Northwind; "was hired by Umbrella from Hooli" starts one employment and ends another. The
extractor reads them from the parse; the adjudicator normalizes each into an assertion of its
own. A list of `{subject_text, predicate_text, object_text}`; empty for most claims.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.add_column(
        "claims",
        sa.Column(
            "extra_relations",
            postgresql.JSONB(),
            nullable=False,
            server_default=sa.text("'[]'::jsonb"),
        ),
    )


def downgrade() -> None:
    op.drop_column("claims", "extra_relations")
