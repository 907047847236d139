"""End to end: a scripted model that solves FuncBenchGen tasks from the schemas' *types only*
(backward chaining from the target type), recorded through the real loop over the OpenAI wire,
judged by the outcome tier, summarized by `rejudge sweep funcbench`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from rejudge.store import Store

import rejudge.cli as root
from rejudge.services import (
    CellSummary,
    SweepCell,
    SweepOptions,
    SweepResult,
    run_sweep,
    sweep_table,
)
from tests.services.judge_server import serve_handler

_STATED = re.compile(r"- a (\S+) value: (\d+)\.")
_ALSO = re.compile(r"Every (\S+) is also a (\S+?)\.")


def _completion(message: dict[str, Any], finish: str) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "type-solver",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )


def type_solver(request: httpx.Request) -> httpx.Response:
    """Reads only what a model reads: the instruction, the tool schemas and the results."""
    body = json.loads(request.content)
    messages = body["messages"]
    instruction = next(m["content"] for m in messages if m["role"] == "user")
    target = re.search(r"find the (\S+) value", instruction).group(1)  # type: ignore[union-attr]
    known = {t: int(v) for t, v in _STATED.findall(instruction)}
    supers = dict(_ALSO.findall(instruction))
    returns: dict[str, str] = {}
    params: dict[str, dict[str, str]] = {}
    for tool in body.get("tools", []):
        fn = tool["function"]
        returns[fn["name"]] = re.match(r"Returns a (\S+) value", fn["description"]).group(1)  # type: ignore[union-attr]
        supers.update(_ALSO.findall(fn["description"]))
        params[fn["name"]] = {
            p: re.fullmatch(r"a (\S+) value", s["description"]).group(1)  # type: ignore[union-attr]
            for p, s in fn["parameters"]["properties"].items()
        }
    producer = {t: f for f, t in returns.items()}
    variables = set(known) | set(producer)

    def variable(declared: str) -> str:
        return next(v for v in sorted(variables) if v == declared or supers.get(v) == declared)

    called_ids: dict[str, str] = {}
    for m in messages:
        for call in m.get("tool_calls") or []:
            called_ids[call["id"]] = call["function"]["name"]
        if m["role"] == "tool":
            fn = called_ids[m["tool_call_id"]]
            known[returns[fn]] = json.loads(m["content"])
    if target in known:
        return _completion(
            {"role": "assistant", "content": f"The {target} is {known[target]}."}, "stop"
        )
    # backward chaining: the first function on the target's path whose inputs are all known
    stack, needed = [producer[target]], []
    while stack:
        fn = stack.pop()
        needed.append(fn)
        for declared in params[fn].values():
            var = variable(declared)
            if var not in known and var in producer and producer[var] not in needed:
                stack.append(producer[var])
    for fn in reversed(needed):
        if returns[fn] in known:
            continue
        args = {p: known.get(variable(d)) for p, d in params[fn].items()}
        if all(v is not None for v in args.values()):
            call = {
                "id": f"call_{len(messages)}",
                "type": "function",
                "function": {"name": fn, "arguments": json.dumps(args)},
            }
            return _completion(
                {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
            )
    return _completion({"role": "assistant", "content": "I am stuck."}, "stop")


def test_sweep_with_a_type_solver(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'sweep.db'}")
    try:
        options = SweepOptions(
            model="type-solver",
            cores=(3, 5),
            cin=2,
            din=2,
            noise=1,
            subtypes=True,
            cases=3,
            seed=2,
            restate=True,
            base_url="http://solver.test/v1",
        )
        result = run_sweep(
            store, tmp_path / "cassettes", options, transport=httpx.MockTransport(type_solver)
        )
        assert len(result.cells) == 4  # 2 core counts x (plain, restate)
        for cell in result.cells:
            # solvable from types alone: every case passes, with no call wasted
            assert cell.summary.counts["PASS"] == 3, cell
            assert cell.summary.success == 1.0 and cell.summary.efficiency == 1.0
        out = result.to_json()
        assert out["table"] == [
            {"restate": False, "3": 1.0, "5": 1.0},
            {"restate": True, "3": 1.0, "5": 1.0},
        ]
        assert [arm.failed for arm in result.table.failure_types] == [0, 0]
        # --json keeps the shape of the sweep's dicts: a cell's summary spread into the cell
        assert out["cells"] == [cell.to_json() for cell in result.cells]
        assert list(result.cells[0].to_json()) == [
            "core",
            "depth",
            "restate",
            "suite",
            "suite_hash",
            "run",
            "evaluation",
            "counts",
            "success",
            "first_failure",
            "efficiency",
            "redundant_calls_on_success",
        ]
        # restatement arm: the runs are separate and record the option
        runs = {r.name: r for r in store.runs.list_runs()}
        assert len(runs) == 4
        restated = [c for c in result.cells if c.restate]
        run = store.runs.get_run(restated[0].run)
        assert run.config.restate_known_values
        # again: everything is a lookup or skipped, same figures
        again = run_sweep(
            store, tmp_path / "cassettes", options, transport=httpx.MockTransport(type_solver)
        )
        assert again.table == result.table
        assert len(store.runs.list_runs()) == 4
    finally:
        store.close()


def _cell(core: int, success: float, first_failure: dict[str, int]) -> SweepCell:
    summary = CellSummary(
        counts={"PASS": 0, "FAIL": 0, "timeout": 0, "AGENT_ERROR": 0, "SKIP": 0},
        success=success,
        first_failure=first_failure,
        efficiency=None,
        redundant_calls_on_success=None,
    )
    return SweepCell(core, 3, False, "s", "sha256:0", f"r{core}", core, summary)


def test_sweep_table_shares() -> None:
    cells = [
        _cell(5, 0.5, {"UNKNOWN_VALUE": 3, "INCORRECT_VALUE": 1}),
        _cell(10, 0.0, {}),
    ]
    shaped = SweepResult("m", cells, sweep_table(cells)).to_json()
    assert shaped["table"] == [{"restate": False, "5": 0.5, "10": 0.0}]
    assert shaped["failure_types"] == [
        {"restate": False, "failed": 4, "INCORRECT_VALUE": 0.25, "UNKNOWN_VALUE": 0.75}
    ]
    # an arm with no failures has no shares to give
    empty = sweep_table([_cell(5, 1.0, {})])
    assert empty.failure_types[0].failed == 0 and empty.failure_types[0].shares == {}


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    monkeypatch.setitem(root._COMMANDS, "sweep", "rejudge.cli.sweep:sweep")
    db_url = f"sqlite:///{tmp_path / 'cli.db'}"

    def invoke(*args: str) -> Result:
        return CliRunner().invoke(
            root.cli,
            ["--db", db_url, *args],
            env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None, "OPENAI_API_KEY": None},
        )

    return invoke


def test_cli_refuses_bad_input(run_cli: Callable[..., Result]) -> None:
    no_key = run_cli("sweep", "funcbench", "--model", "m", "--core", "5")
    assert no_key.exit_code == 1 and "no API key" in no_key.output
    bad = run_cli("sweep", "funcbench", "--model", "m", "--core", "5,x", "--base-url", "http://x")
    assert bad.exit_code == 2
    impossible = run_cli(
        "sweep",
        "funcbench",
        "--model",
        "m",
        "--core",
        "3",
        "--depth",
        "4",
        "--base-url",
        "http://x",
    )
    assert impossible.exit_code == 1 and "depth + 1" in impossible.output


@pytest.fixture
def solver_url() -> Iterator[str]:
    """The type solver behind a real HTTP server on localhost (the CLI takes no transport)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802  (http.server's name)
            content = self.rfile.read(int(self.headers["Content-Length"]))
            request = httpx.Request("POST", f"http://solver{self.path}", content=content)
            answer = type_solver(request)
            self.send_response(answer.status_code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler) as url:
        yield url


def test_cli_prints_the_tables_and_the_same_json(
    run_cli: Callable[..., Result], solver_url: str, tmp_path: Path
) -> None:
    grid = ["--cassettes", str(tmp_path / "cassettes"), "sweep", "funcbench"]
    grid += ["--model", "type-[bold]solver", "--core", "3", "--cases", "2"]
    grid += ["--base-url", solver_url, "--restate", "--prefix", "cli"]
    shown = run_cli(*grid)
    assert shown.exit_code == 0, shown.output
    # the model name is untrusted text: shown literally, never as markup
    words = " ".join(shown.output.split())
    assert "Success rate by core nodes — type-[bold]solver" in words
    assert "core 3 (plain): success" in shown.output and "core 3 (restate)" in shown.output
    assert "with restatement" in shown.output and "of which timeouts" in shown.output
    assert len(list((tmp_path / "cassettes").iterdir())) == 2  # a run folder per arm
    again = run_cli("--json", *grid)  # every trace a lookup now: the same figures
    assert again.exit_code == 0, again.output
    out = json.loads(again.output)
    assert out["model"] == "type-[bold]solver"
    assert [c["restate"] for c in out["cells"]] == [False, True]
    assert all(c["counts"]["PASS"] == 2 and c["success"] == 1.0 for c in out["cells"])
    assert out["table"] == [{"restate": False, "3": 1.0}, {"restate": True, "3": 1.0}]
    assert out["failure_types"] == [{"restate": False, "failed": 0}, {"restate": True, "failed": 0}]
