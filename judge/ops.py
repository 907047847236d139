"""Store-level operations behind the judge's commands: re-judging many runs, evaluation metadata,
comparisons of two stored evaluations, and baselines locked in (and checked against) the store.

Everything here reads inputs from the store and calls the pure functions of :mod:`judge.report`,
:mod:`judge.compare` and :mod:`judge.baseline`; nothing prints, reads the environment or opens the
network.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rejudge.store.errors import InvalidInputError, NotFoundError
from rejudge.store.hashing import content_hash
from rejudge.store.repository import RunRecord, Store
from rejudge.store.schemas import RuleSet

from .baseline import check_baseline, lock_baseline
from .batch import JudgeRunResult, evaluation_report, evaluation_rows, judge_run
from .compare import compare_rows
from .engine import ENGINE_VERSION
from .tiers import get_tier

__all__ = [
    "RejudgePlan",
    "RejudgeResult",
    "plan_rejudge",
    "rejudge",
    "applicable_tiers",
    "evaluation_meta",
    "evaluation_inputs",
    "compare_evaluations",
    "lock_evaluation_baseline",
    "check_evaluation_baseline",
    "find_current_evaluation",
    "parse_shard",
]

#: the inputs a baseline check requires to line up (the model and its traces may differ: that is
#: what a regression check measures)
BASELINE_INPUTS = (
    "suite_hash",
    "cases_hash",
    "registry_hash",
    "tier",
    "rule_set_hash",
    "engine_version",
    "harness_mode",
)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"I/N"`` -> ``(I, N)`` with 0 <= I < N."""
    if text is None:
        return None
    try:
        left, right = text.split("/", 1)
        index, count = int(left), int(right)
    except ValueError:
        raise InvalidInputError(f"--shard takes I/N (e.g. 0/4), got {text!r}") from None
    if count < 1 or not 0 <= index < count:
        raise InvalidInputError(f"--shard {text}: need 0 <= I < N and N >= 1")
    return index, count


# --------------------------------------------------------------------------- re-judging


@dataclass(frozen=True)
class RejudgePlan:
    """Which (run, tier) pairs a re-judge covers and how many traces each streams."""

    jobs: list[tuple[RunRecord, str, int]]
    skipped: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(n for _run, _tier, n in self.jobs)


@dataclass(frozen=True)
class RejudgeResult:
    rules: str
    results: list[JudgeRunResult]
    skipped: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "evaluations": [
                {
                    "evaluation": r.evaluation_id,
                    "run": r.run_id,
                    "tier": r.tier,
                    "rules": r.rules,
                    "judged": r.judged,
                    "written": r.written,
                    "summary": r.summary,
                }
                for r in self.results
            ],
            "skipped": self.skipped,
            "judged": sum(r.judged for r in self.results),
            "written": sum(r.written for r in self.results),
        }


def plan_rejudge(
    store: Store,
    runs: Sequence[str] | None,
    tiers: Sequence[str] = (),
    *,
    shard: tuple[int, int] | None = None,
) -> RejudgePlan:
    """Resolve ``runs`` (None = every run) and the tiers for each.

    Without ``tiers`` a run is re-judged under every tier it was judged under before; a run never
    judged is skipped (with a reason) unless tiers are given.
    """
    for tier in tiers:
        get_tier(tier)  # unknown tier: fail before anything else
    if runs is None:
        records = [store.get_run(r["id"]) for r in store.list_runs()]
        if not records:
            raise NotFoundError("the store holds no run to re-judge (see `rejudge runs`)")
    else:
        if not runs:
            raise InvalidInputError("name at least one RUN, or pass --all")
        records = [store.get_run(ref) for ref in runs]
    jobs: list[tuple[RunRecord, str, int]] = []
    skipped: list[dict[str, Any]] = []
    seen: set[int] = set()
    for run in records:
        if run.id in seen:
            continue
        seen.add(run.id)
        wanted = list(dict.fromkeys(tiers)) or sorted(
            {ev.tier for ev in store.list_evaluations(run.id)}
        )
        if not wanted:
            skipped.append({"run": run.name, "reason": "never judged; pass --tier"})
            continue
        count = store.count_traces(run.id)
        if shard is not None:
            index, n = shard
            count = count // n + (1 if index < count % n else 0)  # approximate for the bar
        for tier in wanted:
            jobs.append((run, tier, count))
    if not jobs and skipped:
        names = ", ".join(s["run"] for s in skipped)
        raise InvalidInputError(
            f"no run to re-judge: {names} never judged before; pass --tier T to choose a tier"
        )
    return RejudgePlan(jobs=jobs, skipped=skipped)


