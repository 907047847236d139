"""external_verdicts.version: which version of the outside harness scored the verdict

τ-bench changed its reward between versions (at 7362a17 a task with outputs is rewarded by them
alone, from 59a200c on by the database and the outputs), so a τ-bench reward means something
only with the version that gave it; ``rejudge import tau-bench`` records it
(``--reward-version``, by default what the file shows). Null for every verdict stored before
(and for sources without versions): the version is not known.

Revision ID: 0103_external_verdict_version
Revises: 0102_run_planned_cases
Create Date: 2026-12-06 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0103_external_verdict_version"
down_revision = "0102_run_planned_cases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a nullable column is added in place on both backends (no table rebuild on SQLite)
    op.add_column("external_verdicts", sa.Column("version", sa.String(100), nullable=True))


def downgrade() -> None:
    # in place on SQLite (3.35+), as migration 0102 does it
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE external_verdicts DROP COLUMN version")
    else:
        op.drop_column("external_verdicts", "version")
