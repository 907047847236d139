"""`rejudge generate funcbench ...`: generate a FuncBenchGen suite, store it, write its folder."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from rejudge.cli._context import AppContext, folder_option, json_option, pass_app

__all__ = ["generate"]


@click.group()
def generate() -> None:
    """Generate suites (contamination-free, seeded)."""


@generate.command("funcbench")
@click.option("--core", "n_core", type=int, required=True, help="Core nodes (functions needed).")
@click.option("--depth", type=int, required=True, help="Dependency depth (longest chain, edges).")
@click.option("--cin", type=int, default=0, show_default=True, help="Connected irrelevant nodes.")
@click.option(
    "--din", type=int, default=0, show_default=True, help="Disconnected irrelevant nodes."
)
@click.option(
    "--noise", type=int, default=0, show_default=True, help="Stated inputs no function takes."
)
@click.option(
    "--subtypes/--no-subtypes",
    default=False,
    show_default=True,
    help="Parameters may be declared with a supertype.",
)
@click.option("--cases", type=int, default=10, show_default=True, help="Cases (one graph each).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--name", default=None, help="Suite name [default: from the knobs].")
@folder_option("--out", "out", "Folder to write the suite to [default: ./generated/<name>].")
@json_option
@pass_app
def generate_funcbench(
    app: AppContext,
    n_core: int,
    depth: int,
    cin: int,
    din: int,
    noise: int,
    subtypes: bool,
    cases: int,
    seed: int,
    name: str | None,
    out: Path | None,
) -> None:
    """Generate a FuncBenchGen suite; the same knobs and seed give the same suite and hash."""
    from rejudge.services import publish_suite
    from rejudge.suites.generators import Knobs, default_suite_name

    knobs = Knobs(
        n_core=n_core,
        depth=depth,
        cin=cin,
        din=din,
        noise=noise,
        subtypes=subtypes,
        cases=cases,
        seed=seed,
    )
    knobs.check()
    folder = out if out is not None else Path("generated") / (name or default_suite_name(knobs))
    published = publish_suite(app.store, knobs, name=name, folder=folder)
    data = published.summary()

    def render(c: Console) -> None:
        c.print(f"{data['name']} {data['hash']}", markup=False)
        c.print(f"{data['cases']} case(s) stored; folder {data['folder']}", markup=False)

    app.emit(data, render)
