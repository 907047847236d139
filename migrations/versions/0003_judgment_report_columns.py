"""judgments: anomalies and implicated tools as columns, copied out of each body

A report aggregates these two facts of every judgment; reading them as columns spares the
database a parse of every body (SQLite's ``json_extract`` parses the whole text per row).
Existing rows are filled from their bodies, so nothing is judged again.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 12:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    json_type = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("anomalies", json_type, nullable=True))
        batch_op.add_column(sa.Column("implicated_tools", json_type, nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "UPDATE judgments SET anomalies = body -> 'anomalies', "
            "implicated_tools = body #> '{details,implicated_tools}'"
        )
    else:
        op.execute(
            "UPDATE judgments SET anomalies = json_extract(body, '$.anomalies'), "
            "implicated_tools = json_extract(body, '$.details.implicated_tools')"
        )


def downgrade() -> None:
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.drop_column("implicated_tools")
        batch_op.drop_column("anomalies")
