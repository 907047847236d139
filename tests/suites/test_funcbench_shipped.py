"""The shipped FuncBenchGen sweep (cassettes/sweep-SmolLM2-135M-Instruct-*), replayed offline.

The cassettes were recorded against the real local model (SmolLM2-135M-Instruct) by
``rejudge sweep funcbench`` (command and figures in docs/funcbench-sweep.md); the suites they
record are shipped in suites/data/funcbench-sweep/. With the network blocked this test

1. rebuilds each run from its cassettes (the run config is in every cassette) on the shipped
   suite, into a temporary store;
2. replays every trace through the agent loop (every request must match a recorded one and the
   re-derived trace must hash to the stored one);
3. judges the runs under the ``outcome`` tier and checks that the verdict counts and failure
   types equal the tables committed in docs/funcbench-sweep.md.
"""

from __future__ import annotations

import json
import re
import socket
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import rejudge.suites.domains.funcbench  # noqa: F401
from rejudge.judge import DEFAULT_RULE_SET, judge, load_rule_set
from rejudge.recorder import read_cassette, trace_from_cassette
from rejudge.store import Store
from rejudge.suites.generators import (
    Knobs,
    default_suite_name,
    generate_suite,
    load_generated_suite,
)

from rejudge import suites  # noqa: F401  registers the built-in domains
from rejudge.model import RunConfig
from rejudge.services import judge_run, replay_run, snapshot_suite, summarize_cell, timeout_failures

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes"
SUITES = REPO / "suites" / "data" / "funcbench-sweep"
DOC = REPO / "docs" / "funcbench-sweep.md"
RUN_PREFIX = "sweep-SmolLM2-135M-Instruct-"
SECRET_HEADER = re.compile(
    r"^\s*-?\s*(authorization|x-api-key|api-key|openai-organization|cookie):",
    re.IGNORECASE | re.MULTILINE,
)


def run_folders() -> list[Path]:
    return sorted(p for p in CASSETTES.glob(RUN_PREFIX + "*") if p.is_dir())


def cassette_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*__r*.yaml"))


def doc_table(heading: str) -> list[dict[str, str]]:
    """The markdown table right under ``heading`` in the doc, as one dict per row."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and heading in line)
    # the first contiguous table after the heading
    first = next(i for i, line in enumerate(lines) if i > start and line.startswith("|"))
    rows = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    header, body = rows[0], rows[2:]
    return [dict(zip(header, row, strict=True)) for row in body]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Rebuild, replay and judge every shipped sweep run with the network blocked."""
    folders = run_folders()
    assert folders, f"no shipped sweep cassettes under {CASSETTES}/{RUN_PREFIX}*"

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the shipped sweep must replay without the network")

    db = tmp_path_factory.mktemp("shipped") / "replay.db"
    out: dict[str, Any] = {"runs": {}, "replays": {}, "sweep": {}}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", no_network)
        store = Store.open(f"sqlite:///{db}")
        try:
            rules = load_rule_set(DEFAULT_RULE_SET)
            for folder in folders:
                cassettes = [read_cassette(path) for path in cassette_files(folder)]
                meta = cassettes[0].meta
                config = RunConfig.model_validate(meta["config"])
                knobs = Knobs(**config.extra["knobs"])
                source = load_generated_suite(SUITES / default_suite_name(knobs))
                suite = snapshot_suite(store, source)
                run = store.runs.create_run(name=str(meta["run"]), suite=suite, config=config)
                pks = store.suites.get_case_pks(suite.id)
                rows = []
                for cassette in cassettes:
                    assert cassette.meta["config"] == meta["config"], cassette.path
                    case_id = str(cassette.meta["case"])
                    rep = int(cassette.meta["repetition"])
                    trace = trace_from_cassette(cassette.interactions, cassette.meta, case_id, rep)
                    relative = cassette.path.relative_to(CASSETTES).as_posix()
                    rows.append((run.id, pks[case_id], trace, relative, cassette.sha256))
                assert store.traces.save_traces(rows) == len(rows)
                store.runs.finish_run(run.id, "finished")

                out["replays"][run.name] = replay_run(store, run.id, CASSETTES, concurrency=4)

                evaluation = judge_run(store, run.id, "outcome", rules).evaluation_id
                traces = {
                    (t.case_key, t.repetition): t.trace for t in store.traces.iter_traces(run.id)
                }
                cases = {case.id: case for case in source.cases}
                counts: Counter[str] = Counter()
                first: Counter[str] = Counter()
                for row in store.judgments.iter_evaluation_rows(evaluation, with_body=True):
                    body = row.body or {}
                    verdict = row.verdict
                    if verdict == "AGENT_ERROR" and any(
                        r.startswith("round_budget") for r in body.get("reasons") or []
                    ):
                        # cut off at the round budget: a timeout, attributed to its first
                        # failing call as the outcome tier sees the calls it made
                        counts["timeout"] += 1
                        trace = traces[(row.case_key, row.repetition)]
                        ended = trace.model_copy(update={"status": "completed", "error": None})
                        verdict_of_calls = judge(
                            ended, cases[row.case_key], source.registry, "outcome", rules
                        )
                        assert verdict_of_calls.verdict == "FAIL"
                        assert verdict_of_calls.details["timeout"] is True
                        first[verdict_of_calls.details["first_failure"] or "no failing call"] += 1
                        continue
                    counts[verdict] += 1
                    if verdict == "FAIL":
                        details = body.get("details") or {}
                        first[details.get("first_failure") or "no failing call"] += 1
                # what `rejudge sweep` itself makes of the same evaluation
                out["sweep"][run.name] = summarize_cell(
                    store, evaluation, timeout_failures(store, run.id, source, rules)
                )
                out["runs"][run.name] = {
                    "core": knobs.n_core,
                    "depth": knobs.depth,
                    "restate": config.restate_known_values,
                    "traces": len(rows),
                    "counts": counts,
                    "first": first,
                }
        finally:
            store.close()
    return out


