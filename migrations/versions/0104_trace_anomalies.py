"""trace_anomalies: an imported trace's anomalies, a row per trace, not in the run's config

The importers of conversation files (``otel``, ``langfuse``, ``chat-jsonl``) kept every trace's
anomalies in the run's config, built in memory while the file streamed and written at the seal:
at 1 GB of spans 19,121 traces' anomalies, 11 MiB of JSON, held, hashed and dumped whole. Each
batch now writes its traces' anomalies in its own transaction. Runs imported before keep them
in their config (left as it is: its bytes and its hash do not move); the readers fall back to it.

Revision ID: 0104_trace_anomalies
Revises: 0103_external_verdict_version
Create Date: 2026-12-07 02:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0104_trace_anomalies"
down_revision = "0103_external_verdict_version"
branch_labels = None
depends_on = None


def upgrade() -> None:
    json_type = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
    op.create_table(
        "trace_anomalies",
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("case_key", sa.String(length=200), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("anomalies", json_type, nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_trace_anomalies_run_id_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", "case_key", name=op.f("pk_trace_anomalies")),
    )


def downgrade() -> None:
    # the anomalies of runs imported since are lost with the table (their traces are not)
    op.drop_table("trace_anomalies")
