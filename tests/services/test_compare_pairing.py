"""The compare service's SQL pairing gives the judge's in-memory comparison, exactly.

``compare_evaluations`` pairs two stored evaluations in the database
(``store.evaluations.pair_counts`` / ``discordant_pairs``) and hands the counts to
:func:`rejudge.judge.compare_pairing`; :func:`rejudge.judge.compare` pairs the same evaluations'
rows in memory. On generated evaluations (keys on one side only, every verdict, dimensions
empty or not, and each key parameter equal or not, per pair) the two comparisons are equal:
counts, flips with their causes, kinds, reasons, deltas and the test.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import compare
from rejudge.store import Store
from sqlalchemy import event

from rejudge.model import Judgment, RuleSet
from rejudge.services import FlipCodes, compare_evaluations, compare_first_flips, comparison_flips
from rejudge.services._compare import _rows_with_judge, evaluation_meta
from tests.dashboard.factory import build_store

VERDICT = st.sampled_from(["PASS", "FAIL", "SKIP", "AGENT_ERROR"])
#: the judgment fields a pair may differ in (each drawn per side from two values)
FIELDS = ("trace_hash", "case_hash", "registry_hash", "tier", "engine_version")
CODES = ["TOOL_MISSING", "TOOL_WRONG", "PARAM_WRONG_VALUE"]
_salt = itertools.count()


@st.composite
def judged(draw: Any) -> dict[str, Any]:
    """One side's judgment of a key: verdict, taxonomy, dimension, and each field's value."""
    return {
        "verdict": draw(VERDICT),
        "taxonomy": draw(st.lists(st.sampled_from(CODES), max_size=2, unique=True)),
        "dimension": draw(st.sampled_from(["", "D1", "D2"])),
        "category": draw(st.sampled_from(["", "lookup"])),
        "partial": draw(st.none() | st.floats(0, 1, allow_nan=False)),
        "rules": draw(st.sampled_from(["1", "2"])),
        **{f: draw(st.sampled_from(["x", "y"])) for f in FIELDS},
    }


#: a PASS in D1 under rule set 1, every field "x" (one side of a key, for tests that write it)
PLAIN = {
    "verdict": "PASS",
    "taxonomy": [],
    "dimension": "D1",
    "category": "",
    "partial": None,
    "rules": "1",
    **dict.fromkeys(FIELDS, "x"),
}

#: per (case, repetition) of the store's run: A's judgment, B's (None: the key is on one side)
SIDES = st.lists(st.tuples(st.none() | judged(), st.none() | judged()), min_size=1, max_size=24)


def _evaluation(store: Store, run_id: int, rule_ids: dict[str, int], sides: list[Any]) -> int:
    """An evaluation of the run linking one judgment per key with a side (its rule set: the
    first linked judgment's)."""
    first = next((s for s in sides if s is not None), None)
    rules = first["rules"] if first else "1"
    ev = store.evaluations.create_evaluation(
        run_id=run_id, tier="golden", rule_set_id=rule_ids[rules], engine_version="test-1"
    )
    salt = next(_salt)  # a judgment of its own per example (keys are content hashes)
    traces = list(store.traces.iter_trace_rows(run_id))
    judgments, links = [], []
    for trace, side in zip(traces, sides, strict=False):
        if side is None:
            continue
        judgment = Judgment(
            verdict=side["verdict"],
            taxonomy=side["taxonomy"],
            partial_score=side["partial"],
            diff=[],
            reasons=[],
            # optional: what a report counts besides the verdict (tests/services/test_stored_report)
            anomalies=side.get("anomalies", []),
            details={"implicated_tools": side["tools"]} if side.get("tools") else {},
            tier=side["tier"],
            trace_hash=f"{side['trace_hash']}-{trace.case_key}-{trace.repetition}",
            case_hash=side["case_hash"],
            registry_hash=side["registry_hash"],
            rule_set_hash=side["rules"],
            engine_version=f"{side['engine_version']}-{salt}",
        )
        judgments.append(judgment)
        links.append(
            {
                "trace_id": trace.id,
                "case_key": trace.case_key,
                "repetition": trace.repetition,
                "dimension": side["dimension"],
                "category": side["category"],
                "verdict": side["verdict"],
                "partial_score": side["partial"],
            }
        )
    ids = store.judgments.save_judgments(judgments)
    for judgment, link in zip(judgments, links, strict=True):
        link["judgment_id"] = ids[judgment.key]
    store.judgments.link_judgments(ev, links)
    return ev


@pytest.fixture
def seeded(db_url: str) -> Any:
    built = build_store(db_url, cases=12, repeat=2, with_run_b=False)
    store = Store.open(db_url, migrate=False)
    rule_ids = {
        v: store.rule_sets.save_rule_set(RuleSet(name="p", version=v, settings={}))
        for v in ("1", "2")
    }
    try:
        yield store, built.runs["run-a"], rule_ids
    finally:
        store.close()


def _judges_comparison(store: Any, a: int, b: int) -> Any:
    """The judge's comparison of two stored evaluations from their rows in memory: the oracle
    the SQL pairing must equal."""
    meta_a, meta_b = evaluation_meta(store, a), evaluation_meta(store, b)
    return compare(
        _rows_with_judge(store, meta_a),
        _rows_with_judge(store, meta_b),
        meta_a=meta_a.to_json(),
        meta_b=meta_b.to_json(),
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(pairs=SIDES)
def test_the_sql_pairing_is_the_judges_comparison(seeded: Any, pairs: list[Any]) -> None:
    store, run_id, rule_ids = seeded
    a = _evaluation(store, run_id, rule_ids, [p[0] for p in pairs])
    b = _evaluation(store, run_id, rule_ids, [p[1] for p in pairs])
    in_memory = _judges_comparison(store, a, b)
    paired = compare_evaluations(store, a, b)
    assert paired == in_memory
    # a page of the flips is the comparison's page, read as far as asked
    n = len(paired.flips)
    for start, limit in ((0, 1), (1, 2), (0, None), (n, 3), (max(0, n - 2), 5)):
        end = None if limit is None else start + limit
        assert comparison_flips(store, a, b, start=start, limit=limit) == paired.flips[start:end]
    # the first flips only, every flip's verdicts and codes counted (Rule impact's one read)
    first = compare_first_flips(store, a, b, limit=2)
    assert first.comparison == replace(paired, flips=paired.flips[:2])
    assert _counted(first.codes) == Counter(
        (f.from_verdict, f.to_verdict, tuple(f.taxonomy_from), tuple(f.taxonomy_to))
        for f in paired.flips
    )
    # figures only: every count the same, no flip read
    figures = compare_evaluations(store, a, b, with_flips=False)
    assert figures.flips == []
    assert figures.flips_by_cause == in_memory.flips_by_cause
    assert figures.to_json() | {"flips": []} == in_memory.to_json() | {"flips": []}


def _counted(codes: list[FlipCodes]) -> Counter[tuple[Any, ...]]:
    counted: Counter[tuple[Any, ...]] = Counter()
    for c in codes:
        counted[(c.verdict_a, c.verdict_b, c.taxonomy_a, c.taxonomy_b)] += c.flips
    return counted


def test_the_pairing_walks_the_pairing_index_not_a_pivot_of_both_sides(seeded: Any) -> None:
    """The comparison's counts and its flips pair A's and B's links on the pairing index
    (migration 0106): no statement groups both sides' link rows by their key (the pivot sorted
    all 100,000 of them at 100k: 0.33 s of SQLite's CPU for Compare's figures, 0.21 s on the
    index), and on SQLite every statement that joins B's links to A's searches the index. Fails
    on 3917de6, which pivoted both sides (one statement, "per_key") and had no such index."""
    store, run_id, rule_ids = seeded
    failing = PLAIN | {"verdict": "FAIL", "taxonomy": ["TOOL_WRONG"], "rules": "2"}
    a = _evaluation(store, run_id, rule_ids, [PLAIN] * 6)
    b = _evaluation(store, run_id, rule_ids, [failing, PLAIN] * 3)
    statements: list[tuple[str, Any]] = []

    def remember(*args: Any) -> None:
        statements.append((str(args[2]), args[3]))

    event.listen(store.engine, "before_cursor_execute", remember)
    try:
        paired = compare_evaluations(store, a, b)
        first = compare_first_flips(store, a, b, limit=1)
        page = comparison_flips(store, a, b, limit=2)
    finally:
        event.remove(store.engine, "before_cursor_execute", remember)
    assert len(paired.flips) == 3 and first.comparison.flips == paired.flips[:1]
    assert page == paired.flips[:2]
    assert _counted(first.codes) == {("PASS", "FAIL", (), ("TOOL_WRONG",)): 3}
    assert paired == _judges_comparison(store, a, b)
    sql = [text for text, _ in statements]
    assert not any("per_key" in s or "GROUP BY evaluation_judgments.case_key" in s for s in sql)
    joined = [(text, bound) for text, bound in statements if "AS link_b" in text]
    assert joined
    if store.backend == "sqlite":
        with store.engine.connect() as c:
            for text, bound in joined:
                plan = " ".join(
                    str(row[-1]) for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {text}", bound)
                )
                assert "SEARCH link_b USING COVERING INDEX ix_evaluation_judgments_pair" in plan


def test_the_pairs_are_grouped_on_their_flags_not_on_the_judgments_columns(seeded: Any) -> None:
    """The pairing's counts group each pair's flags (verdicts, fields equal or not) computed
    apart from the join (a subquery kept whole by its OFFSET), and count the same. Flattened
    into the join, as on 61ccf66, SQLite fed its GROUP BY sorter every judgment column the
    flags are computed from (at 100k, 0.14 s of SQLite's CPU for the grouped read, against
    0.09 s now): its plan then shows no CO-ROUTINE for the pairs."""
    store, run_id, rule_ids = seeded
    other_rules = PLAIN | {"verdict": "FAIL", "taxonomy": ["TOOL_WRONG"], "rules": "2"}
    a = _evaluation(store, run_id, rule_ids, [PLAIN] * 6)
    b = _evaluation(store, run_id, rule_ids, [other_rules, PLAIN | {"rules": "2"}] * 3)
    statements: list[tuple[str, Any]] = []

    def remember(*args: Any) -> None:
        statements.append((str(args[2]), args[3]))

    event.listen(store.engine, "before_cursor_execute", remember)
    try:
        figures = compare_evaluations(store, a, b, with_flips=False)
    finally:
        event.remove(store.engine, "before_cursor_execute", remember)
    in_memory = _judges_comparison(store, a, b)
    assert figures.to_json() | {"flips": []} == in_memory.to_json() | {"flips": []}
    assert figures.flips_by_cause == in_memory.flips_by_cause == {"rules changed": 3}
    grouped = [(t, bound) for t, bound in statements if "AS link_b" in t and "GROUP BY" in t]
    assert len(grouped) == 1
    if store.backend == "sqlite":
        text, bound = grouped[0]
        with store.engine.connect() as c:
            plan = [str(row[-1]) for row in c.exec_driver_sql(f"EXPLAIN QUERY PLAN {text}", bound)]
        assert any(step.startswith("CO-ROUTINE") for step in plan), plan


def test_a_key_linked_twice_is_paired_from_rows(seeded: Any) -> None:
    """A (case, repetition) linked twice in one evaluation (two traces): the SQL join would count
    it twice, so the service pairs those evaluations' rows as the judge does."""
    store, run_id, rule_ids = seeded
    side = PLAIN
    a = _evaluation(store, run_id, rule_ids, [side, side])
    b = _evaluation(store, run_id, rule_ids, [side | {"verdict": "FAIL"}] * 2)
    traces = list(store.traces.iter_trace_rows(run_id))
    first = next(iter(store.judgments.iter_evaluation_rows(a)))
    # a third trace's link names the first trace's key
    store.judgments.link_judgments(
        a,
        [
            {
                "judgment_id": first.judgment_id,
                "trace_id": traces[2].id,
                "case_key": traces[0].case_key,
                "repetition": traces[0].repetition,
                "dimension": "D1",
                "category": "",
                "verdict": "FAIL",
                "partial_score": None,
            }
        ],
    )
    assert store.evaluations.pair_counts(a, b, ["tier"]).duplicated
    in_memory = _judges_comparison(store, a, b)
    assert compare_evaluations(store, a, b) == in_memory
    # a page of flips is taken from that comparison too
    assert store.evaluations.linked_twice(a, b) and not store.evaluations.linked_twice(b, b)
    assert comparison_flips(store, a, b, limit=1) == in_memory.flips[:1]
    assert comparison_flips(store, a, b, start=1, limit=1) == in_memory.flips[1:2]
    assert comparison_flips(store, a, b) == in_memory.flips
    first = compare_first_flips(store, a, b, limit=1)
    assert first.comparison == replace(in_memory, flips=in_memory.flips[:1])
    assert sum(c.flips for c in first.codes) == len(in_memory.flips)


def test_a_first_page_of_flips_is_one_read_of_the_links(seeded: Any) -> None:
    """The first page of flips (what Compare and Side by side open on) reads the link rows in
    one statement: the check for a key linked twice, the discordant keys and the page's rows.
    Fails on 8ba5978, which read them three times (``linked_twice``, the keys' pivot, then the
    page's rows by their keys)."""
    store, run_id, rule_ids = seeded
    a = _evaluation(store, run_id, rule_ids, [PLAIN] * 8)
    b = _evaluation(store, run_id, rule_ids, [PLAIN | {"verdict": "FAIL", "rules": "2"}] * 8)
    every = compare_evaluations(store, a, b).flips
    statements: list[str] = []

    def remember(*args: Any) -> None:
        statements.append(str(args[2]))

    event.listen(store.engine, "before_cursor_execute", remember)
    try:
        page = comparison_flips(store, a, b, limit=3)
    finally:
        event.remove(store.engine, "before_cursor_execute", remember)
    assert page == every[:3]
    assert sum("evaluation_judgments" in s for s in statements) == 1


def test_a_page_of_flips_reads_only_its_own_rows(seeded: Any, monkeypatch: Any) -> None:
    """Two evaluations whose every pair flips: a page of 3 reads 3 pairs' rows whole (one per
    side), not every flip's, and they are the comparison's 5th to 7th flips."""
    import rejudge.store._pairing_reads as reads

    store, run_id, rule_ids = seeded
    side = PLAIN
    a = _evaluation(store, run_id, rule_ids, [side] * 20)
    b = _evaluation(store, run_id, rule_ids, [side | {"verdict": "FAIL", "rules": "2"}] * 20)
    every = compare_evaluations(store, a, b).flips
    assert len(every) == 20
    read: list[Any] = []
    original = reads._judgment

    def counting(values: Any) -> Any:
        read.append(values)
        return original(values)

    monkeypatch.setattr(reads, "_judgment", counting)
    assert comparison_flips(store, a, b, start=4, limit=3) == every[4:7]
    assert len(read) == 2 * 3
    read.clear()
    assert comparison_flips(store, a, b) == every
    assert len(read) == 2 * 20


def test_a_page_of_flips_binds_no_more_values_than_sqlite_allows(seeded: Any) -> None:
    """A page of flips binds a few values whatever its length: its keys were bound two values
    each, and a page of 1,000 flips bound 2,002 values in one statement, past the 999 SQLite
    allowed before 3.32 (and past PostgreSQL's 65,535 beyond 32,766 flips). Here SQLite's limit
    is lowered to 30, under what a page of 15 keys bound."""
    import sqlite3

    from sqlalchemy import event

    store, run_id, rule_ids = seeded
    if store.backend != "sqlite":
        pytest.skip("SQLite's own limit on bound values")
    a = _evaluation(store, run_id, rule_ids, [PLAIN] * 20)
    b = _evaluation(store, run_id, rule_ids, [PLAIN | {"verdict": "FAIL", "rules": "2"}] * 20)
    every = compare_evaluations(store, a, b).flips
    assert len(every) == 20

    def low_limit(connection: Any, _record: Any) -> None:
        connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 30)

    store.engine.dispose()
    event.listen(store.engine, "connect", low_limit)
    try:
        assert comparison_flips(store, a, b, start=2, limit=15) == every[2:17]
        assert comparison_flips(store, a, b, start=19, limit=15) == every[19:]
        assert comparison_flips(store, a, b, limit=15) == every[:15]
    finally:
        event.remove(store.engine, "connect", low_limit)
        store.engine.dispose()


#: case keys a locale collation orders otherwise than code points ("a" < "B" in en; "B" < "a" here)
ODD_KEYS = ["b", "B", "a", "Z", "é", "e", "_", "a-b", "ab", "A", "z", "-"]


def test_a_page_of_flips_is_in_code_point_order_whatever_the_collation(seeded: Any) -> None:
    """A page is ordered and cut in SQL, the whole comparison's flips are sorted in Python: on
    PostgreSQL the keys' column is given a locale (ICU English) collation, under which a plain
    ORDER BY puts "a" before "B"; every page must still be the comparison's slice."""
    from sqlalchemy import text

    store, run_id, rule_ids = seeded
    a = _evaluation(store, run_id, rule_ids, [PLAIN] * 24)
    b = _evaluation(store, run_id, rule_ids, [PLAIN | {"verdict": "FAIL", "rules": "2"}] * 24)
    with store.engine.begin() as c:
        if store.backend == "postgresql":
            c.execute(
                text(
                    "ALTER TABLE evaluation_judgments ALTER COLUMN case_key "
                    'TYPE VARCHAR(200) COLLATE "en-x-icu"'
                )
            )
        old = sorted({r[0] for r in c.execute(text("SELECT case_key FROM evaluation_judgments"))})
        assert len(old) == len(ODD_KEYS)
        for was, new in zip(old, ODD_KEYS, strict=True):
            c.execute(
                text("UPDATE evaluation_judgments SET case_key = :new WHERE case_key = :was"),
                {"new": new, "was": was},
            )
    every = compare_evaluations(store, a, b).flips
    assert len(every) == 24
    keys = [(f.case, f.repetition) for f in every]
    assert keys == sorted(keys)
    for start, limit in ((0, 5), (3, 7), (10, 14), (20, 10)):
        assert comparison_flips(store, a, b, start=start, limit=limit) == every[start:][:limit]


def _groups_counted(store: Store, ev: int, by: str) -> dict[str, tuple[Any, ...]]:
    """An evaluation's link rows counted per ``by`` (dimension or category) here, not in SQL:
    key -> (PASS, FAIL, SKIP, AGENT_ERROR, scored, accuracy); the keys (``str``, a NULL
    ``"None"``) in the order the rows come ordered by the column, the database's collation."""
    from sqlalchemy import text

    query = text(
        f"SELECT {by}, verdict FROM evaluation_judgments WHERE evaluation_id = :ev ORDER BY {by}"
    )
    with store.engine.connect() as c:
        rows = c.execute(query, {"ev": ev}).all()
    counted: dict[str, Counter[str]] = {}
    for key, verdict in rows:
        counted.setdefault(str(key), Counter())[verdict] += 1
    out: dict[str, tuple[Any, ...]] = {}
    for key, n in counted.items():
        scored = n["PASS"] + n["FAIL"]
        accuracy = n["PASS"] / scored if scored else None
        out[key] = (n["PASS"], n["FAIL"], n["SKIP"], n["AGENT_ERROR"], scored, accuracy)
    return out


#: dimension and category names a locale collation and code points order differently
GROUP_KEYS = st.sampled_from(["", "D1", "d1", "B", "a", "é", "_", "Z"])
GROUPED = st.tuples(judged(), GROUP_KEYS, GROUP_KEYS).map(
    lambda t: t[0] | {"dimension": t[1], "category": t[2]}
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(pairs=st.lists(st.tuples(st.none() | GROUPED, st.none() | GROUPED), min_size=1, max_size=24))
def test_both_sides_groups_from_one_read_are_each_sides_rows_counted(
    seeded: Any, pairs: list[Any]
) -> None:
    """Compare's per dimension and category counts of A and B from one read
    (``pair_group_counts``) are each side's link rows counted per grouping, keys in the
    database's order of the column (whatever the collation), every count and accuracy the same."""
    store, run_id, rule_ids = seeded
    a = _evaluation(store, run_id, rule_ids, [p[0] for p in pairs])
    b = _evaluation(store, run_id, rule_ids, [p[1] for p in pairs])
    for x, y in ((a, b), (a, a)):
        found = store.evaluations.pair_group_counts(x, y)
        for ev, by, got in (
            (x, "dimension", found.dimension_a),
            (x, "category", found.category_a),
            (y, "dimension", found.dimension_b),
            (y, "category", found.category_b),
        ):
            each = _groups_counted(store, ev, by)
            assert list(got) == list(each)
            assert {k: tuple(g) for k, g in got.items()} == each
