"""runs.planned_cases: the case ids a recording of a subset (``record --case``) plans

Null for a run of its whole suite (every run stored before). The live monitor's expected total
and its next pending case come from it: ``record --case ×5 --repeat 3`` expects 15 traces, not
the suite's cases × 3.

Revision ID: 0102_run_planned_cases
Revises: 0101_shared_judgment_bodies
Create Date: 2026-12-02 10:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0102_run_planned_cases"
down_revision = "0101_shared_judgment_bodies"
branch_labels = None
depends_on = None


def upgrade() -> None:
    json_type = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
    # a nullable column is added in place on both backends (no table rebuild on SQLite)
    op.add_column("runs", sa.Column("planned_cases", json_type, nullable=True))


def downgrade() -> None:
    # in place on SQLite (3.35+): a batch rebuild of runs would drop the table under its traces
    # (ON DELETE CASCADE), as migration 0101 explains
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE runs DROP COLUMN planned_cases")
    else:
        op.drop_column("runs", "planned_cases")
