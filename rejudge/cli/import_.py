"""`rejudge import ...`: bring outside evidence into the store.

``import FILE`` asks every importer whether FILE is its format and imports it with the one that
takes it (a file no importer takes: each importer tried and why it refused, on one line);
``import cassettes DIR [--suite NAME]`` stores cassettes recorded anywhere as traces; ``import
tau-bench``, ``import inspect`` (and ``import bfcl-results``, :mod:`rejudge.cli.bfcl`) import
other harnesses' results; ``import list`` lists every importer the registry knows, plugins'
included, and ``import with NAME PATH`` runs any of them (a plugin's too).

Exit codes of ``import cassettes``: 0 every file imported; 3 some files were skipped (each
listed with its reason) and the others imported; 1 an error, nothing imported (no file could be
read, an unknown case, or, with ``--strict``, any file that could not be read).
"""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from rejudge.cli._context import AppContext, emit_listing, file_option, json_option, pass_app, table
from rejudge.cli._engine import engine_options, parse_engine, progress_bar
from rejudge.importers import import_detected
from rejudge.services import get_importer, import_cassettes, import_tau_bench, importer_rows

__all__ = [
    "import_group",
    "import_cassettes_cmd",
    "import_detected_cmd",
    "import_inspect_cmd",
    "import_list_cmd",
    "import_tau_bench_cmd",
    "import_with_cmd",
    "EXIT_SKIPPED",
]

# some files skipped, the others imported: distinct from 1 (an error, nothing stored) and 2 (usage)
EXIT_SKIPPED = 3


class _ImportGroup(click.Group):
    """``rejudge import FILE``: an argument that names no subcommand is a path to detect."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and self.get_command(ctx, args[0]) is None and not args[0].startswith("-"):
            return "FILE", import_detected_cmd, args
        return super().resolve_command(ctx, args)


@click.group("import", cls=_ImportGroup)
def import_group() -> None:
    """Bring outside evidence into the store.

    `rejudge import FILE` picks the importer that recognises FILE (`rejudge import list` names
    them); the subcommands run one importer by name.
    """


def _importer_options(command: Any) -> Any:
    """``--name RUN`` and ``--option KEY=VALUE`` (repeatable), as any importer takes them."""
    command = click.option(
        "--option",
        "-o",
        "options",
        multiple=True,
        metavar="KEY=VALUE",
        help="An option of the importer (repeatable; VALUE read as JSON when it parses).",
    )(command)
    return click.option(
        "--name", "run_name", metavar="RUN", help="Run name [default: the importer's]."
    )(command)


def _parse_options(run_name: str | None, options: tuple[str, ...]) -> dict[str, Any]:
    """The importer's keyword arguments: each ``--option``, and ``run_name`` when named."""
    given: dict[str, Any] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{option!r} is not KEY=VALUE", param_hint="'--option'")
        given[key.strip().replace("-", "_")] = _option_value(value)
    if run_name is not None:
        given["run_name"] = run_name
    return given


def _file_progress(app: AppContext, path: Path) -> Any:
    """The bar a streaming import ticks (rich, on stderr; silent under --json): the file's
    bytes read, then stored, so its length is twice the file's size."""
    size = path.stat().st_size if path.is_file() else 0
    return progress_bar(app, 2 * size, f"importing {path.name} (bytes read, then stored)")


@click.command("FILE")
@click.argument("path", type=click.Path(path_type=Path), metavar="FILE")
@_importer_options
@json_option
@pass_app
def import_detected_cmd(
    app: AppContext, path: Path, run_name: str | None, options: tuple[str, ...]
) -> None:
    """Import FILE with the importer that recognises its format."""
    given = _parse_options(run_name, options)
    with _file_progress(app, path) as tick:
        done = import_detected(app.store, path, progress=tick, **given)
    data = done.to_json()

    def render(c: Console) -> None:
        c.print(f"{data['importer']}: {data['reason']}", markup=False)
        render_import_result(c, data["importer"], data["result"])

    app.emit(data, render)


