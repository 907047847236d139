"""The importer contract: every way another program's evidence becomes a run, looked up by name.

An :class:`Importer` is one registry entry (kind ``importer``, :mod:`rejudge.registry`): its
name (``cassettes``, ``tau-bench``, ``inspect``, ``bfcl-results``, ``otel``, or a plugin's), a
one-line summary, what it accepts, how it recognises a file (``detect(sniff) ->``
:class:`Detection`, a confidence and a reason, so ``rejudge import FILE`` picks one and a file
no importer takes is refused with every importer's reason), the function that imports
(``run(store, path, **options)``, returning the importer's own typed result) and, for an
importer of results files, how replay re-derives a run's traces from that file
(:class:`ReplaySource`, keyed by the ``source`` the importer wrote into the run's config).
Each built-in is one module of :mod:`rejudge.importers`, which registers it at its bottom; the
registry declares those modules, so none is imported until its importer is looked up
(:data:`rejudge.registry.BUILTINS`).

A plugin adds one with ``registry.register("importer", name, Importer(...))``; it stores what it
imports through :func:`rejudge.services.ingest_run`, as the built-ins do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import RunConfig, Trace
from rejudge.registry import REGISTRY

__all__ = [
    "Detect",
    "Importer",
    "ReplaySource",
    "Rederive",
    "get_importer",
    "importer_names",
    "importer_rows",
    "register_importer",
    "replay_source",
]

R = TypeVar("R")

#: how replay re-derives an imported run: (the run's config, its results file) -> (the file's
#: hash as the importer computed it, its traces); raises a RejudgeError when the file no longer
#: parses
Rederive = Callable[[RunConfig, Path], tuple[str, list[Trace]]]

#: how an importer recognises a path: what was sniffed of it -> a confidence and a reason
Detect = Callable[[Sniff], Detection]


def _detects_nothing(_sniff: Sniff) -> Detection:
    return Detection.refuse("it names no detector (it imports only when named)")


@dataclass(frozen=True)
class ReplaySource:
    """A ``source`` an importer writes into its runs' configs (``config.extra["source"]``) and
    how replay re-derives such a run from its file."""

    kind: str  # what the file is called in a report ("τ-bench trajectory file")
    hash_key: str  # the config.extra key holding the file's recorded hash
    rederive: Rederive


def _json_of(result: Any) -> Any:
    """A result as JSON: its ``to_json()``, ``summary()`` or ``as_dict()``, a list of them, or a
    dataclass's fields."""
    if isinstance(result, list | tuple):
        return [_json_of(item) for item in result]
    for method in ("to_json", "summary", "as_dict"):
        convert = getattr(result, method, None)
        if callable(convert):
            return convert()
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return dataclasses.asdict(result)
    return result


@dataclass(frozen=True)
class Importer(Generic[R]):
    """One way to import: ``detect(sniff)`` says how sure it is that a path is its format (and
    why, or why not); ``run(store, path, **options)`` stores ``path`` as run(s) and returns the
    importer's result; ``sources`` say how replay re-derives the runs it made (empty: its runs
    re-derive from their cassettes, or not at all)."""

    name: str
    summary: str
    accepts: str  # what ``path`` is ("a folder of cassettes", "an Inspect AI log", ...)
    run: Callable[..., R]
    sources: Mapping[str, ReplaySource] = field(default_factory=dict)
    to_json: Callable[[R], Any] = _json_of
    detect: Detect = _detects_nothing
    #: ``run`` takes ``progress``, a callable given the bytes it has read and stored (twice
    #: the file's size in all: read, then stored), which ``rejudge import`` draws as a bar
    streams: bool = False

    def __call__(self, store: Any, path: str | Path, **options: Any) -> R:
        return self.run(store, path, **options)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "summary": self.summary,
            "accepts": self.accepts,
            "sources": sorted(self.sources),
        }


def _check_importer(name: str, importer: Any) -> None:
    if not isinstance(importer, Importer):
        raise ValueError(f"importer {name!r} is not an Importer")
    if importer.name != name:
        raise ValueError(f"importer registered as {name!r} is named {importer.name!r}")


REGISTRY.configure("importer", check=_check_importer)


def register_importer(importer: Importer[Any], *, replace: bool = False) -> None:
    """Add an importer to the registry under its ``name``."""
    REGISTRY.register("importer", importer.name, importer, replace=replace)


def get_importer(name: str) -> Importer[Any]:
    """The importer called ``name`` (a built-in's module is imported on its first lookup)."""
    found: Importer[Any] = REGISTRY.get("importer", name)
    return found


def importer_names() -> list[str]:
    """Every importer: the built-ins, plugins' and any registered since."""
    return REGISTRY.names("importer")


def importer_rows() -> list[dict[str, Any]]:
    """Every importer as a row (name, summary, what it accepts, the sources replay reads)."""
    return [get_importer(name).as_dict() for name in importer_names()]


def replay_source(source: str | None) -> ReplaySource | None:
    """How replay re-derives a run whose config names ``source`` (None: no importer of results
    files wrote it)."""
    if not source:
        return None
    for _name, importer in REGISTRY.items("importer"):
        found = importer.sources.get(source)
        if found is not None:
            return found
    return None
