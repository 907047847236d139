"""A trace's ids in the system it was imported from (``Trace.source_ids``) are kept with it but
are not its content: a trace carrying them hashes, behaves and is stored under the same hashes
as the same trace without them, so adding them at import moved no stored hash."""

from __future__ import annotations

from rejudge.store import Store

from rejudge.model import (
    SOURCE_OTEL_SPAN_ID,
    SOURCE_OTEL_TRACE_ID,
    RunConfig,
    Trace,
    behaviour_hash,
    trace_content_hash,
)
from tests.judge.conftest import REGISTRY, call, case, gcall, trace
from tests.store.test_trace_format import FORMAT_1_BODY

IDS = {SOURCE_OTEL_TRACE_ID: "ab" * 16, SOURCE_OTEL_SPAN_ID: "cd" * 8}


def test_source_ids_change_no_hash_and_are_absent_from_bodies_without_them() -> None:
    plain = Trace.model_validate(FORMAT_1_BODY)
    sourced = plain.model_copy(update={"source_ids": IDS})
    assert sourced.hash == plain.hash
    assert trace_content_hash(sourced.model_dump(mode="json")) == plain.hash
    assert behaviour_hash(sourced.model_dump(mode="json")) == behaviour_hash(
        plain.model_dump(mode="json")
    )
    assert "source_ids" not in plain.model_dump(mode="json")
    assert sourced.model_dump(mode="json")["source_ids"] == IDS
    assert Trace.model_validate(sourced.model_dump(mode="json")).source_ids == IDS
    assert sourced.format_version == plain.format_version == 1


def test_the_store_keeps_source_ids_under_the_trace_hash(store: Store) -> None:
    suite = store.suites.save_suite(
        name="s",
        domain="retail",
        suite_hash="sha256:s",
        registry=REGISTRY,
        cases=[case(gcall("get_order", order_id="W1"), id="k1")],
    )
    run = store.runs.create_run(name="r", suite=suite, config=RunConfig(model="m"))
    pk = store.suites.get_case_pks(suite.id)["k1"]
    plain = trace(call("get_order", order_id="W1"), case_id="k1")
    sourced = plain.model_copy(update={"source_ids": IDS})
    store.traces.save_traces([(run.id, pk, sourced, None, None)])
    [stored] = list(store.traces.iter_traces(run.id))
    assert stored.hash == plain.hash == sourced.hash
    assert stored.trace.source_ids == IDS
