"""One file's traces stored as one run of an ad-hoc suite: what the importers of conversation
files (``otel``, ``chat-jsonl``) store, and how, written once.

Each trace is the one trace of its own case (no golden calls); the suite's registry holds every
tool the traces offer or call (the first spec seen of a name, in name order). Suite and run are
named ``PREFIX-STEM-HASH`` (the file's stem and the first ten hex digits of its hash) unless
named; importing the same file again is a lookup (:func:`rejudge.services.ingest_run`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rejudge.model import Case, RunConfig, ToolRegistry, ToolSpec, Trace

if TYPE_CHECKING:
    from rejudge.services import IngestedRun

__all__: list[str] = []

ADHOC_DOMAIN = "imported"


def adhoc_config(
    *,
    source_tag: str,
    source: Path,
    file_hash: str,
    models: list[str],
    providers: list[str],
    anomalies: dict[str, list[str]],
) -> RunConfig:
    """The config of a run of traces from a tracer's file (``otel``, ``langfuse``): one model
    and provider when every trace names the same, ``mixed`` when not, ``unknown`` when none."""
    from rejudge.services import evidence_path

    return RunConfig(
        model=models[0]
        if len(models) == 1
        else ("mixed:" + ",".join(models) if models else "unknown"),
        provider=providers[0] if len(providers) == 1 else ("mixed" if providers else "unknown"),
        harness_mode="imported",
        temperature=None,
        tool_choice=None,
        extra={
            "source": source_tag,
            "file": source.name,
            "file_hash": file_hash,
            "source_path": evidence_path(source),
            "models": models,
            "anomalies": anomalies,
        },
    )


def store_adhoc_run(
    store: Any,
    source: Path,
    items: Sequence[tuple[Case, Trace, Sequence[ToolSpec]]],
    *,
    prefix: str,
    source_tag: str,
    description: str,
    file_hash: str,
    config: RunConfig,
    run_name: str | None,
    suite_name: str | None,
) -> IngestedRun:
    """Store ``items`` (each case, its trace and the tools it offers) as one run; all of it
    lands, or none of it."""
    from rejudge.services import Evidence, SuiteSnapshot, ingest_run
    from rejudge.suites import suite_hash

    tools: dict[str, ToolSpec] = {}
    for _case, _trace, specs in items:
        for spec in specs:
            tools.setdefault(spec.name, spec)
    registry = ToolRegistry(
        domain=ADHOC_DOMAIN, version="1", tools=[tools[k] for k in sorted(tools)]
    )
    cases = [case for case, _trace, _specs in items]
    default_name = f"{prefix}-{source.stem}-{file_hash.split(':', 1)[1][:10]}"
    suite = SuiteSnapshot(
        name=suite_name or default_name,
        domain=ADHOC_DOMAIN,
        suite_hash=suite_hash(1, registry, cases),
        registry=registry,
        cases=cases,
        meta={"description": description, "adhoc": True, "source": source_tag},
    )
    return ingest_run(
        store,
        suite,
        name=run_name or default_name,
        config=config,
        evidence=[Evidence(case.id, trace, None, None) for case, trace, _specs in items],
    )
