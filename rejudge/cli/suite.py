"""`rejudge suite list | validate NAME|PATH | selftest NAME|PATH | load NAME|PATH | from-mcp`.

NAME is a built-in suite, or a suite the store holds (e.g. from `generate funcbench --name`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console

from rejudge.cli._context import (
    AppContext,
    folder_option,
    json_option,
    pass_app,
    seconds_option,
    table,
)
from rejudge.model import Case, ToolRegistry, Trace
from rejudge.services import (
    StoredSuiteSummary,
    open_suite,
    snapshot_suite,
    stored_suite_summaries,
    suite_summaries,
    validate_named_suite,
)
from rejudge.suites import JudgeFn, selftest_suite

__all__ = ["suite"]


@click.group()
def suite() -> None:
    """Suites: list the built-in ones, validate, self-test, load into the store."""


@suite.command("list")
@click.option(
    "--stored",
    is_flag=True,
    help="List the suite snapshots in the store (imported, generated, recorded on) instead.",
)
@json_option
@pass_app
def suite_list(app: AppContext, stored: bool) -> None:
    """List the built-in suites with their case counts and hashes (--stored: the store's)."""
    data = stored_suite_summaries(app.store) if stored else suite_summaries()

    def render(c: Console) -> None:
        rows: list[list[Any]] = []
        for entry in data:
            dims = " ".join(f"{k}:{v}" for k, v in entry.dimensions.items())
            row = [
                entry.name,
                entry.cases if entry.cases is not None else "error",
                dims or entry.error or "",
                entry.negative,
                (entry.hash or "")[:19],
            ]
            rows.append(
                [entry.id, *row, entry.runs] if isinstance(entry, StoredSuiteSummary) else row
            )
        columns = ["name", "cases", "dimensions", "negative", "hash"]
        if stored:
            if not rows:
                c.print("No suite in the store yet (`rejudge suite load NAME` stores one).")
                return
            c.print(table("Suites in the store", ["id", *columns, "runs"], rows))
        else:
            c.print(table("Built-in suites", columns, rows))

    app.emit(data, render)


@suite.command("validate")
@click.argument("suite_ref", metavar="NAME|PATH")
@json_option
@pass_app
@click.pass_context
def suite_validate(ctx: click.Context, app: AppContext, suite_ref: str) -> None:
    """Check a suite and list every problem (file:line: case: field: message); exit 1 if any."""
    problems = validate_named_suite(suite_ref, lambda: app.store)
    data = {
        "suite": suite_ref,
        "valid": not problems,
        "problems": [p.as_dict() for p in problems],
    }

    def render(c: Console) -> None:
        for problem in problems:
            click.echo(str(problem))
        if problems:
            c.print(f"{suite_ref}: {len(problems)} problem(s)", markup=False)
        else:
            c.print(f"{suite_ref}: valid", markup=False)

    app.emit(data, render)
    if problems:
        ctx.exit(1)


def _judge_fn() -> JudgeFn | None:
    """Judge a golden trace under every tier that applies to its case (None without a judge)."""
    try:
        from rejudge.judge import judge
        from rejudge.judge.tiers import get_tier, tier_names
    except ImportError:
        return None

    def judge_all(trace: Trace, case: Case, registry: ToolRegistry) -> dict[str, str]:
        verdicts: dict[str, str] = {}
        for name in tier_names():
            tier = get_tier(name)
            if tier.applies(case, registry):
                verdicts[name] = judge(trace, case, registry, tier).verdict
        return verdicts

    return judge_all


@suite.command("selftest")
@click.argument("suite_ref", metavar="NAME|PATH")
@click.option("--no-judge", is_flag=True, help="Only execute the golden calls; do not judge them.")
@json_option
@pass_app
@click.pass_context
def suite_selftest(ctx: click.Context, app: AppContext, suite_ref: str, no_judge: bool) -> None:
    """Run every golden sequence in a fresh sandbox (and judge it); exit 1 if any case fails."""
    source = open_suite(suite_ref, lambda: app.store)
    report = selftest_suite(source, judge_fn=None if no_judge else _judge_fn())
    data = report.as_dict()
    if not app.json:
        data = {k: v for k, v in data.items() if k != "results"}

    def render(c: Console) -> None:
        failures = report.failures
        if failures:
            rows = [[f.case_id, "; ".join(f.problems)] for f in failures]
            c.print(table(f"{source.name}: failing cases", ["case", "problem"], rows))
        judged = "executed and judged" if report.judged else "executed"
        c.print(
            f"{source.name}: {data['passed']} of {data['cases']} cases pass "
            f"({report.calls_executed} golden calls {judged})",
            markup=False,
        )

    app.emit(report.as_dict() if app.json else data, render)
    if not report.ok:
        ctx.exit(1)


@suite.command("load")
@click.argument("suite_ref", metavar="NAME|PATH")
@json_option
@pass_app
def suite_load(app: AppContext, suite_ref: str) -> None:
    """Store a suite snapshot (immutable, keyed by its hash; loading it again is a lookup)."""
    record = snapshot_suite(app.store, open_suite(suite_ref, lambda: app.store))
    data = {
        "name": record.name,
        "hash": record.hash,
        "suite_id": record.id,
        "cases": record.case_count,
        "domain": record.domain,
    }
    app.emit(
        data,
        lambda c: c.print(
            f"{record.name}: {record.case_count} cases stored as {record.hash}", markup=False
        ),
    )


def quiet_mcp_sdk() -> None:
    """The SDK logs a traceback for every line a server writes that is no JSON-RPC; the
    command says it in one line instead (a shell decision: the library never configures it)."""
    import logging

    logging.getLogger("mcp").setLevel(logging.CRITICAL)


def mcp_server_option_values(
    stdio: str | None,
    url: str | None,
    timeout_s: float,
    *,
    required: bool = True,
    handshake_s: float | None = None,
) -> Any:
    """The server ``--stdio "COMMAND ARGS"`` / ``--url URL`` name (None when neither and not
    required)."""
    from rejudge.recorder import McpServer

    if stdio and url:
        raise click.UsageError("give --stdio or --url, not both")
    if not stdio and not url:
        if required:
            raise click.UsageError('name the MCP server: --stdio "COMMAND ARGS" or --url URL')
        return None
    quiet_mcp_sdk()
    if stdio:
        return McpServer.stdio(stdio, timeout_s=timeout_s, handshake_timeout_s=handshake_s)
    return McpServer(url=url, timeout_s=timeout_s, handshake_timeout_s=handshake_s)


@suite.command("from-mcp")
@click.option("--stdio", "stdio", metavar='"COMMAND ARGS"', help="Start the server on stdio.")
@click.option("--url", "url", metavar="URL", help="A streamable-HTTP MCP endpoint.")
@click.option("--name", "name", required=True, help="Suite name.")
@folder_option("--out", "out", "Suite folder to create [default: ./NAME].")
@seconds_option("--timeout", "timeout_s", 30.0, "Seconds the server may take to start and answer.")
@json_option
@pass_app
def suite_from_mcp(
    app: AppContext,
    stdio: str | None,
    url: str | None,
    name: str,
    out: Path | None,
    timeout_s: float,
) -> None:
    """Snapshot an MCP server's tools/list into a suite: its registry (input schemas,
    read-only / state-changing from the tool annotations) and one skeleton case per tool."""
    from rejudge.services import snapshot_mcp_suite

    server = mcp_server_option_values(stdio, url, timeout_s, handshake_s=timeout_s)
    result = snapshot_mcp_suite(server, name, out if out is not None else Path(name))

    def render(c: Console) -> None:
        from rich.markup import escape

        # tool names come from the server: shown as text, never as markup
        rows = [[t["name"], "yes" if t["read_only"] else "no", t["kind"]] for t in result.tools]
        c.print(table(f"tools of {result.suite}", ["tool", "read-only", "kind"], rows))
        c.print(
            f"wrote suite [bold]{escape(result.suite)}[/] to {escape(str(result.folder))}: "
            f"{len(result.tools)} tools, "
            f"{result.cases} skeleton cases (skipped until you write their instructions and "
            "golden calls; `rejudge suite validate` checks them)"
        )
        for problem in result.problems:
            c.print(f"[yellow]to fill[/]: {escape(problem)}")

    app.emit(result, render)
