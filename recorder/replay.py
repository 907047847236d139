"""Offline: replay a run's cassettes through the agent loop, or rebuild its traces from them.

``replay_run`` re-runs the harness with the network blocked: every request the loop sends must
match a recorded one (method, path, JSON body minus volatile fields), the recorded response is
served, and the re-derived trace's hash must equal the stored one. A miss or a hash difference is
a divergence naming the case, the round and the request field that differs. This is what CI runs.

``renormalize_run`` skips the loop: it rebuilds each trace from its cassette with the current
normalizer and stores the ones that changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rejudge.recorder.cassettes import (
    CASSETTE_FORMAT,
    CassetteError,
    CassetteFile,
    ReplayMissError,
    Tape,
    TapeTransport,
    read_cassette,
)
from rejudge.recorder.http import RecorderError
from rejudge.recorder.loop import LoopContext, run_case
from rejudge.recorder.providers import get_provider
from rejudge.recorder.record import cassette_meta, trace_from_cassette
from rejudge.store.repository import RunRecord, Store, StoredTrace
from rejudge.store.schemas import Case, Trace, TraceError

__all__ = [
    "Divergence",
    "ReplayReport",
    "RenormalizeReport",
    "replay_run",
    "replay_run_async",
    "renormalize_run",
    "first_difference",
]


@dataclass(frozen=True)
class Divergence:
    case: str
    repetition: int
    round: int | None
    field: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "repetition": self.repetition,
            "round": self.round,
            "field": self.field,
            "message": self.message,
        }


@dataclass
class ReplayReport:
    run: str
    traces: int = 0
    matched: int = 0
    divergences: list[Divergence] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.divergences and self.matched == self.traces

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "traces": self.traces,
            "matched": self.matched,
            "ok": self.ok,
            "divergences": [d.as_dict() for d in self.divergences],
            "elapsed_s": round(self.elapsed_s, 3),
        }


@dataclass
class RenormalizeReport:
    run: str
    traces: int = 0
    changed: int = 0
    unchanged: int = 0
    missing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "traces": self.traces,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "missing": self.missing,
        }


# failures that leave no recorded response behind
NETWORK_FAILURES = frozenset({"timeout", "retries_exhausted", "connection_error"})


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first path where two JSON-like values differ, ``None`` when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                return sub
            found = first_difference(a[key], b[key], sub)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}[{min(len(a), len(b))}]"
        return None
    return None if a == b else (path or "<value>")


def _round_of(path: str | None) -> int | None:
    if path and path.startswith("rounds["):
        try:
            return int(path[len("rounds[") : path.index("]")])
        except ValueError:
            return None
    return None


def _resolve(run: RunRecord | str | int, store: Store) -> RunRecord:
    return run if isinstance(run, RunRecord) else store.get_run(run)


def _load(cassettes_dir: Path, stored: StoredTrace) -> CassetteFile:
    if not stored.cassette_path:
        raise CassetteError(
            f"trace {stored.case_key} r{stored.repetition} has no cassette (imported without one?)"
        )
    path = Path(stored.cassette_path)
    if not path.is_absolute():
        path = cassettes_dir / path
    if not path.exists():
        raise CassetteError(
            f"cassette {path} for {stored.case_key} r{stored.repetition} is missing "
            "(check --cassettes; the run may have been recorded elsewhere)"
        )
    cassette = read_cassette(path)
    version = cassette.meta.get("cassette_format", CASSETTE_FORMAT)
    if isinstance(version, int) and version > CASSETTE_FORMAT:
        raise CassetteError(
            f"cassette {path} has format {version}, newer than this rejudge reads "
            f"({CASSETTE_FORMAT}); upgrade rejudge"
        )
    return cassette


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
    import time

    from rejudge.suites.domain import get_domain

    started = time.perf_counter()
    record = _resolve(run, store)
    cassettes = Path(cassettes_dir)
    suite = store.get_suite_by_id(record.suite_id)
    registry = store.get_registry(record.registry_id)
    cases: dict[str, Case] = {key: case for key, (_pk, case) in store.get_cases(suite.id).items()}
    domain = get_domain(suite.domain)
    config = record.config
    provider = get_provider(config.provider)
    report = ReplayReport(run=record.name)
    stored_traces = [
        t for t in store.iter_traces(record.id) if case_ids is None or t.case_key in set(case_ids)
    ]
    report.traces = len(stored_traces)

    client = httpx.AsyncClient(transport=TapeTransport(None), trust_env=False)
    ctx = LoopContext(client=client, provider=provider, config=config, sleep=_no_sleep)
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(stored: StoredTrace) -> None:
        async with semaphore:
            divergence = await _replay_one(ctx, stored, cases, registry, domain, cassettes)
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


async def _replay_one(
    ctx: LoopContext,
    stored: StoredTrace,
    cases: dict[str, Case],
    registry: Any,
    domain: Any,
    cassettes: Path,
) -> Divergence | None:
    key, rep = stored.case_key, stored.repetition
    case = cases.get(key)
    if case is None:
        return Divergence(key, rep, None, None, f"case {key} is not in the run's suite")
    try:
        cassette = _load(cassettes, stored)
    except CassetteError as exc:
        return Divergence(key, rep, None, None, str(exc))
    tape = Tape.for_replay(cassette.interactions, source=str(cassette.path))
    recorded = (cassette.meta.get("outcome") or {}).get("error")
    network = bool(
        isinstance(recorded, dict)
        and recorded.get("status_code") is None
        and recorded.get("kind") in NETWORK_FAILURES
    )
    tape.replay_network_failure = network
    try:
        outcome = await run_case(
            ctx, case, registry, domain.new_sandbox(case.metadata or None), tape
        )
    except ReplayMissError as exc:
        played_ok = sum(
            1
            for played, i in zip(tape.played, tape.interactions, strict=True)
            if played and 200 <= int((i["response"].get("status") or {}).get("code", 200)) < 300
        )
        return Divergence(key, rep, played_ok, exc.field, str(exc))
    except RecorderError as exc:
        return Divergence(key, rep, None, None, str(exc))
    unplayed = [i for i, p in enumerate(tape.played) if not p]
    if unplayed:
        return Divergence(
            key,
            rep,
            len(outcome.rounds),
            None,
            f"the loop stopped after round {len(outcome.rounds) - 1} but {cassette.path} holds "
            f"{len(unplayed)} more interaction(s) (first unplayed: #{unplayed[0] + 1})",
        )
    if network and outcome.error is not None and outcome.error.kind in NETWORK_FAILURES:
        # a network failure leaves no exchange to replay; the cassette's account of it stands
        outcome.error = TraceError.model_validate(recorded)
    meta = cassette_meta(
        run_name=str(cassette.meta.get("run", "")),
        case=case,
        repetition=rep,
        config=ctx.config,
        outcome=outcome,
    )
    derived = trace_from_cassette(cassette.interactions, meta, key, rep)
    if derived.hash == stored.hash:
        return None
    old, new = stored.trace.hashable(), derived.hashable()
    # rounds first: a changed call explains a changed final text, not the other way round
    where = first_difference(old.get("rounds"), new.get("rounds"), "rounds") or first_difference(
        old, new
    )
    round_index = _round_of(where)
    if round_index is None and where == "final_text":
        round_index = max(0, len(derived.rounds) - 1)
    return Divergence(
        key,
        rep,
        round_index,
        where,
        f"re-derived trace differs from the stored one at {where} "
        f"(stored {stored.hash[:19]}, replayed {derived.hash[:19]})",
    )


def replay_run(
    store: Store,
    run: RunRecord | str | int,
    cassettes_dir: Path | str,
    **kwargs: Any,
) -> ReplayReport:
    return asyncio.run(replay_run_async(store, run, cassettes_dir, **kwargs))


def renormalize_run(
    store: Store,
    run: RunRecord | str | int,
    cassettes_dir: Path | str,
    *,
    dry_run: bool = False,
) -> RenormalizeReport:
    """Rebuild every trace of ``run`` from its cassette with the current normalizer."""
    record = _resolve(run, store)
    cassettes = Path(cassettes_dir)
    report = RenormalizeReport(run=record.name)
    updates: list[tuple[int, Trace, str]] = []
    for stored in store.iter_traces(record.id):
        report.traces += 1
        try:
            cassette = _load(cassettes, stored)
        except CassetteError as exc:
            report.missing.append(str(exc))
            continue
        trace = trace_from_cassette(
            cassette.interactions, cassette.meta, stored.case_key, stored.repetition
        )
        trace = trace.model_copy(update={"timings": stored.trace.timings})
        if trace.hash == stored.hash and stored.cassette_hash == cassette.sha256:
            report.unchanged += 1
            continue
        report.changed += 1
        updates.append((stored.id, trace, cassette.sha256))
    if not dry_run:
        for trace_id, trace, digest in updates:
            store.replace_trace(trace_id, trace, cassette_hash=digest)
    return report
