"""Registries, suite snapshots and runs, on both backends."""

from __future__ import annotations

import pytest
from rejudge.store import RunRecord, Store, SuiteRecord
from rejudge.store._tables import CaseRow, RegistryRow, SuiteRow, TraceRow
from sqlalchemy import select

from rejudge.errors import ConflictError, NotFoundError
from rejudge.model import Case, ToolRegistry
from tests.store.store_factories import (
    count_rows,
    make_case,
    make_config,
    make_registry,
    make_trace,
    suite_hash,
)

# --------------------------------------------------------------------------- registries


def test_registry_is_stored_once_by_content(store: Store, registry: ToolRegistry) -> None:
    first = store.suites.save_registry(registry)
    again = store.suites.save_registry(make_registry())
    assert first == again
    assert count_rows(store, RegistryRow) == 1
    other = store.suites.save_registry(make_registry(version="2"))
    assert other != first
    assert count_rows(store, RegistryRow) == 2


def test_registry_round_trips(store: Store, registry: ToolRegistry) -> None:
    registry_id = store.suites.save_registry(registry)
    assert store.suites.get_registry(registry_id) == registry
    assert store.suites.get_registry_by_hash(registry.hash) == registry
    assert store.suites.get_registry(registry_id).hash == registry.hash


def test_missing_registry_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="^no tool registry with id 424242$"):
        store.suites.get_registry(424242)
    with pytest.raises(NotFoundError, match="^no tool registry with hash sha256:0{64}$"):
        store.suites.get_registry_by_hash("sha256:" + "0" * 64)


# --------------------------------------------------------------------------- suites


def test_suite_snapshot_round_trips(
    store: Store, suite: SuiteRecord, registry: ToolRegistry, cases: list[Case]
) -> None:
    assert suite.name == "retail"
    assert suite.case_count == len(cases)
    assert suite.meta == {"source": "tests"}
    assert store.suites.get_registry(suite.registry_id) == registry
    stored = store.suites.get_cases(suite.id)
    assert list(stored) == [c.id for c in cases]  # suite order kept
    assert [case for _pk, case in stored.values()] == cases
    by_pk = store.suites.get_cases_by_ids(pk for pk, _case in stored.values())
    assert sorted(c.id for c in by_pk.values()) == sorted(c.id for c in cases)
    assert store.suites.get_suite_by_id(suite.id) == suite
    assert store.suites.get_suite("retail") == suite
    # the keys alone: same ids, same order, same row ids as the full read
    pks = store.suites.get_case_pks(suite.id)
    assert list(pks.items()) == [(key, pk) for key, (pk, _case) in stored.items()]


def test_given_case_hashes_are_stored_as_computed_ones(
    store: Store, registry: ToolRegistry, cases: list[Case]
) -> None:
    hashes = [c.hash for c in cases]
    given = store.suites.save_suite(
        name="given",
        domain="retail",
        suite_hash=suite_hash(cases, registry),
        registry=registry,
        cases=cases,
        case_hashes=hashes,
    )
    computed = store.suites.save_suite(
        name="computed",
        domain="retail",
        suite_hash=suite_hash(cases, registry),
        registry=registry,
        cases=cases,
    )
    with store.engine.connect() as c:
        rows = c.execute(
            select(CaseRow.suite_id, CaseRow.hash).order_by(CaseRow.suite_id, CaseRow.position)
        ).all()
    by_suite: dict[int, list[str]] = {}
    for suite_id, digest in rows:
        by_suite.setdefault(suite_id, []).append(digest)
    assert by_suite[given.id] == by_suite[computed.id] == hashes
    with pytest.raises(ValueError, match="one hash per case"):
        store.suites.save_suite(
            name="short",
            domain="retail",
            suite_hash="x",
            registry=registry,
            cases=cases,
            case_hashes=hashes[:-1],
        )