def rejudge(
    store: Store,
    plan: RejudgePlan,
    rule_set: RuleSet,
    *,
    workers: int = 1,
    shard: tuple[int, int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> RejudgeResult:
    """Re-score every planned (run, tier) under ``rule_set``: stored traces only, no network."""
    if workers < 1:
        raise InvalidInputError("--workers must be at least 1")
    results = [
        judge_run(store, run.id, tier, rule_set, workers=workers, shard=shard, progress=progress)
        for run, tier, _n in plan.jobs
    ]
    return RejudgeResult(rules=rule_set.ref, results=results, skipped=plan.skipped)


def applicable_tiers(store: Store, run_ref: str | int, names: Iterable[str]) -> list[str]:
    """The tiers of ``names`` that apply to at least one case of the run's suite."""
    run = store.get_run(run_ref)
    registry = store.get_registry(run.registry_id)
    cases = [case for _pk, case in store.get_cases(run.suite_id).values()]
    out = []
    for name in names:
        tier = get_tier(name)
        if any(tier.applies(case, registry) for case in cases):
            out.append(name)
    return out


def find_current_evaluation(
    store: Store, run_ref: str | int, tier: str, rule_set: RuleSet
) -> int | None:
    """A finished evaluation of exactly the run's current traces under (tier, rules, engine).

    Used to make a repeated demo a lookup: the evaluation must cover the same trace hashes the
    run holds now, so a renormalized or extended run is judged again.
    """
    run = store.get_run(run_ref)
    candidates = [
        ev
        for ev in store.list_evaluations(run.id)
        if ev.tier == tier and ev.engine_version == ENGINE_VERSION and ev.status == "finished"
    ]
    if not candidates:
        return None
    current = sorted(
        (r["case_key"], r["repetition"], r["hash"])
        for r in store.iter_trace_rows(run.id, decode=False)  # the bodies are not needed
    )
    for ev in reversed(candidates):
        if store.get_rule_set(ev.rule_set_id).hash != rule_set.hash:
            continue
        judged = sorted(
            (r["case_key"], r["repetition"], r["trace_hash"])
            for r in store.iter_evaluation_rows(ev.id)
        )
        if judged == current:
            return ev.id
    return None


# --------------------------------------------------------------------------- metadata


def evaluation_meta(store: Store, evaluation_id: int | str) -> dict[str, Any]:
    """What an evaluation measured: run, model, tier, rules and every input hash."""
    ev = store.get_evaluation(evaluation_id)
    rule_set = store.get_rule_set(ev.rule_set_id)
    meta: dict[str, Any] = {
        "id": ev.id,
        "tier": ev.tier,
        "rules": rule_set.ref,
        "rule_set_hash": rule_set.hash,
        "engine_version": ev.engine_version,
        "inputs_hash": ev.inputs_hash,
        "status": ev.status,
    }
    try:
        run = store.get_run(ev.run_id)
    except NotFoundError:
        return meta
    meta.update(
        {
            "run": run.name,
            "run_id": run.id,
            "model": run.model,
            "suite_hash": run.suite_hash,
            "registry_hash": run.registry_hash,
            "harness_mode": run.harness_mode,
        }
    )
    return meta


def evaluation_inputs(store: Store, evaluation_id: int | str) -> dict[str, Any]:
    """The input hashes a baseline binds (see :data:`BASELINE_INPUTS`)."""
    meta = evaluation_meta(store, evaluation_id)
    case_hashes = sorted(
        {(r["case_key"], r["case_hash"]) for r in store.iter_evaluation_rows(int(meta["id"]))}
    )
    inputs = {key: meta.get(key) for key in BASELINE_INPUTS if key != "cases_hash"}
    inputs["cases_hash"] = content_hash([list(pair) for pair in case_hashes])
    return inputs


def compare_evaluations(store: Store, a: int | str, b: int | str) -> dict[str, Any]:
    """DESIGN §11 ``compare`` of two stored evaluations (plus reasons and per-dimension deltas)."""
    meta_a, meta_b = evaluation_meta(store, a), evaluation_meta(store, b)
    out = compare_rows(
        evaluation_rows(store, int(meta_a["id"])),
        evaluation_rows(store, int(meta_b["id"])),
        meta_a=meta_a,
        meta_b=meta_b,
    )
    out["meta_a"] = meta_a
    out["meta_b"] = meta_b
    return out


# --------------------------------------------------------------------------- baselines


def _flat_report(store: Store, evaluation_id: int | str) -> dict[str, Any]:
    full = evaluation_report(store, int(store.get_evaluation(evaluation_id).id))
    return {**full["summary"], "cases": full["cases"]}


def lock_evaluation_baseline(
    store: Store, evaluation_id: int | str, name: str, *, note: str | None = None
) -> dict[str, Any]:
    """Lock an evaluation's report under ``name`` with its input hashes and report sha256."""
    ev = store.get_evaluation(evaluation_id)
    locked = lock_baseline(name, _flat_report(store, ev.id), evaluation_inputs(store, ev.id))
    record = store.save_baseline(
        name=name,
        evaluation_id=ev.id,
        report_hash=locked["report_sha256"],
        input_hashes=locked["inputs"],
        report=locked["report"],
        note=note,
    )
    return {
        "baseline": record.name,
        "evaluation": ev.id,
        "report_sha256": record.report_hash,
        "inputs": record.input_hashes,
        "accuracy": record.report.get("accuracy"),
        "verdict_counts": record.report.get("verdict_counts"),
    }


def check_evaluation_baseline(
    store: Store,
    evaluation_id: int | str,
    against: str,
    *,
    max_drop: float = 0.0,
    fail_on_flip: bool = True,
    allow_mismatch: bool = False,
) -> dict[str, Any]:
    """Check an evaluation against a locked baseline (raises on mismatched inputs unless
    ``allow_mismatch``); ``regression`` in the result decides the exit code."""
    if max_drop < 0:
        raise InvalidInputError("--max-drop must be >= 0 (an absolute accuracy drop, e.g. 0.02)")
    ev = store.get_evaluation(evaluation_id)
    record = store.get_baseline(against)
    baseline = {
        "name": record.name,
        "inputs": record.input_hashes,
        "report": record.report,
        "report_sha256": record.report_hash,
    }
    result = check_baseline(
        baseline,
        _flat_report(store, ev.id),
        evaluation_inputs(store, ev.id),
        fail_on_flip=fail_on_flip,
        max_accuracy_drop=max_drop,
        allow_mismatch=allow_mismatch,
    )
    result["evaluation"] = ev.id
    result["baseline_evaluation"] = record.evaluation_id
    return result
