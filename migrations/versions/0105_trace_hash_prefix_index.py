"""judgments: the trace hash indexed by an 8-digit prefix, not whole

Every judging writes ``ix_judgments_trace_hash`` a row per judgment, and on its random
71-character keys the index outgrows the page cache: the writes alone went from 23 to 58 µs
a row over 1,000,000 judgments, 14 to 31 without this index (bench/README.md, "Issue 40 item
7"). One query reads it, a review's resolution (``store.reviews.trace_judgments``); it now
reaches the rows through ``substr(trace_hash, 8, 8)`` (the 8 hex digits after ``sha256:``) and
keeps the exact hashes. No stored value changes; the index is rebuilt from the rows.

Revision ID: 0105_trace_hash_prefix_index
Revises: 0104_trace_anomalies
Create Date: 2026-12-07 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0105_trace_hash_prefix_index"
down_revision = "0104_trace_anomalies"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_judgments_trace_hash", table_name="judgments")
    # literal numbers, as the store's query writes them (store._tables.trace_hash_prefix)
    op.create_index(
        "ix_judgments_trace_hash_prefix", "judgments", [sa.text("substr(trace_hash, 8, 8)")]
    )


def downgrade() -> None:
    op.drop_index("ix_judgments_trace_hash_prefix", table_name="judgments")
    op.create_index("ix_judgments_trace_hash", "judgments", ["trace_hash"])
