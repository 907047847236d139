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

Idempotent: a second run finds the suites, runs, traces and evaluations already there (lookups,
not duplicates). Returns a :class:`DemoResult`; the CLI renders it.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.judge import load_rule_set
from rejudge.judge.tiers import tier_names
from rejudge.model import wilson_interval
from rejudge.recorder import CassetteError, read_cassette, run_config_from_meta
from rejudge.services._agreement import run_agreement
from rejudge.services._compare import compare_evaluations
from rejudge.services._evidence_paths import evidence_path, shipped_cassette_roots
from rejudge.services._imports import import_cassettes
from rejudge.services._ingest import evidence_of, ingest
from rejudge.services._judging import (
    applicable_tiers,
    evaluation_report,
    find_current_evaluation,
    judge_run,
)
from rejudge.services._suites import snapshot_suite
from rejudge.services._tau_import import import_tau_bench
from rejudge.store import RejudgeError, Store, SuiteRecord
from rejudge.suites import builtin_suites, load_suite

__all__ = [
    "DEMO_SUITES",
    "DEMO_RULES",
    "DEMO_TAU_RULES",
    "DEMO_TAU_RUN",
    "DEMO_REAL_WORLD",
    "DEMO_TAU2_FILES",
    "DemoError",
    "DemoResult",
    "cassette_roots",
    "find_demo_cassettes",
    "load_cassette_runs",
    "run_demo",
    "tau2_model_vs_model",
]

DEMO_SUITES = ("retail", "genome-simple", "genome-complex")
DEMO_RULES = ("standard@1", "standard@2")
#: runs that τ-bench (or τ²-bench) rewarded are judged under τ-bench's reading of a
#: conversation too (after DEMO_RULES), so the demo shows what changes from one to the other
DEMO_TAU_RULES = "tau-bench@1"
#: the shipped evidence of strong models the demo imports (package data)
DEMO_TAU_RUN = "tau-bench-gpt-4o-airline"
DEMO_REAL_WORLD = ("simonw-llm", "pydantic-ai")
_SUFFIXES = (".yaml", ".yml")

Progress = Callable[[str], None]


class DemoError(RejudgeError):
    """The demo cannot run as asked (no shipped cassettes found, ...)."""


