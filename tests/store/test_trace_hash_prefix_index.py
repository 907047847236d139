"""A review's lookup of judgments by trace hash, through the 8-digit prefix index (migration
0105), on both backends: exactly the judgments of the hashes asked for, also when other hashes
share their prefix or are shorter than it, and on SQLite through the index."""

from __future__ import annotations

from typing import Any

from rejudge.store import Store
from rejudge.store._reviews import trace_judgments_query
from rejudge.store._tables import _T_JUDG, trace_hash_prefix, trace_hash_prefix_of
from sqlalchemy import Connection, Select, select, text, update

SAME_PREFIX_A = "sha256:deadbeef" + "0" * 56
SAME_PREFIX_B = "sha256:deadbeef" + "1" * 56
SHORT = "sha2"  # shorter than where the prefix starts: its prefix is empty


def _rehash(store: Store, ids: list[int], hashes: list[str]) -> None:
    # as renormalizing leaves them: judgments of hashes that no trace has any more
    with store.engine.begin() as c:
        for ident, trace_hash in zip(ids, hashes, strict=True):
            c.execute(update(_T_JUDG).where(_T_JUDG.c.id == ident).values(trace_hash=trace_hash))


def _scan(store: Store, wanted: set[str]) -> list[int]:
    """The judgment ids of ``wanted``, from every row read whole (no index)."""
    with store.engine.connect() as c:
        rows = c.execute(select(_T_JUDG.c.id, _T_JUDG.c.trace_hash)).all()
    return sorted(ident for ident, trace_hash in rows if trace_hash in wanted)


def test_the_lookup_returns_exactly_the_hashes_asked_for(store: Store, judged: dict) -> None:
    ids = judged["ids"]
    _rehash(store, ids, [SAME_PREFIX_A, SAME_PREFIX_B, SHORT])
    for wanted in (
        {SAME_PREFIX_A},
        {SAME_PREFIX_B},
        {SAME_PREFIX_A, SAME_PREFIX_B},
        {SHORT},
        {SHORT, SAME_PREFIX_B},
        {"sha256:deadbeef"},  # the prefix alone is no hash of theirs
        {"sha256:deadbeef" + "2" * 56},
    ):
        got = [r.judgment_id for r in store.reviews.trace_judgments(wanted)]
        assert got == _scan(store, wanted), wanted
    assert [r.trace_hash for r in store.reviews.trace_judgments([SAME_PREFIX_A])] == [SAME_PREFIX_A]


def test_the_prefix_is_the_same_in_python_and_in_the_database(store: Store, judged: dict) -> None:
    _rehash(store, judged["ids"], [SAME_PREFIX_A, "sha256:abc", SHORT])
    with store.engine.connect() as c:
        rows = c.execute(select(_T_JUDG.c.trace_hash, trace_hash_prefix(_T_JUDG.c.trace_hash)))
        pairs = rows.all()
    assert {trace_hash: prefix for trace_hash, prefix in pairs} == {
        SAME_PREFIX_A: "deadbeef",
        "sha256:abc": "abc",
        SHORT: "",
    }
    assert all(trace_hash_prefix_of(h) == p for h, p in pairs)


def test_the_store_has_the_prefix_index_and_not_the_full_one(store: Store, backend: str) -> None:
    if backend == "sqlite":
        query = (
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'judgments'"
        )
    else:
        query = (
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'judgments' "
            "AND schemaname = current_schema()"
        )
    with store.engine.connect() as c:
        indexes = dict(c.execute(text(query)).all())
    assert "ix_judgments_trace_hash" not in indexes
    # PostgreSQL writes it back as substr((trace_hash)::text, 8, 8)
    made = indexes["ix_judgments_trace_hash_prefix"].replace("(trace_hash)::text", "trace_hash")
    assert "substr(trace_hash, 8, 8)" in made


def _plan(c: Connection, query: Select[Any], backend: str) -> list[str]:
    """The database's plan of ``query`` as the store runs it: with its bound parameters."""
    compiled = query.compile(c, compile_kwargs={"render_postcompile": True})
    if backend == "sqlite":
        args: Any = tuple(compiled.params[k] for k in compiled.positiontup or ())
        rows = c.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", args).all()
    else:
        rows = c.exec_driver_sql(f"EXPLAIN {compiled}", compiled.params).all()
    return [str(row[-1]) for row in rows]


def test_the_prefix_expression_reaches_the_index(store: Store, backend: str) -> None:
    # the expression the store queries is the one the migration indexed (were it not, the
    # database would scan the table, and the query's results would not show it).
    # The judgments alone: on SQLite the lookup's join starts from the links (ordered by
    # evaluation) whichever index the judgments have, as it did with the full-hash index
    alone = select(_T_JUDG.c.id).where(trace_hash_prefix(_T_JUDG.c.trace_hash).in_(["deadbeef"]))
    with store.engine.begin() as c:
        if backend == "postgresql":  # an empty table: the planner would rightly scan it
            c.exec_driver_sql("SET LOCAL enable_seqscan = off")
        plans = [_plan(c, alone, backend)]
        if backend == "postgresql":
            plans.append(_plan(c, trace_judgments_query(["deadbeef"]), backend))
    for plan in plans:
        assert any("ix_judgments_trace_hash_prefix" in row for row in plan), plan
