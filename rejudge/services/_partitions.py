"""The worker side of judging on Dask: one task judges one id range of a run's traces.

Everything a task needs travels as ids in a small :class:`PartitionSpec`; the worker reads the
inputs from the shared store once per judging and keeps them (and its store connection) for the
next partition of the same judging. Each chunk of a partition is one transaction of
insert-or-ignore on the judgment key and on (evaluation, trace), so a task that runs twice
writes nothing twice. The driver is :mod:`rejudge.services._distributed`.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from typing import Any

from rejudge.errors import RejudgeError
from rejudge.judge import ENGINE_VERSION, BatchJudge
from rejudge.services._judge_steps import _chunked, judge_chunk_here, load_inputs, settle_chunk
from rejudge.store import Store

__all__ = ["ClusterError", "PartitionSpec", "judge_partition", "worker_identity"]


class ClusterError(RejudgeError):
    """The Dask cluster cannot judge or import: no scheduler answers, its Dask or a worker's
    rejudge is of another version, a worker cannot reach the store (judging) or does not see the
    folder (importing), the scheduler was lost mid-run, or a partition failed every retry (the
    message names it)."""


def rejudge_version() -> str:
    import rejudge

    return str(rejudge.__version__)


#: per worker process: open stores by URL, and the inputs of the judging it last ran
_WORKER: dict[str, Any] = {}


def _worker_store(url: str) -> Store:
    stores: dict[str, Store] = _WORKER.setdefault("stores", {})
    if url not in stores:
        stores[url] = Store.open(url, migrate=False)
    return stores[url]


def worker_identity(url: str) -> tuple[str, str, str | None]:
    """(rejudge version, engine version, why the store cannot be reached or None): run on every
    worker before anything is submitted."""
    try:
        _worker_store(url).traces.count_traces(-1)
        problem = None
    except Exception as exc:  # reported to the driver as one line, never raised here
        problem = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return rejudge_version(), ENGINE_VERSION, problem


@dataclass(frozen=True)
class PartitionSpec:
    """What every partition task of one judging shares (small: ids, not objects)."""

    url: str
    run_id: int
    tier: str
    rule_set_id: int
    rule_set_hash: str
    suite_id: int
    suite_hash: str
    registry_id: int
    evaluation_id: int
    shard: tuple[int, int] | None
    chunk_size: int
    engine_version: str


def _worker_context(spec: PartitionSpec) -> tuple[Store, Any, BatchJudge]:
    """The store, inputs and judge for ``spec``, built once per worker and judging."""
    if spec.engine_version != ENGINE_VERSION:  # a worker that joined after the check
        raise ClusterError(
            f"this worker judges with engine {ENGINE_VERSION}, the judging asks for "
            f"{spec.engine_version}"
        )
    store = _worker_store(spec.url)
    ident = (spec.url, spec.run_id, spec.tier, spec.rule_set_hash, spec.suite_id)
    cached = _WORKER.get("context")
    if cached is None or cached[0] != ident:
        rule_set = store.rule_sets.get_rule_set(spec.rule_set_id)
        run = store.runs.get_run(spec.run_id)
        inputs = load_inputs(
            store,
            run,
            spec.tier,
            rule_set,
            spec.rule_set_id,
            spec.suite_id,
            spec.suite_hash,
            spec.registry_id,
        )
        batch = BatchJudge(inputs.registry, inputs.cases, rule_set, spec.tier)
        # the registry, cases and compiled schemas live as long as the worker: keep them out
        # of the collector's sight (see rejudge.judge.long_lived_frozen)
        gc.collect()
        gc.freeze()
        cached = (ident, inputs, batch)
        _WORKER["context"] = cached
    return store, cached[1], cached[2]


def judge_partition(spec: PartitionSpec, first_id: int, last_id: int) -> tuple[int, int]:
    """One task: judge the run's traces with first_id <= id <= last_id into the evaluation;
    returns (traces linked, judgments written)."""
    store, inputs, batch = _worker_context(spec)
    stream = (
        row
        for row in store.traces.iter_trace_rows(
            spec.run_id, shard=spec.shard, with_body=False, id_range=(first_id, last_id)
        )
        if row.case_key in inputs.cases
    )
    linked = written = 0
    for chunk in _chunked(stream, spec.chunk_size):
        keys = [batch.key(r.case_key, r.hash) for r in chunk]
        known = store.judgments.lookup_judgments(keys)
        fresh = judge_chunk_here(store, batch, chunk, keys, known)
        written += settle_chunk(store, spec.evaluation_id, inputs, chunk, keys, known, fresh)
        linked += len(chunk)
    return linked, written
