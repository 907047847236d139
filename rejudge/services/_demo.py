"""``rejudge demo``: the main job end to end on the embedded store, offline, with no API key.

1. Load the built-in suites (retail, genome-simple, genome-complex) into the store.
2. Turn the shipped cassettes (``cassettes/<run>/<case>__r<k>.yaml``, real recordings of the local
   model) into traces through the ingest path (:mod:`rejudge.services._ingest`, the one recording,
   ``renormalize`` and ``import cassettes`` use, so the hashes are the recorded ones). Nothing is
   sent anywhere: cassettes are read from disk.
3. Import the evidence of strong models that ships as package data, through the same services
   as ``rejudge import``: τ-bench's GPT-4o airline run (200 conversations with τ-bench's reward,
   ``import tau-bench``) and the real-world suite's recordings of other projects (GPT-4o-mini,
   GPT-5, Claude, Gemini; ``import cassettes --suite real-world``).
4. Judge every run under every applicable tier and two rule-set versions.
5. Per run a headline (verdict mix, accuracy, pass^k where repeated, top causes: the report of
   its golden evaluation under the newest rules); the tiers compared with the golden one and the
   two rule-set versions compared, each with its flips and causes; τ-bench's reward against every
   tier (the agreement view). Every number is what ``rejudge report`` / ``compare`` /
   ``report --against external`` compute: the same service calls.
6. τ²-bench's shipped leaderboard runs, model against model (:mod:`rejudge.services._demo_tau`).

Idempotent: a second run finds the suites, runs, traces and evaluations already there (lookups,
not duplicates). Returns a :class:`~rejudge.services._demo_result.DemoResult` (typed, each part
dumping the JSON ``--json`` prints); the CLI renders it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rejudge.errors import RejudgeError
from rejudge.importers._cassettes import import_cassettes
from rejudge.importers._tau_bench import import_tau_bench
from rejudge.judge import load_rule_set
from rejudge.judge.tiers import MODEL_GRADED, tier_names
from rejudge.model import EvaluationReport
from rejudge.recorder import CassetteError, CassetteFile, read_cassette, run_config_from_meta
from rejudge.services._agreement import evaluation_agreement, run_agreement
from rejudge.services._compare import compare_evaluations
from rejudge.services._demo_judge import demo_model_graded
from rejudge.services._demo_result import (
    DemoComparison,
    DemoEvaluation,
    DemoHeadline,
    DemoResult,
    DemoRun,
    DemoSkipped,
    DemoSuite,
    DemoTierComparison,
)
from rejudge.services._demo_tau import DEMO_TAU_RULES, tau2_model_vs_model
from rejudge.services._evidence_paths import evidence_path, shipped_cassette_roots
from rejudge.services._ingest import Evidence, evidence_of, ingest_run
from rejudge.services._judging import (
    applicable_tiers,
    evaluation_report,
    find_current_evaluation,
    judge_run,
)
from rejudge.services._suites import snapshot_suite
from rejudge.store import RunRecord, Store, SuiteRecord
from rejudge.suites import builtin_suites, load_suite

__all__ = [
    "DEMO_SUITES",
    "DEMO_RULES",
    "DEMO_TAU_RUN",
    "DEMO_REAL_WORLD",
    "DemoError",
    "cassette_roots",
    "find_demo_cassettes",
    "load_cassette_runs",
    "run_demo",
]

DEMO_SUITES = ("retail", "genome-simple", "genome-complex")
DEMO_RULES = ("standard@1", "standard@2")
#: the shipped evidence of strong models the demo imports (package data)
DEMO_TAU_RUN = "tau-bench-gpt-4o-airline"
DEMO_REAL_WORLD = ("simonw-llm", "pydantic-ai")
_SUFFIXES = (".yaml", ".yml")

Progress = Callable[[str], None]


class DemoError(RejudgeError):
    """The demo cannot run as asked (no shipped cassettes found, ...)."""


# --------------------------------------------------------------------------- finding cassettes


def cassette_roots(preferred: Path | None) -> list[Path]:
    """Where the demo looks for shipped cassettes, in order.

    ``preferred`` (``--cassettes``, default ``./cassettes``), then the ``cassettes/`` folder next
    to the installed packages (a source checkout or an editable install), then
    ``<prefix>/share/rejudge/cassettes`` (a wheel that ships them as data files).
    """
    roots = [*([preferred] if preferred is not None else []), *shipped_cassette_roots()]
    out: list[Path] = []
    for root in roots:
        if root not in out:
            out.append(root)
    return out


def _run_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(
        p
        for p in root.iterdir()
        if p.is_dir()
        and not p.name.startswith(".")
        and any(f.suffix in _SUFFIXES and "__r" in f.stem for f in p.iterdir())
    )


def find_demo_cassettes(preferred: Path | None) -> Path:
    """The first root of :func:`cassette_roots` holding at least one run folder."""
    roots = cassette_roots(preferred)
    for root in roots:
        if _run_folders(root):
            return root
    raise DemoError(
        "no shipped cassettes found (looked in "
        + ", ".join(str(r) for r in roots)
        + "); run from the rejudge checkout or name the cassette folder",
        field="cassettes",
    )


# --------------------------------------------------------------------------- cassettes -> runs


def _generated_suite_for(
    cases: dict[str, str | None], meta: dict[str, Any], suites: dict[str, Any]
) -> str | None:
    """A FuncBenchGen sweep's suite, generated again from the knobs its run recorded.

    Generation is deterministic in its knobs (seed included), so the suite the cassettes were
    recorded against is rebuilt exactly, and its hash is checked by the cases it must hold.
    """
    config = run_config_from_meta(meta, "sweep cassettes")
    extra = (config.extra or {}) if config is not None else {}
    knobs = extra.get("knobs")
    if not isinstance(knobs, dict) or extra.get("sweep") != "funcbench":
        return None
    import rejudge.suites.domains.funcbench  # noqa: F401  registers the domain
    from rejudge.suites.generators import Knobs, generate_suite

    try:
        generated = generate_suite(Knobs(**knobs))
    except (TypeError, ValueError, RejudgeError):
        return None  # knobs of another FuncBenchGen version: the folder is skipped
    if not _holds(generated.source, cases):
        return None
    suites.setdefault(generated.name, generated.source)
    return generated.name


def _holds(source: Any, cases: dict[str, str | None]) -> bool:
    """Whether ``source`` holds every recorded case, by id and, where the cassette recorded
    it, by case hash: every FuncBenchGen suite names its cases fb-001, fb-002, ..., so ids
    alone would put a c5 sweep's recordings on the c3 suite generated before it."""
    hashes = {c.id: c.hash for c in source.cases}
    return all(
        key in hashes and (want is None or hashes[key] == want) for key, want in cases.items()
    )


