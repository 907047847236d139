"""`rejudge judge | rejudge | report | compare | baseline lock|check`: each parses, calls one
service (:mod:`rejudge.services`), and renders its typed result (:mod:`rejudge.model._results`)
for people, or prints its JSON under ``--json``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from rejudge.cli._ci_output import ci_options, write_ci_outputs
from rejudge.cli._context import AppContext, count_option, json_option, pass_app, table
from rejudge.cli._engine import engine_options, parse_engine, progress_bar
from rejudge.cli._figures import pass_hat_k, rate, verdict_rate
from rejudge.cli._html import html_option, write_compare_html, write_report_html
from rejudge.cli.tiers import TIER_HELP
from rejudge.errors import InvalidInputError
from rejudge.judge import (
    DEFAULT_RULE_SET,
    BaselineCheck,
    BaselineLock,
    Comparison,
    EvaluationReport,
    JudgeSummary,
    RejudgeResult,
    load_rule_set,
)
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.model import JudgeCalibration, ReportSummary
from rejudge.services import (
    check_evaluation_baseline,
    compare_evaluations,
    evaluation_ci_results,
    evaluation_report,
    judge_run_summary,
    lock_evaluation_baseline,
    plan_rejudge,
    rejudge,
)

__all__ = [
    "judge_cmd",
    "rejudge_cmd",
    "report",
    "compare",
    "baseline",
    "render_summary",
    "render_report",
    "render_compare",
]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


# --------------------------------------------------------------------------- rendering


def render_summary(c: Console, head: Mapping[str, Any], summary: ReportSummary) -> None:
    """The summary tables shared by `judge`, `rejudge` and `report`."""
    counts = summary.verdict_counts
    c.print(
        # names from evidence are escaped: a run called "x[bold]" prints as written
        f"[bold]evaluation {head.get('evaluation')}[/bold]  run {escape(str(head.get('run')))}  "
        f"tier {escape(str(head.get('tier')))}  rules {escape(str(head.get('rules')))}"
    )
    c.print(
        f"accuracy {rate(counts.PASS, summary.scored_count)} scored  "
        f"(PASS {counts.PASS}  FAIL {counts.FAIL}  "
        f"SKIP {counts.SKIP}  AGENT_ERROR {counts.AGENT_ERROR})  "
        f"average partial score {summary.average_partial_score}",
        markup=False,
    )
    if summary.harness_mode:
        c.print(f"harness mode {summary.harness_mode}", markup=False)
    if summary.dimensions:
        rows = [
            [
                name,
                d.verdict_counts.PASS,
                d.verdict_counts.FAIL,
                d.verdict_counts.SKIP + d.verdict_counts.AGENT_ERROR,
                verdict_rate(d.verdict_counts),
            ]
            for name, d in summary.dimensions.items()
        ]
        c.print(table("By dimension", ["dimension", "PASS", "FAIL", "other", "accuracy"], rows))
    taxonomy = summary.taxonomy_counts
    if taxonomy:
        c.print(table("Failure causes", ["code", "FAILs"], [[k, v] for k, v in taxonomy.items()]))
    if summary.pass_at_k is not None:
        c.print("pass^k  " + pass_hat_k(summary.pass_at_k), markup=False)


def render_judge_headline(c: Console, cal: JudgeCalibration) -> None:
    """The judge's one line (weak judge: kappa ... vs ... on n), in red when weak."""
    c.print(Text(cal.headline, style="bold red" if cal.warning else "bold"))  # never markup


def render_judge_calibration(c: Console, cal: JudgeCalibration) -> None:
    """A model judge's calibration: its warning (or agreement) line, then one row per
    reference with the 2x2 table, kappa and who is stricter."""
    render_judge_headline(c, cal)
    if not cal.against:
        return
    # four cells, not "84/109/0/7": the judge's PASS/FAIL against the reference's 1/0
    rows = [
        a.row("n/a" if a.table.agreement is None else f"{a.table.agreement:.2f}")
        for a in cal.against
    ]
    c.print(
        table(
            f"Judge calibration ({cal.judge or cal.tier})",
            [
                "against",
                "unit",
                "both scored",
                "P·1",
                "P·0",
                "F·1",
                "F·0",
                "agreement",
                "kappa",
                "stricter",
                "judge unscored",
            ],
            rows,
        )
    )