def test_same_snapshot_is_a_lookup_not_a_new_row(
    store: Store, suite: SuiteRecord, registry: ToolRegistry, cases: list[Case]
) -> None:
    again = store.suites.save_suite(
        name="retail",
        domain="retail",
        suite_hash=suite_hash(cases, registry),
        registry=registry,
        cases=cases,
    )
    assert again.id == suite.id
    assert count_rows(store, SuiteRow) == 1
    assert count_rows(store, CaseRow) == len(cases)
    assert count_rows(store, RegistryRow) == 1


def test_editing_a_case_makes_a_new_snapshot_and_old_traces_keep_theirs(
    store: Store,
    suite: SuiteRecord,
    run: RunRecord,
    registry: ToolRegistry,
    cases: list[Case],
    case_pks: dict[str, int],
) -> None:
    store.traces.save_trace(run.id, case_pks["case-001"], make_trace("case-001"))
    edited = list(cases)
    edited[1] = make_case(1, instruction="Cancel order #W101 please, it is broken.")
    new = store.suites.save_suite(
        name="retail",
        domain="retail",
        suite_hash=suite_hash(edited, registry),
        registry=registry,
        cases=edited,
    )
    assert new.id != suite.id
    assert new.hash != suite.hash
    assert count_rows(store, SuiteRow) == 2
    assert count_rows(store, RegistryRow) == 1  # the unchanged registry is shared
    # the newest snapshot is what a name resolves to; the old one stays reachable by hash
    assert store.suites.get_suite("retail").id == new.id
    assert store.suites.get_suite("retail", suite.hash).id == suite.id
    assert [s.id for s in store.suites.list_suites()] == [suite.id, new.id]
    # the trace still points at the case as it was when it was recorded
    (stored,) = list(store.traces.iter_traces(run.id))
    old_case = store.suites.get_cases_by_ids([stored.case_pk])[stored.case_pk]
    assert old_case == cases[1]
    assert store.suites.get_cases(new.id)["case-001"][1] == edited[1]
    assert store.suites.get_cases(suite.id)["case-001"][1] == cases[1]


def test_missing_suite_is_not_found(store: Store, suite: SuiteRecord) -> None:
    with pytest.raises(NotFoundError, match="no suite named 'nope'"):
        store.suites.get_suite("nope")
    with pytest.raises(NotFoundError):
        store.suites.get_suite("retail", "sha256:" + "f" * 64)
    with pytest.raises(NotFoundError):
        store.suites.get_suite_by_id(suite.id + 1000)


# --------------------------------------------------------------------------- runs


def test_create_run_records_its_inputs(
    store: Store, suite: SuiteRecord, run: RunRecord, registry: ToolRegistry
) -> None:
    assert run.name == "run-1"
    assert run.suite_id == suite.id
    assert run.registry_id == suite.registry_id
    assert run.model == "smollm2"
    assert run.base_url == "http://127.0.0.1:8080/v1"
    assert run.harness_mode == "production-parity"
    assert run.config == make_config()
    assert run.config_hash.startswith("sha256:")
    assert run.suite_hash == suite.hash
    assert run.registry_hash == registry.hash
    assert run.status == "running"
    assert run.finished_at is None


def test_same_run_resumes(store: Store, suite: SuiteRecord, run: RunRecord) -> None:
    again = store.runs.create_run(name="run-1", suite=suite, config=make_config())
    assert again == run
    assert len(store.runs.list_runs()) == 1


