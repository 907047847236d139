"""record_suite end to end: cassettes + rows, replay hash-match, renormalize, resume, no duplicates."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from recorder_fakes import (
    FakeModelServer,
    Reply,
    ScriptedModel,
    call,
    calls_turn,
    case,
    final_turn,
    instruction_of,
    suite,
)
from rejudge.recorder import ProviderUnreachableError, RecordProgress, read_cassette, requests_match
from rejudge.store import Store

from rejudge.model import RunConfig
from rejudge.services import record_suite, renormalize_run, replay_run, resolve_evidence_path

SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz0123"

SCRIPT = {
    "sum": [calls_turn(call("add", {"a": 2, "b": 3})), final_turn("5")],
    "parallel": [
        calls_turn(call("get_user", {"user_id": "U1"}), call("get_weather", {"city": "Oslo"})),
        final_turn("done"),
    ],
    "no call": [final_turn("I cannot help with that")],
    "bad args": [calls_turn(call("add", "{not json")), final_turn("oops")],
    "unknown": [calls_turn(call("fly", {"to": "moon"})), final_turn("no")],
    "loops": [calls_turn(call("add", {"a": 1, "b": 1}))] * 20,
    "fails": [lambda body, attempt: Reply(status=503, body="overloaded")],
}
CASES = [case(f"c{i}", instruction) for i, instruction in enumerate(SCRIPT)]


async def _no_sleep(_: float) -> None:
    return None


@pytest.fixture()
def store(tmp_path: Path) -> Store:
    s = Store.open(f"sqlite:///{tmp_path / 'rejudge.db'}")
    yield s
    s.close()


def _record(store: Store, server: FakeModelServer, cassettes: Path, **kwargs: Any) -> Any:
    cfg_args = {
        "model": "fake-model",
        "base_url": server.base_url,
        "max_retries": 1,
        "harness_assistance": {"round_budget": 4},
    }
    cfg_args.update(kwargs.pop("config", {}))
    return record_suite(
        store,
        kwargs.pop("the_suite", suite(CASES)),
        RunConfig(**cfg_args),
        cassettes,
        api_key=SECRET,
        run_name=kwargs.pop("run_name", "run1"),
        sleep=_no_sleep,
        **kwargs,
    )


def test_record_writes_cassettes_and_rows_and_replay_matches(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    seen: list[RecordProgress] = []
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        summary = _record(
            store, server, cassettes, config={"concurrency": 4, "repeat": 2}, progress=seen.append
        )
    assert summary.recorded == len(CASES) * 2
    assert seen[-1].done == seen[-1].total == 14
    assert seen[-1].agent_errors == 4  # "loops" and "fails", twice each
    traces = {(t.case_key, t.repetition): t for t in store.traces.iter_traces(summary.run.id)}
    assert len(traces) == 14
    by_case = {key: t.trace for (key, rep), t in traces.items() if rep == 0}
    assert by_case["c0"].rounds[0].calls[0].result == {"sum": 5}
    assert [c.name for c in by_case["c1"].rounds[0].calls] == ["get_user", "get_weather"]
    assert by_case["c2"].calls == [] and by_case["c2"].final_text == "I cannot help with that"
    bad = by_case["c3"].rounds[0].calls[0]
    assert bad.arguments is None and bad.arguments_raw == "{not json" and bad.ok is False
    assert by_case["c4"].rounds[0].calls[0].ok is False
    assert by_case["c5"].status == "agent_error" and by_case["c5"].error.kind == "round_budget"
    assert len(by_case["c5"].rounds) == 4 and by_case["c5"].rounds[-1].calls[0].ok is True
    assert by_case["c6"].error.kind == "retries_exhausted"
    for (key, rep), stored in traces.items():
        path = resolve_evidence_path(stored.cassette_path, cassettes)
        assert path.name == f"{key}__r{rep}.yaml" and path.parent.name == "run1"
        cassette = read_cassette(path)
        assert cassette.sha256 == stored.cassette_hash
        assert cassette.meta["case"] == key and cassette.meta["cassette_format"] == 1
        assert stored.trace.normalizer_version is not None

    report = replay_run(store, "run1", cassettes)
    assert report.ok, report.divergences
    assert report.matched == 14

    again = renormalize_run(store, "run1", cassettes)
    assert again.changed == 0 and again.unchanged == 14


def test_no_secret_reaches_any_cassette(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        _record(store, server, cassettes)
    files = sorted(cassettes.rglob("*.yaml"))
    assert len(files) == len(CASES)
    for path in files:
        text = path.read_text()
        assert SECRET not in text and "secret-cookie-value" not in text and "org-secret" not in text
        data = yaml.safe_load(text)
        for interaction in data["interactions"]:
            req_headers = {k.lower(): v for k, v in interaction["request"]["headers"].items()}
            resp_headers = {k.lower(): v for k, v in interaction["response"]["headers"].items()}
            assert "authorization" not in req_headers
            assert "set-cookie" not in resp_headers
            assert "openai-organization" not in resp_headers


def test_vcrpy_loads_our_cassettes(store: Store, tmp_path: Path) -> None:
    from vcr.persisters.filesystem import FilesystemPersister
    from vcr.serializers import yamlserializer

    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        _record(store, server, cassettes, case_ids=["c1"])
    path = cassettes / "run1" / "c1__r0.yaml"
    loaded = FilesystemPersister.load_cassette(str(path), yamlserializer)
    requests, responses = loaded[0], loaded[1]
    assert len(requests) == 2 and requests[0].path == "/v1/chat/completions"
    assert responses[0]["status"]["code"] == 200


def test_resume_records_only_what_is_missing(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        first = _record(store, server, cassettes, case_ids=["c0", "c1"])
        assert first.recorded == 2
        # a kill between the cassette rename and the row insert leaves a cassette without a row
        orphan = cassettes / "run1" / "c2__r0.yaml"
        orphan.write_text("half a cassette")
        requests_before = len(server.requests)
        second = _record(store, server, cassettes)
        requests_after = len(server.requests)
    assert second.progress.skipped == 2 and second.recorded == len(CASES) - 2
    keys = [(t.case_key, t.repetition) for t in store.traces.iter_traces(second.run.id)]
    assert len(keys) == len(set(keys)) == len(CASES)
    assert read_cassette(orphan).meta["case"] == "c2"  # re-recorded
    assert "c0" not in str(server.requests[requests_before:requests_after])
    assert replay_run(store, "run1", cassettes).ok
    assert second.run.status == "finished"


def test_two_recorders_on_one_run_never_duplicate(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    url = str(store.engine.url)
    results: list[Any] = []
    with FakeModelServer(ScriptedModel(SCRIPT), delay_s=0.01) as server:
        # create the run first so both see the same one
        _record(store, server, cassettes, case_ids=["c0"])

        def worker() -> None:
            other = Store.open(url)
            try:
                results.append(_record(other, server, cassettes))
            finally:
                other.close()

        threads = [threading.Thread(target=worker) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(results) == 2
    stored = list(store.traces.iter_traces(store.runs.get_run("run1").id))
    keys = [(t.case_key, t.repetition) for t in stored]
    assert sorted(keys) == sorted({(c.id, 0) for c in CASES})
    # every row's cassette on disk is the one the row describes
    for t in stored:
        assert (
            read_cassette(resolve_evidence_path(t.cassette_path, cassettes)).sha256
            == t.cassette_hash
        )
    assert replay_run(store, "run1", cassettes).ok


def test_replay_reports_divergence_with_case_round_and_field(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        _record(store, server, cassettes, case_ids=["c0"])
    path = cassettes / "run1" / "c0__r0.yaml"
    data = yaml.safe_load(path.read_text())
    # the harness "changed": the second recorded request no longer matches what the loop sends
    second = data["interactions"][1]["request"]
    second["body"] = second["body"].replace('"temperature": 0.0', '"temperature": 0.7')
    path.write_text(yaml.safe_dump(data))
    report = replay_run(store, "run1", cassettes)
    assert not report.ok
    (div,) = report.divergences
    assert div.case == "c0" and div.round == 1
    assert div.field == "body.temperature"
    assert "nearest is interaction #2" in div.message and str(path) in div.message


def test_replay_detects_a_changed_trace(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        _record(store, server, cassettes, case_ids=["c0"])
    path = cassettes / "run1" / "c0__r0.yaml"
    data = yaml.safe_load(path.read_text())
    data["interactions"][1]["response"]["body"]["string"] = data["interactions"][1]["response"][
        "body"
    ]["string"].replace('"content": "5"', '"content": "6"')
    path.write_text(yaml.safe_dump(data))
    report = replay_run(store, "run1", cassettes)
    (div,) = report.divergences
    assert div.round == 1 and div.field == "rounds[1].text"


def test_anthropic_streaming_record_and_replay(store: Store, tmp_path: Path) -> None:
    script = {
        "sum": [
            calls_turn(
                call("add", {"a": 2, "b": 3}), call("add", {"a": 1, "b": 1}), anthropic=True
            ),
            final_turn("5", anthropic=True),
        ],
    }
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(script)) as server:
        summary = record_suite(
            store,
            suite([case("a1", "sum")]),
            RunConfig(model="claude", provider="anthropic", base_url=server.root_url, stream=True),
            cassettes,
            api_key=SECRET,
            run_name="anth",
        )
    (stored,) = list(store.traces.iter_traces(summary.run.id))
    assert [c.result for c in stored.trace.rounds[0].calls] == [{"sum": 5}, {"sum": 2}]
    assert SECRET not in resolve_evidence_path(stored.cassette_path, cassettes).read_text()
    assert replay_run(store, "anth", cassettes).ok


def test_unknown_case_filter_is_a_clear_error(store: Store, tmp_path: Path) -> None:
    from rejudge.errors import NotFoundError

    with pytest.raises(NotFoundError, match="no case 'nope'"):
        record_suite(store, suite(CASES), RunConfig(model="m"), tmp_path, case_ids=["nope"])


def test_network_failures_replay_from_the_cassettes_account(store: Store, tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    server = FakeModelServer(ScriptedModel(SCRIPT))
    port = server.port
    server._server.server_close()  # nothing listens: every attempt is a connection error
    summary = record_suite(
        store,
        suite(CASES[:2]),
        RunConfig(model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=1),
        cassettes,
        run_name="down",
        sleep=_no_sleep,
    )
    assert summary.progress.agent_errors == 2
    (first, _second) = list(store.traces.iter_traces(summary.run.id))
    assert first.trace.error.kind == "retries_exhausted" and first.trace.rounds == []
    report = replay_run(store, "down", cassettes)
    assert report.ok, report.divergences


def test_concurrency_changes_neither_traces_nor_requests_and_each_worker_keeps_its_connection(
    store: Store, tmp_path: Path
) -> None:
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        _record(store, server, cassettes, run_name="serial")
        serial_requests = len(server.requests)
        _record(store, server, cassettes, run_name="parallel", config={"concurrency": 3})
        parallel = server.requests[serial_requests:]

    def calls_without_ids(run: str) -> dict[str, Any]:
        # the fake server mints a new call id per response; everything else must be equal
        return {
            t.case_key: [
                [c.model_dump(exclude={"id"}) for c in rnd.calls] for rnd in t.trace.rounds
            ]
            + [t.trace.status, t.trace.error, t.trace.final_text]
            for t in store.traces.iter_traces(store.runs.get_run(run).id)
        }

    assert calls_without_ids("serial") == calls_without_ids("parallel")
    assert len(calls_without_ids("serial")) == len(CASES)
    for name in (f"{c.id}__r0.yaml" for c in CASES):
        one = read_cassette(cassettes / "serial" / name).interactions
        other = read_cassette(cassettes / "parallel" / name).interactions
        assert len(one) == len(other)
        for a, b in zip(one, other, strict=True):
            assert requests_match(a["request"], b["request"])
            # same client headers (content-length follows the ids' lengths)
            assert {**a["request"]["headers"], "content-length": None} == {
                **b["request"]["headers"],
                "content-length": None,
            }
    # each worker sends over its own kept-alive connection, so a trace never changes connection
    # (one pool shared by all workers handed each request whichever connection was idle)
    by_trace: dict[str, set[int]] = {}
    for request in parallel:
        instruction = request["body"]["messages"][0]["content"]
        by_trace.setdefault(instruction, set()).add(request["connection"])
    assert all(len(ports) == 1 for ports in by_trace.values()), by_trace
    assert len({request["connection"] for request in parallel}) <= 3


def test_a_failing_store_ends_the_run_with_its_error_not_a_hang(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rejudge.store import DatabaseUnavailableError

    def down(*args: Any, **kwargs: Any) -> int:
        raise DatabaseUnavailableError("database went away")

    monkeypatch.setattr(store.traces, "save_traces", down)
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        with pytest.raises(DatabaseUnavailableError, match="went away"):
            _record(store, server, tmp_path / "c", config={"concurrency": 2})


def test_llama_cpp_provider_records_results_and_replays(store: Store, tmp_path: Path) -> None:
    """Echoing results as a user turn keeps them where the normalizer reads them (role tool)."""
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        summary = _record(store, server, cassettes, config={"provider": "llama-cpp"})
    traces = {t.case_key: t.trace for t in store.traces.iter_traces(summary.run.id)}
    assert traces["c0"].rounds[0].calls[0].result == {"sum": 5}
    assert traces["c0"].rounds[0].calls[0].ok is True
    report = replay_run(store, "run1", cassettes)
    assert report.ok, report.divergences
    assert report.matched == len(CASES)


def test_a_provider_that_never_answers_stops_the_run_and_records_nothing(
    store: Store, tmp_path: Path
) -> None:
    """Connection refused on trace after trace is an outage, not model behaviour: the run stops
    after UNREACHABLE_STREAK of them with one clear error, writes none of them, and the same
    command resumes the whole suite once the server is up."""
    cassettes = tmp_path / "cassettes"
    server = FakeModelServer(ScriptedModel(SCRIPT))
    port = server.port
    server._server.server_close()
    config = RunConfig(model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(ProviderUnreachableError, match=r"no response from http://127\.0\.0\.1:"):
        record_suite(store, suite(CASES), config, cassettes, run_name="down", sleep=_no_sleep)
    run = store.runs.get_run("down")
    assert store.traces.trace_keys(run.id) == set()
    assert not list(cassettes.glob("down/*.yaml"))

    with FakeModelServer(ScriptedModel(SCRIPT), port=port) as up:
        summary = record_suite(
            store, suite(CASES), config, cassettes, run_name="down", sleep=_no_sleep
        )
        assert up.requests
    assert summary.recorded == len(CASES) and summary.progress.skipped == 0


def test_one_unreachable_trace_among_answered_ones_is_recorded_as_agent_error(
    store: Store, tmp_path: Path
) -> None:
    refused = {"sum"}

    class FlakyTransport(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.AsyncHTTPTransport()

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if instruction_of(json.loads(request.content)) in refused:
                raise httpx.ConnectError("connection refused", request=request)
            return await self.inner.handle_async_request(request)

        async def aclose(self) -> None:
            await self.inner.aclose()

    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        summary = _record(
            store, server, cassettes, config={"max_retries": 0}, transport=FlakyTransport()
        )
    assert summary.recorded == len(CASES)
    traces = {t.case_key: t.trace for t in store.traces.iter_traces(summary.run.id)}
    assert traces["c0"].error.kind == "retries_exhausted" and traces["c0"].rounds == []
    assert traces["c1"].status != "agent_error"


def test_a_case_subset_ends_partial_and_the_rest_finishes_the_run(
    store: Store, tmp_path: Path
) -> None:
    """`record --case ID` records a subset: the run ends `partial`, never `running` forever;
    recording the remaining cases into the same run ends it `finished`."""
    cassettes = tmp_path / "cassettes"
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        first = _record(store, server, cassettes, case_ids=["c0", "c2"])
        assert first.recorded == 2 and first.run.status == "partial"
        assert first.run.finished_at is not None
        assert store.runs.get_run("run1").status == "partial"
        rest = _record(store, server, cassettes)
    assert rest.recorded == len(CASES) - 2 and rest.progress.skipped == 2
    assert rest.run.status == "finished"
    assert store.traces.count_traces(rest.run.id) == len(CASES)


def test_a_full_run_ends_finished(store: Store, tmp_path: Path) -> None:
    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        summary = _record(store, server, tmp_path / "cassettes", case_ids=[c.id for c in CASES])
    assert summary.run.status == "finished"  # a "subset" naming every case is the whole suite


def test_a_recording_of_a_subset_expects_only_its_traces(store: Store, tmp_path: Path) -> None:
    """`record --case c0 --case c1 --repeat 3` expects 6 traces while it runs (what the live
    monitor shows and times its ETA by), not the suite's cases x 3; a later recording of the
    whole suite expects them all again."""
    cassettes = tmp_path / "cassettes"
    seen: list[tuple[int, int, list[str]]] = []

    def watch(_state: RecordProgress) -> None:
        run = next((r for r in store.catalog.run_summaries() if r.run == "run1"), None)
        if run is not None:
            pending = [p.case for p in store.traces.pending_cases(run.id, limit=100)]
            seen.append((run.traces, run.expected_traces, pending))

    with FakeModelServer(ScriptedModel(SCRIPT)) as server:
        _record(
            store, server, cassettes, case_ids=["c0", "c1"], config={"repeat": 3}, progress=watch
        )
        assert seen and all(expected == 6 for _done, expected, _p in seen)
        assert all(set(pending) <= {"c0", "c1"} for _d, _e, pending in seen)
        _record(store, server, cassettes, config={"repeat": 3})
    whole = next(r for r in store.catalog.run_summaries() if r.run == "run1")
    assert whole.expected_traces == len(CASES) * 3 == whole.traces
