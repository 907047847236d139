"""Record a suite into a run: the store side of :func:`rejudge.recorder._record.record_jobs`.

The run is created (or resumed) here, each finished trace is committed here, and the run's
status is set here when recording ends: ``finished`` when it holds every case and repetition of
its suite, ``partial`` when a ``case_ids`` subset was recorded in full, and ``running`` while
jobs are still missing (a stopped run resumes with the same command).

Commit: the scrubbed cassette is renamed into place, then the trace row is inserted through the
ingest path. Resume: a job whose row exists is skipped; a cassette without a row (a kill between
rename and insert) is recorded again. Two processes on one run never duplicate a trace: the
row's unique key with insert-or-ignore decides, and a per-run lock file keeps the cassette on
disk the one the row describes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import NotFoundError
from rejudge.model import Case, HarnessAssistance, HarnessMode, RunConfig
from rejudge.recorder import RecorderError, cassette_path, write_cassette
from rejudge.recorder._record import PendingCommit, ProgressCallback, RecordProgress, record_jobs
from rejudge.services._blocking import blocking
from rejudge.services._evidence_paths import evidence_path
from rejudge.services._ingest import Evidence, ingest, save_suite_source
from rejudge.store import RunRecord, Store

try:  # POSIX advisory locks; elsewhere the row's unique key alone prevents duplicates
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "RecordSummary",
    "harness_assistance",
    "record_suite",
    "record_suite_async",
    "commit_batch",
    "run_status",
]


def harness_assistance(mode: HarnessMode) -> HarnessAssistance:
    """The harness policy of a recording in ``mode``: an oracle-assisted run is told the
    expected number of steps and gets that many rounds plus four; any other gets 10 rounds."""
    oracle = mode == "oracle-assisted"
    return HarnessAssistance(
        expected_step_count_disclosed=oracle, round_budget="expected+4" if oracle else 10
    )


@dataclass
class RecordSummary:
    run: RunRecord
    progress: RecordProgress
    cassettes_dir: Path

    @property
    def recorded(self) -> int:
        return self.progress.done - self.progress.skipped


@contextlib.contextmanager
def _run_lock(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover
        yield
        return
    with open(folder / ".commit.lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def commit_batch(
    store: Store,
    run: RunRecord,
    cassettes_dir: Path,
    items: list[PendingCommit],
    fsync: bool = False,
    case_pks: dict[str, int] | None = None,
) -> list[bool]:
    """Commit several traces: each cassette renamed into place, then all rows in one transaction.

    Under the run's lock file, keys the run already holds are skipped (their cassettes are left
    as the stored rows describe them). Returns, per item, whether its row was inserted.
    """
    folder = cassette_path(cassettes_dir, run.name, "_", 0).parent
    with _run_lock(folder):
        have = store.traces.stored_cassette_hashes(run.id, {item.trace.case_id for item in items})
        evidence: list[Evidence] = []
        digests: dict[tuple[str, int], str] = {}
        results: list[bool] = []
        for item in items:
            key = (item.trace.case_id, item.trace.repetition)
            if key in have or key in digests:
                results.append(False)
                continue
            target = cassette_path(cassettes_dir, run.name, *key)
            digest = write_cassette(target, item.interactions, item.meta, fsync=fsync)
            digests[key] = digest
            # under the cassettes folder, which the path names so it resolves from anywhere
            stored = evidence_path(target, cassettes_dir)
            evidence.append(Evidence(key[0], item.trace, stored, digest))
            results.append(True)
        if evidence and ingest(store, run, evidence, case_pks=case_pks).inserted != len(evidence):
            # a writer that does not share this lock (another machine) won some keys
            now = store.traces.stored_cassette_hashes(run.id, {key[0] for key in digests})
            results = [
                ok
                and now.get((i.trace.case_id, i.trace.repetition))
                == digests.get((i.trace.case_id, i.trace.repetition))
                for ok, i in zip(results, items, strict=True)
            ]
    return results


def run_status(
    held: set[tuple[str, int]],
    suite_case_ids: list[str],
    wanted: list[tuple[Case, int]],
    repeat: int,
) -> str:
    """``finished`` when the run holds every (case, repetition) of its suite, ``partial`` when it
    holds every job of a subset, ``running`` while jobs are missing."""
    if all((cid, rep) in held for cid in suite_case_ids for rep in range(repeat)):
        return "finished"
    if all((case.id, rep) in held for case, rep in wanted):
        return "partial"
    return "running"


def _default_run_name(suite_name: str, config: RunConfig) -> str:
    model = config.model.replace("/", "-").replace(":", "-")
    return f"{suite_name}-{model}-{time.strftime('%Y%m%d-%H%M%S')}"


async def record_suite_async(
    store: Store,
    suite: Any,
    config: RunConfig,
    cassettes_dir: Path | str,
    *,
    case_ids: list[str] | None = None,
    api_key: str | None = None,
    progress: ProgressCallback | None = None,
    run_name: str | None = None,
    domain: Any = None,
    transport: Any = None,
    sleep: Any = asyncio.sleep,
    base_delay_s: float = 0.5,
    fsync: bool = False,
) -> RecordSummary:
    """Record ``suite`` (a :class:`rejudge.suites._case_format.SuiteSource`) under ``config``.

    ``case_ids`` records only those cases (the run ends ``partial``); ``transport`` replaces the
    network (tests, benchmarks); ``domain`` replaces ``get_domain(suite.domain)``; ``fsync``
    makes each cassette survive a power loss too.
    """
    from rejudge.suites import get_domain

    cassettes = Path(cassettes_dir)
    if domain is None:
        domain = get_domain(suite.domain)
    cases: list[Case] = list(suite.cases)
    if case_ids:
        known = {case.id for case in cases}
        unknown = [cid for cid in case_ids if cid not in known]
        if unknown:
            raise NotFoundError(
                f"suite {suite.name!r} has no case {', '.join(map(repr, unknown))}",
                case=unknown[0],
                field="case",
            )
        wanted = set(case_ids)
        cases = [case for case in cases if case.id in wanted]
    if config.repeat < 1 or config.concurrency < 1:
        raise RecorderError(
            "repeat and concurrency must be at least 1",
            field="repeat" if config.repeat < 1 else "concurrency",
        )

    suite_record = save_suite_source(store, suite)
    run = store.runs.create_run(
        name=run_name or _default_run_name(suite.name, config), suite=suite_record, config=config
    )
    # the live monitor expects this recording's jobs, not the whole suite's
    store.runs.plan_run(run.id, [case.id for case in cases] if case_ids else None)
    case_pks = store.suites.get_case_pks(suite_record.id)
    done_keys = store.traces.trace_keys(run.id)
    jobs = [(case, rep) for case in cases for rep in range(config.repeat)]
    state = RecordProgress(total=len(jobs))
    pending = []
    for case, rep in jobs:
        if (case.id, rep) in done_keys:
            state.done += 1
            state.skipped += 1
        else:
            pending.append((case, rep))
    if progress is not None:
        progress(state)

    def commit(batch: list[PendingCommit]) -> list[bool]:
        return commit_batch(store, run, cassettes, batch, fsync, case_pks)

    await record_jobs(
        pending,
        run_name=run.name,
        config=config,
        registry=suite.registry,
        domain=domain,
        commit=commit,
        state=state,
        api_key=api_key,
        progress=progress,
        transport=transport,
        sleep=sleep,
        base_delay_s=base_delay_s,
    )
    status = run_status(
        store.traces.trace_keys(run.id), [c.id for c in suite.cases], jobs, config.repeat
    )
    if status != "running":
        store.runs.finish_run(run.id, status)
    return RecordSummary(run=store.runs.get_run(run.id), progress=state, cassettes_dir=cassettes)


#: :func:`record_suite_async` run to its end (the CLI's entry point)
record_suite = blocking(record_suite_async, "record_suite")
