"""End to end: a scripted model that solves FuncBenchGen tasks from the schemas' *types only*
(backward chaining from the target type), recorded through the real loop over the OpenAI wire,
judged by the outcome tier, summarized by `rejudge sweep funcbench`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from rejudge.store import Store

import rejudge.cli as root
from rejudge.services import SweepOptions, run_sweep, sweep_table

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
        assert len(result["cells"]) == 4  # 2 core counts x (plain, restate)
        for cell in result["cells"]:
            # solvable from types alone: every case passes, with no call wasted
            assert cell["counts"]["PASS"] == 3, cell
            assert cell["success"] == 1.0 and cell["efficiency"] == 1.0
        assert result["table"] == [
            {"restate": False, "3": 1.0, "5": 1.0},
            {"restate": True, "3": 1.0, "5": 1.0},
        ]
        assert [s["failed"] for s in result["failure_types"]] == [0, 0]
        # restatement arm: the runs are separate and record the option
        runs = {r.name: r for r in store.runs.list_runs()}
        assert len(runs) == 4
        restated = [c for c in result["cells"] if c["restate"]]
        run = store.runs.get_run(restated[0]["run"])
        assert run.config.restate_known_values
        # again: everything is a lookup or skipped, same figures
        again = run_sweep(
            store, tmp_path / "cassettes", options, transport=httpx.MockTransport(type_solver)
        )
        assert again["table"] == result["table"]
        assert len(store.runs.list_runs()) == 4
    finally:
        store.close()


def test_sweep_table_shares() -> None:
    cells = [
        {
            "core": 5,
            "restate": False,
            "success": 0.5,
            "first_failure": {"UNKNOWN_VALUE": 3, "INCORRECT_VALUE": 1},
        },
        {"core": 10, "restate": False, "success": 0.0, "first_failure": {}},
    ]
    shaped = sweep_table(cells)
    assert shaped["table"] == [{"restate": False, "5": 0.5, "10": 0.0}]
    assert shaped["failure_types"] == [
        {"restate": False, "failed": 4, "INCORRECT_VALUE": 0.25, "UNKNOWN_VALUE": 0.75}
    ]


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
