"""`rejudge demo`: load suites, replay the shipped cassettes, import the shipped τ-bench and
real-world evidence, judge, compare, and show where the verdicts disagree with τ-bench's."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.text import Text

from rejudge.cli._context import AppContext, json_option, pass_app
from rejudge.cli._demo_brief import render_brief
from rejudge.cli._demo_full import render_full
from rejudge.services import DEMO_TAU_RUN, run_demo
from rejudge.store import redact_url

if TYPE_CHECKING:
    from rejudge.services import DemoResult

__all__ = ["demo", "next_steps"]


def next_steps(result: DemoResult) -> list[str]:
    """The commands to run next, on the evaluations the demo made."""
    steps = []
    tau = next((h for h in result.headlines if h.run == DEMO_TAU_RUN), None)
    if tau is not None and tau.evaluation is not None:
        steps.append(
            f"rejudge report {tau.evaluation} --against external   "
            "(why each τ-bench trajectory got its reward, tier by tier)"
        )
        steps.append(f"rejudge report {tau.evaluation}   (the full golden report of GPT-4o)")
    if result.tier_comparisons:
        tiers = next(
            (c.comparison for c in result.tier_comparisons if c.comparison.flips),
            result.tier_comparisons[0].comparison,
        )
        steps.append(f"rejudge compare {tiers.a} {tiers.b}   (two tiers, case by case)")
    if result.comparisons:
        versions = result.comparisons[0].comparison
        steps.append(f"rejudge compare {versions.a} {versions.b}   (two rule-set versions)")
    steps.append(
        "rejudge dashboard   (pages: Overview, Compare, Rule impact, Trace viewer, pass^k, "
        "Agreement, Review)"
    )
    return steps


def _render(c: Console, result: DemoResult, db_url: str, *, verbose: bool) -> None:
    db = "" if db_url == "sqlite:///rejudge.db" else f"--db {redact_url(db_url)} "
    if not verbose:
        # the commands to run next are quoted in the sections they follow up on, short: the
        # store they need is said once, at the end
        render_brief(c, result)
        c.rule()
        if db:
            c.print(Text(f"the commands above need {db.strip()}"))
        c.print(
            Text("rejudge dashboard: the store in a browser; rejudge demo --verbose: every table")
        )
        return
    render_full(c, result)
    c.print(f"done in {result.elapsed_s:.1f}s.")
    c.rule("where to look next")
    for step in next_steps(result):
        c.print(Text(f"  rejudge {db}{step.removeprefix('rejudge ')}"))


@click.command("demo")
@click.option(
    "--verbose",
    is_flag=True,
    help="Every table: each run's tiers under each rule set, every flip table, the headlines, "
    "the calibration in full (the default shows what to look at first).",
)
@json_option
@pass_app
def demo(app: AppContext, verbose: bool) -> None:
    """The main job on the embedded store: no API key, no network, about a minute at most.

    Loads the built-in suites, turns the shipped local-model cassettes into traces, imports the
    evidence of strong models that ships with rejudge (τ-bench's GPT-4o airline run with its
    rewards, the real-world suite's recordings of GPT, Claude and Gemini), judges every run
    under every applicable tier and both rule-set versions, and prints a headline per run, the
    tier and rule-version comparisons with their flips, τ-bench's reward against each tier, and
    where to look next. Running it again is a lookup.
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
    data = {
        **result.to_json(),
        "db": app.settings.db_url,
        "dashboard": "rejudge dashboard",
        "next_steps": next_steps(result),
    }
    app.emit(data, lambda console: _render(console, result, app.settings.db_url, verbose=verbose))
