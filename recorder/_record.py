"""Recording a batch of (case, repetition) jobs: concurrency, retries, and the outage guard.

Each job is a fresh sandbox and the agent loop on a recording tape; its trace is the one the
pure derivation gives from that tape (:func:`rejudge.recorder._derive.trace_from_cassette`), so
``renormalize`` and ``replay`` reproduce its hash exactly. Finished traces go to ``commit``, a
callable the caller supplies (the record service writes cassette files and store rows there),
run in one writer thread while the workers go on. This module never touches the store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
from rejudge.recorder._derive import cassette_meta, trace_from_cassette
from rejudge.recorder._http import RateLimiter, RecorderError
from rejudge.recorder._loop import LoopContext, LoopOutcome, run_case
from rejudge.recorder._tape import Tape, TapeTransport
from rejudge.recorder.providers import get_provider

from rejudge.model import Case, RunConfig, ToolRegistry, Trace, TraceError

__all__ = [
    "ProviderUnreachableError",
    "UNREACHABLE_STREAK",
    "RecordProgress",
    "PendingCommit",
    "record_jobs",
]

ProgressCallback = Callable[["RecordProgress"], None]

# Per worker: one connection in use at a time (a trace's exchanges are sequential and each
# response is read to its end before the next request); a second slot so that a connection
# that was somehow never released cannot stall the worker until its pool timeout.
_WORKER_LIMITS = httpx.Limits(max_connections=2, max_keepalive_connections=1)

#: traces in a row that got no HTTP response at all before a run stops (see ``_unreachable``)
UNREACHABLE_STREAK = 3


class ProviderUnreachableError(RecorderError):
    """The provider answered nothing (connection refused, reset, DNS...) for several traces in a
    row: the run stopped, and those traces were not recorded, so the same command resumes."""


def _unreachable(outcome: LoopOutcome, tape: Tape) -> bool:
    """A trace that failed before any HTTP response: no model behaviour to keep, only an outage.

    One such trace among answered ones is a transient fault and is recorded as AGENT_ERROR like
    any other; a streak of them means the server is down or the URL is wrong, and recording the
    rest of the suite as AGENT_ERROR rows would make a resume skip every one of those cases.
    """
    error = outcome.error
    return (
        error is not None
        and error.status_code is None
        and error.kind == "retries_exhausted"
        and not tape.interactions
    )


@dataclass
class RecordProgress:
    """Where a recording stands; handed to the progress callback after every job."""

    total: int
    done: int = 0
    skipped: int = 0
    completed: int = 0
    agent_errors: int = 0
    with_calls: int = 0
    started: float = field(default_factory=time.monotonic)
    last_case: str | None = None

    @property
    def eta_s(self) -> float | None:
        finished = self.done - self.skipped
        remaining = self.total - self.done
        if finished <= 0:
            return None
        return (time.monotonic() - self.started) / finished * remaining


@dataclass(frozen=True)
class PendingCommit:
    """A finished trace waiting for its commit: the tape's interactions, the block, the trace."""

    interactions: list[dict[str, Any]]
    meta: dict[str, Any]
    trace: Trace


