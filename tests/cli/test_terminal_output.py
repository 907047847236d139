"""Every command that prints reads right in a terminal (issue 39 item 6), on the demo store.

The demo store is built once for the module (the shipped cassettes and evidence, offline), then
each printing command runs on it at 80 and 120 columns and with NO_COLOR. Its output must hold
no Rich markup as text (``[red]FAIL[/]``), no line wider than the terminal (a table fits or
folds; a line of prose wraps at words) and no cell cut short with an ellipsis
("16.0% (32/16…"). ``rejudge demo`` itself is rendered from the one result the fixture computed
(its command is run, with the judging it would redo replaced by that result).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.cells import cell_len

from rejudge.cli import cli

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
MARKUP = ("[/]", "[red", "[/red", "[green", "[/green", "[bold", "[/bold", "[yellow", "[/yellow")
MARKUP += ("[dim", "[/dim", "[italic", "[/italic", "[magenta", "[/magenta")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# a cell Rich cut short: an ellipsis at the end of a line or just before a table's border
CUT = re.compile(r"\S…[ ]*([│┃|]|$)", re.MULTILINE)
BASELINE = "tau-locked"  # locked on the τ-bench golden evaluation by the fixture
ENVIRONMENTS = {
    "80 columns": (80, {"COLUMNS": "80"}),
    "120 columns": (120, {"COLUMNS": "120"}),
    "NO_COLOR": (80, {"COLUMNS": "80", "NO_COLOR": "1"}),
}


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> tuple[str, Any]:
    """The demo store, built once: its URL and the demo's result."""
    from rejudge.store import Store

    from rejudge.services import lock_evaluation_baseline, run_demo

    url = f"sqlite:///{tmp_path_factory.mktemp('terminal') / 'demo.db'}"
    store = Store.open(url)
    try:
        result = run_demo(store, REPO / "cassettes")
        tau = next(h for h in result.headlines if h.run == "tau-bench-gpt-4o-airline")
        lock_evaluation_baseline(store, tau.evaluation, BASELINE)
    finally:
        store.close()
    return url, result


def _commands(result: Any) -> dict[str, list[str]]:
    """Every command that prints, with arguments taken from the demo's own evaluations."""
    tau = next(h for h in result.headlines if h.run == "tau-bench-gpt-4o-airline")
    versions = next(c.comparison for c in result.comparisons if c.comparison.flips)
    tiers = next(c.comparison for c in result.tier_comparisons if c.comparison.flips)
    judged = result.model_graded.judged[0]
    small = next(r.run for r in result.runs if r.traces <= 5)
    return {
        "demo": ["demo"],
        "demo --verbose": ["demo", "--verbose"],
        "runs": ["runs"],
        "report": ["report", str(tau.evaluation)],
        "report --against external": ["report", str(tau.evaluation), "--against", "external"],
        "report of a model judge": ["report", str(judged.evaluation)],
        "compare rule versions": ["compare", str(versions.a), str(versions.b)],
        "compare tiers": ["compare", str(tiers.a), str(tiers.b)],
        "compare judges": ["compare", str(judged.beside["state"][0]), str(judged.evaluation)],
        "review summary": ["review", "summary", str(tau.evaluation)],
        "baseline check": ["baseline", "check", str(tau.evaluation), "--against", BASELINE],
        "baseline check, rules changed": [
            *("baseline", "check", str(versions.b), "--against", BASELINE),
            "--allow-mismatch",
        ],
        "traces": ["traces", small],
        "tiers": ["tiers"],
        "rules list": ["rules", "list"],
        "rules show": ["rules", "show", "tau-bench@2"],
        "rules diff": ["rules", "diff", "standard@2", "tau-bench@2"],
        "rubrics list": ["rubrics", "list"],
        "rubrics show": ["rubrics", "show", "task-success-brief@1"],
        "suite list": ["suite", "list"],
        "import list": ["import", "list"],
        "db current": ["db", "current"],
    }


@pytest.fixture(scope="module")
def outputs(demo_store) -> dict[tuple[str, str], Result]:
    """Each command's output in each environment."""
    import rejudge.cli.demo as demo_command

    url, result = demo_store
    runner = CliRunner()
    saved = demo_command.run_demo
    demo_command.run_demo = lambda *args, **kwargs: result  # the fixture's, not judged again
    try:
        out: dict[tuple[str, str], Result] = {}
        for name, args in _commands(result).items():
            for env_name, (_width, env) in ENVIRONMENTS.items():
                out[name, env_name] = runner.invoke(
                    cli,
                    ["--db", url, *args],
                    env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None, **env},
                )
        return out
    finally:
        demo_command.run_demo = saved


def _check(name: str, env_name: str, result: Result) -> list[str]:
    width = ENVIRONMENTS[env_name][0]
    if result.exit_code != 0:
        return [f"exit {result.exit_code}: {result.output}"]
    text = ANSI.sub("", result.output)
    problems = [f"markup {tag!r}" for tag in MARKUP if tag in text]
    problems += [
        f"line of {cell_len(line)} columns: {line!r}"
        for line in text.splitlines()
        if cell_len(line) > width
    ]
    problems += [f"cut short: {m.group(0)!r}" for m in CUT.finditer(text)]
    return problems