def test_every_trace_replays_offline(replayed: dict[str, Any]) -> None:
    for name, report in replayed["replays"].items():
        assert report.divergences == [], (name, [d.as_dict() for d in report.divergences])
        assert report.matched == report.traces == replayed["runs"][name]["traces"]


def test_verdict_counts_match_the_committed_table(replayed: dict[str, Any]) -> None:
    committed = {row["run"]: row for row in doc_table("Per-run verdicts")}
    assert set(committed) == set(replayed["runs"])
    for name, run in replayed["runs"].items():
        row = committed[name]
        counts = run["counts"]
        assert int(row["core"]) == run["core"]
        assert int(row["depth"]) == run["depth"]
        assert row["restatement"] == ("yes" if run["restate"] else "no")
        assert int(row["traces"]) == run["traces"]
        for column in ("PASS", "FAIL", "timeout", "AGENT_ERROR"):
            assert int(row[column]) == counts[column], (name, column)
        scored = counts["PASS"] + counts["FAIL"] + counts["timeout"]
        assert row["success"] == _pct(counts["PASS"] / scored if scored else None), name


def test_failure_types_match_the_committed_table(replayed: dict[str, Any]) -> None:
    committed = {row["arm"]: row for row in doc_table("Failure types")}
    for restate, arm in ((False, "plain"), (True, "with restatement")):
        totals: Counter[str] = Counter()
        for run in replayed["runs"].values():
            if run["restate"] == restate:
                totals.update(run["first"])
        row = committed[arm]
        assert int(row["failed"]) == sum(totals.values()), arm
        timeouts = sum(
            run["counts"]["timeout"]
            for run in replayed["runs"].values()
            if run["restate"] == restate
        )
        assert int(row["timeouts"]) == timeouts, arm
        for column, value in row.items():
            if column in ("arm", "failed", "timeouts"):
                continue
            assert int(value) == totals[column], (arm, column)
        assert set(totals) <= set(row), (arm, totals)


def test_shipped_suites_are_the_generated_ones_the_cassettes_record() -> None:
    for folder in run_folders():
        cassettes = [read_cassette(path) for path in cassette_files(folder)]
        knobs = Knobs(**cassettes[0].meta["config"]["extra"]["knobs"])
        shipped = load_generated_suite(SUITES / default_suite_name(knobs))
        # same seed and knobs: the same suite, byte for byte
        assert shipped.hash == generate_suite(knobs).hash
        cases = {case.id: case for case in shipped.cases}
        for cassette in cassettes:
            assert cases[cassette.meta["case"]].hash == cassette.meta["case_hash"], cassette.path


def test_shipped_cassettes_hold_no_secret_header() -> None:
    for folder in run_folders():
        for path in cassette_files(folder):
            assert not SECRET_HEADER.search(path.read_text(encoding="utf-8")), path


def test_recorded_requests_follow_the_local_model_notes() -> None:
    """System message first (the server renders tools only inside one), tool_choice "auto",
    only the case's own functions offered; restatement (by variable name) only in its arm."""
    for folder in run_folders():
        cassettes = [read_cassette(path) for path in cassette_files(folder)]
        config = RunConfig.model_validate(cassettes[0].meta["config"])
        knobs = Knobs(**config.extra["knobs"])
        cases = {c.id: c for c in load_generated_suite(SUITES / default_suite_name(knobs)).cases}
        assert config.provider == "local" and config.system_prompt
        for cassette in cassettes:
            case = cases[cassette.meta["case"]]
            restated = 0
            for interaction in cassette.interactions:
                body = json.loads(interaction["request"]["body"])
                assert body["messages"][0] == {"role": "system", "content": config.system_prompt}
                assert body["tool_choice"] == "auto"
                offered = sorted(t["function"]["name"] for t in body["tools"])
                assert offered == sorted(case.metadata["tools"]), cassette.path
                restated = sum(
                    1
                    for m in body["messages"]
                    if m["role"] == "user" and m["content"].startswith("Known values so far:")
                )
            if config.restate_known_values and len(cassette.interactions) > 1:
                assert restated == len(cassette.interactions) - 1, cassette.path
            else:
                assert restated == 0, cassette.path


def test_the_sweeps_own_accounting_agrees(replayed: dict[str, Any]) -> None:
    """`rejudge sweep`'s summary of the replayed evaluations equals the independent count."""
    for name, run in replayed["runs"].items():
        summary = replayed["sweep"][name]
        assert {k: v for k, v in summary.counts.items() if v} == dict(run["counts"]), name
        assert summary.first_failure == dict(sorted(run["first"].items())), name
