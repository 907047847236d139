"""Re-deriving an imported run's traces from the results file it was imported from.

A run imported from a results file (τ-bench, τ²-bench, an Inspect log, BFCL results) has no
cassette: its evidence is the file, whose hash (and, since path format 2, whose path) the run's
config records. Replay checks the file's hash, then parses it again with the importer's own
parser and hands back the traces it derives, keyed by (case, repetition), for the caller to
compare with the stored ones. The reader is the importer's own: the importer whose
:class:`~rejudge.importers._contract.ReplaySource` is the ``source`` it wrote into the run's
config (:func:`~rejudge.importers._contract.replay_source`, a registry lookup, so a plugin's
importer of results files is replayed the same way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError, RejudgeError
from rejudge.importers._contract import replay_source
from rejudge.model import RunConfig, Trace
from rejudge.services._evidence_paths import resolve_evidence_path

__all__ = ["ResultsFile", "read_results_file"]


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


def read_results_file(config: RunConfig, override: Path | None = None) -> ResultsFile:
    """The run's results file, hash-checked and parsed again (``override``: read this file
    instead of the recorded path, e.g. for a run imported before paths were recorded)."""
    extra = config.extra or {}
    source = replay_source(str(extra.get("source") or ""))
    if source is None:
        raise InvalidInputError(
            f"no importer reads results files of source {extra.get('source')!r}", field="source"
        )
    kind, hash_key, reader = source.kind, source.hash_key, source.rederive
    stored = extra.get("source_path")
    found = ResultsFile(kind, str(extra.get("file") or stored or kind))
    found.recorded_hash = extra.get(hash_key)
    path: Path
    if override is not None:
        path = override
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