async def record_jobs(
    jobs: Sequence[tuple[Case, int]],
    *,
    run_name: str,
    config: RunConfig,
    registry: ToolRegistry,
    domain: Any,
    commit: Callable[[list[PendingCommit]], list[bool]],
    state: RecordProgress,
    api_key: str | None = None,
    progress: ProgressCallback | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Callable[[float], Any] = asyncio.sleep,
    base_delay_s: float = 0.5,
) -> None:
    """Record ``jobs`` (case, repetition) of run ``run_name`` under ``config``.

    ``commit(batch)`` stores finished traces and says, per item, whether it was new; it runs
    in one writer thread, so it may block. ``state`` is updated after every commit and handed
    to ``progress``. A failing commit stops the run with its error; a provider that answers
    nothing for :data:`UNREACHABLE_STREAK` traces in a row raises
    :class:`ProviderUnreachableError`. ``transport`` replaces the network (tests, benchmarks).
    """
    provider = get_provider(config.provider)
    pending = list(jobs)
    limiter = RateLimiter(config.rpm) if config.rpm else None
    clients: list[httpx.AsyncClient] = []
    # the CA bundle is loaded once (~50 ms each time), not once per worker's transport
    ssl_context = httpx.create_ssl_context() if transport is None else None

    def new_context() -> LoopContext:
        if transport is not None:
            inner: httpx.AsyncBaseTransport = transport
        else:
            assert ssl_context is not None  # created above whenever transport is None
            inner = httpx.AsyncHTTPTransport(retries=0, verify=ssl_context, limits=_WORKER_LIMITS)
        client = httpx.AsyncClient(transport=TapeTransport(inner), trust_env=False)
        clients.append(client)
        return LoopContext(
            client=client,
            provider=provider,
            config=config,
            api_key=api_key,
            limiter=limiter,
            sleep=sleep,
            base_delay_s=base_delay_s,
        )

    # A caller's transport (tests) serves every worker through one client, as it always did.
    # Otherwise each worker has its own client and pool: httpcore rescans every connection of
    # a pool (and asks each idle socket whether it is readable) whenever a request starts or
    # ends, so one pool shared by 16 workers cost O(16) per request; dropping that took the
    # CPU per trace at 16 in flight from 4.8 to 3.4 ms (bench/README.md, recorder section).
    shared_ctx = new_context() if transport is not None else None
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rejudge-commit")
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[Case, int] | None] = asyncio.Queue()
    # finished traces wait here; the committer writes all that are ready in one batch while the
    # workers go on with their next exchanges (at most `concurrency` traces wait)
    ready: asyncio.Queue[PendingCommit | None] = asyncio.Queue()
    commit_slots = asyncio.Semaphore(max(1, config.concurrency))
    failure: list[BaseException] = []
    # unreachable traces wait here until an answered trace shows the outage was transient
    held: list[PendingCommit] = []
    stopped: list[ProviderUnreachableError] = []
    for job in pending:
        queue.put_nowait(job)

    async def one(ctx: LoopContext, case: Case, rep: int) -> None:
        tape = Tape()
        sandbox = domain.new_sandbox(case.metadata or None)
        try:
            outcome = await run_case(ctx, case, registry, sandbox, tape)
        except Exception as exc:  # never let one case end the run
            outcome = LoopOutcome(
                error=TraceError(kind="harness_error", message=f"{type(exc).__name__}: {exc}")
            )
        meta = cassette_meta(
            run_name=run_name, case=case, repetition=rep, config=config, outcome=outcome
        )
        trace = trace_from_cassette(tape.interactions, meta, case.id, rep)
        trace = trace.model_copy(update={"timings": {"elapsed_s": round(outcome.elapsed_s, 4)}})
        item = PendingCommit(tape.interactions, meta, trace)
        if _unreachable(outcome, tape):
            if stopped:
                return
            held.append(item)
            if len(held) >= UNREACHABLE_STREAK:
                error = outcome.error
                stopped.append(
                    ProviderUnreachableError(
                        f"no response from {config.base_url or config.provider} for "
                        f"{len(held)} traces in a row (last: {error.message if error else '?'}); "
                        "the run stopped and those traces were not recorded. Start the server "
                        "or fix the base URL, then run the same command to resume",
                        field="base_url",
                    )
                )
                held.clear()
            return
        await _release_held()
        await commit_slots.acquire()
        ready.put_nowait(item)

    async def _release_held() -> None:
        """Commit held unreachable traces as the AGENT_ERROR traces they are (a blip)."""
        while held:
            await commit_slots.acquire()
            ready.put_nowait(held.pop(0))

    def _account(item: PendingCommit, inserted: bool) -> None:
        commit_slots.release()
        state.done += 1
        state.last_case = item.trace.case_id
        if not inserted:
            state.skipped += 1
        elif item.trace.status == "agent_error":
            state.agent_errors += 1
        else:
            state.completed += 1
            if item.trace.calls:
                state.with_calls += 1

    async def committer() -> None:
        finished = False
        while not finished:
            first = await ready.get()
            if first is None:
                return
            batch = [first]
            while not ready.empty():
                item = ready.get_nowait()
                if item is None:
                    finished = True
                    break
                batch.append(item)
            if failure:
                results = [False] * len(batch)  # a commit failed: drain without writing
            else:
                try:
                    results = await loop.run_in_executor(writer, commit, batch)
                except Exception as exc:
                    failure.append(exc)
                    results = [False] * len(batch)
            for item, inserted in zip(batch, results, strict=True):
                _account(item, inserted)
            if progress is not None:
                progress(state)

    async def worker() -> None:
        ctx = shared_ctx if shared_ctx is not None else new_context()
        while True:
            job = await queue.get()
            if job is None or failure or stopped:
                return
            await one(ctx, *job)

    try:
        workers = [
            asyncio.create_task(worker()) for _ in range(min(config.concurrency, len(pending)) or 1)
        ]
        for _ in workers:
            queue.put_nowait(None)
        commit_task = asyncio.create_task(committer())
        try:
            await asyncio.gather(*workers)
            if not stopped:
                await _release_held()  # fewer than UNREACHABLE_STREAK at the end: a blip
        finally:
            ready.put_nowait(None)
            await commit_task
        if failure:
            raise failure[0]
        if stopped:
            raise stopped[0]
    finally:
        for client in clients:
            await client.aclose()  # closes its transport too
        writer.shutdown(wait=True)
