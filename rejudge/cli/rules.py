"""`rejudge rules list | show R | diff R1 R2` (R = NAME@VERSION, NAME for the latest, or a file)."""

from __future__ import annotations

import json
from typing import Any

import click
import yaml
from rich.console import Console

from rejudge.cli._context import AppContext, emit_versioned, json_option, pass_app, table
from rejudge.judge import builtin_rule_sets, diff_rule_sets, load_rule_set

__all__ = ["rules"]


@click.group()
def rules() -> None:
    """Rule sets: the built-in versions, one in full, the difference between two."""


@rules.command("list")
@json_option
@pass_app
def rules_list(app: AppContext) -> None:
    """List the built-in rule sets (name@version, hash, description)."""
    data = [
        {
            "ref": r.ref,
            "name": r.name,
            "version": r.version,
            "hash": r.hash,
            "description": r.description,
        }
        for r in builtin_rule_sets()
    ]

    def render(c: Console) -> None:
        rows: list[list[Any]] = [[d["ref"], d["hash"][:19], d["description"]] for d in data]
        c.print(table("Built-in rule sets", ["rule set", "hash", "description"], rows))

    app.emit(data, render)


@rules.command("show")
@click.argument("ref", metavar="R")
@json_option
@pass_app
def rules_show(app: AppContext, ref: str) -> None:
    """Show a rule set in full, every default explicit (R = NAME@VERSION or a YAML/JSON file)."""
    rule_set = load_rule_set(ref)

    def render(c: Console) -> None:
        c.print(rule_set.description, markup=False)
        c.print(
            yaml.safe_dump({"settings": rule_set.settings}, sort_keys=True).rstrip(), markup=False
        )

    emit_versioned(app, rule_set, render)


@rules.command("diff")
@click.argument("ref_a", metavar="R1")
@click.argument("ref_b", metavar="R2")
@json_option
@pass_app
def rules_diff(app: AppContext, ref_a: str, ref_b: str) -> None:
    """Every setting that differs between two rule sets."""
    a, b = load_rule_set(ref_a), load_rule_set(ref_b)
    rows = diff_rule_sets(a, b)
    data = {"a": a.ref, "b": b.ref, "a_hash": a.hash, "b_hash": b.hash, "differences": rows}

    def render(c: Console) -> None:
        if not rows:
            c.print(f"{a.ref} and {b.ref} have the same settings", markup=False)
            return
        body = [
            [
                r["path"],
                json.dumps(r["a"], ensure_ascii=False),
                json.dumps(r["b"], ensure_ascii=False),
            ]
            for r in rows
        ]
        c.print(table(f"{a.ref} vs {b.ref}", ["setting", a.ref, b.ref], body))

    app.emit(data, render)
