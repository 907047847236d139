"""Judging on a Dask distributed cluster: a run's traces cut into id ranges, one task each.

The driver (this process) resolves the inputs, creates or finds the run's evaluation, claims it
(one driver per evaluation at a time), cuts the traces into consecutive id ranges and submits one
task per range to the cluster. A task, on whichever worker runs it, opens the shared PostgreSQL
store, reads its slice, judges it with the pure judge (:class:`rejudge.judge.BatchJudge`) and
writes chunk by chunk, each chunk one transaction of insert-or-ignore on the judgment key and on
(evaluation, trace): a task retried after a failure, or re-run after its worker was killed,
rewrites nothing and loses nothing. The driver streams each finished partition to the progress
callback and marks the evaluation finished only when every partition is; a run cut short
(scheduler lost, a partition failing every retry) leaves it running, and the same call again
resumes it (what is stored is a lookup).

Before anything is written the cluster is checked: the scheduler answers and runs this Dask,
every worker imports this rejudge with this judging engine version (the engine version is part
of every judgment key, so a worker of another version would write judgments under keys nobody
asked for) and reaches the store. A SQLite store is refused: it is a file on one machine.

The task itself (what runs on a worker) is :mod:`rejudge.services._partitions`. An import on
Dask (:mod:`rejudge.services._distributed_import`) connects and checks through
:func:`connect_cluster` too. ``dask[distributed]`` is an optional dependency (the ``dask``
extra), imported only when a cluster is used.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rejudge.errors import InvalidInputError
from rejudge.judge import ENGINE_VERSION, JudgeRunResult
from rejudge.model import RuleSet
from rejudge.services._judge_steps import (
    _find_or_create_evaluation,
    finish_judging,
    resolve_inputs,
)
from rejudge.services._partitions import (
    ClusterError,
    PartitionSpec,
    judge_partition,
    rejudge_version,
    worker_identity,
)
from rejudge.store import Store

if TYPE_CHECKING:
    from distributed import Client, Future

__all__ = [
    "DaskEngine",
    "DaskCluster",
    "open_cluster",
    "connect_cluster",
    "check_versions",
]

Progress = Callable[[int], None]


@dataclass(frozen=True)
class DaskEngine:
    """Where and how to run a judging on Dask: ``scheduler`` (``tcp://host:8786``), or a
    local cluster of ``workers`` separate processes when None."""

    scheduler: str | None = None
    workers: int = 2
    #: traces per partition (one task): small enough for a steady progress bar and a cheap
    #: re-run after a lost worker, large enough that a task's setup is noise
    partition_size: int = 2000
    #: how many times a task that raised is tried again before the judging fails
    retries: int = 2
    #: seconds to wait for a scheduler (and for its first worker)
    timeout: float = 10.0


def _dask_version() -> str:
    import distributed

    # set in distributed/__init__.py (from its _version) but not listed in its __all__
    return str(distributed.__version__)  # type: ignore[attr-defined]


def check_versions(
    scheduler: str,
    versions: dict[str, Any],
    identities: dict[str, Any],
    *,
    dask_version: str,
    rejudge_version: str,
) -> None:
    """Refuse a cluster whose scheduler or workers run another Dask, or whose workers lack this
    rejudge or this engine version. ``versions`` is ``Client.get_versions(check=False)``;
    ``identities`` is each worker's :func:`worker_identity` (or the exception it raised)."""
    theirs = (versions.get("scheduler") or {}).get("packages", {}).get("distributed")
    if theirs != dask_version:
        raise ClusterError(
            f"the Dask scheduler at {scheduler} runs distributed {theirs}, this machine "
            f"{dask_version}: run one Dask version on the scheduler, the workers and here"
        )
    for address, info in sorted((versions.get("workers") or {}).items()):
        wv = (info or {}).get("packages", {}).get("distributed")
        if wv != dask_version:
            raise ClusterError(
                f"Dask worker {address} runs distributed {wv}, this machine {dask_version}: "
                "run one Dask version everywhere"
            )
    if not identities:
        raise ClusterError(f"the Dask scheduler at {scheduler} has no worker")
    for address, ident in sorted(identities.items()):
        if isinstance(ident, BaseException):
            # an error raised while unpickling the probe comes back wrapped in a bare Exception
            reason = str(ident) if type(ident) is Exception else f"{type(ident).__name__}: {ident}"
            if isinstance(ident, ImportError) or "rejudge" in str(ident):
                raise ClusterError(
                    f"Dask worker {address} cannot import rejudge ({reason}): install rejudge "
                    f"{rejudge_version} on every worker"
                )
            raise ClusterError(f"Dask worker {address} failed its check: {reason}")
        version, engine, store_problem = ident
        if (version, engine) != (rejudge_version, ENGINE_VERSION):
            raise ClusterError(
                f"Dask worker {address} runs rejudge {version} (judging engine {engine}), this "
                f"machine rejudge {rejudge_version} (engine {ENGINE_VERSION}): the engine "
                "version is part of every judgment key; install the same rejudge on every worker"
            )
        if store_problem:
            raise ClusterError(f"Dask worker {address} cannot reach the store: {store_problem}")


# --------------------------------------------------------------------------- driver side


class DaskCluster:
    """A checked connection to a Dask cluster, judging runs of one store (see
    :func:`open_cluster`)."""

    def __init__(self, client: Client, store: Store, engine: DaskEngine, where: str) -> None:
        self.client = client
        self.store = store
        self.engine = engine
        self.where = where
        self._url = store.engine.url.render_as_string(hide_password=False)

    def judge_run(
        self,
        run_ref: str | int,
        tier: str,
        rule_set: RuleSet,
        *,
        shard: tuple[int, int] | None = None,
        progress: Progress | None = None,
        suite_id: int | None = None,
        chunk_size: int = 500,
    ) -> JudgeRunResult:
        """:func:`rejudge.services.judge_run` on the cluster: the run's one evaluation of
        (tier, rules, engine version), found or created, judged partition by partition."""
        from rejudge.errors import ConflictError

        store = self.store
        inputs = resolve_inputs(store, run_ref, tier, rule_set, suite_id)
        run = inputs.run
        evaluation_id = _find_or_create_evaluation(
            store, run.id, tier, inputs.rule_set_id, reuse=True
        )
        with store.evaluations.claim_evaluation(evaluation_id) as won:
            if not won:
                raise ConflictError(
                    f"evaluation {evaluation_id} (run {run.name!r}, tier {tier}, rules "
                    f"{rule_set.ref}) is being judged by another re-judge right now; it will "
                    "finish it, or run again once it stops",
                    run=run.name,
                )
            spec = PartitionSpec(
                url=self._url,
                run_id=run.id,
                tier=tier,
                rule_set_id=inputs.rule_set_id,
                rule_set_hash=rule_set.hash,
                suite_id=inputs.suite_id,
                suite_hash=inputs.suite_hash,
                registry_id=inputs.registry_id,
                evaluation_id=evaluation_id,
                shard=shard,
                chunk_size=chunk_size,
                engine_version=ENGINE_VERSION,
            )
            ranges = store.evaluations.trace_id_ranges(
                run.id, self.engine.partition_size, shard=shard
            )
            judged, written = self._run_partitions(spec, ranges, run.name, progress)
            # no builder saw the partitions' judgments: the summary is read back from the store
            return finish_judging(store, evaluation_id, inputs, tier, rule_set, judged, written)

    def _run_partitions(
        self,
        spec: PartitionSpec,
        ranges: list[tuple[int, int, int]],
        run_name: str,
        progress: Progress | None,
    ) -> tuple[int, int]:
        from distributed import as_completed

        client = self.client
        futures = {}
        for first, last, _n in ranges:
            fut = client.submit(
                judge_partition,
                spec,
                first,
                last,
                key=f"rejudge-eval{spec.evaluation_id}-traces{first}-{last}",
                retries=self.engine.retries,
                pure=False,
            )
            futures[fut.key] = (fut, first, last)
        judged = written = finished = 0
        try:
            done = as_completed([f for f, _a, _b in futures.values()], loop=client.loop)
            for fut in done:
                if lost_on_a_worker(fut):
                    # its worker died after it finished: the scheduler judges it again
                    done.add(fut)
                    continue
                # dropped as soon as it is read: a finished task's result and state are
                # released on its worker instead of living until the last partition
                _f, first, last = futures.pop(fut.key)
                if fut.status != "finished":
                    exc = fut.exception() if fut.status == "error" else None
                    if exc is None:  # cancelled: the scheduler went away
                        raise _lost(self.where, spec.evaluation_id, finished, len(ranges))
                    first_line = str(exc).splitlines()[0] if str(exc) else ""
                    raise ClusterError(
                        f"partition of traces {first}..{last} of run {run_name!r} failed "
                        f"(after {self.engine.retries} retries): {type(exc).__name__}: "
                        f"{first_line}; evaluation {spec.evaluation_id} stays unfinished, run "
                        "again to resume",
                        run=run_name,
                    )
                n_linked, n_written = fut.result()
                judged += n_linked
                written += n_written
                finished += 1
                if progress:
                    progress(n_linked)
        except (OSError, TimeoutError) as exc:  # CommClosedError is an OSError
            raise _lost(self.where, spec.evaluation_id, finished, len(ranges)) from exc
        finally:
            for fut, _a, _b in futures.values():
                if not fut.done():
                    fut.cancel()
        return judged, written


def lost_on_a_worker(fut: Future[Any]) -> bool:
    """True when a future ``as_completed`` yielded is no longer done because the worker holding
    its result died: the scheduler computes it again (the client still wants it), so it is
    waited for again, not mistaken for a lost scheduler. Only ``cancelled`` means the scheduler
    went away; ``lost`` and ``pending`` are a worker's loss, which retries and recomputation cover."""
    return fut.status in ("lost", "pending")


def _lost(where: str, evaluation_id: int, finished: int, total: int) -> ClusterError:
    return ClusterError(
        f"lost the Dask scheduler at {where} after {finished} of {total} partition(s); "
        f"evaluation {evaluation_id} stays unfinished and consistent: run the same judging "
        "again to resume (what is stored is a lookup)"
    )


@contextmanager
def open_cluster(engine: DaskEngine, store: Store) -> Iterator[DaskCluster]:
    """Connect to ``engine``'s scheduler (or start a local cluster of separate worker
    processes), check it, and yield a :class:`DaskCluster`; closed on exit."""
    if store.backend != "postgresql":
        raise InvalidInputError(
            f"a distributed judging needs a store every worker can reach (PostgreSQL); this "
            f"store is {store.backend}, a file on this machine",
            field="engine",
        )
    url = store.engine.url.render_as_string(hide_password=False)
    with connect_cluster(engine, worker_identity, url) as (client, where):
        yield DaskCluster(client, store, engine, where)


@contextmanager
def connect_cluster(
    engine: DaskEngine, identity: Callable[..., Any], *args: Any
) -> Iterator[tuple[Client, str]]:
    """Connect to ``engine``'s scheduler (or start a local cluster of separate worker
    processes), wait for a worker, check the cluster with :func:`check_versions` on what
    ``identity(*args)`` returns on every worker, and yield (client, where: the scheduler as
    messages name it); closed on exit. Judging probes with :func:`worker_identity`; an import,
    whose workers never open the store, with a probe of its own."""
    if engine.workers < 1:
        raise InvalidInputError("workers must be at least 1", field="workers")
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            "the Dask engine needs dask[distributed]: pip install 'rejudge[dask]'"
        ) from None

    # distributed logs a lost connection as a traceback on stderr; the caller gets one
    # ClusterError instead (the previous levels are restored on exit)
    quiet = [logging.getLogger(n) for n in ("distributed", "distributed.client", "tornado")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.CRITICAL)
    try:
        with _open(distributed, engine, identity, args) as opened:
            yield opened
    finally:
        for q, level in zip(quiet, levels, strict=True):
            q.setLevel(level)


@contextmanager
def _open(
    distributed: Any, engine: DaskEngine, identity: Callable[..., Any], args: tuple[Any, ...]
) -> Iterator[tuple[Client, str]]:
    cluster = None
    if engine.scheduler is None:
        cluster = distributed.LocalCluster(
            n_workers=engine.workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",  # a free port: never the 8787 of another cluster
            silence_logs=logging.ERROR,
        )
        where = f"{cluster.scheduler_address} (local, {engine.workers} worker processes)"
        address = cluster.scheduler_address
    else:
        where = address = engine.scheduler
    try:
        try:
            client = distributed.Client(address, timeout=engine.timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(
                f"no Dask scheduler answers at {address} ({str(exc).splitlines()[0]})"
            ) from None
        try:
            try:
                client.wait_for_workers(1, timeout=engine.timeout)
            except (OSError, TimeoutError):
                raise ClusterError(
                    f"the Dask scheduler at {where} has no worker (waited {engine.timeout:g} s)"
                ) from None
            check_versions(
                where,
                client.get_versions(check=False),
                client.run(identity, *args, on_error="return"),
                dask_version=_dask_version(),
                rejudge_version=rejudge_version(),
            )
            yield client, where
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
