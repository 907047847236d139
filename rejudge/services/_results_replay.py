"""Re-deriving an imported run's traces from the results file it was imported from.

A run imported from a results file (τ-bench, τ²-bench, an Inspect log, BFCL results) has no
cassette: its evidence is the file, whose hash (and, since path format 2, whose path) the run's
config records. Replay checks the file's hash, then parses it again with the importer's own
parser and hands back the traces it derives, keyed by (case, repetition), for the caller to
compare with the stored ones. Each reader is a row of :data:`RESULT_READERS`, keyed by the
``source`` the importer wrote into the run's config.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.model import RunConfig, Trace, hash_bytes
from rejudge.services._evidence_paths import resolve_evidence_path
from rejudge.store import RejudgeError

__all__ = ["RESULT_READERS", "ResultsFile", "read_results_file"]


@dataclass
class ResultsFile:
    """What replay found of a run's results file."""

    kind: str
    name: str
    path: str | None = None  # where it was looked for (None: its path was never recorded)
    recorded_hash: str | None = None
    hash: str | None = None  # the hash of the file now (None: not at hand)
    problem: str | None = None  # why nothing could be re-derived, in one line
    traces: dict[tuple[str, int], Trace] = field(default_factory=dict)

    @property
    def at_hand(self) -> bool:
        return self.hash is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "file": self.name,
            "path": self.path,
            "recorded_hash": self.recorded_hash,
            "hash": self.hash,
            "at_hand": self.at_hand,
            "same_hash": self.at_hand and self.hash == self.recorded_hash,
            "problem": self.problem,
        }


# a reader: (the run's config, the file) -> (the file's hash as the importer computed it, its
# traces); it raises a RejudgeError when the file no longer parses
Reader = Callable[[RunConfig, Path], tuple[str, list[Trace]]]


def _tau(config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
    from rejudge.services._imports import read_tau_file

    tools = (config.extra or {}).get("tools_path")
    tools_file = resolve_evidence_path(tools) if tools else None
    if tools_file is not None and not tools_file.exists():
        raise FileNotFoundError(f"the tools file {tools_file} the run was imported with")
    _plan, parsed = read_tau_file(path, tools_file)  # as the import parsed it
    return parsed.file_hash, parsed.traces


def _inspect(_config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
    from rejudge.suites.importers import parse_inspect_samples, read_inspect_log

    log = read_inspect_log(path)
    # a sample's trace does not depend on the suite it was filed under
    parsed = parse_inspect_samples(log.header, log.samples(), source=str(path))
    return hash_bytes(path.read_bytes()), parsed.traces


def _bfcl(config: RunConfig, path: Path) -> tuple[str, list[Trace]]:
    from rejudge.suites.importers import read_results, result_traces, results_hash

    lines = read_results(path)[0].get(str((config.extra or {}).get("category")), [])
    return results_hash(lines), result_traces(lines)


#: the importer's ``source`` -> (what the file is called, which key holds its recorded hash,
#: its reader)
RESULT_READERS: dict[str, tuple[str, str, Reader]] = {
    "tau-bench": ("τ-bench trajectory file", "file_hash", _tau),
    "tau2-bench": ("τ²-bench results file", "file_hash", _tau),
    "inspect": ("Inspect log", "file_hash", _inspect),
    "bfcl-results": ("BFCL results", "results_hash", _bfcl),
}


def read_results_file(config: RunConfig, override: Path | None = None) -> ResultsFile:
    """The run's results file, hash-checked and parsed again (``override``: read this file
    instead of the recorded path, e.g. for a run imported before paths were recorded)."""
    extra = config.extra or {}
    kind, hash_key, reader = RESULT_READERS[str(extra.get("source"))]
    stored = extra.get("source_path")
    found = ResultsFile(kind, str(extra.get("file") or stored or kind))
    found.recorded_hash = extra.get(hash_key)
    if override is not None:
        path: Path | None = override
    elif stored:
        path = resolve_evidence_path(str(stored))
    else:
        found.problem = (
            f"the {kind} {found.name} is not at hand: the run was imported before rejudge "
            "recorded where its file lay; name the file to check it against"
        )
        return found
    found.path = str(path)
    if not path.exists():
        found.problem = f"the {kind} {found.name} is not at hand (looked for {path})"
        return found
    try:
        found.hash, traces = reader(config, path)
    except (RejudgeError, OSError, ValueError) as exc:
        found.problem = f"the {kind} {path} no longer reads: {exc}"
        return found
    if found.recorded_hash is not None and found.hash != found.recorded_hash:
        found.problem = (
            f"the {kind} {path} is not the file the run was imported from "
            f"(recorded {found.recorded_hash[:19]}, now {found.hash[:19]})"
        )
        return found
    found.traces = {(t.case_id, t.repetition): t for t in traces}
    return found
