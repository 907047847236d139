"""external_verdicts: another harness's score of a stored trace (τ-bench reward, Inspect scores)

Revision ID: 0100_external_verdicts
Revises: 0003
Create Date: 2026-12-01 16:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0100_external_verdicts"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    json_type = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
    op.create_table(
        "external_verdicts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("trace_id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=100), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("detail", json_type, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["trace_id"],
            ["traces.id"],
            name=op.f("fk_external_verdicts_trace_id_traces"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_external_verdicts")),
        sa.UniqueConstraint(
            "trace_id", "source", name=op.f("uq_external_verdicts_trace_id_source")
        ),
    )
    with op.batch_alter_table("external_verdicts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_external_verdicts_source"), ["source"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("external_verdicts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_external_verdicts_source"))
    op.drop_table("external_verdicts")
