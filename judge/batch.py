"""Batch judging over the store: stream a run's traces, judge them (in worker processes when
asked), write judgments in bulk and link them to an evaluation.

Never touches the network and never imports the recorder: every input comes from the store.
Judgments are keyed by (trace hash, case hash, registry hash, tier, rule-set hash, engine
version), so a trace already judged under the same inputs is not written again (insert-or-ignore
on the key), and ``shard=(i, n)`` judges only traces whose id % n == i: n machines sharing one
PostgreSQL store split a large re-judge and converge on one evaluation per (run, tier, rules,
engine version).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from rejudge.store.errors import InvalidInputError, NotFoundError
from rejudge.store.hashing import canonical_json, content_hash, hash_bytes
from rejudge.store.repository import PreparedJudgment, Store
from rejudge.store.schemas import Case, RuleSet, ToolRegistry, Trace

from .context import registry_index
from .engine import ENGINE_VERSION, judge_body
from .report import ReportBuilder, build_report
from .rulesets import builtin_rule_sets
from .tiers import get_tier

__all__ = [
    "JudgeRunResult",
    "judge_run",
    "evaluation_rows",
    "iter_evaluation_rows",
    "evaluation_report",
]

Progress = Callable[[int], None]


@dataclass(frozen=True)
class JudgeRunResult:
    evaluation_id: int
    run_id: int
    tier: str
    rules: str
    judged: int
    written: int
    summary: dict[str, Any]


# ---------------------------------------------------------------- worker side

_W: dict[str, Any] = {}


@contextmanager
def _long_lived_frozen() -> Iterator[None]:
    """Move every object alive now (modules, registry, cases) out of the collector's sight.

    Judging allocates many short-lived containers; each full collection would otherwise walk
    every long-lived object again (about 40% of the judging time at 10k traces). Nothing about
    the judgments changes; the objects are unfrozen afterwards.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _KeyMaker:
    """``judgment_key`` for many traces of one (registry, tier, rule set, engine version).

    The key hashes the canonical JSON of ``[trace_hash, case_hash, registry_hash, tier,
    rule_set_hash, engine_version]``; everything after the trace hash is the same for every trace
    of a case, so that tail is serialized once per case and only the trace hash per trace. The
    text hashed is byte for byte the one :func:`store.schemas.judgment_key` hashes (a property
    test holds the two together).
    """

    def __init__(
        self, case_hashes: dict[str, str], registry_hash: str, tier: str, rule_set_hash: str
    ) -> None:
        self._tails = {
            case_key: canonical_json(
                [case_hash, registry_hash, tier, rule_set_hash, ENGINE_VERSION]
            )[1:]
            for case_key, case_hash in case_hashes.items()
        }

    def __call__(self, case_key: str, trace_hash: str) -> str:
        text = "[" + encode_basestring(trace_hash) + "," + self._tails[case_key]
        return hash_bytes(text.encode("utf-8"))


def _init_worker(
    registry: ToolRegistry, cases: dict[str, Case], rule_set: RuleSet, tier: str, freeze: bool
) -> None:
    """Worker-process setup (also run in-process for one worker)."""
    _W["registry"] = registry
    _W["cases"] = cases
    _W["case_hashes"] = {k: c.hash for k, c in cases.items()}
    _W["rule_set"] = rule_set
    _W["rule_set_hash"] = rule_set.hash
    _W["registry_hash"] = registry.hash
    _W["tier"] = get_tier(tier)
    if getattr(_W["tier"], "uses_registry_index", True):
        # compile the schemas once, before freezing; a tier that never reads them (bfcl-ast)
        # would pay seconds for thousands of tools it does not use
        registry_index(registry, _W["registry_hash"])
    if freeze:  # a worker process lives only for this batch: freeze its long-lived objects
        gc.collect()
        gc.freeze()


#: a judgment ready for the store, with what the run's summary reads of it: (prepared,
#: taxonomy, details.implicated_tools, anomalies)
Judged = tuple[PreparedJudgment, list[str], Any, list[str]]


def decode_trace(text: str) -> Trace:
    """A stored trace body, parsed and validated in one pass by pydantic's JSON parser (the
    same Trace as ``Trace.model_validate(json.loads(text))``, ~1/4 cheaper); any text it
    refuses (e.g. a lone surrogate escape) goes the ``json.loads`` way, as before."""
    try:
        return Trace.model_validate_json(text)
    except ValueError:
        return Trace.model_validate(json.loads(text))


def _judge_rows(rows: list[tuple[str, str, str, str]]) -> list[Judged]:
    """Judge ``(case key, trace hash, trace JSON text, judgment key)`` rows into judgments
    ready for the store (decoded, judged and serialized here, in the worker)."""
    cases, case_hashes = _W["cases"], _W["case_hashes"]
    registry, tier, rule_set = _W["registry"], _W["tier"], _W["rule_set"]
    registry_hash, rule_set_hash = _W["registry_hash"], _W["rule_set_hash"]
    out = []
    for case_key, trace_hash, text, key in rows:
        body = judge_body(
            decode_trace(text),
            cases[case_key],
            registry,
            tier,
            rule_set,
            trace_hash=trace_hash,
            case_hash=case_hashes[case_key],
            registry_hash=registry_hash,
            rule_set_hash=rule_set_hash,
        )
        out.append(
            (
                PreparedJudgment.from_body(body, key),
                list(body["taxonomy"]),
                body["details"].get("implicated_tools"),
                list(body["anomalies"]),
            )
        )
    return out