def render_report(c: Console, report: EvaluationReport) -> None:
    summary = report.summary
    if report.judge_calibration is not None:  # before the verdicts it qualifies
        render_judge_headline(c, report.judge_calibration)
    render_summary(c, report.to_json(), summary)
    if summary.top_failures:
        fails = summary.verdict_counts.FAIL
        rows = [[t.code, t.count, rate(t.count, fails)] for t in summary.top_failures]
        c.print(table("Top failures (primary cause)", ["code", "FAILs", "share"], rows))
    if summary.worst_tools:
        rows = [[w.tool, w.failures] for w in summary.worst_tools]
        c.print(table("Worst tools", ["tool", "FAILs"], rows))
    assistance = summary.harness_assistance
    if assistance:
        c.print(
            "harness assistance " + ", ".join(f"{k}={v}" for k, v in assistance.items()),
            markup=False,
        )
    if summary.anomalies:
        rows = [[a.case, a.repetition, ", ".join(a.flags)] for a in summary.anomalies]
        c.print(table("Anomalies", ["case", "rep", "flags"], rows))
    if report.calibration:
        from rejudge.cli.review import render_calibration

        render_calibration(c, report.calibration)
    if report.judge_calibration is not None:
        render_judge_calibration(c, report.judge_calibration)
    cases = [
        [
            r.case,
            r.repetition,
            _verdict(r.verdict),
            " ".join(r.taxonomy),
            "" if r.partial_score is None else f"{r.partial_score:.2f}",
        ]
        for r in report.cases
    ]
    c.print(table("Cases", ["case", "rep", "verdict", "causes", "partial"], cases))


def _verdict(v: str | None) -> Text:
    # a styled Text, never a markup string: table cells are printed literally (_tables.cell),
    # so markup here would show as "[red]FAIL[/]"
    colour = {"PASS": "green", "FAIL": "red", "SKIP": "yellow", "AGENT_ERROR": "magenta"}
    return Text(str(v), style=colour.get(v or "", "white"))


