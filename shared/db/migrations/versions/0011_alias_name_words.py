"""A lone word finds the full names it may stand for: aliases by first and by last word.

"Leo" is 0.27 trigram-similar to "leo whitaker", under the trigram step's floor (0.3), and the
length filter drops an alias of eleven trigrams for a query of three before any score is
computed: a three-letter given name or surname ("Leo", "Kim", "Ode") never nominated the full
name it abbreviates, so it became an entity of its own when the full name was met first and
was completed into it when it came first (issue 17, order independence). Two expression
indexes over multi-word aliases let the cascade look a lone word up as a first word (a given
name, a company's first word) or a last word (a surname) in one indexed probe each.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_entity_aliases_first_word ON entity_aliases"
        " (namespace, split_part(normalized_alias, ' ', 1))"
        " WHERE position(' ' in normalized_alias) > 0"
    )
    op.execute(
        "CREATE INDEX IF NOT EXISTS ix_entity_aliases_last_word ON entity_aliases"
        " (namespace, reverse(split_part(reverse(normalized_alias), ' ', 1)))"
        " WHERE position(' ' in normalized_alias) > 0"
    )


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_entity_aliases_last_word")
    op.execute("DROP INDEX IF EXISTS ix_entity_aliases_first_word")
