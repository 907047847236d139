"""`rejudge demo --verbose`: every table the demo has, run by run (the default view is
:mod:`rejudge.cli._demo_brief`'s few screens of what to look at first).

The figures are the same objects ``--json`` dumps; rates are written with their counts
(:mod:`rejudge.cli._figures`) so that nothing reads as a fraction.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from rejudge.cli._agreement import render_agreement
from rejudge.cli._context import table
from rejudge.cli._figures import of, pass_fail, pass_hat_k, pct, rate, verdict_rate
from rejudge.model import AgreementTable

if TYPE_CHECKING:
    from rejudge.model import Agreement, Comparison, Flip, ReportSummary
    from rejudge.services import DemoEvaluation, DemoResult, ModelVsModel, PassRate
    from rejudge.services._demo_judge import DemoModelGraded

__all__ = ["render_full"]

#: the tiers whose agreement with τ-bench's reward the demo shows in full (the others in a line)
_AGREEMENT_TIERS = ("state", "golden")
#: flips listed per pair of rule-set versions (the count line says how many there are)
_FLIPS_SHOWN = 15
_pct = pct


def _outcomes(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counts.items()) or "-"


def _short_model(model: str) -> str:
    """A run of several models (imported recordings) by how many, not a line of names."""
    if model.startswith("mixed:"):
        return f"{len(model.split(':', 1)[1].split(','))} models"
    return model


def _scored_runs(result: DemoResult) -> set[str]:
    """Runs with at least one PASS or FAIL in some evaluation."""
    return {e.run for e in result.evaluations if e.summary.scored_count}


def _kappa(cmp: Comparison) -> str:
    # a comparison of judges reads as their agreement; any other kind has no kappa
    if cmp.judges is None or cmp.judges.kappa is None:
        return "n/a"
    return f"{cmp.judges.kappa:.2f}"


def _p(p: float | None) -> str:
    return "n/a" if p is None else f"{p:.3g}"


def _codes(flip: Flip) -> list[str]:
    """A flip's taxonomy codes: the failing side's (A's, else B's)."""
    return flip.taxonomy_from or flip.taxonomy_to


def _render_agreement(c: Console, agreement: Agreement) -> None:
    """The state tier (τ-bench's own way of judging) and the golden tier in full, in that
    order; the other tiers in a line."""
    shown = [t for name in _AGREEMENT_TIERS if (t := agreement.tier(name)) is not None]
    render_agreement(c, replace(agreement, tiers=shown), max_listed=5)
    others = [t for t in agreement.tiers if t.tier not in _AGREEMENT_TIERS]
    if others:
        c.print(
            "other tiers: "
            + "; ".join(
                f"{t.tier} agreement {rate(t.table.pass_1 + t.table.fail_0, t.table.total)}, kappa "
                + ("n/a" if t.table.kappa is None else f"{t.table.kappa:.3f}")
                for t in others
            ),
            markup=False,
        )


def render_full(c: Console, result: DemoResult) -> None:
    """Everything: runs, every (run, tier, rule set), headlines, flips, tiers against golden,
    τ-bench's and τ²'s rewards, the model judge's calibration in full."""
    c.rule("[bold]rejudge demo --verbose[/bold]")
    c.print(
        "suites: "
        + ", ".join(f"{s.name} ({s.cases} cases)" for s in result.suites)
        + f"   cassettes: {result.cassettes_dir}",
        markup=False,
    )
    models = sorted({r.model for r in result.runs})
    runs = Table(
        title="Runs: the shipped cassettes and imported evidence (no network, no key)"
        + (f", model {models[0]}" if len(models) == 1 else "")
    )
    # three columns that fit an 80-column terminal: the harness mode (and the model, when runs
    # differ in it) go under the run's name, which is never cut or folded
    under = "harness, model" if len(models) > 1 else "harness"
    names = [Text(r.run) for r in result.runs]
    runs.add_column(f"run ({under})", no_wrap=True, min_width=max([len(n) for n in names] + [12]))
    runs.add_column("n", justify="right", no_wrap=True)
    runs.add_column("how the traces ended", min_width=18, overflow="fold")
    for name, r in zip(names, result.runs, strict=True):
        detail = r.harness_mode + (f" · {_short_model(r.model)}" if len(models) > 1 else "")
        runs.add_row(
            name + Text(f"\n{detail}", style="dim"),
            str(r.traces),
            Text(_outcomes(r.outcomes)),
        )
    c.print(runs)
    for s in result.skipped:
        c.print(f"[yellow]skipped[/yellow] cassette folder {escape(s.folder)}: {escape(s.reason)}")

    # per run, one row per tier: accuracy under each rule-set version it was judged under (the
    # flips and kappa between versions are in the rule-set section, per tier)
    by_key: dict[tuple[str, str], dict[str, DemoEvaluation]] = {}
    for e in result.evaluations:
        by_key.setdefault((e.run, e.tier), {})[e.rules] = e
    rules = list(dict.fromkeys(e.rules for e in result.evaluations))
    scored_runs = _scored_runs(result)
    rows: list[list[str]] = []
    for (run, tier), per_rules in by_key.items():
        if run not in scored_runs:
            continue
        cells = []
        for ref in rules:
            ev = per_rules.get(ref)
            if ev is None:
                cells.append("")
                continue
            # "16.0% (32 of 200)": "(32/168)" reads as a fraction
            cells.append(verdict_rate(ev.summary.verdict_counts))
        rows.append(
            [
                # a run's name once, on its first tier's row (whole, never cut: two runs may
                # share a prefix)
                run if not rows or rows[-1][-1] != run else "",
                tier,
                *cells,
                run,  # which run the row is of (not a column)
            ]
        )
    # a bold line names the run and a table of its tiers follows: a run's name is as long as it
    # is (sweep names pass 40 characters), so it is never a column that could cut it
    c.print(
        Text(
            "Accuracy = PASS of PASS + FAIL, per tier and rule-set version (SKIP and "
            "AGENT_ERROR are never in the denominator)",
            style="italic",
        )
    )
    for run in dict.fromkeys(row[-1] for row in rows):
        own = [row for row in rows if row[-1] == run]
        # only the rule sets this run was judged under: no column of blanks
        judged = [i for i, _ in enumerate(rules) if any(row[2 + i] for row in own)]
        # no vertical rules: three rule sets of "43.5% (87 of 200)" fit 80 columns whole
        accuracy = Table(
            title=Text(run, style="bold"),
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            collapse_padding=True,
        )
        accuracy.add_column("tier", no_wrap=True)
        for i in judged:
            accuracy.add_column(rules[i], no_wrap=True)
        for row in own:
            accuracy.add_row(str(row[1]), *[str(row[2 + i]) for i in judged])
        c.print(accuracy)
    reused = sum(1 for e in result.evaluations if e.reused)
    c.print(
        f"{len(result.evaluations)} evaluations ({reused} found already judged); "
        "SKIP and AGENT_ERROR are never in the denominator",
        markup=False,
    )
    unscored = [r for r in result.runs if r.run not in scored_runs]
    for unscored_run in unscored:
        # a wall of "n/a" rows says nothing: say once per run why nothing could be scored
        c.print(
            f"[yellow]{escape(unscored_run.run)}[/yellow]: nothing to score under any tier or rule "
            "set, every trace ended without a normal result "
            f"({escape(_outcomes(unscored_run.outcomes))})"
        )
    if unscored:
        c.print(
            "AGENT_ERROR (round_budget: no final answer within the round budget; "
            "retries_exhausted / provider_error: the provider kept failing) is reported, never "
            "counted as FAIL."
        )

    # one headline per run: its golden report under the newest rules (the report's numbers)
    # rule titles stay short: a title wider than the terminal is cut with "…"
    c.rule("headlines (golden tier, newest rules)")
    c.print("`rejudge report EVAL` prints an evaluation's full report", markup=False)
    for h in result.headlines:
        if h.nothing_to_score:
            continue
        mix = ", ".join(f"{k} {n}" for k, n in h.verdict_counts.to_json().items() if n)
        line = f"{h.run} (eval {h.evaluation}): {mix}; accuracy {verdict_rate(h.verdict_counts)}"
        if h.pass_at_k is not None:
            line += "; pass^k " + pass_hat_k(h.pass_at_k, sep=" ", join=" ")
        top = ", ".join(f"{t.code} {t.count}" for t in h.top_failures)
        c.print(line + (f"; top causes {top}" if top else ""), markup=False)

    c.rule("rule-set versions compared")
    # one table per pair of versions (standard@1 -> standard@2 for every run; standard@2 ->
    # tau-bench@2 for the runs τ-bench rewarded)
    flips_by_pair: dict[tuple[str, str], list[list[str]]] = {}
    kappas: dict[tuple[str, str], dict[str, list[str]]] = {}
    for versions in result.comparisons:
        cmp = versions.comparison
        pair = (cmp.meta_a["rules"], cmp.meta_b["rules"])
        flip_rows = flips_by_pair.setdefault(pair, [])
        kappas.setdefault(pair, {}).setdefault(_kappa(cmp), []).append(
            f"{versions.run} {versions.tier}"
        )
        if not cmp.comparable:
            c.print(
                f"[bold red]not comparable[/bold red] {escape(versions.run)} {escape(versions.tier)}: "
                + escape("; ".join(cmp.reasons))
            )
        for f in cmp.flips:
            flip_rows.append(
                [
                    versions.run,
                    versions.tier,
                    f"{f.case} r{f.repetition}",
                    f"{f.from_verdict}->{f.to_verdict}",
                    f.cause,
                    " ".join(_codes(f)) or "-",
                ]
            )
    for (rules_a, rules_b), flip_rows in flips_by_pair.items():
        by_kappa = kappas.get((rules_a, rules_b), {})
        c.print(
            f"Cohen's kappa of the verdicts of {rules_a} and {rules_b}: "
            + "; ".join(f"{k} on {len(v)} run tier(s)" for k, v in by_kappa.items()),
            markup=False,
        )
        if not flip_rows:
            c.print(f"no case flipped from {rules_a} to {rules_b}", markup=False)
            continue
        per_run_tier = Counter(f"{row[0]} {row[1]}" for row in flip_rows)
        c.print(
            f"{len(flip_rows)} flip(s) from {rules_a} to {rules_b}: "
            + ", ".join(f"{k} {n}" for k, n in per_run_tier.items()),
            markup=False,
        )
        shown = flip_rows[:_FLIPS_SHOWN]
        more = (
            f" (first {len(shown)}; `rejudge compare A B` lists all)"
            if len(flip_rows) > len(shown)
            else ""
        )
        # one table per run, named in its title: a run's name and the codes side by side
        # would not fit 80 columns; a cause every flip shares goes in the title too
        for run in dict.fromkeys(row[0] for row in shown):
            own = [row[1:] for row in shown if row[0] == run]
            shared = {row[3] for row in own}
            columns = ["tier", "case", "verdict", "cause", "codes"]
            title = f"Flips of {run} from {rules_a} to {rules_b}{more}"
            if len(shared) == 1:
                title += f"; cause: {shared.pop()}"
                columns.remove("cause")
                own = [row[:3] + row[4:] for row in own]
            c.print(table(title, columns, own))

    if result.tier_comparisons:
        c.rule("tiers compared with golden (newest rules)")
        by_run: dict[str, list[str]] = {}
        for tiers in result.tier_comparisons:
            cmp = tiers.comparison
            causes: dict[str, int] = {}
            for f in cmp.flips:
                for code in _codes(f):
                    causes[code] = causes.get(code, 0) + 1
            top = ", ".join(
                f"{k} {n}" for k, n in sorted(causes.items(), key=lambda kv: -kv[1])[:2]
            )
            flips = len(cmp.flips)
            golden = verdict_rate(cmp.verdict_counts_a)
            by_run.setdefault(f"{tiers.run} (golden {golden})", []).append(
                f"{tiers.tier_b} {verdict_rate(cmp.verdict_counts_b)}"
                + (f" ({flips} flip(s): {top})" if flips else "")
            )
        for run, parts in by_run.items():
            c.print(f"{run}: " + "; ".join(parts), markup=False)

    if result.agreement is not None:
        c.rule("τ-bench's reward against rejudge's tiers")
        c.print("`rejudge report EVAL --against external` prints it for EVAL", markup=False)
        _render_agreement(c, result.agreement)

    if result.model_vs_model is not None:
        _render_model_vs_model(c, result.model_vs_model)

    if result.model_graded is not None:
        _render_model_graded(c, result.model_graded)


# --------------------------------------------------------------------------- τ²: model vs model


def _ci(rate: PassRate | None) -> str:
    if rate is None or rate.rate is None or rate.ci95 is None:
        return "-"
    lo, hi = rate.ci95
    return f"{rate.rate:.0%} ({of(rate.passed, rate.n)}) [{lo * 100:.0f}-{hi * 100:.0f}]"


def _render_model_vs_model(c: Console, mvm: ModelVsModel) -> None:
    c.rule("τ²-bench: model against model on the same tasks")
    c.print(
        f"Pass rates [95% Wilson interval]: τ²'s reward, rejudge's golden tier and state tier "
        f"(where the suite has a world) under {mvm.rules}",
        markup=False,
    )
    # a line per run, never cut: run names are long and an 80-column table folds them
    for r in mvm.runs:
        note = f", {r.relabelled} re-keyed" if r.relabelled else ""
        c.print(
            f"  {r.run} ({r.traces} traces{note})\n"
            f"      τ² {_ci(r.tau2_reward)}   golden {_ci(r.rejudge_golden)}   "
            f"state {_ci(r.rejudge_state)}",
            markup=False,
        )
    for r in mvm.runs:
        if r.state_agreement is not None:
            a = r.state_agreement
            kappa = "n/a" if a.kappa is None else f"{a.kappa:.3f}"
            c.print(
                f"{r.run}: the state tier (eval {r.state_evaluation}) against τ²'s reward: "
                f"agreement {rate(a.pass_1 + a.fail_0, a.total)}, kappa {kappa} (PASS/1 {a.pass_1}, "
                f"PASS/0 {a.pass_0}, FAIL/1 {a.fail_1}, FAIL/0 {a.fail_0})",
                markup=False,
            )
    pair, cmp = mvm.pair, mvm.pair.compare
    tau2 = pair.tau2_reward
    flips = Counter(f"{f.from_verdict}->{f.to_verdict}" for f in cmp.flips)
    c.print(
        f"{pair.a} vs {pair.b}: rejudge {mvm.tier} {verdict_rate(cmp.verdict_counts_a)} vs "
        f"{verdict_rate(cmp.verdict_counts_b)}, {len(cmp.flips)} flip(s) "
        f"({', '.join(f'{k} {n}' for k, n in sorted(flips.items())) or 'none'}), exact McNemar "
        f"p {_p(cmp.mcnemar_p)}; τ²'s reward on the same {tau2.cases} cases: "
        f"{tau2.pass_to_fail} pass->fail, {tau2.fail_to_pass} fail->pass, "
        f"p {tau2.mcnemar_p:.3g}",
        markup=False,
    )


# --------------------------------------------------------------------------- the model judge


def _counts(summary: ReportSummary) -> str:
    counts = summary.verdict_counts
    return f"{verdict_rate(counts)}: {pass_fail(counts)}"


def _render_model_graded(c: Console, mg: DemoModelGraded) -> None:
    from rejudge.cli.judge import render_judge_calibration

    c.rule("A model judge, replayed from its cassettes")
    c.print("`rejudge judge RUN --tier model-graded` judges a run so", markup=False)
    for j in mg.judged:
        c.print(
            f"{j.run}: {j.rubric} by {j.judge_model} (eval {j.evaluation}) {_counts(j.summary)}, "
            f"{j.invalid} reply(ies) the schema rejected (JUDGE_OUTPUT_INVALID)",
            markup=False,
        )
        for tier, (ev, summary) in j.beside.items():
            c.print(f"    beside it: {tier} (eval {ev}) {_counts(summary)}", markup=False)
        render_judge_calibration(c, j.calibration)
    if mg.judge_vs_judge is not None:
        a, b, cmp = mg.judge_vs_judge
        # the compare service's paired counts (its ``judges`` holds the same four, and only
        # when the two differ in the judge alone)
        table = AgreementTable(
            pass_1=cmp.concordant.get("pass", 0),
            pass_0=cmp.discordant.get("fail_to_pass", 0),
            fail_1=cmp.discordant.get("pass_to_fail", 0),
            fail_0=cmp.concordant.get("fail", 0),
        )
        kappa = "n/a" if table.kappa is None else f"{table.kappa:.2f}"
        judge_passes, other_passes = table.pass_1 + table.pass_0, table.pass_1 + table.fail_1
        stricter = (
            "as strict as each other"
            if judge_passes == other_passes
            else f"{b if judge_passes < other_passes else a} is stricter"
        )
        c.print(
            f"judge against judge on the same {table.total} traces (`rejudge compare "
            f"{cmp.a} {cmp.b}`): {a} vs {b}: agreement {rate(table.pass_1 + table.fail_0, table.total)}, kappa {kappa}; "
            f"{a} passes {other_passes}, {b} {judge_passes}: {stricter} (two judges: which "
            "to trust is the calibration's question, not a winner)",
            markup=False,
        )
    for line in mg.skipped:
        c.print(f"model judge skipped: {line}", markup=False)
