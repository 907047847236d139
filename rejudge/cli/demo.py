"""`rejudge demo`: load suites, replay the shipped cassettes into traces, judge, compare."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.table import Table

from rejudge.cli._context import AppContext, json_option, pass_app, table
from rejudge.cli.judge import render_summary
from rejudge.services import DEMO_RULES, DemoResult, run_demo
from rejudge.store import redact_url

__all__ = ["demo"]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _outcomes(counts: dict[str, int] | None) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in (counts or {}).items()) or "-"


def _scored_runs(result: DemoResult) -> set[str]:
    """Runs with at least one PASS or FAIL in some evaluation."""
    return {e["run"] for e in result.evaluations if e["summary"]["scored_count"]}


def _render(c: Console, result: DemoResult, db_url: str) -> None:
    c.rule("[bold]rejudge demo[/bold]")
    c.print(
        "suites: "
        + ", ".join(f"{s['name']} ({s['cases']} cases)" for s in result.suites)
        + f"   cassettes: {result.cassettes_dir}"
    )
    models = sorted({r["model"] for r in result.runs})
    runs = Table(
        title="Runs replayed from the shipped cassettes (no network, no key)"
        + (f", model {models[0]}" if len(models) == 1 else "")
    )
    runs.add_column("run", no_wrap=True)
    if len(models) > 1:
        runs.add_column("model", no_wrap=True)
    runs.add_column("harness", no_wrap=True)
    runs.add_column("traces", justify="right")
    runs.add_column("how the traces ended")
    for r in result.runs:
        model = [r["model"]] if len(models) > 1 else []
        runs.add_row(
            r["run"], *model, r["harness_mode"], str(r["traces"]), _outcomes(r.get("outcomes"))
        )
    c.print(runs)
    for s in result.skipped:
        c.print(f"[yellow]skipped[/yellow] cassette folder {s['folder']}: {s['reason']}")

    # one row per (run, tier): accuracy under each rule-set version, flips, McNemar p
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for e in result.evaluations:
        by_key.setdefault((e["run"], e["tier"]), {})[e["rules"]] = e
    cmp_by_key = {(c["run"], c["tier"]): c for c in result.comparisons}
    rules = list(dict.fromkeys(e["rules"] for e in result.evaluations))
    scored_runs = _scored_runs(result)
    rows = []
    for (run, tier), per_rules in by_key.items():
        if run not in scored_runs:
            continue
        cells = []
        for ref in rules:
            ev = per_rules.get(ref)
            if ev is None:
                cells.append("")
                continue
            vc = ev["summary"]["verdict_counts"]
            cells.append(f"{_pct(ev['summary']['accuracy'])} ({vc['PASS']}/{vc['FAIL']})")
        cmp = cmp_by_key.get((run, tier))
        rows.append(
            [
                run,
                tier,
                *cells,
                len(cmp["flips"]) if cmp else "",
                f"{cmp['mcnemar_p']:.3g}" if cmp else "",
            ]
        )
    c.print(
        table(
            "Accuracy = PASS / (PASS + FAIL), with (PASS/FAIL)",
            ["run", "tier", *rules, "flips", "McNemar p"],
            rows,
        )
    )
    reused = sum(1 for e in result.evaluations if e["reused"])
    c.print(
        f"{len(result.evaluations)} evaluations ({reused} found already judged); "
        "SKIP and AGENT_ERROR are never in the denominator"
    )
    unscored = [r for r in result.runs if r["run"] not in scored_runs]
    for unscored_run in unscored:
        # a wall of "n/a" rows says nothing: say once per run why nothing could be scored
        c.print(
            f"[yellow]{unscored_run['run']}[/yellow]: nothing to score under any tier or rule "
            "set, every trace ended without a normal result "
            f"({_outcomes(unscored_run.get('outcomes'))})"
        )
    if unscored:
        c.print(
            "AGENT_ERROR (round_budget: no final answer within the round budget; "
            "retries_exhausted / provider_error: the provider kept failing) is reported, never "
            "counted as FAIL."
        )

    # one full report per run: the golden tier under the newest rules (or the last judged)
    for scored_run in result.runs:
        if scored_run["run"] not in scored_runs:
            continue
        mine = [r for r in result.reports if r["run"] == scored_run["run"]]
        chosen = next(
            (r for r in mine if r["tier"] == "golden" and r["rules"] == DEMO_RULES[-1]),
            mine[-1] if mine else None,
        )
        if chosen is None:
            continue
        c.rule(f"report {chosen['evaluation']}")
        render_summary(c, chosen, chosen["summary"])
        top = chosen["summary"].get("top_failures") or []
        if top:
            c.print(
                table(
                    "Top failures (primary cause)",
                    ["code", "FAILs"],
                    [[t["code"], t["count"]] for t in top],
                )
            )

    c.rule("rule-set versions compared")
    flips = []
    for cmp in result.comparisons:
        if not cmp["comparable"]:
            c.print(
                f"[bold red]not comparable[/bold red] {cmp['run']} {cmp['tier']}: "
                + "; ".join(cmp["reasons"])
            )
        for f in cmp["flips"]:
            flips.append(
                [
                    f"{cmp['run']} {cmp['tier']}",
                    f"{f['case']} r{f['repetition']}",
                    f"{f['from']}->{f['to']}",
                    f["cause"],
                    " ".join(f.get("taxonomy_from") or f.get("taxonomy_to") or []) or "-",
                ]
            )
    if flips:
        ma, mb = result.comparisons[0]["meta_a"], result.comparisons[0]["meta_b"]
        c.print(
            table(
                f"Flips from {ma['rules']} to {mb['rules']}",
                ["run / tier", "case", "verdict", "cause", "codes"],
                flips,
            )
        )
    else:
        c.print("no case flipped between the rule-set versions")
    c.print(f"done in {result.elapsed_s:.1f}s.")
    db = "" if db_url == "sqlite:///rejudge.db" else f"--db {redact_url(db_url)} "
    first = result.comparisons[0] if result.comparisons else None
    if first is not None:
        c.print(f"Compare two evaluations yourself:  rejudge {db}compare {first['a']} {first['b']}")
    c.print(f"Open the dashboard:  [bold]rejudge {db}dashboard[/bold]")


@click.command("demo")
@json_option
@pass_app
def demo(app: AppContext) -> None:
    """The main job on the embedded store: no API key, no network, seconds.

    Loads the built-in suites, turns the shipped cassettes into traces, judges them under every
    applicable tier and two rule-set versions, prints the reports and the rule-version
    comparison, and says how to open the dashboard. Running it again is a lookup.
    """
    status = app.console.status("starting", spinner="dots") if not app.json else None
    if status is not None:
        status.start()
    try:
        result = run_demo(
            app.store,
            app.settings.cassettes_dir,
            progress=(lambda msg: status.update(msg)) if status is not None else None,
        )
    finally:
        if status is not None:
            status.stop()
    data = {**result.as_dict(), "db": app.settings.db_url, "dashboard": "rejudge dashboard"}
    app.emit(data, lambda console: _render(console, result, app.settings.db_url))
