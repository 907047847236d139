"""`rejudge rubrics list | show R` (R = NAME@VERSION, NAME for the latest, or a YAML/JSON file)."""

from __future__ import annotations

from typing import Any

import click
import yaml
from rich.console import Console

from rejudge.cli._context import AppContext, emit_versioned, json_option, pass_app, table
from rejudge.judge import builtin_rubrics, load_rubric
from rejudge.model import Rubric

__all__ = ["rubrics"]


def _head(rubric: Rubric) -> dict[str, Any]:
    return {
        "ref": rubric.ref,
        "name": rubric.name,
        "version": rubric.version,
        "hash": rubric.hash,
        "description": rubric.description,
        "view": rubric.view,
        "scale": rubric.scale,
        "inputs": rubric.inputs,
    }


@click.group()
def rubrics() -> None:
    """Rubrics of the model-graded tier: the built-in versions, one in full."""


@rubrics.command("list")
@json_option
@pass_app
def rubrics_list(app: AppContext) -> None:
    """List the known rubrics (name@version, hash, what the judge sees, scale, inputs)."""
    data = [_head(r) for r in builtin_rubrics()]

    def render(c: Console) -> None:
        rows: list[list[Any]] = [
            [d["ref"], d["hash"][:19], d["view"], d["scale"], d["inputs"], d["description"]]
            for d in data
        ]
        c.print(
            table("Rubrics", ["rubric", "hash", "view", "scale", "inputs", "description"], rows)
        )

    app.emit(data, render)


@rubrics.command("show")
@click.argument("ref", metavar="R")
@json_option
@pass_app
def rubrics_show(app: AppContext, ref: str) -> None:
    """Show a rubric in full (R = NAME@VERSION, NAME or a YAML/JSON file, checked first)."""
    rubric = load_rubric(ref)

    def render(c: Console) -> None:
        body = rubric.model_dump(mode="json", exclude={"name", "version"})
        c.print(yaml.safe_dump(body, sort_keys=False, allow_unicode=True).rstrip(), markup=False)

    emit_versioned(app, rubric, render)
