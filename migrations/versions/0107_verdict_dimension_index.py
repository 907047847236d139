"""evaluation_judgments: the (evaluation, verdict) index carries the dimension too

A comparison counts each side's verdicts per dimension (``store._pairing_reads``, Compare,
Side by side and Rule impact at every computing open). The dimension was only in the link row:
the count walked the (evaluation, verdict) index and looked each of 50,000 rows up at 100k
(0.018 s of SQLite's CPU a side). With the dimension in the index the count reads the index
alone (0.0025 s a side). The index is replaced, not joined by another: the same entries a link,
each a dimension wider; what searched it by (evaluation, verdict) still does. No stored value
changes; the index is built from the rows.

Revision ID: 0107_verdict_dimension_index
Revises: 0106_pair_index
Create Date: 2026-12-07 23:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0107_verdict_dimension_index"
down_revision = "0106_pair_index"
branch_labels = None
depends_on = None

_NAME = "ix_evaluation_judgments_eval_verdict"


def upgrade() -> None:
    op.drop_index(_NAME, table_name="evaluation_judgments")
    op.create_index(
        _NAME, "evaluation_judgments", ["evaluation_id", "verdict", "dimension"], unique=False
    )


def downgrade() -> None:
    op.drop_index(_NAME, table_name="evaluation_judgments")
    op.create_index(_NAME, "evaluation_judgments", ["evaluation_id", "verdict"], unique=False)