@import_group.command("cassettes")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--suite", "suite", metavar="NAME", help="Suite whose cases the cassettes record.")
@click.option("--name", "run_name", metavar="RUN", help="Run name [default: derived from content].")
@file_option(
    "--mapping",
    "mapping",
    "File mapping cassette files to case ids [default: DIR/rejudge-import.json if present].",
)
@click.option(
    "--copy/--no-copy",
    "copy",
    default=True,
    show_default=True,
    help="Copy the cassettes under --cassettes/<run>/ so the run does not depend on DIR.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Any file that cannot be read is an error and nothing is stored [default: skip it].",
)
@engine_options(
    verb="read the cassettes",
    engine_help="Read the cassettes in this process, or as tasks on a Dask cluster whose "
    "workers see DIRECTORY at the same path (this process stores them; pip install "
    "'rejudge[dask]').",
    workers_help="Worker processes of a local Dask cluster (--engine dask, no --scheduler).",
)
@json_option
@pass_app
def import_cassettes_cmd(
    app: AppContext,
    directory: Path,
    suite: str | None,
    run_name: str | None,
    mapping: Path | None,
    copy: bool,
    strict: bool,
    workers: int,
    engine: str,
    scheduler: str | None,
) -> None:
    """Import every cassette under DIRECTORY as the traces of one imported run.

    A file's case is its path under DIRECTORY without the suffix (anthropic/sync.yaml is case
    anthropic/sync, and <case>__r<k>.yaml its repetition k), so same-named files of two folders
    stay two cases. With --suite, the path or the file name names one of its cases; without it
    each case is ad hoc, with no golden calls. Copies are scrubbed of credentials
    (secret headers, provider keys) as recordings are; the source files are only read.
    A file that cannot be read (not a cassette, invalid YAML, no model exchange) is listed with
    its reason and skipped; exit code 3 says some were, 0 that none were.
    With --engine dask the files are read on a Dask cluster and stored here: the same run.
    """
    dask = parse_engine(engine, scheduler, workers)
    if dask is None and workers > 1:
        raise click.UsageError("--workers needs --engine dask (a local import is one process)")
    # a local import reads in one go, a Dask one ticks as each partition is read
    bar = progress_bar(app, 0, "reading cassettes") if dask else nullcontext(None)
    with bar as tick:
        result = import_cassettes(
            directory,
            app.store,
            suite,
            run_name=run_name,
            mapping_file=mapping,
            copy_to=app.settings.cassettes_dir if copy else None,
            strict=strict,
            engine=dask,
            progress=tick,
        )
    data = result.summary()

    def render(c: Console) -> None:
        rows = [
            [t["file"], t["case"], t["repetition"], t["status"], t["rounds"], t["calls"]]
            for t in data["traces"]
        ]
        c.print(table(None, ["file", "case", "rep", "status", "rounds", "calls"], rows))
        c.print(
            f"run {data['run']} (suite {data['suite']}): {data['inserted']} trace(s) stored, "
            f"{data['skipped']} already there",
            markup=False,
        )
        for skipped in data["skipped_files"]:
            c.print(f"skipped {skipped['file']}: {skipped['reason']}", markup=False)

    app.emit(data, render)
    if data["skipped_files"]:
        click.get_current_context().exit(EXIT_SKIPPED)


@import_group.command("inspect")
@click.argument("log", type=click.Path(path_type=Path, dir_okay=False), metavar="LOG")
@click.option(
    "--suite", "suite", metavar="NAME", help="Suite whose case ids the samples' ids name."
)
@click.option("--name", "run_name", metavar="RUN", help="Run name [default: task and file hash].")
@json_option
@pass_app
def import_inspect_cmd(app: AppContext, log: Path, suite: str | None, run_name: str | None) -> None:
    """Import an Inspect AI eval log (.eval or .json) as one run.

    Each sample and epoch becomes a trace (the whole conversation: rounds, tool results, later
    user turns); its target or metadata names the expected calls when it has them; each
    Inspect scorer's value is kept on the trace as an external verdict. A log with any problem
    imports nothing.
    """
    from rejudge.services import import_inspect, open_suite

    loaded = open_suite(suite, lambda: app.store) if suite else None
    result = import_inspect(log, app.store, suite=loaded, run_name=run_name)
    data = result.to_json()

    def render(c: Console) -> None:
        inferred = " (tool registry inferred from the calls)" if data["registry_inferred"] else ""
        c.print(
            f"run {data['run']} (suite {data['suite']}): {data['samples']} sample(s), "
            f"{data['inserted']} trace(s) stored, {data['skipped']} already there, "
            f"{data['external_verdicts']} Inspect score(s) kept as external verdicts, "
            f"{data['cases_with_golden']} case(s) with expected calls{inferred}",
            markup=False,
        )

    app.emit(data, render)