def _suite_for(cases: dict[str, str | None], suites: dict[str, Any]) -> str | None:
    for name, source in suites.items():
        if _holds(source, cases):
            return name
    return None


def load_cassette_runs(
    store: Store,
    root: Path,
    suites: dict[str, Any],
    snapshots: dict[str, SuiteRecord],
) -> tuple[list[DemoRun], list[DemoSkipped]]:
    """Store every run folder under ``root`` as a run with its traces (idempotent).

    A folder whose cassettes name cases of no loaded suite, or hold no rejudge metadata, is
    skipped with its reason.
    """
    runs: list[DemoRun] = []
    skipped: list[DemoSkipped] = []
    for folder in _run_folders(root):
        files = sorted(f for f in folder.iterdir() if f.suffix in _SUFFIXES and "__r" in f.stem)
        cassettes = []
        try:
            for path in files:
                cassettes.append(read_cassette(path))
        except CassetteError as exc:
            skipped.append(DemoSkipped(folder.name, str(exc)))
            continue
        if not all(c.meta.get("case") is not None for c in cassettes):
            skipped.append(DemoSkipped(folder.name, "not recorded by rejudge (no meta)"))
            continue
        recorded = {str(c.meta["case"]): c.meta.get("case_hash") for c in cassettes}
        suite_name = _suite_for(recorded, suites) or _generated_suite_for(
            recorded, cassettes[0].meta, suites
        )
        if suite_name is None:
            skipped.append(DemoSkipped(folder.name, "cases of no built-in suite"))
            continue
        snapshot = snapshots.get(suite_name)
        if snapshot is None:
            snapshot = snapshots[suite_name] = snapshot_suite(store, suites[suite_name])
        run_name = str(cassettes[0].meta.get("run") or folder.name)
        config = run_config_from_meta(cassettes[0].meta, f"shipped cassettes {folder.name}")
        if config is None:
            skipped.append(DemoSkipped(folder.name, "no run config in the cassettes"))
            continue

        def evidence_of_run(
            run: RunRecord, _suite: SuiteRecord, cassettes: list[CassetteFile] = cassettes
        ) -> list[Evidence]:
            done = store.traces.trace_keys(run.id)
            evidence = []
            for cassette in cassettes:
                case_id = str(cassette.meta["case"])
                rep = int(cassette.meta.get("repetition", 0))
                if (case_id, rep) in done:
                    continue
                # named by a root that resolves wherever the store is read (the shipped folder)
                evidence.append(evidence_of(cassette, case_id, rep, evidence_path(cassette.path)))
            return evidence

        stored = ingest_run(
            store, snapshot, name=run_name, config=config, evidence=evidence_of_run, finish="once"
        )
        run, inserted = stored.run, stored.inserted
        outcomes = Counter(_outcome_of(c.meta) for c in cassettes)
        runs.append(
            _demo_run(
                run,
                suite_name,
                traces=len(cassettes),
                inserted=inserted,
                outcomes=dict(sorted(outcomes.items(), key=lambda kv: (-kv[1], kv[0]))),
            )
        )
    return runs, skipped


