"""An imported trace's anomalies are stored per trace with its batch (revision 0104), and an
import's result reads them back bounded: how many traces have any, and the first
``ANOMALIES_SHOWN``. A run imported before keeps them in its config, left as it was stored;
its anomalies are still shown from there."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.store import Store, TraceAnomalies, downgrade, make_engine, upgrade
from sqlalchemy import inspect, text

from rejudge.cli import cli
from rejudge.importers._adhoc import adhoc_config, hash_file, store_adhoc_run
from rejudge.importers._otel import OtelStream, _case, iter_otel
from rejudge.services import StagedItem, ingest_staged, run_anomalies
from rejudge.services import _run_anomalies as shown_module
from tests.importers.conftest import OTEL_DATA
from tests.services.test_import_streamed import _items, _span_file

# its model spans recorded "{}" for each of its three calls: three anomalies in its one trace
LLAMA = OTEL_DATA / "any-agent" / "LLAMA_INDEX_trace.json"


def _cli(db_url: str, *args: str) -> Any:
    return CliRunner().invoke(
        cli, ["--db", db_url, *args], env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None}
    )


def _import_as_before_0104(store: Store, path: Path, run_name: str) -> dict[str, list[str]]:
    """Store ``path`` as the otel import did before revision 0104: no anomaly stored per trace,
    all of them in the run's config under ``extra["anomalies"]``. Returns them."""
    found = OtelStream()
    held: dict[str, list[str]] = {}
    items = []
    for item, weight in iter_otel(path, found):
        if item.anomalies:
            held[item.trace_id] = item.anomalies
        items.append(StagedItem(_case(item, path.name), item.trace, item.tools, weight))
    config = adhoc_config(
        source_tag="otel",
        source=path,
        file_hash=hash_file(path),
        models=sorted(found.models),
        providers=sorted(found.providers),
    )
    config = config.model_copy(update={"extra": {**config.extra, "anomalies": held}})
    store_adhoc_run(
        store,
        path,
        items,
        prefix="otel",
        source_tag="otel",
        description=f"traces of {path.name}",
        file_hash=config.extra["file_hash"],
        config=lambda: config,
        run_name=run_name,
        suite_name=None,
    )
    return held


def _stored_run_row(db_url: str) -> tuple[Any, ...]:
    engine = make_engine(db_url)
    try:
        with engine.connect() as c:
            row = c.execute(text("SELECT config, config_hash FROM runs WHERE name = 'old'")).one()
    finally:
        engine.dispose()
    config = row[0] if isinstance(row[0], dict) else json.loads(row[0])
    return json.dumps(config, sort_keys=True), row[1]


def test_a_run_imported_before_0104_migrates_and_still_shows_its_anomalies(db_url: str) -> None:
    store = Store.open(db_url)
    try:
        held = _import_as_before_0104(store, LLAMA, "old")
    finally:
        store.close()
    assert len(held) == 1 and len(next(iter(held.values()))) == 3
    engine = make_engine(db_url)
    try:
        downgrade(engine, "0103_external_verdict_version")  # the store as 0103 left it
        assert "trace_anomalies" not in inspect(engine).get_table_names()
        before = _stored_run_row(db_url)
        upgrade(engine)
        assert "trace_anomalies" in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    # the migration leaves the old run's config as it was: its bytes and its hash
    assert _stored_run_row(db_url) == before
    # the same file again is a lookup, and shows the anomalies the config keeps
    out = _cli(db_url, "--json", "import", "with", "otel", str(LLAMA), "--name", "old")
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert (result["inserted"], result["anomalous_traces"], result["anomalies"]) == (0, 1, held)
    people = _cli(db_url, "import", "with", "otel", str(LLAMA), "--name", "old")
    lines = [line for line in people.output.splitlines() if line.startswith("anomaly in ")]
    assert len(lines) == 3 and all("arguments of" in line for line in lines)