def render_compare(c: Console, comparison: Comparison) -> None:
    data = comparison.to_json()
    ma, mb = data.get("meta_a", {}), data.get("meta_b", {})
    c.print(
        f"[bold]A[/bold] evaluation {data['a']} ({escape(str(ma.get('run')))}, {escape(str(ma.get('tier')))}, "
        f"{escape(str(ma.get('rules')))}): accuracy {verdict_rate(comparison.verdict_counts_a)}   "
        f"[bold]B[/bold] evaluation {data['b']} ({escape(str(mb.get('run')))}, {escape(str(mb.get('tier')))}, "
        f"{escape(str(mb.get('rules')))}): accuracy {verdict_rate(comparison.verdict_counts_b)}"
    )
    d = data["discordant"]
    # the kind first: what A and B differ in decides how everything below reads
    style = "bold red" if comparison.kind == "mixed" else "bold"
    c.print(comparison.reading(), style=style, markup=False)
    for line, weak in comparison.judge_headlines():
        c.print(Text(line, style="bold red" if weak else "bold"))  # never markup
    judges = comparison.judges
    if judges is not None:
        t = judges.to_json()["table"]
        c.print(
            table(
                "Agreement (pairs both judges scored)",
                ["", "B PASS", "B FAIL"],
                [
                    ["A PASS", t["pass_pass"], t["pass_fail"]],
                    ["A FAIL", t["fail_pass"], t["fail_fail"]],
                ],
            )
        )
        if judges.not_scored:
            c.print(
                f"{judges.not_scored} pair(s) not scored by one of the judges (SKIP/AGENT_ERROR)",
                markup=False,
            )
    line = (
        f"{data['paired']} paired, PASS->FAIL {d['pass_to_fail']}, FAIL->PASS {d['fail_to_pass']}"
    )
    if comparison.mcnemar_p is not None:
        line += f", exact McNemar p = {comparison.mcnemar_p:.4g}"
    c.print(line)
    if comparison.flips_by_cause:
        c.print(
            "flips by cause: "
            + ", ".join(f"{k} {n}" for k, n in comparison.flips_by_cause.items()),
            markup=False,
        )
    if data["comparable"]:
        c.print("[green]comparable[/green]: the two evaluations measure the same cases")
    else:
        c.print("[bold red]NOT COMPARABLE[/bold red]: " + escape("; ".join(data["reasons"])))
    for diff in data.get("differences", []):
        c.print(f"  differs: {diff['field']}: {diff['a']} -> {diff['b']}", markup=False)
    if data["flips"]:
        rows = [
            [
                f["case"],
                f["repetition"],
                Text.assemble(_verdict(f["from"]), " -> ", _verdict(f["to"])),
                ", ".join(f.get("causes") or [f["cause"]]),
                " ".join(f.get("taxonomy_from") or []),
                " ".join(f.get("taxonomy_to") or []),
            ]
            for f in data["flips"]
        ]
        c.print(
            table(
                f"Flips ({len(rows)})",
                ["case", "rep", "verdict", "cause", "causes in A", "causes in B"],
                rows,
            )
        )
    else:
        c.print("no verdict flips")
    dims = data.get("dimensions") or {}
    if dims:
        rows = [
            [
                name,
                rate(v["passed_a"], v["scored_a"]),
                rate(v["passed_b"], v["scored_b"]),
                "n/a" if v["delta"] is None else f"{100 * v['delta']:+.1f}",
            ]
            for name, v in dims.items()
        ]
        c.print(table("Per dimension", ["dimension", "A", "B", "delta (points)"], rows))


def render_judged(c: Console, result: JudgeSummary) -> None:
    if result.judge_calibration is not None:  # before the verdicts it qualifies
        render_judge_headline(c, result.judge_calibration)
    render_summary(c, result.to_json(), result.summary)
    c.print(
        f"{result.judged} trace(s) judged, {result.written} new judgment(s) "
        f"({result.judged - result.written} already known); "
        f"`rejudge report {result.evaluation}` for the full report",
        markup=False,
    )


def render_rejudged(c: Console, result: RejudgeResult) -> None:
    rows = [
        [
            e.evaluation,
            e.run,
            e.tier,
            e.judged,
            e.written,
            verdict_rate(e.summary.verdict_counts),
            e.summary.verdict_counts.PASS,
            e.summary.verdict_counts.FAIL,
        ]
        for e in result.evaluations
    ]
    c.print(
        table(
            f"Re-judged under {result.rules}",
            ["evaluation", "run", "tier", "judged", "new", "accuracy", "PASS", "FAIL"],
            rows,
        )
    )
    for s in result.skipped:
        c.print(f"skipped run {s['run']}: {s['reason']}", markup=False)


def _lock_accuracy(lock: BaselineLock) -> str:
    """The locked accuracy with its count when the lock holds its verdict counts."""
    counts = lock.verdict_counts
    if not counts:
        return _pct(lock.accuracy)
    return rate(counts.get("PASS", 0), counts.get("PASS", 0) + counts.get("FAIL", 0))


def render_lock(c: Console, lock: BaselineLock) -> None:
    c.print(
        f"baseline [bold]{escape(lock.baseline)}[/bold] locked on evaluation {lock.evaluation} "
        f"(accuracy {_lock_accuracy(lock)}, report {lock.report_sha256[:19]})"
    )