@pytest.mark.parametrize("env_name", list(ENVIRONMENTS))
def test_every_command_prints_plain_fitting_text(outputs, env_name: str) -> None:
    found = {
        name: problems
        for (name, env), result in outputs.items()
        if env == env_name and (problems := _check(name, env, result))
    }
    assert not found, "\n".join(f"{name}: {p[:3]}" for name, p in found.items())


# a rate printed without its count (issue 39: "100%" alone hides whether it is 1 of 1 or 200 of
# 200): a percentage not followed by "(n of N)". Not rates of a count: pass^k (an estimator,
# "k=2: 27.3%"), a confidence level ("95% interval") and a shift in points.
BARE_RATE = re.compile(
    r"(?<![=\d.])(?<!k=\d: )(?<!k=\d )\d+(\.\d+)?%(?!\s*\(\d+ of \d+\))(?! (interval|CI|Wilson))"
)


# pass^k's figures ("k=1: 42.0%  k=2: 27.3%") are means over cases: their count is the cases
# they are over, once for all k ("(over 50 cases)") or beside each k ("(50 cases)")
PASS_K = re.compile(
    r"pass\^k ((?:k=\d+:? (?:n/a|\d+(?:\.\d+)?%)(?: \(\d+ cases?\))? ?)+)(\(over \d+ cases?\))?"
)


def _bare_rates(text: str) -> list[str]:
    """Each bare rate with the text around it; prose wrapped at words is read as one line."""
    flat = " ".join(text.split())
    bare = [flat[max(0, m.start() - 60) : m.end() + 20] for m in BARE_RATE.finditer(flat)]
    bare += [
        flat[max(0, m.start() - 20) : m.end() + 20]
        for m in PASS_K.finditer(flat)
        if m.group(2) is None and not re.search(r"\(\d+ cases?\)", m.group(1))
    ]
    return bare


def test_every_rate_has_its_count(outputs) -> None:
    found = {
        name: bare
        for (name, env), result in outputs.items()
        if env == "120 columns" and (bare := _bare_rates(ANSI.sub("", result.output)))
    }
    assert not found, "\n".join(f"{name}: {lines[:3]}" for name, lines in found.items())


def test_the_checks_catch_what_they_look_for() -> None:
    """The three checks fail on the faults they name (so a pass above means something)."""
    bad: Callable[[str], Result] = lambda text: Result(  # noqa: E731
        runner=CliRunner(),
        stdout_bytes=text.encode(),
        stderr_bytes=b"",
        output_bytes=text.encode(),
        return_value=None,
        exit_code=0,
        exception=None,
    )
    assert _check("x", "80 columns", bad("[red]FAIL[/]\n"))
    assert _check("x", "80 columns", bad("x" * 81 + "\n"))
    assert _check("x", "80 columns", bad("│ 16.0% (32/16… │\n"))
    assert not _check("x", "80 columns", bad("16.0% (32 of 200)\n" + "x" * 80 + "\n"))
    assert _bare_rates("tau-bench success 42.0%; its pass^k k=1: 42.0%")
    assert _bare_rates("│ multi-turn │ 32 │ 168 │ 16.0% │")
    assert not _bare_rates("success 42.0% (84 of 200); pass^k k=1: 42.0%  k=2 27.3% (over 9 cases)")
    assert not _bare_rates("pass^k k=1: 42.0% (50 cases)  k=2: 27.3% (48 cases) [95% CI]")
    assert _bare_rates("success 42.0% (84 of 200); its pass^k k=1: 42.0%  k=2: 27.3%")
    assert _bare_rates("baseline b: accuracy 16.0% -> 16.0%")


def test_rated_commands_are_covered(outputs) -> None:
    """The rate check above reads the commands that print pass^k and a baseline check's
    accuracies (so its pass covers them)."""
    text = {name: ANSI.sub("", r.output) for (name, env), r in outputs.items() if env == "NO_COLOR"}
    assert PASS_K.search(" ".join(text["report"].split()))
    assert "its pass^k" in text["report --against external"]
    assert re.search(r"accuracy \d+\.\d% \(\d+ of \d+\) -> ", text["baseline check"])
    assert "judge changed" in text["baseline check, rules changed"]


def test_demo_fits_two_screens_and_opens_with_the_questions(outputs) -> None:
    """The default demo: the four questions first, in order, in at most 60 lines at 80
    columns; --verbose keeps every table (the per-run accuracy tables among them)."""
    brief = ANSI.sub("", outputs["demo", "80 columns"].output)
    lines = brief.splitlines()
    assert len(lines) <= 60, len(lines)
    heads = ["τ-bench's own reward", "better on τ²", "rule-set versions", "model judge"]
    at = [brief.find(h) for h in heads]
    assert -1 not in at and at == sorted(at), at
    assert "weak judge: kappa" in brief
    # counts, never fractions: "(38/33)" and "36/50" are gone
    assert not re.search(r"\(\d+/\d+\)|\b\d+/\d+\b", brief), brief
    verbose = ANSI.sub("", outputs["demo --verbose", "80 columns"].output)
    assert len(verbose.splitlines()) > 3 * len(lines)
    assert "smollm2-retail" in verbose and "standard@1" in verbose