# ---------------------------------------------------------------- driver


def _chunked(it: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for row in it:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _find_or_create_evaluation(
    store: Store, run_id: int, tier: str, rule_set_id: int, reuse: bool
) -> int:
    """``reuse`` (a shard): the evaluation every shard of this (run, tier, rule set, engine
    version) shares, created by whichever shard comes first (atomically: see
    :meth:`Store.find_or_create_evaluation`); otherwise a new evaluation."""
    if reuse:
        evaluation_id, _created = store.find_or_create_evaluation(
            run_id=run_id, tier=tier, rule_set_id=rule_set_id, engine_version=ENGINE_VERSION
        )
        return evaluation_id
    return store.create_evaluation(
        run_id=run_id, tier=tier, rule_set_id=rule_set_id, engine_version=ENGINE_VERSION
    )


def judge_run(
    store: Store,
    run_ref: str | int,
    tier: str,
    rule_set: RuleSet,
    *,
    workers: int = 1,
    shard: tuple[int, int] | None = None,
    chunk_size: int = 500,
    progress: Progress | None = None,
    suite_id: int | None = None,
) -> JudgeRunResult:
    """Judge every stored trace of a run (or one shard of them) into an evaluation.

    ``suite_id`` judges the traces against another snapshot of the run's suite (same name, e.g.
    after a golden call was corrected) instead of the snapshot the run recorded; cases are matched
    by id, and the judgments carry the corrected cases' hashes.
    """
    from .tiers import get_tier

    get_tier(tier)  # unknown tier: fail before touching the store
    run = store.get_run(run_ref)
    registry_id, suite_hash = run.registry_id, run.suite_hash
    if suite_id is not None and suite_id != run.suite_id:
        recorded = store.get_suite_by_id(run.suite_id)
        chosen = store.get_suite_by_id(suite_id)
        if chosen.name != recorded.name:
            raise InvalidInputError(
                f"run {run.name!r} recorded suite {recorded.name!r}; it can be judged against "
                f"another snapshot of that suite, not against {chosen.name!r}"
            )
        registry_id, suite_hash = chosen.registry_id, chosen.hash
    registry = store.get_registry(registry_id)
    cases = {key: case for key, (_pk, case) in store.get_cases(suite_id or run.suite_id).items()}
    builtin = any(r.hash == rule_set.hash for r in builtin_rule_sets())
    rule_set_id = store.save_rule_set(rule_set, builtin=builtin)
    evaluation_id = _find_or_create_evaluation(
        store, run.id, tier, rule_set_id, reuse=shard is not None
    )
    case_hashes = {k: c.hash for k, c in cases.items()}
    reg_hash, rs_hash = registry.hash, rule_set.hash
    key_of = _KeyMaker(case_hashes, reg_hash, get_tier(tier).name, rs_hash)
    groups = {k: (c.dimension, c.category) for k, c in cases.items()}

    judged = written = 0
    # judged in this process when workers == 1 (or for nothing: a re-judge of unchanged inputs
    # judges nothing); the worker pool starts at the first batch that has something to judge
    _init_worker(registry, cases, rule_set, tier, False)
    pool: ProcessPoolExecutor | None = None

    # A new evaluation holds exactly the links this call writes, so its summary is aggregated
    # on the way; a shard's evaluation is shared with other machines and is read back instead.
    builder = ReportBuilder(include_cases=False) if shard is None else None

    def settle(
        rows: list[dict[str, Any]],
        keys: list[str],
        known: dict[str, dict[str, Any]],
        fresh: list[Judged],
    ) -> int:
        """Write the chunk's new judgments, then link every trace of the chunk."""
        for p, taxonomy, tools, anomalies in fresh:
            known[p.key] = {
                "id": None,  # not known before the insert: linked by key
                "verdict": p.verdict,
                "partial_score": p.partial_score,
                "taxonomy": taxonomy,
                "implicated_tools": tools,
                "anomalies": anomalies,
            }
        links = []
        for row, key in zip(rows, keys, strict=True):
            found = known[key]
            case_key = row["case_key"]
            dimension, category = groups[case_key]
            link = {
                "trace_id": row["id"],
                "case_key": case_key,
                "repetition": row["repetition"],
                "dimension": dimension,
                "category": category,
                "verdict": found["verdict"],
                "partial_score": found["partial_score"],
            }
            if found["id"] is None:
                link["judgment_key"] = key
            else:
                link["judgment_id"] = found["id"]
            links.append(link)
            if builder is not None:
                builder.add(
                    {
                        "case": case_key,
                        "repetition": row["repetition"],
                        "verdict": found["verdict"],
                        "taxonomy": found["taxonomy"],
                        "partial_score": found["partial_score"],
                        "dimension": dimension,
                        "category": category,
                        "implicated_tools": found["implicated_tools"] or [],
                        "anomalies": found["anomalies"] or [],
                    }
                )
        store.save_and_link_judgments(evaluation_id, [p for p, *_ in fresh], links)
        return len(fresh)

    with _long_lived_frozen():
        try:
            # bodies stay JSON text here: a trace already judged under these inputs is never
            # decoded, and a new one is decoded where it is judged (in the worker)
            stream = (
                row
                for row in store.iter_trace_rows(run.id, shard=shard, decode=False)
                if row["case_key"] in cases
            )
            Pending = tuple[
                list[dict[str, Any]],
                list[str],
                dict[str, dict[str, Any]],
                Future[list[Judged]],
            ]
            pending: list[Pending] = []

            def done(rows: list[dict[str, Any]], n_written: int) -> None:
                nonlocal judged, written
                judged += len(rows)
                written += n_written
                if progress:
                    progress(len(rows))

            for chunk in _chunked(stream, chunk_size):
                keys = [key_of(r["case_key"], r["hash"]) for r in chunk]
                # the key depends on the inputs only: look them up before judging anything
                known = store.lookup_judgments(keys)
                missing: dict[str, tuple[str, str, str, str]] = {}
                for r, key in zip(chunk, keys, strict=True):
                    if key not in known and key not in missing:
                        missing[key] = (r["case_key"], r["hash"], r["body"], key)
                if workers == 1 or not missing:
                    fresh = _judge_rows(list(missing.values())) if missing else []
                    done(chunk, settle(chunk, keys, known, fresh))
                    continue
                if pool is None:
                    pool = ProcessPoolExecutor(
                        max_workers=workers,
                        initializer=_init_worker,
                        initargs=(registry, cases, rule_set, tier, True),
                    )
                pending.append(
                    (chunk, keys, known, pool.submit(_judge_rows, list(missing.values())))
                )
                while len(pending) >= 2 * workers:  # bounded window: memory stays flat
                    rows, rkeys, rknown, fut = pending.pop(0)
                    done(rows, settle(rows, rkeys, rknown, fut.result()))
            for rows, rkeys, rknown, fut in pending:
                done(rows, settle(rows, rkeys, rknown, fut.result()))
        finally:
            if pool is not None:
                pool.shutdown()

    if builder is not None:
        summary = builder.report(harness_mode=run.harness_mode)
    else:
        summary = build_report(
            iter_evaluation_rows(store, evaluation_id),
            harness_mode=run.harness_mode,
            include_cases=False,
        )
    inputs_hash = content_hash(
        [
            suite_hash,
            reg_hash,
            rs_hash,
            tier,
            ENGINE_VERSION,
            run.harness_mode,
            sorted(case_hashes.values()),
        ]
    )
    store.finish_evaluation(evaluation_id, summary=summary, inputs_hash=inputs_hash)
    return JudgeRunResult(
        evaluation_id=evaluation_id,
        run_id=run.id,
        tier=tier,
        rules=rule_set.ref,
        judged=judged,
        written=written,
        summary=summary,
    )


def evaluation_rows(store: Store, evaluation_id: int) -> list[dict[str, Any]]:
    """An evaluation's rows in the shape :func:`judge.report.build_report` takes."""
    return list(iter_evaluation_rows(store, evaluation_id))


def iter_evaluation_rows(store: Store, evaluation_id: int) -> Iterator[dict[str, Any]]:
    """:func:`evaluation_rows`, streamed (memory stays flat however large the evaluation)."""
    for r in store.iter_evaluation_rows(evaluation_id):
        yield (
            {
                "case": r["case_key"],
                "repetition": r["repetition"],
                "verdict": r["verdict"],
                "taxonomy": list(r.get("taxonomy") or []),
                "partial_score": r["partial_score"],
                "dimension": r["dimension"],
                "category": r["category"],
                "implicated_tools": r["implicated_tools"] or [],
                "anomalies": r["anomalies"] or [],
                "trace_hash": r["trace_hash"],
                "case_hash": r["case_hash"],
                "registry_hash": r["registry_hash"],
                "rule_set_hash": r["rule_set_hash"],
                "tier": r["tier"],
                "engine_version": r["engine_version"],
            }
        )


def evaluation_report(store: Store, evaluation_id: int) -> dict[str, Any]:
    """The full report (DESIGN §11 ``report``) of a stored evaluation."""
    ev = store.get_evaluation(evaluation_id)
    try:
        run = store.get_run(ev.run_id)
    except NotFoundError:
        run = None
    rule_set = store.get_rule_set(ev.rule_set_id)
    report = build_report(
        iter_evaluation_rows(store, ev.id),
        harness_mode=run.harness_mode if run else None,
        harness_assistance=run.config.harness_assistance.model_dump() if run else None,
    )
    return {
        "evaluation": ev.id,
        "run": run.name if run else ev.run_id,
        "tier": ev.tier,
        "rules": rule_set.ref,
        "summary": {k: v for k, v in report.items() if k != "cases"},
        "cases": report["cases"],
    }