def _counted(accuracy: float | None, passed: int | None, scored: int | None) -> str:
    """An accuracy with its count ("16.0% (32 of 200)"); bare only when the locked report
    holds no counts."""
    if passed is None or scored is None:
        return _pct(accuracy)
    return rate(passed, scored)


def render_check(c: Console, check: BaselineCheck) -> None:
    baseline = _counted(check.accuracy_baseline, check.passed_baseline, check.scored_baseline)
    current = _counted(check.accuracy_current, check.passed_current, check.scored_current)
    c.print(f"baseline {check.baseline}: accuracy {baseline} -> {current}", markup=False)
    for m in check.input_mismatches:
        c.print(f"[yellow]input differs[/yellow]: {escape(str(m['input']))}")
    if check.judge_changed:
        c.print(
            f"judge changed ({', '.join(check.judge_changed)}): verdicts moved with the judge, "
            "so no accuracy change here is the model's; a laxer judge is not a better model",
            style="bold yellow",
            markup=False,
        )
    if check.flips:
        rows = [[f["case"], f["repetition"], " ".join(f["taxonomy"])] for f in check.flips]
        c.print(table("PASS -> FAIL", ["case", "rep", "causes now"], rows))
    if check.regression:
        c.print("[bold red]REGRESSION[/bold red]: " + escape("; ".join(check.reasons)))
    elif check.judge_changed:
        c.print("[yellow]no regression found under the changed judge[/yellow] (not a model result)")
    else:
        c.print("[green]no regression[/green]")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``--shard I/N`` -> ``(I, N)`` with 0 <= I < N."""
    if text is None:
        return None
    try:
        left, right = text.split("/", 1)
        index, count = int(left), int(right)
    except ValueError:
        raise click.ClickException(f"--shard takes I/N (e.g. 0/4), got {text!r}") from None
    if count < 1 or not 0 <= index < count:
        raise click.ClickException(f"--shard {text}: need 0 <= I < N and N >= 1")
    return index, count


_engine_options = engine_options(
    verb="judge",
    engine_help="Judge in this machine's processes, or as tasks on a Dask cluster "
    "(PostgreSQL store; pip install 'rejudge[dask]').",
    workers_help="Worker processes (with --engine dask and no --scheduler: of a local cluster).",
)


# --------------------------------------------------------------------------- commands


@click.command("judge")
@click.argument("run")
@click.option(
    "--tier", "tier", required=True, metavar="T", help=f"Tier to judge under: {TIER_HELP}."
)
@click.option(
    "--rules",
    "rules",
    default=DEFAULT_RULE_SET,
    show_default=True,
    metavar="R",
    help="Rule set: NAME@VERSION, NAME (latest) or a YAML/JSON file.",
)
@_engine_options
@click.option(
    "--suite-snapshot",
    "snapshot",
    metavar="latest|HASH",
    help="Judge against another snapshot of the run's suite (e.g. after a case was corrected).",
)
@click.option(
    "--world",
    "world",
    metavar="NAME@VERSION",
    help="Judge under this version of the run's world (the state tier), e.g. retail@2 "
    "[default: the version the run's suite names].",
)
@click.option(
    "--rubric",
    "rubric",
    default=None,
    metavar="R",
    help="model-graded: rubric NAME@VERSION, NAME or a YAML/JSON file [default: task-success-brief@1].",
)
@click.option(
    "--judge-model",
    "judge_model",
    default=None,
    metavar="M",
    help="model-graded: the judge model [default: the local SmolLM2 the shipped judge "
    "cassettes were recorded with].",
)
@click.option(
    "--judge-provider",
    "judge_provider",
    default="local",
    show_default=True,
    metavar="P",
    help="model-graded: the judge's provider (openai, anthropic, local, ...).",
)
@click.option(
    "--judge-base-url",
    "judge_base_url",
    default=None,
    metavar="URL",
    help="model-graded: the judge server's base URL [default: the provider's].",
)
@click.option(
    "--judge-record",
    "judge_record",
    type=click.Choice(["none", "new_episodes", "all"]),
    default="none",
    show_default=True,
    help="model-graded: none replays recorded judge exchanges only; new_episodes calls the "
    "judge for what is missing; all records every sample again.",
)
@count_option(
    "--judge-samples", 1, "model-graded: replies per trace; the verdict is the majority.", most=25
)
@click.option(
    "--judge-temperature",
    "judge_temperature",
    type=float,
    default=0.0,
    show_default=True,
    help="model-graded: the judge's sampling temperature.",
)
@count_option(
    "--judge-concurrency",
    1,
    "model-graded: judge requests in flight at once when recording.",
    most=64,
)
@json_option
@pass_app
def judge_cmd(
    app: AppContext,
    run: str,
    tier: str,
    rules: str,
    workers: int,
    engine: str,
    scheduler: str | None,
    snapshot: str | None,
    world: str | None,
    rubric: str | None,
    judge_model: str | None,
    judge_provider: str,
    judge_base_url: str | None,
    judge_record: str,
    judge_samples: int,
    judge_temperature: float,
    judge_concurrency: int,
) -> None:
    """Judge every stored trace of RUN into a new evaluation (with --engine dask: the run's
    evaluation under these inputs, resumed if unfinished); prints its id and summary.

    With --tier model-graded a model judges each trace against a rubric; its exchanges are
    cassettes under the cassette folder, replayed offline (the default) or recorded."""
    _refuse_flags_of_the_other_path(tier)
    if tier == MODEL_GRADED:
        _judge_model_graded(
            app,
            run,
            rubric,
            judge_model,
            judge_provider,
            judge_base_url,
            judge_record,
            judge_samples,
            judge_temperature,
            judge_concurrency,
        )
        return
    dask = parse_engine(engine, scheduler, workers)
    rule_set = load_rule_set(rules)
    with progress_bar(app, 0, f"judging under {rule_set.ref}") as tick:
        result = judge_run_summary(
            app.store,
            run,
            tier,
            rule_set,
            workers=workers,
            suite_snapshot=snapshot,
            engine=dask,
            progress=tick,
            world=world,
        )
    app.emit(result, lambda c: render_judged(c, result))


# the options only the rule tiers' judging reads, and those only the model judge's: given to
# the other path they would be silently ignored
_RULE_TIER_ONLY = ("rules", "workers", "engine", "scheduler", "snapshot", "world")
_MODEL_GRADED_ONLY = (
    "rubric",
    "judge_model",
    "judge_provider",
    "judge_base_url",
    "judge_record",
    "judge_samples",
    "judge_temperature",
    "judge_concurrency",
)


def _refuse_flags_of_the_other_path(tier: str) -> None:
    ctx = click.get_current_context()
    model_graded = tier == MODEL_GRADED
    names = _RULE_TIER_ONLY if model_graded else _MODEL_GRADED_ONLY
    flags = [
        max(p.opts, key=len)
        for p in ctx.command.params
        if p.name in names
        and ctx.get_parameter_source(p.name) is click.core.ParameterSource.COMMANDLINE
    ]
    if flags:
        goes_with = "the rule tiers" if model_graded else f"--tier {MODEL_GRADED}"
        raise InvalidInputError(
            f"{', '.join(flags)} {'goes' if len(flags) == 1 else 'go'} with {goes_with}, "
            f"not --tier {tier}"
        )


def _judge_model_graded(
    app: AppContext,
    run: str,
    rubric_ref: str | None,
    model: str | None,
    provider: str,
    base_url: str | None,
    record: str,
    samples: int,
    temperature: float,
    concurrency: int,
) -> None:
    from rejudge._settings import api_key_from_env
    from rejudge.judge import DEFAULT_RUBRIC, load_rubric
    from rejudge.model import DEFAULT_JUDGE_MODEL, JudgeModel
    from rejudge.recorder import JudgeEndpoint
    from rejudge.recorder.providers import get_provider
    from rejudge.services import ModelGradedOptions, judge_run_model_graded

    rubric = load_rubric(rubric_ref or DEFAULT_RUBRIC)
    judge_model = JudgeModel(
        provider=provider,
        model=model or DEFAULT_JUDGE_MODEL,
        temperature=temperature,
        samples=samples,
    )
    # the key comes from the environment only (as record's), and only when the judge is called
    api_key = api_key_from_env(get_provider(provider).api_key_env) if record != "none" else None
    options = ModelGradedOptions(
        rubric=rubric,
        judge=judge_model,
        cassettes=Path(app.settings.cassettes_dir),
        record=record,  # type: ignore[arg-type]
        endpoint=JudgeEndpoint(base_url=base_url, api_key=api_key),
        concurrency=concurrency,
    )
    with progress_bar(app, 0, f"judging under {rubric.ref} by {judge_model.model}") as tick:
        result = judge_run_model_graded(app.store, run, options, progress=tick, total=tick.total)
    app.emit(result, lambda c: render_judged(c, result))


@click.command("rejudge")
@click.argument("runs", nargs=-1, metavar="[RUN]...")
@click.option("--all", "all_runs", is_flag=True, help="Every run in the store.")
@click.option("--rules", "rules", required=True, metavar="R", help="Rule set to re-judge under.")
@click.option(
    "--tier",
    "tiers",
    multiple=True,
    metavar="T",
    help=f"Tier (repeatable): {TIER_HELP} [default: every tier each run was judged under before].",
)
@_engine_options
@click.option("--shard", metavar="I/N", help="Judge only traces with id % N == I.")
@json_option
@pass_app
def rejudge_cmd(
    app: AppContext,
    runs: tuple[str, ...],
    all_runs: bool,
    rules: str,
    tiers: tuple[str, ...],
    workers: int,
    engine: str,
    scheduler: str | None,
    shard: str | None,
) -> None:
    """Re-score stored traces under rule set R: no model call, no network."""
    if all_runs and runs:
        raise click.UsageError("give RUN names or --all, not both")
    if not all_runs and not runs:
        raise click.UsageError("name at least one RUN, or pass --all")
    dask = parse_engine(engine, scheduler, workers)
    rule_set = load_rule_set(rules)
    shard_t = parse_shard(shard)
    plan = plan_rejudge(app.store, None if all_runs else list(runs), tiers, shard=shard_t)
    with progress_bar(app, plan.total, f"re-judging under {rule_set.ref}") as tick:
        result = rejudge(
            app.store, plan, rule_set, workers=workers, shard=shard_t, progress=tick, engine=dask
        )
    app.emit(result, lambda c: render_rejudged(c, result))


@click.command("report")
@click.argument("evaluation", metavar="EVAL")
@click.option(
    "--against",
    "against",
    type=click.Choice(["external"]),
    default=None,
    help="Instead: the agreement of every tier of EVAL's run with the external verdict on its "
    "traces (2x2 table, Cohen's kappa, disagreeing cases with their causes).",
)
@click.option(
    "--source",
    "source",
    metavar="NAME",
    default=None,
    help="With --against external: whose verdicts [default: the only source stored].",
)
@click.option(
    "--rules",
    "rules",
    metavar="R",
    default=None,
    help="With --against external: the run's evaluations under this rule set [default: the one "
    "that follows the source's reward at the version that gave its verdicts, e.g. "
    "tau-bench-7362a17@1, when the run was judged under it; else EVAL's].",
)
@html_option
@ci_options
@json_option
@pass_app
def report(
    app: AppContext,
    evaluation: str,
    against: str | None,
    source: str | None,
    rules: str | None,
    html_path: Path | None,
    junit_xml_path: Path | None,
    github: bool,
) -> None:
    """The full report of an evaluation: summary, failures, tools, anomalies, every case."""
    if html_path is not None:
        if against is not None or rules is not None or source is not None:
            raise click.UsageError(
                "--html writes the whole report (its calibration holds every external source); "
                "give it without --against, --source or --rules"
            )
        if junit_xml_path is not None or github:
            raise click.UsageError("--html goes alone: write the CI outputs in another call")
        write_report_html(app, evaluation, html_path)
        return
    if against == "external":
        from rejudge.cli._agreement import render_agreement
        from rejudge.services import evaluation_agreement

        agreement = evaluation_agreement(
            app.store,
            evaluation,
            source=source,
            rules=load_rule_set(rules) if rules is not None else None,
        )
        app.emit(agreement, lambda c: render_agreement(c, agreement))
        return
    if rules is not None:
        raise click.UsageError("--rules goes with --against external (an evaluation has its own)")
    result = evaluation_report(app.store, evaluation, with_calibration=True)
    if junit_xml_path is not None or github:
        ci = evaluation_ci_results(app.store, result.evaluation)
        write_ci_outputs(ci, junit_xml_path, github)
    app.emit(result, lambda c: render_report(c, result))


@click.command("compare")
@click.argument("eval_a", metavar="EVAL_A")
@click.argument("eval_b", metavar="EVAL_B")
@html_option
@json_option
@pass_app
def compare(app: AppContext, eval_a: str, eval_b: str, html_path: Path | None) -> None:
    """Join two evaluations case by case: flips with causes, McNemar p, comparability."""
    if html_path is not None:
        write_compare_html(app, eval_a, eval_b, html_path)
        return
    result = compare_evaluations(app.store, eval_a, eval_b)
    app.emit(result, lambda c: render_compare(c, result))


@click.group("baseline")
def baseline() -> None:
    """Lock an evaluation as a baseline; check a later one against it (for CI)."""


@baseline.command("lock")
@click.argument("evaluation", metavar="EVAL")
@click.option("--name", "name", required=True, help="Baseline name (immutable once locked).")
@click.option("--note", default=None, help="A note stored with the baseline.")
@click.option(
    "--require-review",
    is_flag=True,
    help="Refuse unless every FAIL is reviewed and no judge_wrong label is unresolved.",
)
@json_option
@pass_app
def baseline_lock(
    app: AppContext, evaluation: str, name: str, note: str | None, require_review: bool
) -> None:
    """Lock EVAL's report (with its review figures) to every input hash and its sha256."""
    result = lock_evaluation_baseline(
        app.store, evaluation, name, note=note, require_review=require_review
    )
    app.emit(result, lambda c: render_lock(c, result))


