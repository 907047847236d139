"""A small PostgreSQL store of retail traces for the distributed-judging tests (every trace
distinct, with the faults real runs show), and a cluster of separate worker processes."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from rejudge.store import Store
from rejudge.suites import load_suite

from rejudge.model import Case, Round, RunConfig, ToolCall, Trace, TraceError
from rejudge.services import snapshot_suite
from tests.conftest import PG_URL_PREFIX, _admin, drop_schema


def _trace(case: Case, read_only: list[str], kind: int, rep: int) -> Trace:
    calls = [
        ToolCall(
            name=g.tool,
            arguments=dict(g.params),
            arguments_raw=json.dumps(g.params),
            ok=True,
            result={"status": "ok"},
        )
        for g in case.golden.calls
        for _ in range(g.count)
    ]
    status, error = "completed", None
    if kind == 1 and calls and calls[0].arguments:  # a wrong value
        args = dict(calls[0].arguments or {})
        args[sorted(args)[0]] = f"wrong-{rep}"
        calls[0] = calls[0].model_copy(update={"arguments": args})
    elif kind == 2 and calls:  # a missing call
        calls = calls[:-1]
    elif kind == 3:  # an extra read-only call
        calls.append(ToolCall(name=read_only[rep % len(read_only)], arguments={}, ok=True))
    elif kind == 4:  # no call at all
        calls = []
    elif kind == 5:
        status, error = "agent_error", TraceError(kind="http_error", message="500")
    rounds = [Round(index=i, calls=[c]) for i, c in enumerate(calls)]
    rounds.append(Round(index=len(rounds), text="done"))
    return Trace(
        case_id=case.id,
        repetition=rep,
        status=status,
        rounds=rounds,
        final_text="done",
        error=error,
    )


def fill(store: Store, n: int, *, name: str = "dask-run", seed: int = 7) -> str:
    """A run of ``n`` traces of the retail suite; returns its name."""
    source = load_suite("retail")
    read_only = sorted(t.name for t in source.registry.tools if t.read_only)
    suite = snapshot_suite(store, source)
    run = store.runs.create_run(name=name, suite=suite, config=RunConfig(model="bench"))
    pks = store.suites.get_case_pks(suite.id)
    cases = list(source.cases)
    rng = random.Random(seed)
    batch = []
    for i in range(n):
        case = cases[i % len(cases)]
        trace = _trace(case, read_only, rng.choice([0, 0, 0, 1, 2, 3, 4, 5]), i // len(cases))
        batch.append((run.id, pks[case.id], trace, None, None))
    store.traces.save_traces(batch)
    store.runs.finish_run(run.id)
    return name


@contextmanager
def pg_schema() -> Iterator[str]:
    """The URL of a fresh schema of the test PostgreSQL database, dropped afterwards."""
    schema = f"rejudge_dask_{uuid.uuid4().hex[:12]}"
    _admin(f'CREATE SCHEMA "{schema}"')
    try:
        yield f"{PG_URL_PREFIX}?options=-csearch_path%3D{schema}"
    finally:
        drop_schema(schema)
