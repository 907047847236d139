"""`rejudge record`, `replay RUN`, `renormalize RUN`, `traces RUN`: the recording commands."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from rejudge._settings import api_key_from_env
from rejudge.cli._context import AppContext, json_option, pass_app, seconds_option, table
from rejudge.errors import InvalidInputError
from rejudge.model import RunConfig, Trace

__all__ = ["record", "replay", "renormalize", "traces", "trace_json"]


def trace_json(case: str, repetition: int, trace: Trace) -> dict[str, Any]:
    """One entry of ``traces --json`` (DESIGN §11 keys, plus the error when there is one).

    Format-2 facts appear only when the trace holds them (a round's ``server_tools`` and
    ``alternatives``, the trace's ``user_turns``), so a format-1 trace's entry is what it
    always was, byte for byte."""
    rounds = []
    for rnd in trace.rounds:
        entry: dict[str, Any] = {
            "calls": [
                {
                    "name": call.name,
                    "arguments": call.arguments,
                    "arguments_raw": call.arguments_raw,
                    "parse_error": call.parse_error,
                    "result": call.result,
                    "ok": call.ok,
                }
                for call in rnd.calls
            ],
            "text": rnd.text,
        }
        if rnd.server_tools:
            entry["server_tools"] = [s.model_dump(mode="json") for s in rnd.server_tools]
        if rnd.alternatives:
            entry["alternatives"] = [a.model_dump(mode="json") for a in rnd.alternatives]
        rounds.append(entry)
    out: dict[str, Any] = {
        "case": case,
        "repetition": repetition,
        "status": trace.status,
        "rounds": rounds,
    }
    if trace.user_turns:
        out["user_turns"] = [t.model_dump(mode="json") for t in trace.user_turns]
    out["error"] = trace.error.model_dump(mode="json") if trace.error else None
    return out


def _mcp_world(loaded: Any, mcp: bool, stdio: str | None, url: str | None, timeout_s: float) -> Any:
    """The MCP world to record in (None: the suite's own domain and sandboxes)."""
    from rejudge.cli.suite import mcp_server_option_values
    from rejudge.services import mcp_world_for_suite
    from rejudge.suites.domains.mcp import MCP_DOMAIN

    server = mcp_server_option_values(stdio, url, timeout_s, required=False)
    if not (mcp or server is not None):
        if loaded.domain == MCP_DOMAIN:
            raise click.UsageError(
                f"suite {loaded.name!r} is an MCP suite: its calls run on its server; pass --mcp "
                "(or --mcp-stdio/--mcp-url)"
            )
        return None
    if server is None:
        from rejudge.cli.suite import quiet_mcp_sdk

        quiet_mcp_sdk()
    return mcp_world_for_suite(loaded, server=server, timeout_s=timeout_s)


@click.command()
@click.option("--suite", "suite_name", required=True, help="Built-in suite name or suite folder.")
@click.option("--model", required=True, help="Model name sent to the provider.")
@click.option(
    "--provider",
    default="openai",
    show_default=True,
    help="openai, anthropic, local, or llama-cpp (local + tool results echoed as a user turn).",
)
@click.option("--base-url", default=None, help="Provider base URL (an OpenAI-compatible server).")
@click.option(
    "--repeat",
    default=1,
    show_default=True,
    type=click.IntRange(1),
    help="Repetitions per case (pass^k).",
)
@click.option(
    "--harness",
    "harness_mode",
    type=click.Choice(["production-parity", "oracle-assisted"]),
    default="production-parity",
    show_default=True,
)
@click.option("--restate", is_flag=True, help="Restate every known value after each tool result.")
@click.option(
    "--retrieve",
    "retrieve_top_k",
    type=click.IntRange(1),
    default=None,
    help="Send only the K most relevant tools.",
)
@click.option("--concurrency", default=1, show_default=True, type=click.IntRange(1))
@click.option("--case", "case_ids", multiple=True, help="Record only these case ids (repeatable).")
@click.option("--stream", is_flag=True, help="Use streaming responses (SSE).")
@click.option("--name", "run_name", default=None, help="Run name (re-use it to resume).")
@click.option("--temperature", type=float, default=0.0, show_default=True)
@click.option("--seed", type=int, default=None)
@click.option("--max-tokens", type=click.IntRange(1), default=None)
@click.option(
    "--timeout",
    "timeout_s",
    type=float,
    default=60.0,
    show_default=True,
    help="Per-request timeout, seconds.",
)
@click.option(
    "--max-retries",
    type=click.IntRange(0),
    default=3,
    show_default=True,
    help="Retries on 429/5xx/connection errors.",
)
@click.option(
    "--rpm",
    type=click.IntRange(1),
    default=None,
    help="Requests per minute across all concurrent traces.",
)
@click.option(
    "--tool-choice", default="auto", show_default=True, help="auto, none, required (or 'omit')."
)
@click.option("--system-prompt", default=None, help="A system message sent before the instruction.")
@click.option(
    "--api-key-env",
    default=None,
    metavar="NAME",
    help="Read the API key from this environment variable.",
)
@click.option(
    "--mcp",
    "mcp",
    is_flag=True,
    help="Execute the calls on the suite's MCP server (tools/call) instead of a sandbox; "
    "the server the suite was snapshotted from unless --mcp-stdio/--mcp-url names another.",
)
@click.option("--mcp-stdio", "mcp_stdio", metavar='"COMMAND ARGS"', help="MCP server on stdio.")
@click.option("--mcp-url", "mcp_url", metavar="URL", help="A streamable-HTTP MCP endpoint.")
@seconds_option(
    "--mcp-timeout", "mcp_timeout_s", 30.0, "Seconds the MCP server may take to answer one call."
)
@json_option
@pass_app
def record(
    app: AppContext,
    suite_name: str,
    model: str,
    provider: str,
    base_url: str | None,
    repeat: int,
    harness_mode: str,
    restate: bool,
    retrieve_top_k: int | None,
    concurrency: int,
    case_ids: tuple[str, ...],
    stream: bool,
    run_name: str | None,
    temperature: float,
    seed: int | None,
    max_tokens: int | None,
    timeout_s: float,
    max_retries: int,
    rpm: int | None,
    tool_choice: str,
    system_prompt: str | None,
    api_key_env: str | None,
    mcp: bool,
    mcp_stdio: str | None,
    mcp_url: str | None,
    mcp_timeout_s: float,
) -> None:
    """Record a suite against a model: one cassette and one trace per case and repetition."""
    from rejudge import suites
    from rejudge.recorder import RecordProgress
    from rejudge.recorder.providers import get_provider
    from rejudge.services import harness_assistance, record_suite

    var = get_provider(provider).api_key_env  # None: a server that takes no key
    api_key = api_key_from_env(api_key_env or var)
    if api_key_env and api_key is None:
        raise InvalidInputError(f"environment variable {api_key_env} is not set")
    if api_key is None and var is not None and base_url is None:
        raise InvalidInputError(
            f"no API key: set {var} (or --api-key-env NAME), or point --base-url at a local server"
        )
    loaded = suites.load_suite(suite_name)
    domain = _mcp_world(loaded, mcp, mcp_stdio, mcp_url, mcp_timeout_s)
    config = RunConfig(
        model=model,
        provider=provider,
        base_url=base_url,
        harness_mode=harness_mode,  # type: ignore[arg-type]
        harness_assistance=harness_assistance(harness_mode),  # type: ignore[arg-type]
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        max_retries=max_retries,
        restate_known_values=restate,
        retrieve_top_k=retrieve_top_k,
        repeat=repeat,
        concurrency=concurrency,
        stream=stream,
        rpm=rpm,
        tool_choice=None if tool_choice == "omit" else tool_choice,
        system_prompt=system_prompt,
    )
    cassettes = app.settings.cassettes_dir

    # one call either way; the terminal also passes a progress callback for its bar
    # (named run_suite, not `record`: that would shadow this command inside its own body)
    run_suite = partial(
        record_suite,
        app.store,
        loaded,
        config,
        cassettes,
        case_ids=list(case_ids) or None,
        api_key=api_key,
        run_name=run_name,
        domain=domain,
    )
    if app.json:
        summary = run_suite()
    else:
        columns = (
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=app.console, transient=False) as bar:
            task = bar.add_task(f"recording {escape(loaded.name)}", total=None, counts="")

            def on_progress(state: RecordProgress) -> None:
                counts = (
                    f"[green]{state.completed} completed[/] ({state.with_calls} with calls) "
                    f"[red]{state.agent_errors} agent errors[/] {state.skipped} skipped"
                )
                bar.update(task, total=state.total, completed=state.done, counts=counts)

            summary = run_suite(progress=on_progress)
    state = summary.progress
    data = {
        "run": summary.run.name,
        "run_id": summary.run.id,
        "suite": loaded.name,
        "model": model,
        "harness_mode": harness_mode,
        "traces": state.total,
        "recorded": summary.recorded,
        "skipped": state.skipped,
        "completed": state.completed,
        "agent_errors": state.agent_errors,
        "cassettes": str(summary.cassettes_dir / summary.run.name),
        "status": summary.run.status,
    }
    app.emit(
        data,
        lambda c: c.print(
            f"run [bold]{escape(str(data['run']))}[/]: {data['recorded']} recorded, "
            f"{data['skipped']} already there, {data['agent_errors']} agent errors; "
            f"cassettes in {escape(str(data['cassettes']))}"
        ),
    )


@click.command()
@click.argument("run")
@click.option("--case", "case_ids", multiple=True, help="Replay only these case ids.")
@click.option(
    "--source",
    "source_file",
    type=click.Path(path_type=Path, dir_okay=True),
    default=None,
    help="For a run imported from a results file: check against this file.",
)
@json_option
@pass_app
def replay(app: AppContext, run: str, case_ids: tuple[str, ...], source_file: Path | None) -> None:
    """Verify RUN offline by where its evidence came from; exit 1 unless every trace re-derives
    the same hash. rejudge's own recordings re-run the loop from their cassettes (network
    blocked); imported cassettes and results files are re-derived, not re-run."""
    from rejudge import suites  # noqa: F401  registers the built-in domains
    from rejudge.services import verify_run

    report = verify_run(
        app.store,
        run,
        app.settings.cassettes_dir,
        case_ids=list(case_ids) or None,
        source_file=source_file,
    )

    def render(c: Console) -> None:
        c.print(f"{escape(report.run)}: {escape(report.says)}", highlight=False)
        if report.note:
            c.print(f"  {escape(report.note)}", highlight=False)
        shared = report.source.problem if report.source is not None else None
        if shared:
            c.print(f"[yellow]{escape(shared)}[/]", highlight=False)
        for r in report.results:
            if r.outcome == "diverged":
                where = f"round {r.round}" if r.round is not None else "before any round"
                field = f", field {escape(r.field)}" if r.field else ""
                c.print(
                    f"[red]DIVERGED[/] {escape(r.case)} r{r.repetition} at {where}{field}: "
                    f"{escape(r.message or '')}",
                    highlight=False,
                )
            elif r.outcome == "not checked" and r.message != shared:
                c.print(
                    f"[yellow]NOT CHECKED[/] {escape(r.case)} r{r.repetition}: "
                    f"{escape(r.message or '')}",
                    highlight=False,
                )
        for j in report.judgments:
            if j.outcome != "same":
                c.print(
                    f"[red]JUDGE {escape(j.outcome.upper())}[/] {escape(j.case)} r{j.repetition} "
                    f"(evaluation {j.evaluation}): {escape(j.message or '')}",
                    highlight=False,
                )
        if report.judgments:
            same = sum(1 for j in report.judgments if j.outcome == "same")
            c.print(
                f"{same} of {len(report.judgments)} model-graded judgment(s) judged again from "
                "their judge cassettes with the same hash",
                highlight=False,
            )
        diverged = any(r.outcome == "diverged" for r in report.results) or any(
            j.outcome == "diverged" for j in report.judgments
        )
        verdict = (
            "[green]all traces match[/]"
            if report.ok
            else "[red]replay diverged[/]"
            if diverged
            else "[red]not verified[/] (evidence not at hand)"
        )
        if report.origin == "recorded":
            head = f"{report.matched} of {report.traces} traces of {escape(report.run)} re-derived"
        elif report.origin == "cassettes":
            head = f"re-derived from cassettes: {report.matched} of {report.traces}"
        elif report.source is not None and report.source.at_hand:
            head = (
                f"re-derived from the {report.source.kind} {escape(str(report.source.path))}: "
                f"{report.matched} of {report.traces}"
            )
        else:
            head = f"re-derived from the results file: {report.matched} of {report.traces}"
        c.print(f"{head} with the same hash in {report.elapsed_s:.2f}s: {verdict}", highlight=False)

    app.emit(report.as_dict(), render)
    if not report.ok:
        raise click.exceptions.Exit(1)


@click.command()
@click.argument("run")
@click.option("--dry-run", is_flag=True, help="Report what would change, write nothing.")
@json_option
@pass_app
def renormalize(app: AppContext, run: str, dry_run: bool) -> None:
    """Rebuild RUN's traces from its cassettes with the current normalizer."""
    from rejudge.services import renormalize_run

    report = renormalize_run(app.store, run, app.settings.cassettes_dir, dry_run=dry_run)
    data = report.as_dict()

    def render(c: Console) -> None:
        verb = "would change" if dry_run else "changed"
        c.print(
            f"{report.run}: {report.traces} traces, {report.changed} {verb}, "
            f"{report.unchanged} unchanged, {len(report.missing)} without a readable cassette",
            markup=False,
        )
        for line in report.missing:
            c.print(f"  [yellow]{escape(line)}[/]")

    app.emit(data, render)


@click.command()
@click.argument("run")
@click.option("--case", "case_id", default=None, help="Only this case.")
@json_option
@pass_app
def traces(app: AppContext, run: str, case_id: str | None) -> None:
    """Show RUN's normalized traces, round by round."""
    from rejudge.services import run_traces

    found = run_traces(app.store, run, case_id)
    items = [trace_json(t.case_key, t.repetition, t.trace) for t in found.traces]

    def render(console: Console) -> None:
        rows = []
        for item in items:
            turns: dict[int, list[str]] = {}
            for turn in item.get("user_turns", []):
                turns.setdefault(turn["before_round"], []).append(turn["text"])

            def user_rows(
                before: int, item: dict[str, Any] = item, turns: dict[int, list[str]] = turns
            ) -> None:
                for said in turns.get(before, []):
                    rows.append([item["case"], item["repetition"], "user", "-", said[:60]])

            for index, rnd in enumerate(item["rounds"]):
                user_rows(index)
                parts = [
                    f"{c['name']}({c['arguments_raw']}) -> "
                    + ("ok" if c["ok"] else f"error{' (parse)' if c['parse_error'] else ''}")
                    for c in rnd["calls"]
                ]
                parts += [f"[server] {s['name']}" for s in rnd.get("server_tools", [])]
                if rnd.get("alternatives"):
                    parts.append(f"(+{len(rnd['alternatives'])} other choices, not followed)")
                text = (rnd["text"] or "")[:60]
                rows.append(
                    [item["case"], item["repetition"], index, "; ".join(parts) or "-", text]
                )
            user_rows(len(item["rounds"]))
            if item["error"]:
                error = item["error"]
                rows.append(
                    [item["case"], item["repetition"], "!", error["kind"], error["message"][:60]]
                )
        columns = ["case", "rep", "round", "calls", "text"]
        # evidence text (calls, user messages, model text) is data, never Rich markup
        console.print(table(f"traces of {found.run.name}", columns, rows))

    app.emit(items, render)
