"""External verdicts on stored traces: written all or nothing, idempotent, refused when they
would silently change, read back per run and source (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from rejudge.store import RunRecord, Store
from rejudge.store._tables import ExternalVerdictRow

from rejudge.errors import ConflictError, InvalidInputError
from rejudge.model import ExternalVerdict
from rejudge.services import record_external_verdicts, run_external_verdicts
from tests.store.store_factories import count_rows, make_trace


@pytest.fixture
def stored(store: Store, run: RunRecord, case_pks: dict[str, int]) -> RunRecord:
    keys = sorted(case_pks)[:2]
    store.traces.save_traces(
        [
            (run.id, case_pks[k], make_trace(k, rep, seed=i), None, None)
            for i, k in enumerate(keys)
            for rep in (0, 1)
        ]
    )
    return run


def _keys(store: Store, run: RunRecord) -> list[tuple[str, int]]:
    return sorted(store.traces.trace_keys(run.id))


def test_verdicts_round_trip_with_their_detail(store: Store, stored: RunRecord) -> None:
    keys = _keys(store, stored)
    given = [(k, r, float(i % 2), {"reward_info": {"i": i}}) for i, (k, r) in enumerate(keys)]
    assert record_external_verdicts(store, stored.name, "tau-bench", given) == len(keys)
    back = run_external_verdicts(store, stored.name, "tau-bench")
    assert [(v.case_key, v.repetition, v.verdict.value, v.verdict.detail) for v in back] == [
        (k, r, v, d) for k, r, v, d in given
    ]
    assert [v.verdict.passed for v in back] == [bool(i % 2) for i in range(len(keys))]
    assert store.external.external_sources(stored.id) == {"tau-bench": len(keys)}
    # the same verdicts again are a lookup
    assert record_external_verdicts(store, stored.id, "tau-bench", given) == 0
    assert count_rows(store, ExternalVerdictRow) == len(keys)


def test_a_second_source_is_kept_apart(store: Store, stored: RunRecord) -> None:
    (k, r), *_ = _keys(store, stored)
    record_external_verdicts(store, stored.name, "tau-bench", [(k, r, 1.0)])
    record_external_verdicts(store, stored.name, "inspect", [(k, r, 0.0)])
    assert store.external.external_sources(stored.id) == {"inspect": 1, "tau-bench": 1}
    assert [v.verdict.source for v in run_external_verdicts(store, stored.name)] == [
        "inspect",
        "tau-bench",
    ]


def test_a_changed_value_is_refused_unless_replaced(store: Store, stored: RunRecord) -> None:
    (k, r), *_ = _keys(store, stored)
    record_external_verdicts(store, stored.name, "tau-bench", [(k, r, 1.0)])
    with pytest.raises(ConflictError, match="already has a tau-bench verdict of 1.0"):
        record_external_verdicts(store, stored.name, "tau-bench", [(k, r, 0.0)])
    assert record_external_verdicts(store, stored.name, "tau-bench", [(k, r, 0.0)], replace=True)
    assert [v.verdict.value for v in run_external_verdicts(store, stored.name)] == [0.0]


def test_a_bad_batch_writes_nothing(store: Store, stored: RunRecord) -> None:
    (k, r), *_ = _keys(store, stored)
    with pytest.raises(InvalidInputError, match="holds no trace of case 'nope' repetition 0"):
        record_external_verdicts(store, stored.name, "tau-bench", [(k, r, 1.0), ("nope", 0, 1.0)])
    with pytest.raises(InvalidInputError, match="two tau-bench verdicts"):
        record_external_verdicts(store, stored.name, "tau-bench", [(k, r, 1.0), (k, r, 0.0)])
    for bad in (1.5, -0.1, "1", True):
        with pytest.raises(InvalidInputError, match="a number from 0 to 1"):
            record_external_verdicts(store, stored.name, "tau-bench", [(k, r, bad)])
    with pytest.raises(InvalidInputError, match="needs a source"):
        record_external_verdicts(store, stored.name, " ", [(k, r, 1.0)])
    assert count_rows(store, ExternalVerdictRow) == 0


def test_the_schema_bounds_the_value() -> None:
    with pytest.raises(ValidationError):
        ExternalVerdict(source="x", value=2.0)
    with pytest.raises(ValidationError):
        ExternalVerdict(source="", value=1.0)
    assert ExternalVerdict(source="x", value=0.9999999).passed
    assert not ExternalVerdict(source="x", value=0.5).passed