@baseline.command("check")
@click.argument("evaluation", metavar="EVAL")
@click.option("--against", "against", required=True, metavar="NAME", help="Baseline name.")
@click.option(
    "--max-drop",
    type=float,
    default=0.0,
    show_default=True,
    help="Allowed absolute accuracy drop (0.02 = two points).",
)
@click.option(
    "--allow-flips", is_flag=True, help="Do not fail on PASS->FAIL flips (accuracy only)."
)
@click.option("--allow-mismatch", is_flag=True, help="Compare even when the inputs differ.")
@ci_options
@json_option
@pass_app
@click.pass_context
def baseline_check(
    ctx: click.Context,
    app: AppContext,
    evaluation: str,
    against: str,
    max_drop: float,
    allow_flips: bool,
    allow_mismatch: bool,
    junit_xml_path: Path | None,
    github: bool,
) -> None:
    """Exit 1 when EVAL regressed from baseline NAME (a PASS->FAIL flip, or an accuracy drop)."""
    result = check_evaluation_baseline(
        app.store,
        evaluation,
        against,
        max_drop=max_drop,
        fail_on_flip=not allow_flips,
        allow_mismatch=allow_mismatch,
    )
    if junit_xml_path is not None or github:
        ci = evaluation_ci_results(app.store, result.evaluation, check=result)
        write_ci_outputs(ci, junit_xml_path, github)
    app.emit(result, lambda c: render_check(c, result))
    if result.regression:
        ctx.exit(1)