def test_run_with_other_inputs_conflicts(store: Store, suite: SuiteRecord, run: RunRecord) -> None:
    with pytest.raises(ConflictError, match="different suite or configuration") as info:
        store.runs.create_run(name="run-1", suite=suite, config=make_config(temperature=0.7))
    # the message names what differs, with both values, and only that
    message = str(info.value)
    assert f"temperature: stored {make_config().temperature!r}, now 0.7" in message
    assert "base_url" not in message and "model:" not in message
    with pytest.raises(ConflictError, match=r"base_url: stored .*, now 'http://127.0.0.1:1/v1'"):
        store.runs.create_run(
            name="run-1",
            suite=suite,
            config=make_config().model_copy(update={"base_url": "http://127.0.0.1:1/v1"}),
        )
    # a local server restarted on another port: the message says which port resumes the run
    local = make_config().model_copy(update={"base_url": "http://127.0.0.1:5000/v1"})
    store.runs.create_run(name="run-local", suite=suite, config=local)
    moved = local.model_copy(update={"base_url": "http://127.0.0.1:5001/v1"})
    with pytest.raises(ConflictError, match=r"restart it on port 5000 to resume\)"):
        store.runs.create_run(name="run-local", suite=suite, config=moved)
    elsewhere = local.model_copy(update={"base_url": "http://10.0.0.2:5001/v1"})
    with pytest.raises(ConflictError) as remote:
        store.runs.create_run(name="run-local", suite=suite, config=elsewhere)
    assert "serve-local" not in str(remote.value)
    # an operational knob (concurrency) is not part of a run's identity: it resumes
    assert (
        store.runs.create_run(name="run-1", suite=suite, config=make_config(concurrency=7)) == run
    )
    with pytest.raises(ConflictError, match="already exists"):
        store.runs.create_run(name="run-1", suite=suite, config=make_config(), resume=False)


def test_get_run_by_name_or_id(store: Store, run: RunRecord) -> None:
    assert store.runs.get_run("run-1") == run
    assert store.runs.get_run(run.id) == run
    assert store.runs.get_run(str(run.id)) == run
    with pytest.raises(NotFoundError):
        store.runs.get_run("run-2")
    with pytest.raises(NotFoundError):
        store.runs.get_run(run.id + 1000)


def test_list_runs_counts_traces_and_finish_sets_status(
    store: Store, suite: SuiteRecord, run: RunRecord, case_pks: dict[str, int]
) -> None:
    other = store.runs.create_run(name="run-2", suite=suite, config=make_config("gpt-x", repeat=2))
    for key in ("case-000", "case-002"):
        store.traces.save_trace(run.id, case_pks[key], make_trace(key))
    store.runs.finish_run(run.id)
    listed = store.runs.list_runs()
    assert [r.name for r in listed] == ["run-1", "run-2"]
    assert listed[0].traces == 2 and listed[1].traces == 0
    assert listed[0].suite == "retail"
    assert listed[1].model == "gpt-x" and listed[1].repeat == 2
    assert listed[0].status == "finished" and listed[0].finished_at is not None
    assert listed[1].status == "running"
    assert store.runs.get_run(other.id).status == "running"
    store.runs.finish_run(other.id, status="interrupted")
    assert store.runs.get_run("run-2").status == "interrupted"
    assert count_rows(store, TraceRow) == 2


def test_suite_with_duplicate_case_ids_is_refused_whole(
    store: Store, registry: ToolRegistry
) -> None:
    from rejudge.errors import InvalidInputError

    cases = [make_case(1), make_case(2), make_case(1, instruction="same id again")]
    with pytest.raises(InvalidInputError, match="case-001|two cases"):
        store.suites.save_suite(
            name="dup", domain="retail", suite_hash="sha256:dup", registry=registry, cases=cases
        )
    assert count_rows(store, SuiteRow) == 0
    assert count_rows(store, CaseRow) == 0


def test_resume_may_change_operational_knobs_only(store) -> None:
    from rejudge.errors import ConflictError
    from rejudge.model import Case, Golden, RunConfig, ToolRegistry, ToolSpec

    registry = ToolRegistry(domain="ops", tools=[ToolSpec(name="f", read_only=True)])
    case = Case(id="c1", dimension="D1", category="x", instruction="i", golden=Golden())
    suite = store.suites.save_suite(
        name="ops", domain="ops", suite_hash="sha256:ops", registry=registry, cases=[case]
    )
    first = store.runs.create_run(name="r", suite=suite, config=RunConfig(model="m", concurrency=1))
    again = store.runs.create_run(
        name="r", suite=suite, config=RunConfig(model="m", concurrency=16, rpm=60)
    )
    assert again.id == first.id
    with pytest.raises(ConflictError):
        store.runs.create_run(name="r", suite=suite, config=RunConfig(model="m", temperature=0.7))
