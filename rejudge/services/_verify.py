"""``replay RUN``: verify a stored run offline, by where its evidence came from.

A run's evidence came one of three ways, and each is checked the way that can fail honestly:

- **recorded** by rejudge's own loop (``record``, ``sweep``, the demo's local-model runs): the
  loop runs again against the cassettes with the network blocked, every request must match a
  recorded one, and the re-derived trace must hash as the stored one;
- **imported cassettes** (``import cassettes``, ``capture``, the demo's real-world runs): another
  program made these exchanges, so nothing is re-run; each trace is derived again from its
  stored cassette through the one reader and normalizer, and the hashes compared;
- **a results file** (τ-bench, τ²-bench, BFCL results, an Inspect log): the file's hash is
  checked against the recorded one and its traces re-derived by the importer's parser, when the
  file is at hand (:mod:`rejudge.services._results_replay`); otherwise the report says so.

The origin is read from the run's config (:func:`run_origin`) and the check is looked up in
:data:`CHECKS`; the report says which check ran and, per trace, what it found.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError, NotFoundError
from rejudge.importers._contract import replay_source
from rejudge.model import RunConfig, Trace
from rejudge.recorder import CassetteError, first_difference
from rejudge.services._judge_replay import JudgeCheck, check_judge_cassettes
from rejudge.services._replay import rederive_trace, replay_run
from rejudge.services._results_replay import ResultsFile, read_results_file
from rejudge.store import RunRecord, Store, StoredTrace

__all__ = ["CHECKS", "Check", "TraceCheck", "Verification", "run_origin", "verify_run"]

SAME = "same hash"
DIVERGED = "diverged"
NOT_CHECKED = "not checked"


@dataclass(frozen=True)
class TraceCheck:
    """What the check found for one stored trace."""

    case: str
    repetition: int
    outcome: str  # SAME, DIVERGED, or NOT_CHECKED (its evidence is not at hand)
    message: str | None = None
    round: int | None = None
    field: str | None = None
    evidence: str | None = None  # the cassette or results file it was checked against

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "repetition": self.repetition,
            "evidence": self.evidence,
            "outcome": self.outcome,
            "round": self.round,
            "field": self.field,
            "message": self.message,
        }


@dataclass
class Verification:
    run: str
    origin: str
    check: str
    says: str  # the check, in words: what was done and what was not
    results: list[TraceCheck] = field(default_factory=list)
    source: ResultsFile | None = None
    note: str | None = None
    elapsed_s: float = 0.0
    #: the run's model-graded judgments, each judged again from its judge cassettes
    judgments: list[JudgeCheck] = field(default_factory=list)

    @property
    def traces(self) -> int:
        return len(self.results)

    @property
    def matched(self) -> int:
        return sum(1 for r in self.results if r.outcome == SAME)

    @property
    def ok(self) -> bool:
        """Every trace re-derived the same hash, and every model-graded judgment the same
        judgment from its judge cassettes."""
        return self.matched == self.traces and all(j.outcome == "same" for j in self.judgments)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "origin": self.origin,
            "check": self.check,
            "says": self.says,
            "traces": self.traces,
            "matched": self.matched,
            "ok": self.ok,
            "note": self.note,
            "source": self.source.as_dict() if self.source is not None else None,
            "divergences": [r.as_dict() for r in self.results if r.outcome != SAME],
            "results": [{"check": self.check, **r.as_dict()} for r in self.results],
            "elapsed_s": round(self.elapsed_s, 3),
            "judgments": {
                "checked": len(self.judgments),
                "matched": sum(1 for j in self.judgments if j.outcome == "same"),
                "divergences": [j.as_dict() for j in self.judgments if j.outcome != "same"],
            },
        }


def run_origin(config: RunConfig) -> str:
    """Where a run's evidence came from: ``recorded`` (rejudge's loop), ``cassettes`` (imported
    exchanges) or ``results-file``, from what its importer wrote into the config."""
    if config.harness_mode != "imported":
        return "recorded"
    if replay_source((config.extra or {}).get("source")) is not None:
        return "results-file"
    return "cassettes"


Verify = Callable[[Store, RunRecord, list[StoredTrace], Path, Path | None], Verification]


@dataclass(frozen=True)
class Check:
    name: str
    says: str
    verify: Verify


def _keyed(stored: list[StoredTrace]) -> list[tuple[str, int]]:
    return [(t.case_key, t.repetition) for t in stored]


def _compare(stored: StoredTrace, derived: Trace, what: str) -> TraceCheck:
    key, rep = stored.case_key, stored.repetition
    if derived.hash == stored.hash:
        return TraceCheck(key, rep, SAME, evidence=what)
    old, new = stored.trace.hashable(), derived.hashable()
    where = first_difference(old.get("rounds"), new.get("rounds"), "rounds") or first_difference(
        old, new
    )
    return TraceCheck(
        key,
        rep,
        DIVERGED,
        f"the trace re-derived from {what} differs from the stored one at {where} "
        f"(stored {stored.hash[:19]}, re-derived {derived.hash[:19]})",
        field=where,
        evidence=what,
    )


def _rederive_cassettes(
    store: Store, run: RunRecord, stored: list[StoredTrace], cassettes: Path, _source: Path | None
) -> Verification:
    check = CHECKS["cassettes"]
    out = Verification(run.name, "cassettes", check.name, check.says)
    name_map = store.suites.get_registry(run.registry_id).name_map or None
    for trace in stored:
        try:
            derived, cassette = rederive_trace(cassettes, trace, name_map)
        except CassetteError as exc:
            out.results.append(TraceCheck(trace.case_key, trace.repetition, NOT_CHECKED, str(exc)))
            continue
        out.results.append(_compare(trace, derived, str(cassette.path)))
    return out


def _replay_loop(
    store: Store, run: RunRecord, stored: list[StoredTrace], cassettes: Path, source: Path | None
) -> Verification:
    from rejudge.recorder import REPLAY_WORLDS
    from rejudge.suites import get_domain

    domain = store.suites.get_suite_by_id(run.suite_id).domain
    if domain not in REPLAY_WORLDS:
        try:
            get_domain(domain)
        except NotFoundError:
            # rejudge's cassettes imported without their suite: no tool world to re-run the
            # loop in, but the cassettes still re-derive
            out = _rederive_cassettes(store, run, stored, cassettes, source)
            out.note = "the run's cases are ad hoc (no tools to run): re-derived, not re-run"
            return out
    check = CHECKS["recorded"]
    out = Verification(run.name, "recorded", check.name, check.says)
    report = replay_run(store, run, cassettes, case_ids=sorted({t.case_key for t in stored}))
    diverged = {(d.case, d.repetition): d for d in report.divergences}
    paths = {(t.case_key, t.repetition): t.cassette_path for t in stored}
    for key, rep in _keyed(stored):
        d = diverged.get((key, rep))
        where = paths.get((key, rep))
        if d is None:
            out.results.append(TraceCheck(key, rep, SAME, evidence=where))
        else:
            out.results.append(TraceCheck(key, rep, DIVERGED, d.message, d.round, d.field, where))
    return out


def _rederive_results(
    store: Store, run: RunRecord, stored: list[StoredTrace], _cassettes: Path, source: Path | None
) -> Verification:
    check = CHECKS["results-file"]
    found = read_results_file(run.config, source)
    out = Verification(run.name, "results-file", check.name, check.says, source=found)
    for trace in stored:
        key, rep = trace.case_key, trace.repetition
        if found.problem is not None:
            out.results.append(TraceCheck(key, rep, NOT_CHECKED, found.problem))
            continue
        derived = found.traces.get((key, rep))
        if derived is None:
            message = f"the {found.kind} holds no trace for {key} r{rep}"
            out.results.append(TraceCheck(key, rep, DIVERGED, message))
            continue
        out.results.append(_compare(trace, derived, str(found.path)))
    return out


#: the run's origin -> the check that verifies it
CHECKS: dict[str, Check] = {
    "recorded": Check(
        "loop-replay",
        "re-runs rejudge's agent loop against the cassettes, network blocked",
        _replay_loop,
    ),
    "cassettes": Check(
        "cassette-rederive",
        "re-derives each trace from its cassette (another program's exchanges: nothing is re-run)",
        _rederive_cassettes,
    ),
    "results-file": Check(
        "results-rederive",
        "checks the results file's hash and re-derives the traces from it (nothing is re-run)",
        _rederive_results,
    ),
}


def _judge_root(cassettes: Path, run: str) -> Path:
    """Where a run's judge cassettes are: under ``cassettes`` when it holds them, else under
    the first shipped cassette root that does (the demo's imported runs are judged from the
    judge cassettes that ship with rejudge, as their agent evidence is found where it ships)."""
    from rejudge.recorder._judge_calls import judge_run_dir
    from rejudge.services._evidence_paths import shipped_cassette_roots

    if judge_run_dir(cassettes, run).is_dir():
        return cassettes
    return next((r for r in shipped_cassette_roots() if judge_run_dir(r, run).is_dir()), cassettes)


def verify_run(
    store: Store,
    run: RunRecord | str | int,
    cassettes_dir: Path | str,
    *,
    case_ids: list[str] | None = None,
    source_file: Path | str | None = None,
) -> Verification:
    """Verify every stored trace of ``run`` (or of ``case_ids``) by its origin's check, offline.

    ``source_file``: for a run imported from a results file, the file to check against instead
    of the path the run recorded (a run imported before paths were recorded has none).
    """
    started = time.perf_counter()
    record = run if isinstance(run, RunRecord) else store.runs.get_run(run)
    wanted = set(case_ids) if case_ids is not None else None
    stored = [
        t for t in store.traces.iter_traces(record.id) if wanted is None or t.case_key in wanted
    ]
    origin = run_origin(record.config)
    if source_file is not None and origin != "results-file":
        raise InvalidInputError(
            f"run {record.name!r} was not imported from a results file, so no file is checked "
            "against it",
            run=record.name,
            field="source",
        )
    check = CHECKS[origin]
    source = Path(source_file) if source_file is not None else None
    out = check.verify(store, record, stored, Path(cassettes_dir), source)
    out.results.sort(key=lambda r: (r.case, r.repetition))
    if case_ids is None:
        out.judgments = check_judge_cassettes(
            store, record, _judge_root(Path(cassettes_dir), record.name)
        )
    out.elapsed_s = time.perf_counter() - started
    return out
