"""traces.behaviour_hash; judgment bodies stored once per shared text (judgment_bodies)

Repeated trials of a case that behaved alike are judged into bodies equal but for their trace
hash. The body moves out of ``judgments`` into ``judgment_bodies`` without its trace hash, once
per distinct text; each judgment row keeps its trace hash and points at its body. Every stored
hash and key stays as it was (a judgment's hash is still the sha256 of its whole body: see
``rejudge.model._judgment_text``), so baselines, exports and reports read the same.

``traces.behaviour_hash`` (``rejudge.model.behaviour_hash``) lets judging group repeated
trials without decoding them. Existing rows are filled from their bodies, page by page.

Revision ID: 0101_shared_judgment_bodies
Revises: 0100_external_verdicts
Create Date: 2026-12-01 20:10:00
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# the hash definitions themselves: a stored hash must never depend on the code that reads it
from rejudge.model import behaviour_hash, canonical_json, hash_bytes, split_judgment_text

revision = "0101_shared_judgment_bodies"
down_revision = "0100_external_verdicts"
branch_labels = None
depends_on = None

_PAGE = 2000


def _json_type() -> Any:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _pages(bind: Any, table: str, columns: str) -> Any:
    """Rows of ``table`` in id order, ``_PAGE`` at a time (a page is read whole before it is
    written back, so no cursor stays open across the updates)."""
    last = 0
    while True:
        rows = bind.execute(
            sa.text(
                f"SELECT id, {columns} FROM {table} WHERE id > :last ORDER BY id LIMIT {_PAGE}"
            ),
            {"last": last},
        ).all()
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def _json_marks(bind: Any) -> str:
    return "CAST(:body AS JSONB)" if bind.dialect.name == "postgresql" else ":body"


def upgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("traces", schema=None) as batch_op:
        batch_op.add_column(sa.Column("behaviour_hash", sa.String(length=80), nullable=True))
    for rows in _pages(bind, "traces", "CAST(body AS TEXT)"):
        bind.execute(
            sa.text("UPDATE traces SET behaviour_hash = :h WHERE id = :id"),
            [{"h": behaviour_hash(json.loads(text)), "id": ident} for ident, text in rows],
        )

    op.create_table(
        "judgment_bodies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("hash", sa.String(length=80), nullable=False),
        sa.Column("body", _json_type(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judgment_bodies")),
        sa.UniqueConstraint("hash", name=op.f("uq_judgment_bodies_hash")),
    )
    # no database-level foreign key: SQLite adds and drops a plain column in place, while a
    # constraint would need a rebuild of judgments, which drops the table under the links and
    # reviews that reference it (with foreign keys on, its implicit DELETE cascades into
    # reviews). The store writes body_id from the ids it reads back in the same transaction,
    # and nothing deletes a body.
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("body_id", sa.Integer(), nullable=True))
    conflict = "ON CONFLICT (hash) DO NOTHING"
    insert = sa.text(
        f"INSERT INTO judgment_bodies (hash, body) VALUES (:hash, {_json_marks(bind)}) {conflict}"
    )
    for rows in _pages(bind, "judgments", "trace_hash, CAST(body AS TEXT)"):
        shared: dict[int, tuple[str, str]] = {}
        for ident, trace_hash, text in rows:
            body, _offset = split_judgment_text(canonical_json(json.loads(text)), trace_hash)
            shared[ident] = (hash_bytes(body.encode("utf-8")), body)
        distinct = {h: body for h, body in shared.values()}
        bind.execute(insert, [{"hash": h, "body": body} for h, body in distinct.items()])
        ids: dict[str, int] = dict(
            bind.execute(
                sa.select(sa.column("hash"), sa.column("id"))
                .select_from(sa.table("judgment_bodies"))
                .where(sa.column("hash").in_(list(distinct)))
            ).all()
        )
        bind.execute(
            sa.text("UPDATE judgments SET body_id = :b WHERE id = :id"),
            [{"b": ids[h], "id": ident} for ident, (h, _body) in shared.items()],
        )
    _drop_in_place("judgments", "body")


def downgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table("judgments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("body", _json_type(), nullable=True))
    for rows in _pages(
        bind,
        "judgments",
        "trace_hash, (SELECT CAST(b.body AS TEXT) FROM judgment_bodies b WHERE b.id = body_id)",
    ):
        params = []
        for ident, trace_hash, shared in rows:
            body = json.loads(shared)
            body["trace_hash"] = trace_hash
            params.append({"body": canonical_json(body), "id": ident})
        bind.execute(
            sa.text(f"UPDATE judgments SET body = {_json_marks(bind)} WHERE id = :id"), params
        )
    _drop_in_place("judgments", "body_id")
    op.drop_table("judgment_bodies")
    _drop_in_place("traces", "behaviour_hash")


def _drop_in_place(table: str, column: str) -> None:
    """Drop a plain column; on SQLite (3.35+) in place, not by the batch rebuild, which would
    drop ``table`` under the rows that reference it (see the upgrade)."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    else:
        op.drop_column(table, column)
