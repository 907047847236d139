"""`--junit-xml FILE` and `--github` for `rejudge report` and `rejudge baseline check`.

The renderings are pure (:func:`rejudge.judge.junit_xml`, ``step_summary``,
``github_annotations``); this module reads GitHub's environment (``GITHUB_ACTIONS``,
``GITHUB_STEP_SUMMARY``: the CLI is the one place that reads it) and writes through the CLI's
one file writer. Annotations go to stderr, which the Actions runner reads for workflow commands
as it does stdout, so ``--json`` on stdout stays one JSON document.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

from rejudge.cli._context import file_option, write_file
from rejudge.judge import CiResults, github_annotations, junit_xml, step_summary

__all__ = ["ci_options", "write_ci_outputs"]

F = TypeVar("F", bound=Callable[..., Any])


def ci_options(command: F) -> F:
    """The two CI outputs, as options of a command that yields an evaluation."""
    command = click.option(
        "--github",
        "github",
        is_flag=True,
        help="Under GitHub Actions: append a Markdown summary to $GITHUB_STEP_SUMMARY and "
        "print ::error annotations for failing cases (ignored elsewhere).",
    )(command)
    command = file_option(
        "--junit-xml",
        "junit_xml_path",
        "Also write the cases as JUnit XML (one testcase per case and repetition).",
        metavar="FILE",
    )(command)
    return command


def write_ci_outputs(
    results: CiResults,
    junit_path: Path | None,
    github: bool,
    environ: Mapping[str, str] | None = None,
) -> None:
    env = os.environ if environ is None else environ
    if junit_path is not None:
        write_file(junit_path, junit_xml(results))
    if not github or env.get("GITHUB_ACTIONS") != "true":
        return
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        write_file(summary, step_summary(results) + "\n", append=True)
    for line in github_annotations(results):
        click.echo(line, err=True)