@import_group.command("tau-bench")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@file_option(
    "--tools",
    "tools",
    "OpenAI function schemas of the tools [default: inferred from the calls].",
    metavar="TOOLS.json",
)
@click.option("--name", "run_name", metavar="RUN", help="Run name [default: derived from content].")
@click.option("--model", "model", metavar="MODEL", help="Model name [default: the file's stem].")
@click.option(
    "--suite",
    "suite_name",
    metavar="SUITE",
    help="Suite name [default: τ²: tau2-<domain>, shared by every run of the domain].",
)
@click.option(
    "--reward-version",
    "reward_version",
    metavar="V",
    help="The version of τ-bench's reward that scored the file: 7362a17 (a task with outputs "
    "by its outputs alone) or 59a200c (by the database and the outputs) [default: what the "
    "file shows; a file that shows nothing is refused].",
)
@json_option
@pass_app
def import_tau_bench_cmd(
    app: AppContext,
    file: Path,
    tools: Path | None,
    run_name: str | None,
    model: str | None,
    suite_name: str | None,
    reward_version: str | None,
) -> None:
    """Import a τ-bench trajectory file or a τ²-bench results document as one run.

    Each task becomes a case (the user's brief, the ground-truth actions as golden calls, the
    required outputs), each trial a repetition; τ-bench's reward is kept on each trace as an
    external verdict (see `rejudge report EVAL --against external`), with the version of the
    reward that scored it (τ-bench's changed at 59a200c: --reward-version). A file with any
    problem imports nothing.
    """
    result = import_tau_bench(
        file,
        app.store,
        tools=tools,
        run_name=run_name,
        model=model,
        suite_name=suite_name,
        reward_version=reward_version,
    )
    data = result.summary()

    def render(c: Console) -> None:
        inferred = " (tool registry inferred from the calls)" if data["registry_inferred"] else ""
        if data["relabelled"]:
            inferred += (
                f"; {data['relabelled']} simulation(s) named another task than the one they "
                "ran and were keyed by the task their reward checked"
            )
        c.print(
            f"run {data['run']} (suite {data['suite']}): {data['cases']} case(s) x "
            f"{data['trials']} trial(s), {data['inserted']} trace(s) stored, {data['skipped']} "
            f"already there, {data['external_verdicts']} {result.benchmark} verdict(s) written"
            f"{inferred}",
            markup=False,
        )
        if data["reward_version"] is not None:
            c.print(
                f"{result.benchmark} reward version {data['reward_version']}: "
                f"{data['reward_version_how']}",
                markup=False,
            )

    app.emit(data, render)


@import_group.command("list")
@json_option
@pass_app
def import_list_cmd(app: AppContext) -> None:
    """Every importer: the built-ins and plugins' (`rejudge import with NAME PATH` runs one)."""
    emit_listing(
        app,
        "Importers",
        importer_rows(),
        {"importer": "name", "what it imports": "summary", "accepts": "accepts"},
    )


def _option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@import_group.command("with")
@click.argument("importer_name", metavar="NAME")
@click.argument("path", type=click.Path(path_type=Path, exists=True))
@_importer_options
@json_option
@pass_app
def import_with_cmd(
    app: AppContext,
    importer_name: str,
    path: Path,
    run_name: str | None,
    options: tuple[str, ...],
) -> None:
    """Import PATH with the importer NAME (`rejudge import list` names them, plugins' too)."""
    importer = get_importer(importer_name)
    given = _parse_options(run_name, options)
    if not importer.streams:
        data = importer.to_json(importer(app.store, path, **given))
    else:
        with _file_progress(app, path) as tick:
            data = importer.to_json(importer(app.store, path, progress=tick, **given))
    app.emit(data, lambda c: render_import_result(c, importer_name, data))


def render_import_result(c: Console, importer_name: str, data: Any) -> None:
    """Any importer's result for people: its top-level fields, a list or mapping as how many
    items it holds (a plugin's result has no table of its own; --json prints it whole)."""
    if not isinstance(data, dict):
        c.print(f"imported with {importer_name}: {data}", markup=False)
        return

    def shown(value: Any) -> str:
        if isinstance(value, list | tuple | dict):
            return f"{len(value)} item(s)"
        return str(value)

    rows = [[key, shown(value)] for key, value in data.items()]
    c.print(table(f"Imported with {importer_name}", ["field", "value"], rows))
    # what an importer could not read right, one line each (the otel importer's anomalies by
    # trace id, its problems as a list): evidence a person should see, not just count
    anomalies = data.get("anomalies")
    if isinstance(anomalies, dict):
        for trace, found in anomalies.items():
            for text in found if isinstance(found, list) else [found]:
                c.print(f"anomaly in {trace}: {text}", markup=False, soft_wrap=True)
        # a big file's result holds the first traces' anomalies only, and counts them all
        counted = data.get("anomalous_traces")
        if isinstance(counted, int) and counted > len(anomalies):
            c.print(
                f"... and {counted - len(anomalies)} more trace(s) with anomalies "
                f"(the first {len(anomalies)} shown)",
                markup=False,
            )
    problems = data.get("problems")
    if isinstance(problems, list):
        for text in problems:
            c.print(f"left out: {text}", markup=False, soft_wrap=True)
