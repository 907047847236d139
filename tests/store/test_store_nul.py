"""A NUL in a stored JSON value (an agent's message, a judge's reason quoting it) is kept and read
back as it was, on both backends. PostgreSQL's JSONB holds no NUL: the store keeps such a value
marked there (rejudge.store._nul); on SQLite as it is. Each PostgreSQL test here failed on the
code before (fdd331b): the write was refused with "\\u0000 cannot be converted to text", and the
import of a τ-bench file with one such message failed whole."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.store import Store
from rejudge.store._nul import MARK, dumps, loads, mark_text, unmark_text
from rejudge.store._tables import _T_REG
from sqlalchemy import Text, cast, insert, select

import rejudge.cli as root
from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.model import Judgment, Round
from tests.store.store_factories import make_judged, make_trace

# the characters the encoding is about (NUL, its escape character, the marker's letters, a
# backslash that JSON escapes) mixed into any text
_TRICKY = st.sampled_from(["\x00", "\x01", "\\", "0", "1", "nul", "\\u0000", MARK, "é"])
texts = st.lists(_TRICKY | st.text(max_size=3), max_size=6).map("".join)
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | texts,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(texts | st.just(MARK), inner, max_size=4)
    ),
    max_leaves=12,
)
# a value of the marked form's shape, which must read back as itself too
shaped = values.map(lambda v: {MARK: v})
_HYPOTHESIS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@given(value=values | shaped)
def test_marking_is_reversible_and_leaves_values_without_nul_alone(value: Any) -> None:
    text = json.dumps(value)
    stored = mark_text(text)
    assert "\\u0000" not in stored.replace("\\\\", "")  # nothing JSONB refuses
    assert json.loads(unmark_text(stored)) == value
    assert loads(dumps(value)) == value
    if not _strings(value) & {"\x00", MARK}:
        assert stored == text  # a value without a NUL or a marker's key: as before


def _strings(value: Any) -> set[str]:
    """The NULs and marker keys ``value`` holds."""
    if isinstance(value, str):
        return {"\x00"} & set(value)
    if isinstance(value, list):
        return set().union(*map(_strings, value))
    if isinstance(value, dict):
        found = {k for k in value if k == MARK} | _strings(list(value))
        return found.union(*map(_strings, value.values()))
    return set()


def test_tau_bench_import_with_a_nul_reads_back_as_on_sqlite(db_url: str, tmp_path: Path) -> None:
    entries = json.loads((SHIPPED_TAU_BENCH / "gpt-4o-airline.json").read_text("utf-8"))[:3]
    message = next(m for m in entries[0]["traj"] if m.get("role") == "assistant")
    message["content"] += "\x00tail"
    path = tmp_path / "nul.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    reference = f"sqlite:///{tmp_path / 'reference.db'}"
    read: dict[str, Any] = {}
    for url in (db_url, reference):
        result = CliRunner().invoke(
            root.cli,
            ["--db", url, "import", "tau-bench", str(path), "--reward-version", "7362a17"],
            env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
        )
        assert result.exit_code == 0, result.output
        store = Store.open(url)
        try:
            traces = list(store.traces.iter_traces())
            rows = list(store.traces.iter_trace_rows(page_size=2))
            bodies = store.traces.trace_bodies([t.id for t in traces])
        finally:
            store.close()
        for t, row in zip(traces, rows, strict=True):
            assert t.trace.hash == t.hash  # the hash of what is read is the one stored
            assert json.loads(row.body or "") == json.loads(bodies[t.id])
            assert json.loads(bodies[t.id]) == t.trace.model_dump(mode="json")
        read[url] = [(t.case_key, t.hash, t.trace) for t in traces]
    assert read[db_url] == read[reference]
    assert sum("\x00tail" in (r.text or "") for _, _, t in read[db_url] for r in t.rounds) == 1


@_HYPOTHESIS
@given(value=values | shaped)
def test_a_json_column_keeps_any_value(store: Store, value: Any) -> None:
    """The engine's own JSON(B) boundary: a Core insert and select, and the text a raw read
    gets (cast to text), of any value with NULs, markers, escapes and backslashes."""
    key = f"sha256:{next(_COUNTER)}"
    with store.engine.begin() as c:
        c.execute(insert(_T_REG).values(hash=key, domain="d", version="1", body=value))
    with store.engine.connect() as c:
        back = c.execute(select(_T_REG.c.body).where(_T_REG.c.hash == key)).scalar_one()
        text = c.execute(select(cast(_T_REG.c.body, Text)).where(_T_REG.c.hash == key)).scalar()
    assert back == value
    assert json.loads(unmark_text(text) if store.backend == "postgresql" else text) == value


_COUNTER = itertools.count()


@pytest.fixture
def judged(store: Store) -> dict[str, Any]:
    return make_judged(store)


def _judgment(base: Judgment, text: str, value: Any, version: str) -> Judgment:
    return base.model_copy(
        update={
            "engine_version": version,
            "reasons": [f"the agent said {text!s}", text],
            "anomalies": [text],
            "taxonomy": ["wrong_tool", text],
            "details": {"implicated_tools": [text], "v": value},
        }
    )


@_HYPOTHESIS
@given(text=texts, value=values | shaped)
def test_judgments_keep_any_text_through_every_write_and_read(
    store: Store, judged: dict[str, Any], text: str, value: Any
) -> None:
    """One judgment alone (PostgreSQL: an INSERT binding the text as JSONB) and a batch of 24
    (PostgreSQL: COPY), read back by key with body paths, by evaluation with bodies and paths,
    and alone."""
    base: Judgment = judged["judgments"][1]
    n = next(_COUNTER)
    alone = _judgment(base, text, value, f"nul-{n}")
    batch = [_judgment(base, text + str(i), [value, i], f"nul-{n}-{i}") for i in range(24)]
    store.judgments.save_judgments([alone])
    store.judgments.save_judgments(batch)
    paths = {"reasons": ["reasons"], "v": ["details", "v"], "none": ["details", "absent"]}
    known = store.judgments.lookup_judgments([j.key for j in [alone, *batch]], body_paths=paths)
    for j in [alone, *batch]:
        k = known[j.key]
        tools = j.details["implicated_tools"]
        assert (k.taxonomy, k.anomalies, k.implicated_tools) == (j.taxonomy, j.anomalies, tools)
        assert k.paths == {"reasons": j.reasons, "v": j.details["v"], "none": None}
    trace_id = judged["trace_ids"][1]
    evaluation = store.evaluations.create_evaluation(
        run_id=judged["run_id"], tier="ast", rule_set_id=judged["rule_set_id"], engine_version="n"
    )
    link = {"judgment_key": alone.key, "trace_id": trace_id, "case_key": "c", "repetition": 0}
    link |= {"dimension": "d", "category": "c", "verdict": alone.verdict, "partial_score": None}
    store.judgments.save_and_link_judgments(evaluation, [], [link])
    (row,) = store.judgments.iter_evaluation_rows(evaluation, with_body=True, body_paths=paths)
    assert Judgment.model_validate(row.body) == alone
    assert (row.taxonomy, row.anomalies, row.paths["v"]) == (alone.taxonomy, [text], value)
    assert store.judgments.judgment_body(evaluation, trace_id) == alone.model_dump(mode="json")
    (report,) = store.evaluations.report_values(evaluation)
    assert (report[3], report[8], report[9]) == (alone.taxonomy, [text], [text])
    counts = store.evaluations.taxonomy_counts(evaluation)
    # SQLite's json_each cuts a text at its NUL (its own limit, not PostgreSQL's marking)
    if store.backend == "postgresql" or "\x00" not in text:
        assert counts == ({} if alone.verdict != "FAIL" else dict.fromkeys(alone.taxonomy, 1))


def test_a_marked_trace_is_still_summed_and_listed(store: Store, judged: dict[str, Any]) -> None:
    """Usage sums and the trace listing read a body with a NUL as any other (PostgreSQL reads
    its numbers under the marker)."""
    trace = make_trace("case-000", 1, seed=3)
    rounds = [*trace.rounds[:-1], Round(index=2, text="quoted \x00 here", finish_reason="stop")]
    trace = trace.model_copy(update={"rounds": rounds, "usage": {"input_tokens": 7}})
    before = store.runs.run_usage(judged["run_id"])
    store.traces.save_traces(
        [(judged["run_id"], judged["case_pks"]["case-000"], trace, None, None)]
    )
    after = store.runs.run_usage(judged["run_id"])
    assert after.input_tokens == before.input_tokens + 7
    assert after.with_usage == before.with_usage + 1
    (stored,) = [t for t in store.traces.iter_traces(judged["run_id"]) if t.repetition == 1]
    assert stored.trace == trace and stored.hash == trace.hash
    listed = store.runs.trace_rows(judged["run_id"], None, text="here")
    assert [(r.case_key, r.repetition) for r in listed] == [("case-000", 1)]
