"""A plugin's importer, as a third-party package would write one: a toy log format (JSON:
``{"samples": [{"id", "call", "args"}]}``) stored through ``ingest_run``, with its own replay
source, so the tests can check that what the registry lists it also runs and replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rejudge.store import Store

from rejudge.model import Case, Golden, Round, RunConfig, ToolCall, ToolRegistry, Trace, hash_bytes
from rejudge.services import (
    Evidence,
    Importer,
    IngestedRun,
    ReplaySource,
    SuiteSnapshot,
    evidence_path,
    ingest_run,
)

TOY = "toy-log"


def toy_traces(_config: RunConfig | None, path: Path) -> tuple[str, list[Trace]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    traces = [
        Trace(
            case_id=s["id"],
            rounds=[
                Round(
                    index=0,
                    calls=[
                        ToolCall(name=s["call"], arguments=s["args"], arguments_raw=json.dumps(s))
                    ],
                )
            ],
            final_text="done",
        )
        for s in data["samples"]
    ]
    return hash_bytes(path.read_bytes()), traces


def import_toy(store: Store, path: str | Path, *, run_name: str | None = None) -> IngestedRun:
    from rejudge.suites import suite_hash

    source = Path(path)
    file_hash, traces = toy_traces(None, source)
    registry = ToolRegistry(domain="toy", tools=[])
    cases = [
        Case(id=t.case_id, dimension="toy", category="toy", instruction="x", golden=Golden())
        for t in traces
    ]
    suite = SuiteSnapshot(
        name="toy",
        domain="toy",
        suite_hash=suite_hash(1, registry, cases),
        registry=registry,
        cases=cases,
    )
    config = RunConfig(
        model="toy-model",
        provider="toy",
        harness_mode="imported",
        extra={
            "source": TOY,
            "file": source.name,
            "file_hash": file_hash,
            "source_path": evidence_path(source),
        },
    )
    return ingest_run(
        store,
        suite,
        name=run_name or "toy-run",
        config=config,
        evidence=[Evidence(t.case_id, t, None, None) for t in traces],
        verdicts={"toy": [(t.case_id, 0, 1.0, None) for t in traces]},
    )


def _summary(result: IngestedRun) -> dict[str, Any]:
    return {
        "run": result.run.name,
        "suite": result.suite.name,
        "inserted": result.inserted,
        "skipped": result.skipped,
        "external_verdicts": result.verdicts,
    }


TOY_IMPORTER: Importer[IngestedRun] = Importer(
    name="toy",
    summary="a toy log as one run (a test's plugin)",
    accepts="a toy log (JSON)",
    run=import_toy,
    sources={TOY: ReplaySource("toy log", "file_hash", toy_traces)},
    to_json=_summary,
)


def write_toy_log(path: Path) -> Path:
    samples = [
        {"id": "a", "call": "search", "args": {"q": "x"}},
        {"id": "b", "call": "open", "args": {"id": 2}},
    ]
    path.write_text(json.dumps({"samples": samples}), encoding="utf-8")
    return path
