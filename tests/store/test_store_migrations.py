"""Migrations: empty -> head -> base -> head, models == migrations, newer databases refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from rejudge.store import (
    Base,
    SchemaVersionError,
    Store,
    current_revision,
    downgrade,
    ensure_schema,
    head_revision,
    make_engine,
    upgrade,
)
from sqlalchemy import Column, Integer, MetaData, Table, inspect, text

from rejudge.model import hash_bytes
from tests.store.store_factories import make_registry

TABLES = set(Base.metadata.tables)


def table_names(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_empty_to_head_to_base_to_head(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        assert current_revision(engine) is None
        assert table_names(db_url) == set()
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        assert table_names(db_url) == TABLES | {"alembic_version"}
        downgrade(engine, "base")
        assert current_revision(engine) is None
        assert table_names(db_url) - {"alembic_version"} == set()
        upgrade(engine, "head")
        assert current_revision(engine) == head_revision()
        assert table_names(db_url) == TABLES | {"alembic_version"}
    finally:
        engine.dispose()
    # the schema works after the round trip
    store = Store.open(db_url)
    try:
        assert (
            store.suites.get_registry(store.suites.save_registry(make_registry()))
            == make_registry()
        )
    finally:
        store.close()


def test_models_and_migrations_agree(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        upgrade(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, Base.metadata)
            # the comparison is live: a model the migrations lack is reported
            extended = MetaData()
            for table in Base.metadata.tables.values():
                table.to_metadata(extended)
            Table("not_migrated", extended, Column("id", Integer, primary_key=True))
            missing = compare_metadata(context, extended)
    finally:
        engine.dispose()
    assert diff == [], f"tables.py and migrations/ disagree; add a revision: {diff}"
    assert [d[0] for d in missing] == ["add_table"]


def test_store_open_migrates_a_fresh_database_and_is_idempotent(db_url: str) -> None:
    first = Store.open(db_url)
    first.close()
    again = Store.open(db_url)  # already at head: nothing to do, nothing fails
    try:
        assert current_revision(again.engine) == head_revision()
        ensure_schema(again.engine)
        assert current_revision(again.engine) == head_revision()
    finally:
        again.close()


def test_open_without_migrate_leaves_the_database_alone(db_url: str) -> None:
    store = Store.open(db_url, migrate=False)
    try:
        assert current_revision(store.engine) is None
    finally:
        store.close()
    assert table_names(db_url) == set()


def test_database_from_a_newer_rejudge_is_refused(db_url: str) -> None:
    Store.open(db_url).close()
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
        for attempt in (
            lambda: Store.open(db_url),
            lambda: upgrade(engine),
            lambda: downgrade(engine),
        ):
            with pytest.raises(SchemaVersionError) as caught:
                attempt()
            message = str(caught.value)
            assert "9999_from_the_future" in message
            assert "newer" in message
            assert "\n" not in message
        # refused, not touched
        assert current_revision(engine) == "9999_from_the_future"
    finally:
        engine.dispose()


def test_0003_fills_the_report_columns_of_existing_judgments(db_url: str) -> None:
    """Judgments written before revision 0003 get their anomalies and implicated tools copied
    out of their bodies, so reports read the same facts without judging anything again."""
    engine = make_engine(db_url)
    bodies = [
        {"anomalies": ["judge_error"], "details": {"implicated_tools": ["get_order", "é"]}},
        {"anomalies": [], "details": {}},
    ]
    try:
        upgrade(engine, "0002")
        with engine.begin() as conn:
            for n, body in enumerate(bodies):
                conn.execute(
                    text(
                        "INSERT INTO judgments (key, hash, trace_hash, case_hash, registry_hash,"
                        " tier, rule_set_hash, engine_version, verdict, partial_score, taxonomy,"
                        " body, created_at) VALUES (:key, 'h', 't', 'c', 'r', 'golden', 's',"
                        " '1.0.0', 'FAIL', 0.5, :taxonomy, :body, CURRENT_TIMESTAMP)"
                    ),
                    {"key": f"k{n}", "taxonomy": "[]", "body": json.dumps(body)},
                )
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        with engine.connect() as conn:
            unfilled = conn.execute(
                text("SELECT key FROM judgments WHERE anomalies IS NULL ORDER BY key")
            ).all()
        # every body holds an anomalies list, so no row may be left without the column
        assert unfilled == []
    finally:
        engine.dispose()
    store = Store.open(db_url)
    try:
        found = store.judgments.lookup_judgments(["k0", "k1"])
    finally:
        store.close()
    assert found["k0"].anomalies == ["judge_error"]
    assert found["k0"].implicated_tools == ["get_order", "é"]
    assert found["k1"].anomalies == [] and found["k1"].implicated_tools is None


def _downgraded(db_url: str, revision: str) -> None:
    """The store at ``db_url`` taken down to ``revision``."""
    engine = make_engine(db_url)
    try:
        downgrade(engine, revision)
        assert current_revision(engine) == revision
    finally:
        engine.dispose()


def test_0106_indexes_the_links_of_a_store_written_before_it(db_url: str) -> None:
    """A store at 0105 (no pairing index) compares its evaluations as one at head does, and
    opening it builds the index from its link rows (the downgrade to 0105 drops it)."""
    from rejudge.services import compare_evaluations
    from tests.dashboard.factory import build_store

    built = build_store(db_url, cases=6, repeat=2)
    a, b = built.evaluations["a1"], built.evaluations["a2"]

    def indexes() -> set[str]:
        engine = make_engine(db_url)
        try:
            return {str(i["name"]) for i in inspect(engine).get_indexes("evaluation_judgments")}
        finally:
            engine.dispose()

    def compared() -> Any:
        store = Store.open(db_url, migrate=False)
        try:
            return compare_evaluations(store, a, b)
        finally:
            store.close()

    at_head = compared()
    assert at_head.flips and "ix_evaluation_judgments_pair" in indexes()
    _downgraded(db_url, "0105_trace_hash_prefix_index")
    assert "ix_evaluation_judgments_pair" not in indexes()
    assert compared() == at_head
    Store.open(db_url).close()  # opening upgrades
    assert "ix_evaluation_judgments_pair" in indexes()
    assert compared() == at_head


def test_0107_counts_each_sides_verdicts_per_dimension_from_the_index(db_url: str) -> None:
    """At 0107 the (evaluation, verdict) index carries the dimension: a side's verdicts per
    dimension (every comparison's) are counted from the index alone on SQLite (at 0106 each
    link row was looked up: 0.018 s a side at 100k, 0.0025 s now). A store at 0106 compares as
    one at head does, and opening it rebuilds the index (the downgrade puts the old one back)."""
    from rejudge.services import compare_evaluations
    from tests.dashboard.factory import build_store

    built = build_store(db_url, cases=6, repeat=2)
    a, b = built.evaluations["a1"], built.evaluations["a2"]

    def columns() -> list[str]:
        engine = make_engine(db_url)
        try:
            found = inspect(engine).get_indexes("evaluation_judgments")
        finally:
            engine.dispose()
        (index,) = [i for i in found if i["name"] == "ix_evaluation_judgments_eval_verdict"]
        return [str(c) for c in index["column_names"]]

    def compared() -> Any:
        store = Store.open(db_url, migrate=False)
        try:
            if store.backend == "sqlite":
                statement = (
                    "EXPLAIN QUERY PLAN SELECT dimension, verdict, count(*) FROM "
                    "evaluation_judgments WHERE evaluation_id = ? GROUP BY dimension, verdict"
                )
                with store.engine.connect() as c:
                    plan = " ".join(str(r[-1]) for r in c.exec_driver_sql(statement, (a,)))
                covered = "USING COVERING INDEX ix_evaluation_judgments_eval_verdict" in plan
                assert covered == ("dimension" in columns()), plan
            return compare_evaluations(store, a, b)
        finally:
            store.close()

    at_head = compared()
    assert at_head.flips and columns() == ["evaluation_id", "verdict", "dimension"]
    _downgraded(db_url, "0106_pair_index")
    assert columns() == ["evaluation_id", "verdict"]
    assert compared() == at_head
    Store.open(db_url).close()  # opening upgrades
    assert columns() == ["evaluation_id", "verdict", "dimension"]
    assert compared() == at_head


def test_0101_moves_judgment_bodies_out_and_back_without_a_byte_changing(db_url: str) -> None:
    """Revision 0101 stores each distinct judgment body once (without its trace hash) and
    fills every trace's behaviour hash; its downgrade puts the whole bodies back. Reports,
    judgment hashes and bodies read the same before, after and after the round trip."""
    from rejudge.judge import load_rule_set
    from rejudge.suites import load_suite

    from rejudge.model import RunConfig, Trace, behaviour_hash, canonical_json
    from rejudge.services import judge_run

    source = load_suite("retail")
    store = Store.open(db_url)
    try:
        suite = store.suites.save_suite(
            name="retail",
            domain="retail",
            suite_hash="sha256:retail",
            registry=source.registry,
            cases=list(source.cases),
        )
        run = store.runs.create_run(name="m", suite=suite, config=RunConfig(model="m"))
        pks = store.suites.get_case_pks(suite.id)
        rows = [
            (run.id, pks[c.id], Trace(case_id=c.id, repetition=rep, final_text="ok"), None, None)
            for rep in range(3)
            for c in list(source.cases)[:5]
        ]
        store.traces.save_traces(rows)
        result = judge_run(store, "m", "golden", load_rule_set("standard@2"))

        def reads() -> list[tuple]:
            return [
                (r.judgment_key, r.judgment_hash, r.verdict, canonical_json(r.body))
                for r in store.judgments.iter_evaluation_rows(result.evaluation_id, with_body=True)
            ]

        before = reads()
        assert len(before) == 15
        with store.engine.connect() as c:
            assert c.exec_driver_sql("SELECT count(*) FROM judgment_bodies").scalar() == 5
        downgrade(store.engine, "0100_external_verdicts")
        with store.engine.connect() as c:
            inline = dict(c.exec_driver_sql("SELECT key, CAST(body AS TEXT) FROM judgments").all())
        # the whole body is back in each row, its hash the one the judgment always had
        assert {k: hash_text(canonical_json(json.loads(t))) for k, t in inline.items()} == {
            k: h for k, h, _v, _b in before
        }
        upgrade(store.engine)
        assert reads() == before
        with store.engine.connect() as c:
            filled = c.exec_driver_sql(
                "SELECT behaviour_hash, CAST(body AS TEXT) FROM traces ORDER BY id"
            ).all()
        assert [h for h, _t in filled] == [behaviour_hash(json.loads(t)) for _h, t in filled]
        assert len({h for h, _t in filled}) == 5
    finally:
        store.close()


def hash_text(text: str) -> str:
    return hash_bytes(text.encode("utf-8"))
