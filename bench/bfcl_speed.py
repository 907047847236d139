"""BFCL benchmark: bfcl-ast vs bfcl-eval's own checker, and a result folder end to end.

Usage (from the repository root; needs ``pip install --no-deps bfcl-eval``):

    python bench/bfcl_speed.py                 # 60 cases per category, best of 5
    python bench/bfcl_speed.py --per-category 0 --repeat 5   # every case

1. **Checker speed, in one run.** The same in-memory outputs (each sampled case's possible
   answers, then those plus the systematic mutations of ``tests/judge/test_bfcl_agreement.py``)
   go through bfcl-eval's ``ast_checker`` (with the stubbed model config, as in the test) and
   through rejudge at four depths: ``check_output`` (the bfcl-ast core: it lists every error
   instead of stopping at the first), the tier (``evaluate``: reading the trace's first
   response, the core, the diff, reasons and partial components), ``judge()`` (the engine on
   top: rule-set settings, verdict, precedence, partial score, anomalies, a validated
   ``Judgment``) and ``judge_body()`` (what ``judge.batch.judge_run`` calls: the same judgment
   as its stored JSON body). As in ``judge_run``, the content hashes of trace, case, registry and
   rule set are given (the store has them; hashing is done once at import, not per judging).
   The best of ``--repeat`` interleaved passes (CPU time of this process, so a busy machine
   skews less) is reported as microseconds per output and as a ratio (bfcl-eval time / ours:
   above 1 means rejudge is faster). End-to-end phases are CPU time too.
   ``--by-mutation`` also times each kind of output (the possible answer, each mutation) on
   its own, to show where a per-case gap comes from.
2. **End to end.** Every case of the 13 AST categories gets a result line (three in four are the
   possible answer, alternately decoded and raw Python syntax; the rest mutated or prose), the
   folder is imported into a fresh SQLite store (``import_bfcl_results``), each run is judged
   with bfcl-ast (``judge.batch.judge_run``) and exported as BFCL score files.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.judge.test_bfcl_agreement import (  # noqa: E402
    bfcl_rules,
    bfcl_verdict,
    load_bfcl_checker,
    mutations,
    sample_cases,
    trace_of,
)


def _best_interleaved(fns: list[Any], repeat: int) -> list[float]:
    """Best time of each function over ``repeat`` rounds, the functions alternating per round
    (so a noisy neighbour slows them alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            started = time.process_time()
            fn()
            best[k] = min(best[k], time.process_time() - started)
    return best


class _Item(NamedTuple):
    """One output judged both ways: BFCL's decoded output, the same as (name, args) pairs for
    the core, and the trace a recorder or importer would store for it."""

    label: str  # "answer:...", or the mutation's kind before ":"
    category: str
    entry: dict[str, Any]
    case: Any
    case_hash: str
    output: Any
    pairs: list[tuple[str, dict[str, Any]]] | None
    trace: Any
    trace_hash: str


def _items(per_category: int) -> tuple[list[_Item], dict[str, tuple[Any, str]]]:
    """Every sampled case's possible answers and mutations, and each category's registry with
    its hash (hashes are given as ``judge_run`` gives them: the store has them)."""
    from rejudge.importers import build_suite

    registries: dict[str, tuple[Any, str]] = {}
    items = []
    for category, entry, case in sample_cases(per_category or 10**9):
        if category not in registries:
            reg = build_suite(category).registry
            registries[category] = (reg, reg.hash)
        for label, output in mutations(case):
            pairs = None if output is None else [kv for d in output for kv in d.items()]
            trace = trace_of(output, case.id)
            items.append(
                _Item(label, category, entry, case, case.hash, output, pairs, trace, trace.hash)
            )
    return items, registries


def _run_bfcl(checker: Any, work: list[_Item]) -> None:
    for w in work:
        try:
            bfcl_verdict(checker, w.entry, w.case, w.output)
        except Exception:
            pass


def _run_engine(
    fn: Any, work: list[_Item], registries: dict[str, tuple[Any, str]], rules: Any, rules_hash: str
) -> None:
    """``judge`` or ``judge_body`` over ``work``, under bfcl-ast."""
    for w in work:
        registry, registry_hash = registries[w.category]
        fn(
            w.trace,
            w.case,
            registry,
            "bfcl-ast",
            rules,
            trace_hash=w.trace_hash,
            case_hash=w.case_hash,
            registry_hash=registry_hash,
            rule_set_hash=rules_hash,
        )


def _per_output(n: int, t_bfcl: float, ours: dict[str, float]) -> dict[str, Any]:
    """A row's figures for ``n`` outputs: microseconds an output for bfcl-eval's checker and
    for each of ``ours`` (name -> seconds), then each of ours' speedup over the checker."""
    row: dict[str, Any] = {"outputs": n, "bfcl_eval_us": round(t_bfcl / n * 1e6, 1)}
    row.update({f"{name}_us": round(t / n * 1e6, 1) for name, t in ours.items()})
    row.update({f"{name}_speedup": round(t_bfcl / t, 2) for name, t in ours.items()})
    return row


def checker_speed(per_category: int, repeat: int) -> list[dict[str, Any]]:
    from rejudge.judge import build_context, judge, judge_body
    from rejudge.judge.tiers import FAITHFUL, check_output, get_tier

    checker = load_bfcl_checker()
    rules = bfcl_rules("1")
    rules_hash = rules.hash
    tier = get_tier("bfcl-ast")
    items, registries = _items(per_category)
    rows: list[dict[str, Any]] = []
    for workload in ("possible answers", "answers + mutations"):
        work = [w for w in items if workload != "possible answers" or w.label.startswith("answer")]

        def run_bfcl(work: list[_Item] = work) -> None:
            _run_bfcl(checker, work)

        def run_core(work: list[_Item] = work) -> None:
            for w in work:
                check_output(w.case.metadata["bfcl"], w.pairs, FAITHFUL)

        def run_tier(work: list[_Item] = work) -> None:
            for w in work:
                registry, registry_hash = registries[w.category]
                tier.evaluate(build_context(w.trace, w.case, registry, rules, registry_hash))

        def run_judge(work: list[_Item] = work) -> None:
            _run_engine(judge, work, registries, rules, rules_hash)

        def run_body(work: list[_Item] = work) -> None:
            _run_engine(judge_body, work, registries, rules, rules_hash)

        run_judge()  # warm the per-case caches (each case's answers are read once)
        run_core()
        _run_bfcl(checker, [w._replace(output=copy.deepcopy(w.output)) for w in work])
        # (a deep copy: checks that nothing mutates the outputs both sides read)
        t_bfcl, t_core, t_tier, t_judge, t_body = _best_interleaved(
            [run_bfcl, run_core, run_tier, run_judge, run_body], repeat
        )
        ours = {"core": t_core, "tier": t_tier, "judge": t_judge, "body": t_body}
        rows.append({"workload": workload, **_per_output(len(work), t_bfcl, ours)})
    return rows


def by_mutation(per_category: int, repeat: int) -> list[dict[str, Any]]:
    """bfcl-eval's checker against ``judge_body`` per kind of output (the label before ``:``),
    each kind timed on its own (best of ``repeat``, the two alternating): where the per-case
    gap comes from. bfcl-eval stops at its first error; the judgment lists every one."""
    from rejudge.judge import judge_body

    checker = load_bfcl_checker()
    rules = bfcl_rules("1")
    rules_hash = rules.hash
    items, registries = _items(per_category)
    groups: dict[str, list[_Item]] = {}
    for w in items:
        groups.setdefault(w.label.split(":")[0], []).append(w)
    rows = []
    for label, work in sorted(groups.items()):

        def run_bfcl(work: list[_Item] = work) -> None:
            _run_bfcl(checker, work)

        def run_body(work: list[_Item] = work) -> None:
            _run_engine(judge_body, work, registries, rules, rules_hash)

        run_bfcl()
        run_body()
        t_bfcl, t_body = _best_interleaved([run_bfcl, run_body], repeat)
        rows.append({"kind": label, **_per_output(len(work), t_bfcl, {"body": t_body})})
    return rows


def end_to_end() -> dict[str, Any]:
    from rejudge.store import Store

    from rejudge.importers import CATEGORIES, build_suite
    from rejudge.services import export_bfcl, import_bfcl_results, judge_run

    rules = bfcl_rules("1")
    with tempfile.TemporaryDirectory(prefix="rejudge-bfcl-bench-") as tmp:
        folder = Path(tmp) / "result" / "bench-model"
        folder.mkdir(parents=True)
        lines_total = 0
        for category in CATEGORIES:
            suite = build_suite(category)
            lines = []
            for k, case in enumerate(suite.cases):
                calls = case.golden.calls
                if k % 4 == 3:
                    result: Any = "I would rather not call anything."
                elif k % 4 == 2 and calls:
                    first = calls[0]
                    result = [{first.tool.replace(".", "_"): {**first.params, "zz": 1}}]
                elif k % 2 == 0:
                    result = [{c.tool.replace(".", "_"): dict(c.params)} for c in calls]
                else:
                    result = (
                        "["
                        + ", ".join(
                            f"{c.tool}("
                            + ", ".join(f"{p}={v!r}" for p, v in c.params.items())
                            + ")"
                            for c in calls
                        )
                        + "]"
                    )
                lines.append(json.dumps({"id": case.id, "result": result}))
            (folder / f"BFCL_v4_{category}_result.json").write_text(
                "\n".join(lines) + "\n", encoding="utf-8"
            )
            lines_total += len(lines)
        store = Store.open(f"sqlite:///{Path(tmp) / 'rejudge.db'}")
        try:
            t0 = time.process_time()
            imported = import_bfcl_results(store, folder.parent, "bench-model")
            t1 = time.process_time()
            evaluations = [judge_run(store, r.run, "bfcl-ast", rules) for r in imported]
            t2 = time.process_time()
            written = [
                w
                for ev in evaluations
                for w in export_bfcl(store, ev.evaluation_id, Path(tmp) / "score")
            ]
            t3 = time.process_time()
        finally:
            store.close()
    passed = sum(w["correct_count"] for w in written)
    return {
        "result_lines": lines_total,
        "categories": len(imported),
        "import_s": round(t1 - t0, 2),
        "judge_s": round(t2 - t1, 2),
        "export_s": round(t3 - t2, 2),
        "total_s": round(t3 - t0, 2),
        "traces_per_s": round(lines_total / (t3 - t0)),
        "pass": passed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-category", type=int, default=60, help="0 = every case")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--skip-e2e", action="store_true")
    parser.add_argument(
        "--by-mutation", action="store_true", help="also time each kind of output on its own"
    )
    args = parser.parse_args()
    rows = checker_speed(args.per_category, args.repeat)
    print(
        "| workload | outputs | bfcl-eval us | core us | tier us | judge() us | judge_body() us "
        "| core x | tier x | judge() x | judge_body() x |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['workload']} | {r['outputs']} | {r['bfcl_eval_us']} | {r['core_us']} "
            f"| {r['tier_us']} | {r['judge_us']} | {r['body_us']} | {r['core_speedup']}x "
            f"| {r['tier_speedup']}x | {r['judge_speedup']}x | {r['body_speedup']}x |"
        )
    if args.by_mutation:
        print("\n| kind of output | outputs | bfcl-eval us | judge_body() us | judge_body() x |")
        print("|---|---:|---:|---:|---:|")
        for r in by_mutation(args.per_category, args.repeat):
            print(
                f"| {r['kind']} | {r['outputs']} | {r['bfcl_eval_us']} | {r['body_us']} "
                f"| {r['body_speedup']}x |"
            )
    if not args.skip_e2e:
        print(json.dumps(end_to_end(), indent=1))


if __name__ == "__main__":
    main()