def _outcome_of(meta: dict[str, Any]) -> str:
    outcome = meta.get("outcome")
    if not isinstance(outcome, dict):
        return "unknown"
    error = outcome.get("error")
    if outcome.get("status") == "agent_error" or isinstance(error, dict):
        kind = error.get("kind") if isinstance(error, dict) else None
        return str(kind or "agent_error")
    return str(outcome.get("status") or "unknown")


# --------------------------------------------------------------------------- the demo


def _demo_run(
    run: RunRecord,
    suite: str,
    *,
    traces: int,
    inserted: int,
    outcomes: dict[str, int],
    source: str | None = None,
    tau_rules: bool = False,
) -> DemoRun:
    """A run the demo stored, as its result names it (name, id, model and harness mode)."""
    return DemoRun(
        run=run.name,
        run_id=run.id,
        suite=suite,
        model=run.model,
        harness_mode=run.harness_mode,
        traces=traces,
        inserted=inserted,
        outcomes=outcomes,
        source=source,
        tau_rules=tau_rules,
    )


def _import_shipped(store: Store, say: Progress) -> list[DemoRun]:
    """The τ-bench run and the real-world recordings that ship as package data, imported through
    the import services (a lookup when they are stored already)."""
    from rejudge.importers import SHIPPED_TAU_BENCH

    runs: list[DemoRun] = []
    say("importing τ-bench's GPT-4o airline run")
    tau = import_tau_bench(
        SHIPPED_TAU_BENCH / "gpt-4o-airline.json",
        store,
        tools=SHIPPED_TAU_BENCH / "tools.json",
        run_name=DEMO_TAU_RUN,
        model="gpt-4o",
    )
    runs.append(
        _demo_run(
            tau.run,
            tau.suite.name,
            traces=tau.inserted + tau.skipped,
            inserted=tau.inserted,
            outcomes={},  # below, from the store
            source="τ-bench (sierra-research/tau-bench, historical trajectories)",
            tau_rules=True,
        )
    )
    root = Path(load_suite("real-world").path or ".")
    for folder in DEMO_REAL_WORLD:
        say(f"importing the real-world recordings of {folder}")
        imported = import_cassettes(
            root / folder, store, "real-world", run_name=f"real-world-{folder}"
        )
        runs.append(
            _demo_run(
                imported.run,
                imported.suite.name,
                traces=len(imported.planned),
                inserted=imported.inserted,
                outcomes={},  # below, from the store
                source=f"cassettes recorded by {folder}",
            )
        )
    # how the conversations ended, as the store holds them (τ-bench stopped five at its step
    # limit): never one status for the whole run; one read for every run imported
    statuses = store.catalog.trace_statuses()
    return [replace(r, outcomes=statuses[r.run_id].as_dict()) for r in runs]


def _headline(run: DemoRun, reports: list[EvaluationReport], newest: str) -> DemoHeadline:
    mine = [r for r in reports if r.run == run.run]
    scored = [r for r in mine if r.summary.scored_count]
    if not scored:
        outcomes = ", ".join(f"{k} {n}" for k, n in run.outcomes.items()) or "-"
        return DemoHeadline(
            run=run.run,
            model=run.model,
            evaluation=None,
            nothing_to_score="nothing to score under any tier or rule set: every trace "
            f"ended without a normal result ({outcomes})",
        )
    chosen = next(
        (r for r in scored if r.tier == "golden" and r.rules == newest),
        next((r for r in scored if r.rules == newest), scored[-1]),
    )
    summary = chosen.summary
    return DemoHeadline(
        run=run.run,
        model=run.model,
        evaluation=chosen.evaluation,
        tier=chosen.tier,
        rules=chosen.rules,
        verdict_counts=summary.verdict_counts,
        accuracy=summary.accuracy,
        # a report has pass^k only where a case was repeated (k = 1..2 at least)
        pass_at_k=summary.pass_at_k,
        top_failures=summary.top_failures[:3],
    )


