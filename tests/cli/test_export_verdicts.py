"""`rejudge export EVAL --format otel|langfuse-scores`: verdicts back out to the tracer, read back
with OpenTelemetry's protobuf model and Langfuse's documented schema (tests/verdict_oracles.py).
A trace imported from spans gets its verdict on its own trace id and root span; any other on
ids derived the same on every export."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from rejudge.cli import cli
from rejudge.cli.export import export
from rejudge.cli.judge import judge_cmd
from tests.verdict_oracles import attributes, langfuse_validator, parse_otlp_logs

for command in (export, judge_cmd):
    if command.name not in cli.list_commands(None):  # type: ignore[arg-type]
        cli.add_command(command)

REPO = Path(__file__).resolve().parents[2]
SPANS = REPO / "tests" / "data" / "otel" / "any-agent" / "OPENAI_trace.json"


def records(output: str) -> list[Any]:
    out = []
    for line in output.splitlines():
        for resource in parse_otlp_logs(line).resource_logs:
            for scope in resource.scope_logs:
                out.extend(scope.log_records)
    return out


def scores(output: str) -> list[dict[str, Any]]:
    validator = langfuse_validator()
    events = []
    for line in output.splitlines():
        body = json.loads(line)
        assert [e.message for e in validator.iter_errors(body)] == []
        events.extend(body["batch"])
    return events


def root_of(path: Path) -> tuple[str, str]:
    """The file's trace id and the span with no parent, read from the file as it is."""
    spans = json.loads(path.read_text())["spans"]
    [root] = [s for s in spans if not (s.get("parent") or {}).get("span_id")]
    return f"{root['context']['trace_id']:032x}", f"{root['context']['span_id']:016x}"


def test_verdicts_on_imported_spans_land_on_their_trace_and_root_span(
    run_cli: Callable[..., Result],
) -> None:
    assert run_cli("import", str(SPANS), "--name", "spans").exit_code == 0
    judged = run_cli("--json", "judge", "spans", "--tier", "outcome")
    assert judged.exit_code == 0, judged.output
    ev = str(json.loads(judged.output)["evaluation"])
    trace_id, span_id = root_of(SPANS)
    out = run_cli("export", ev, "--format", "otel")
    assert out.exit_code == 0, out.output
    [record] = records(out.output)
    assert (record.trace_id.hex(), record.span_id.hex()) == (trace_id, span_id)
    assert record.event_name == "gen_ai.evaluation.result"
    assert attributes(record.attributes)["gen_ai.evaluation.name"] == "rejudge.outcome"
    lf = run_cli("export", ev, "--format", "langfuse-scores")
    assert lf.exit_code == 0, lf.output
    assert {(e["body"]["traceId"], e["body"]["observationId"]) for e in scores(lf.output)} == {
        (trace_id, span_id)
    }


def test_every_judgment_is_exported_with_its_verdict(
    world: dict[str, Any], run_cli: Callable[..., Result]
) -> None:
    ev = str(world["ev"])
    rows = [json.loads(line) for line in run_cli("export", ev).output.splitlines()]
    out = run_cli("export", ev, "--format", "otel")
    assert out.exit_code == 0, out.output
    got = [attributes(r.attributes) for r in records(out.output)]
    assert [(a["rejudge.case"], a["gen_ai.evaluation.score.label"]) for a in got] == [
        (r["case"], r["verdict"]) for r in rows
    ]
    assert {r["verdict"] for r in rows} == {"PASS", "FAIL"}
    assert all(
        a["gen_ai.evaluation.score.value"]
        == (1.0 if a["gen_ai.evaluation.score.label"] == "PASS" else 0.0)
        for a in got
    )
    assert [a["rejudge.judgment_key"] for a in got] == [r["judgment_key"] for r in rows]
    # no source ids: one derived trace id per trace, the same on the next export
    ids = [(r.trace_id, r.span_id) for r in records(out.output)]
    assert len({t for t, _s in ids}) == len(rows)
    assert out.output == run_cli("export", ev, "--format", "otel").output
    lf = run_cli(
        "export", ev, "--format", "langfuse-scores", "--out", str(world["tmp"] / "s.jsonl")
    )
    assert lf.exit_code == 0 and lf.output == ""
    events = scores((world["tmp"] / "s.jsonl").read_text(encoding="utf-8"))
    verdicts = {
        e["body"]["metadata"]["case"]: e["body"]["value"]
        for e in events
        if e["body"]["dataType"] == "CATEGORICAL"
    }
    assert verdicts == {r["case"]: r["verdict"] for r in rows}
    assert {e["body"]["traceId"] for e in events} == {t.hex() for t, _s in ids}


def test_an_unknown_evaluation_is_one_error_line(run_cli: Callable[..., Result]) -> None:
    out = run_cli("export", "42", "--format", "otel")
    assert out.exit_code == 1
    assert out.output.strip().splitlines() == [
        "Error: no evaluation 42 in the store (see `rejudge runs`)"
    ]


def test_verdicts_on_an_imported_langfuse_trace_score_that_trace(
    run_cli: Callable[..., Result],
) -> None:
    koog = REPO / "tests" / "data" / "langfuse" / "framework-traces" / "koog-2025-08-26.trace.json"
    assert run_cli("import", str(koog), "--name", "koog").exit_code == 0
    judged = run_cli("--json", "judge", "koog", "--tier", "outcome")
    assert judged.exit_code == 0, judged.output
    ev = str(json.loads(judged.output)["evaluation"])
    lf = run_cli("export", ev, "--format", "langfuse-scores")
    assert lf.exit_code == 0, lf.output
    # the trace id Langfuse gave it, read from the file; a score on the trace, no observation
    trace_id = json.loads(koog.read_text())["trace"]["id"]
    events = scores(lf.output)
    assert events and {e["body"]["traceId"] for e in events} == {trace_id}
    assert all("observationId" not in e["body"] for e in events)