@dataclass
class DemoResult:
    cassettes_dir: str
    suites: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    # per run: its golden report's headline under the newest rules, or why nothing was scored
    headlines: list[dict[str, Any]] = field(default_factory=list)
    # per run: every other tier compared with the golden tier, under the newest rules
    tier_comparisons: list[dict[str, Any]] = field(default_factory=list)
    # τ-bench's reward against every tier of the imported run (report --against external)
    agreement: dict[str, Any] | None = None
    # τ²-bench's leaderboard runs, model against model (see the τ² section below)
    model_vs_model: dict[str, Any] | None = None
    elapsed_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "cassettes": self.cassettes_dir,
            "suites": self.suites,
            "runs": self.runs,
            "skipped": self.skipped,
            "evaluations": self.evaluations,
            "reports": self.reports,
            "comparisons": self.comparisons,
            "headlines": self.headlines,
            "tier_comparisons": self.tier_comparisons,
            "agreement": self.agreement,
            "model_vs_model": self.model_vs_model,
            "elapsed_s": self.elapsed_s,
        }


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
    knobs = (config.extra or {}).get("knobs") if config is not None else None
    if not isinstance(knobs, dict) or (config.extra or {}).get("sweep") != "funcbench":
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
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Store every run folder under ``root`` as a run with its traces (idempotent).

    A folder whose cassettes name cases of no loaded suite, or hold no rejudge metadata, is
    skipped with its reason.
    """
    runs: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for folder in _run_folders(root):
        files = sorted(f for f in folder.iterdir() if f.suffix in _SUFFIXES and "__r" in f.stem)
        cassettes = []
        try:
            for path in files:
                cassettes.append(read_cassette(path))
        except CassetteError as exc:
            skipped.append({"folder": folder.name, "reason": str(exc)})
            continue
        if not all(c.meta.get("case") is not None for c in cassettes):
            skipped.append({"folder": folder.name, "reason": "not recorded by rejudge (no meta)"})
            continue
        recorded = {str(c.meta["case"]): c.meta.get("case_hash") for c in cassettes}
        suite_name = _suite_for(recorded, suites) or _generated_suite_for(
            recorded, cassettes[0].meta, suites
        )
        if suite_name is None:
            skipped.append({"folder": folder.name, "reason": "cases of no built-in suite"})
            continue
        snapshot = snapshots.get(suite_name)
        if snapshot is None:
            snapshot = snapshots[suite_name] = snapshot_suite(store, suites[suite_name])
        run_name = str(cassettes[0].meta.get("run") or folder.name)
        config = run_config_from_meta(cassettes[0].meta, f"shipped cassettes {folder.name}")
        if config is None:
            skipped.append({"folder": folder.name, "reason": "no run config in the cassettes"})
            continue
        run = store.create_run(name=run_name, suite=snapshot, config=config)
        done = store.trace_keys(run.id)
        evidence = []
        for cassette in cassettes:
            case_id = str(cassette.meta["case"])
            rep = int(cassette.meta.get("repetition", 0))
            if (case_id, rep) in done:
                continue
            # named by a root that resolves wherever the store is read (the shipped folder)
            evidence.append(evidence_of(cassette, case_id, rep, evidence_path(cassette.path)))
        inserted = ingest(store, run, evidence).inserted if evidence else 0
        outcomes = Counter(_outcome_of(c.meta) for c in cassettes)
        if run.status != "finished":
            store.finish_run(run.id, "finished")
        runs.append(
            {
                "run": run.name,
                "run_id": run.id,
                "suite": suite_name,
                "model": run.model,
                "harness_mode": run.harness_mode,
                "traces": len(cassettes),
                "inserted": inserted,
                # how the recordings ended: "completed" or the AGENT_ERROR kind (round_budget...)
                "outcomes": dict(sorted(outcomes.items(), key=lambda kv: (-kv[1], kv[0]))),
            }
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


def _import_shipped(store: Store, say: Progress) -> list[dict[str, Any]]:
    """The τ-bench run and the real-world recordings that ship as package data, imported through
    the import services (a lookup when they are stored already)."""
    from rejudge.suites.importers import SHIPPED_TAU_BENCH

    runs: list[dict[str, Any]] = []
    say("importing τ-bench's GPT-4o airline run")
    tau = import_tau_bench(
        SHIPPED_TAU_BENCH / "gpt-4o-airline.json",
        store,
        tools=SHIPPED_TAU_BENCH / "tools.json",
        run_name=DEMO_TAU_RUN,
        model="gpt-4o",
    )
    runs.append(
        {
            "run": tau.run.name,
            "run_id": tau.run.id,
            "suite": tau.suite.name,
            "model": tau.run.model,
            "harness_mode": tau.run.harness_mode,
            "traces": tau.inserted + tau.skipped,
            "inserted": tau.inserted,
            "outcomes": {"completed": tau.inserted + tau.skipped},
            "source": "τ-bench (sierra-research/tau-bench, historical trajectories)",
            "tau_rules": True,
        }
    )
    root = Path(load_suite("real-world").path or ".")
    for folder in DEMO_REAL_WORLD:
        say(f"importing the real-world recordings of {folder}")
        imported = import_cassettes(
            root / folder, store, "real-world", run_name=f"real-world-{folder}"
        )
        summary = imported.summary()
        runs.append(
            {
                "run": imported.run.name,
                "run_id": imported.run.id,
                "suite": imported.suite.name,
                "model": imported.run.model,
                "harness_mode": imported.run.harness_mode,
                "traces": len(imported.planned),
                "inserted": imported.inserted,
                "outcomes": dict(Counter(t["status"] for t in summary["traces"])),
                "source": f"cassettes recorded by {folder}",
            }
        )
    return runs


def _headline(run: dict[str, Any], reports: list[dict[str, Any]], newest: str) -> dict[str, Any]:
    mine = [r for r in reports if r["run"] == run["run"]]
    scored = [r for r in mine if r["summary"]["scored_count"]]
    if not scored:
        outcomes = ", ".join(f"{k} {n}" for k, n in (run.get("outcomes") or {}).items()) or "-"
        return {
            "run": run["run"],
            "model": run["model"],
            "evaluation": None,
            "nothing_to_score": "nothing to score under any tier or rule set: every trace "
            f"ended without a normal result ({outcomes})",
        }
    chosen = next(
        (r for r in scored if r["tier"] == "golden" and r["rules"] == newest),
        next((r for r in scored if r["rules"] == newest), scored[-1]),
    )
    summary = chosen["summary"]
    pass_k = summary.get("pass_at_k") or {}
    return {
        "run": run["run"],
        "model": run["model"],
        "evaluation": chosen["evaluation"],
        "tier": chosen["tier"],
        "rules": chosen["rules"],
        "verdict_counts": summary["verdict_counts"],
        "accuracy": summary["accuracy"],
        # only where a case was repeated: pass^1 alone is the accuracy again
        "pass_at_k": pass_k if len(pass_k) > 1 else None,
        "top_failures": list(summary.get("top_failures") or [])[:3],
        "nothing_to_score": None,
    }


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
        result.suites.append({"name": name, "cases": snap.case_count, "hash": snap.hash})

    if root is not None:
        say(f"reading cassettes under {root}")
        result.runs, result.skipped = load_cassette_runs(store, root, sources, snapshots)
    else:
        result.skipped.append(
            {
                "folder": "cassettes",
                "reason": "no local-model cassettes found: "
                + ", ".join(str(r) for r in cassette_roots(cassettes_dir)),
            }
        )
    if shipped_evidence:
        result.runs.extend(_import_shipped(store, say))
    if not result.runs:
        raise DemoError(
            f"no run folder under {root} holds cassettes of a built-in suite "
            f"({'; '.join(s['folder'] + ': ' + s['reason'] for s in result.skipped)})"
        )

    rule_sets = [load_rule_set(r) for r in rules]
    tau_rules = load_rule_set(DEMO_TAU_RULES)
    for run in result.runs:
        run_rules = [*rule_sets, tau_rules] if run.get("tau_rules") else rule_sets
        newest = run_rules[-1].ref
        wanted = applicable_tiers(store, run["run_id"], tiers or tier_names())
        newest_ids: dict[str, int] = {}
        for tier in wanted:
            ids = []
            for rule_set in run_rules:
                say(f"judging {run['run']} under {tier} / {rule_set.ref}")
                ev_id = find_current_evaluation(store, run["run_id"], tier, rule_set)
                reused = ev_id is not None
                if ev_id is None:
                    ev_id = judge_run(store, run["run_id"], tier, rule_set).evaluation_id
                report = evaluation_report(store, ev_id).to_json()
                report["run"] = run["run"]
                result.evaluations.append(
                    {
                        "evaluation": ev_id,
                        "run": run["run"],
                        "tier": tier,
                        "rules": rule_set.ref,
                        "reused": reused,
                        "summary": report["summary"],
                    }
                )
                result.reports.append(report)
                ids.append(ev_id)
            newest_ids[tier] = ids[-1]
            for a, b in zip(ids, ids[1:], strict=False):
                cmp = compare_evaluations(store, a, b).to_json()
                result.comparisons.append({"run": run["run"], "tier": tier, **cmp})
        headline = _headline(run, result.reports, newest)
        result.headlines.append(headline)
        golden = newest_ids.get("golden")
        if golden is not None and headline["nothing_to_score"] is None:
            for tier, ev_id in newest_ids.items():
                if tier != "golden":
                    cmp = compare_evaluations(store, golden, ev_id).to_json()
                    result.tier_comparisons.append(
                        {"run": run["run"], "tier_a": "golden", "tier_b": tier, **cmp}
                    )
        if run["run"] == DEMO_TAU_RUN:
            result.agreement = run_agreement(
                store, run["run_id"], rule_set_id=_rule_set_id(store, run["run_id"], newest)
            ).to_json()
    if shipped_evidence:
        result.model_vs_model = tau2_model_vs_model(store, say)
    result.elapsed_s = round(time.perf_counter() - started, 3)
    return result


def _rule_set_id(store: Store, run_id: int, ref: str) -> int | None:
    for ev in store.list_evaluations(run_id):
        if store.get_rule_set(ev.rule_set_id).ref == ref:
            return ev.rule_set_id
    return None


# --------------------------------------------------------------------------- τ²-bench: model vs model
#
# The six τ²-bench leaderboard runs that ship as package data (suites/importers/data/tau2-bench),
# imported through `rejudge import tau-bench` (one suite per domain: the five airline runs share
# `tau2-airline`'s 50 cases), judged under the golden tier, and under the state tier where the
# suite's registry names a world (retail: `tau2-retail`; τ²'s airline data is not here), and no
# other (the demo's time stays in bounds), then: per run, τ²'s own pass rate and rejudge's, each
# with a 95% Wilson interval, the state tier's agreement with τ²'s reward (`report --against
# external`), and one pair of models compared case by case through the compare service
# (`rejudge compare --json`: flips, exact McNemar p), on τ²'s rewards too.

#: the shipped τ² files (airline four models, Opus twice; retail one)
DEMO_TAU2_FILES = (
    "claude-sonnet-4-5_airline",
    "button_airline_claude-opus-4-6",
    "ironshell_airline_claude-opus-4-6",
    "ironshell_airline_gpt-5.4",
    "toolorchestra_airline",
    "toolorchestra_retail",
)
#: the pair compared: the best and the weakest τ² airline reward among runs of all 50 tasks
DEMO_TAU2_PAIR = ("tau2-airline/button/claude-opus-4-6", "tau2-airline/ironshell/gpt-5.4")


def _rate(passed: int, n: int) -> dict[str, Any]:
    return {
        "passed": passed,
        "n": n,
        "rate": round(passed / n, 4) if n else None,
        # the interval every surface shows (rejudge.model), to 4 places; none for no trace
        "ci95": [round(x, 4) for x in wilson_interval(passed, n)] if n else None,
    }


def tau2_model_vs_model(store: Store, say: Progress) -> dict[str, Any]:
    """Import the shipped τ² runs, judge each once, and compare models on the same cases."""
    from rejudge.judge import mcnemar_exact
    from rejudge.services._external import run_external_verdicts
    from rejudge.suites.importers import SHIPPED_TAU2_BENCH

    # judged under τ-bench's reading of a conversation, as the τ-bench run is
    rule_set = load_rule_set(DEMO_TAU_RULES)
    runs, evaluations, rewards = [], {}, {}
    for stem in DEMO_TAU2_FILES:
        say(f"importing τ²-bench's {stem}")
        imported = import_tau_bench(SHIPPED_TAU2_BENCH / f"{stem}.json", store)
        name = imported.run.name
        tiers = applicable_tiers(store, imported.run.id, ["golden", "state"])
        ids: dict[str, int] = {}
        for tier in tiers:
            ev_id = find_current_evaluation(store, imported.run.id, tier, rule_set)
            if ev_id is None:
                say(f"judging {name} under {tier} / {rule_set.ref}")
                ev_id = judge_run(store, imported.run.id, tier, rule_set).evaluation_id
            ids[tier] = ev_id
        external = {
            (v.case_key, v.repetition): v.verdict.value
            for v in run_external_verdicts(store, name, "tau2-bench")
        }
        evaluations[name], rewards[name] = ids["golden"], external
        entry: dict[str, Any] = {
            "run": name,
            "model": imported.run.model,
            "suite": imported.suite.name,
            "evaluation": ids["golden"],
            "traces": imported.inserted + imported.skipped,
            "relabelled": imported.relabelled,
            "tau2_reward": _rate(sum(1 for r in external.values() if r == 1.0), len(external)),
        }
        for tier, ev_id in ids.items():
            counts = evaluation_report(store, ev_id).to_json()["summary"]["verdict_counts"]
            entry[f"rejudge_{tier}"] = _rate(counts["PASS"], counts["PASS"] + counts["FAIL"])
        if "state" in ids:
            agreement = run_agreement(store, imported.run.id, prefer={"state": ids["state"]})
            table = next(t for t in agreement.to_json()["tiers"] if t["tier"] == "state")
            entry["state_evaluation"] = ids["state"]
            entry["state_agreement"] = {
                k: table["table"][k]
                for k in ("pass_1", "pass_0", "fail_1", "fail_0", "agreement", "kappa")
            }
        runs.append(entry)
    a, b = DEMO_TAU2_PAIR
    cmp = compare_evaluations(store, evaluations[a], evaluations[b]).to_json()
    shared = sorted(set(rewards[a]) & set(rewards[b]))
    lost = sum(1 for k in shared if rewards[a][k] == 1.0 and rewards[b][k] != 1.0)
    won = sum(1 for k in shared if rewards[a][k] != 1.0 and rewards[b][k] == 1.0)
    return {
        "rules": rule_set.ref,
        "tier": "golden",
        "runs": runs,
        "pair": {
            "a": a,
            "b": b,
            "compare": cmp,
            # the same paired test on τ²'s own rewards (1.0 = pass)
            "tau2_reward": {
                "cases": len(shared),
                "pass_to_fail": lost,
                "fail_to_pass": won,
                "mcnemar_p": mcnemar_exact(lost, won),
            },
        },
    }
