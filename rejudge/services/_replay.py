"""Offline checks of a stored run against its cassettes: ``replay`` and ``renormalize``.

``replay_run`` re-runs the harness from each trace's cassette with the network blocked
(:func:`rejudge.recorder._replay.replay_trace`) and reports every divergence; this is what CI
runs. ``renormalize_run`` skips the loop: it rebuilds each trace from its cassette through the
ingest path's derivation and stores the ones that changed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from rejudge.errors import RejudgeError
from rejudge.model import Case, Trace
from rejudge.recorder import (
    REPLAY_WORLDS,
    CassetteError,
    CassetteFile,
    Divergence,
    RenormalizeReport,
    ReplayReport,
    TapeTransport,
    load_trace_cassette,
    replay_trace,
)
from rejudge.recorder._loop import LoopContext
from rejudge.recorder.providers import get_provider
from rejudge.services._blocking import blocking
from rejudge.services._evidence_paths import resolve_evidence_path
from rejudge.services._ingest import Evidence, ingest
from rejudge.store import RunRecord, Store, StoredTrace

__all__ = [
    "open_trace_cassette",
    "rederive_trace",
    "replay_run",
    "replay_run_async",
    "renormalize_run",
]


def _resolve(run: RunRecord | str | int, store: Store) -> RunRecord:
    return run if isinstance(run, RunRecord) else store.runs.get_run(run)


def open_trace_cassette(cassettes: Path, stored: StoredTrace) -> CassetteFile:
    """The cassette a stored trace names, wherever its stored path says it lies (relative to
    ``cassettes``, to a root of rejudge's own data, or absolute)."""
    key, rep = stored.case_key, stored.repetition
    path = stored.cassette_path
    if path:
        try:
            path = str(resolve_evidence_path(path, cassettes))
        except RejudgeError as exc:
            raise CassetteError(f"{exc} (trace {key} r{rep})") from None
    return load_trace_cassette(cassettes, path, key, rep)


def rederive_trace(
    cassettes: Path, stored: StoredTrace, name_map: dict[str, str] | None
) -> tuple[Trace, CassetteFile]:
    """``stored`` derived again from its cassette through the ingest path's derivation (the
    stored timings kept: they are when it ran, not what the file says)."""
    from rejudge.services._ingest import evidence_of

    cassette = open_trace_cassette(cassettes, stored)
    item = evidence_of(
        cassette, stored.case_key, stored.repetition, stored.cassette_path or "", name_map=name_map
    )
    return item.trace.model_copy(update={"timings": stored.trace.timings}), cassette


async def _no_sleep(_: float) -> None:
    return None


async def replay_run_async(
    store: Store,
    run: RunRecord | str | int,
    cassettes_dir: Path | str,
    *,
    case_ids: list[str] | None = None,
    concurrency: int = 8,
    progress: Callable[[ReplayReport], None] | None = None,
) -> ReplayReport:
    from rejudge.suites import get_domain

    started = time.perf_counter()
    record = _resolve(run, store)
    cassettes = Path(cassettes_dir)
    suite = store.suites.get_suite_by_id(record.suite_id)
    registry = store.suites.get_registry(record.registry_id)
    cases: dict[str, Case] = {
        key: case for key, (_pk, case) in store.suites.get_cases(suite.id).items()
    }
    # a tool world that lives on a server (MCP) replays its calls from the cassette too
    world = REPLAY_WORLDS.get(suite.domain)
    domain = world() if world is not None else get_domain(suite.domain)
    config = record.config
    provider = get_provider(config.provider)
    report = ReplayReport(run=record.name)
    wanted = set(case_ids) if case_ids is not None else None
    stored_traces = [
        t for t in store.traces.iter_traces(record.id) if wanted is None or t.case_key in wanted
    ]
    report.traces = len(stored_traces)

    client = httpx.AsyncClient(transport=TapeTransport(None), trust_env=False)
    ctx = LoopContext(client=client, provider=provider, config=config, sleep=_no_sleep)
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def check(stored: StoredTrace) -> Divergence | None:
        key, rep = stored.case_key, stored.repetition
        case = cases.get(key)
        if case is None:
            return Divergence(key, rep, None, None, f"case {key} is not in the run's suite")
        try:
            cassette = open_trace_cassette(cassettes, stored)
        except CassetteError as exc:
            return Divergence(key, rep, None, None, str(exc))
        return await replay_trace(
            ctx, case, rep, registry, domain, cassette, stored.trace, stored.hash
        )

    async def one(stored: StoredTrace) -> None:
        async with semaphore:
            divergence = await check(stored)
        if divergence is None:
            report.matched += 1
        else:
            report.divergences.append(divergence)
        if progress is not None:
            progress(report)

    try:
        await asyncio.gather(*(one(t) for t in stored_traces))
    finally:
        await client.aclose()
    report.divergences.sort(key=lambda d: (d.case, d.repetition))
    report.elapsed_s = time.perf_counter() - started
    return report


#: :func:`replay_run_async` run to its end (the CLI's entry point)
replay_run = blocking(replay_run_async, "replay_run")


def renormalize_run(
    store: Store,
    run: RunRecord | str | int,
    cassettes_dir: Path | str,
    *,
    dry_run: bool = False,
) -> RenormalizeReport:
    """Rebuild every trace of ``run`` from its cassette with the current derivation."""
    record = _resolve(run, store)
    cassettes = Path(cassettes_dir)
    report = RenormalizeReport(run=record.name)
    name_map = store.suites.get_registry(record.registry_id).name_map or None
    changed: list[Evidence] = []
    for stored in store.traces.iter_traces(record.id):
        report.traces += 1
        try:
            trace, cassette = rederive_trace(cassettes, stored, name_map)
        except CassetteError as exc:
            report.missing.append(str(exc))
            continue
        if trace.hash == stored.hash and stored.cassette_hash == cassette.sha256:
            report.unchanged += 1
            continue
        report.changed += 1
        changed.append(Evidence(stored.case_key, trace, stored.cassette_path, cassette.sha256))
    if not dry_run and changed:
        ingest(store, record, changed, replace=True)
    return report
