"""evaluation_judgments: an index on (evaluation, case, repetition, verdict, judgment)

Two evaluations are paired on (case, repetition) (``store._pairing_reads``). Without an index
on the key, the pairing grouped both sides' 100,000 link rows by their case key in a sort (at
100k, 0.16 s of SQLite's CPU of the 0.33 s the grouped read of Compare's figures took). With
this one, B's link of each of A's keys is one search, which reads the verdict and the judgment
from the index alone (the pairs: 0.05 s). One more index entry per link written (about 0.7 µs
a row in a bench of 150,000 links). No stored value changes; the index is built from the rows.

Revision ID: 0106_pair_index
Revises: 0105_trace_hash_prefix_index
Create Date: 2026-12-07 19:10:00
"""

from __future__ import annotations

from alembic import op

revision = "0106_pair_index"
down_revision = "0105_trace_hash_prefix_index"
branch_labels = None
depends_on = None

_COLUMNS = ["evaluation_id", "case_key", "repetition", "verdict", "judgment_id"]


def upgrade() -> None:
    op.create_index("ix_evaluation_judgments_pair", "evaluation_judgments", _COLUMNS)


def downgrade() -> None:
    op.drop_index("ix_evaluation_judgments_pair", table_name="evaluation_judgments")