def run_demo(
    store: Store,
    cassettes_dir: Path | None = None,
    *,
    suite_names: Sequence[str] = DEMO_SUITES,
    rules: Sequence[str] = DEMO_RULES,
    tiers: Sequence[str] | None = None,
    progress: Progress | None = None,
    shipped_evidence: bool = True,
) -> DemoResult:
    """Load suites, turn the shipped cassettes into traces, import the shipped τ-bench and
    real-world evidence (unless ``shipped_evidence`` is off), judge, compare. No network."""
    started = time.perf_counter()
    say = progress or (lambda _msg: None)
    try:
        root: Path | None = find_demo_cassettes(cassettes_dir)
    except DemoError:
        if not shipped_evidence:
            raise
        root = None  # the shipped τ-bench and real-world evidence still make a demo
    result = DemoResult(cassettes_dir=str(root) if root is not None else "")

    known = builtin_suites()
    sources = {name: load_suite(name) for name in known}
    snapshots: dict[str, SuiteRecord] = {}
    for name in suite_names:
        say(f"loading suite {name}")
        snap = snapshot_suite(store, sources[name])
        snapshots[name] = snap
        result.suites.append(DemoSuite(name=name, cases=snap.case_count, hash=snap.hash))

    if root is not None:
        say(f"reading cassettes under {root}")
        result.runs, result.skipped = load_cassette_runs(store, root, sources, snapshots)
    else:
        result.skipped.append(
            DemoSkipped(
                "cassettes",
                "no local-model cassettes found: "
                + ", ".join(str(r) for r in cassette_roots(cassettes_dir)),
            )
        )
    if shipped_evidence:
        result.runs.extend(_import_shipped(store, say))
    if not result.runs:
        raise DemoError(
            f"no run folder under {root} holds cassettes of a built-in suite "
            f"({'; '.join(s.folder + ': ' + s.reason for s in result.skipped)})"
        )

    rule_sets = [load_rule_set(r) for r in rules]
    tau_rules = load_rule_set(DEMO_TAU_RULES)
    for run in result.runs:
        run_rules = [*rule_sets, tau_rules] if run.tau_rules else rule_sets
        newest = run_rules[-1].ref
        # the model judge is asked through its own service, from its cassettes (below)
        wanted = [
            t
            for t in applicable_tiers(store, run.run_id, tiers or tier_names())
            if t != MODEL_GRADED
        ]
        newest_ids: dict[str, int] = {}
        for tier in wanted:
            ids = []
            for rule_set in run_rules:
                say(f"judging {run.run} under {tier} / {rule_set.ref}")
                ev_id = find_current_evaluation(store, run.run_id, tier, rule_set)
                reused = ev_id is not None
                if ev_id is None:
                    ev_id = judge_run(store, run.run_id, tier, rule_set).evaluation_id
                # the run was just judged, so the report names it (never by its id)
                report = evaluation_report(store, ev_id)
                result.evaluations.append(
                    DemoEvaluation(
                        evaluation=ev_id,
                        run=run.run,
                        tier=tier,
                        rules=rule_set.ref,
                        reused=reused,
                        summary=report.summary,
                    )
                )
                result.reports.append(report)
                ids.append(ev_id)
            newest_ids[tier] = ids[-1]
            for a, b in zip(ids, ids[1:], strict=False):
                result.comparisons.append(
                    DemoComparison(run.run, tier, compare_evaluations(store, a, b))
                )
        headline = _headline(run, result.reports, newest)
        result.headlines.append(headline)
        golden = newest_ids.get("golden")
        if golden is not None and headline.nothing_to_score is None:
            for tier, ev_id in newest_ids.items():
                if tier != "golden":
                    cmp = compare_evaluations(store, golden, ev_id)
                    result.tier_comparisons.append(DemoTierComparison(run.run, "golden", tier, cmp))
        if run.run == DEMO_TAU_RUN and headline.evaluation is not None:
            # as `rejudge report EVAL --against external` shows it (its rule set, and why)
            result.agreement = evaluation_agreement(store, headline.evaluation)
        elif run.run == DEMO_TAU_RUN:
            result.agreement = run_agreement(
                store, run.run_id, rule_set_id=_rule_set_id(store, run.run_id, newest)
            )
    if shipped_evidence:
        result.model_vs_model = tau2_model_vs_model(store, say)
        result.model_graded = demo_model_graded(store, cassette_roots(cassettes_dir), say)
    result.elapsed_s = round(time.perf_counter() - started, 3)
    return result


def _rule_set_id(store: Store, run_id: int, ref: str) -> int | None:
    for ev in store.evaluations.list_evaluations(run_id):
        if store.rule_sets.get_rule_set(ev.rule_set_id).ref == ref:
            return ev.rule_set_id
    return None