def test_a_result_shows_the_first_traces_anomalies_and_counts_them_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shown_module, "ANOMALIES_SHOWN", 5)
    path = _span_file(tmp_path / "spans.jsonl", 12, [LLAMA])  # three anomalies a trace
    db_url = f"sqlite:///{tmp_path / 'store.db'}"
    out = _cli(db_url, "--json", "import", str(path))
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)["result"]
    assert result["anomalous_traces"] == 12 and result["traces"] == 12
    # the first five in the file's order (trace id order), three anomalies each
    assert list(result["anomalies"]) == sorted(result["anomalies"])
    assert len(result["anomalies"]) == 5
    assert all(len(found) == 3 for found in result["anomalies"].values())
    people = _cli(db_url, "import", str(path))
    assert people.exit_code == 0, people.output
    assert sum(line.startswith("anomaly in ") for line in people.output.splitlines()) == 15
    assert "... and 7 more trace(s) with anomalies (the first 5 shown)" in people.output


_RUNS = count()


def _ingested(store: Store, found: list[list[str]], batch: int) -> tuple[list[Any], Any]:
    """Traces with anomalies ``found`` (one list a trace) ingested ``batch`` a transaction."""
    name = f"run-{next(_RUNS)}"
    items = [replace(i, anomalies=a) for i, a in zip(_items(len(found)), found, strict=True)]
    config = adhoc_config(
        source_tag="test",
        source=Path("f.jsonl"),
        file_hash=f"sha256:{name}",
        models=[],
        providers=[],
    )
    done = ingest_staged(
        store,
        items,
        run_name=name,
        suite_name=name,
        domain="imported",
        suite_meta={},
        file_hash=f"sha256:{name}",
        config=lambda: config,
        provisional=config,
        batch=batch,
    )
    return items, done


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    found=st.lists(st.lists(st.text(max_size=5), max_size=2), max_size=12),
    batch=st.integers(1, 5),
    limit=st.integers(0, 8),
)
def test_stored_per_batch_reads_back_as_the_config_held_them(
    store: Store, found: list[list[str]], batch: int, limit: int
) -> None:
    """Whatever the batch size, the stored anomalies read back as the mapping the run's config
    held before 0104 ({case id: anomalies} of the traces that have any, in the file's order),
    cut to the first ``limit``, with the count of all."""
    items, done = _ingested(store, found, batch)
    # a NUL is kept as the six characters \u0000 (PostgreSQL's JSONB holds no NUL)
    held = {
        i.case.id: [a.replace("\x00", "\\u0000") for a in i.anomalies] for i in items if i.anomalies
    }
    expected = TraceAnomalies(len(held), dict(list(held.items())[:limit]))
    assert run_anomalies(store, done.run, limit) == expected
    assert "anomalies" not in done.run.config.extra  # the config holds none of them


def test_a_nul_in_an_anomaly_is_stored_as_its_escape(store: Store) -> None:
    """An anomaly quoting an untrusted span name with a NUL in it: PostgreSQL's JSONB refused the
    batch (and the import) with "\\u0000 cannot be converted to text"; on every backend the NUL
    is now kept as the six characters \\u0000, and the rest of the text as it was."""
    _, done = _ingested(store, [["span 'a\x00b': no name"], []], 1)
    shown = run_anomalies(store, done.run)
    assert shown.traces == 1
    assert list(shown.first.values()) == [["span 'a\\u0000b': no name"]]


def test_the_store_keeps_an_anomalys_nul_and_reads_older_escapes_as_they_are(
    store: Store,
) -> None:
    """The store keeps the NUL itself (PostgreSQL marked: rejudge.store._nul), not the six
    characters \\u0000 it stored from fdd331b (that code fails here); a row stored so then is
    read as it was, and both are shown alike."""
    _, done = _ingested(store, [["span 'a\x00b': no name"], []], 1)
    assert list(store.anomalies.first(done.run.id, 5).first.values()) == [
        ["span 'a\x00b': no name"]
    ]
    store.anomalies.add(done.run.id, [(9, "older", ["span 'c\\u0000d'"])])
    stored = store.anomalies.first(done.run.id, 5).first
    assert stored["older"] == ["span 'c\\u0000d'"]
    shown = run_anomalies(store, done.run).first
    assert list(shown.values()) == [["span 'a\\u0000b': no name"], ["span 'c\\u0000d'"]]
