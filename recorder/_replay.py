"""Replaying one trace offline: re-run the harness from its cassette with the network blocked.

Every request the loop sends must match a recorded one (method, path, JSON body minus volatile
fields); the recorded response is served, and the re-derived trace's hash must equal the stored
one. A miss or a hash difference is a :class:`Divergence` naming the case, the round and the
request field that differs. The store side (which traces, the reports, ``renormalize``) is
:mod:`rejudge.services._replay`; nothing here touches the store.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rejudge.recorder._cassettes import CASSETTE_FORMAT, CassetteError, CassetteFile, read_cassette
from rejudge.recorder._derive import cassette_meta, trace_from_cassette
from rejudge.recorder._http import RecorderError
from rejudge.recorder._loop import LoopContext, run_case
from rejudge.recorder._tape import ReplayMissError, Tape

from rejudge.model import Case, Trace, TraceError

__all__ = [
    "Divergence",
    "ReplayReport",
    "RenormalizeReport",
    "NETWORK_FAILURES",
    "first_difference",
    "load_trace_cassette",
    "replay_trace",
]


@dataclass(frozen=True)
class Divergence:
    case: str
    repetition: int
    round: int | None
    field: str | None
    message: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ReplayReport:
    run: str
    traces: int = 0
    matched: int = 0
    divergences: list[Divergence] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.divergences and self.matched == self.traces

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "traces": self.traces,
            "matched": self.matched,
            "ok": self.ok,
            "divergences": [d.as_dict() for d in self.divergences],
            "elapsed_s": round(self.elapsed_s, 3),
        }


@dataclass
class RenormalizeReport:
    run: str
    traces: int = 0
    changed: int = 0
    unchanged: int = 0
    missing: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# failures that leave no recorded response behind
NETWORK_FAILURES = frozenset({"timeout", "retries_exhausted", "connection_error"})


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """The first path where two JSON-like values differ, ``None`` when equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                return sub
            found = first_difference(a[key], b[key], sub)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}[{min(len(a), len(b))}]"
        return None
    return None if a == b else (path or "<value>")


def _round_of(path: str | None) -> int | None:
    if path and path.startswith("rounds["):
        try:
            return int(path[len("rounds[") : path.index("]")])
        except ValueError:
            return None
    return None


def load_trace_cassette(
    cassettes_dir: Path, cassette_path: str | None, case_key: str, repetition: int
) -> CassetteFile:
    """The cassette a trace row names (relative to ``cassettes_dir`` unless absolute)."""
    if not cassette_path:
        raise CassetteError(
            f"trace {case_key} r{repetition} has no cassette (imported without one?)"
        )
    path = Path(cassette_path)
    if not path.is_absolute():
        path = cassettes_dir / path
    if not path.exists():
        raise CassetteError(
            f"cassette {path} for {case_key} r{repetition} is missing (give the cassettes "
            "folder the run was recorded into; the run may have been recorded elsewhere)",
            path=path,
        )
    # scrubbed as an import's copy is: a file imported where it lay derives the same trace again
    cassette = read_cassette(path, scrub=True)
    version = cassette.meta.get("cassette_format", CASSETTE_FORMAT)
    if isinstance(version, int) and version > CASSETTE_FORMAT:
        raise CassetteError(
            f"cassette {path} has format {version}, newer than this rejudge reads "
            f"({CASSETTE_FORMAT}); upgrade rejudge",
            path=path,
        )
    return cassette


async def replay_trace(
    ctx: LoopContext,
    case: Case,
    repetition: int,
    registry: Any,
    domain: Any,
    cassette: CassetteFile,
    stored: Trace,
    stored_hash: str,
) -> Divergence | None:
    """Re-run ``case`` from ``cassette`` (the network blocked by ``ctx``'s client); ``None`` when
    the re-derived trace hashes as ``stored_hash``, else the first divergence."""
    key, rep = case.id, repetition
    tape = Tape.for_replay(cassette.interactions, source=str(cassette.path))
    recorded = (cassette.meta.get("outcome") or {}).get("error")
    network = bool(
        isinstance(recorded, dict)
        and recorded.get("status_code") is None
        and recorded.get("kind") in NETWORK_FAILURES
    )
    tape.replay_network_failure = network
    try:
        outcome = await run_case(
            ctx, case, registry, domain.new_sandbox(case.metadata or None), tape
        )
    except ReplayMissError as exc:
        played_ok = sum(
            1
            for played, i in zip(tape.played, tape.interactions, strict=True)
            if played and 200 <= int((i["response"].get("status") or {}).get("code", 200)) < 300
        )
        return Divergence(key, rep, played_ok, exc.field, str(exc))
    except RecorderError as exc:
        return Divergence(key, rep, None, None, str(exc))
    unplayed = [i for i, p in enumerate(tape.played) if not p]
    if unplayed:
        return Divergence(
            key,
            rep,
            len(outcome.rounds),
            None,
            f"the loop stopped after round {len(outcome.rounds) - 1} but {cassette.path} holds "
            f"{len(unplayed)} more interaction(s) (first unplayed: #{unplayed[0] + 1})",
        )
    if network and outcome.error is not None and outcome.error.kind in NETWORK_FAILURES:
        # a network failure leaves no exchange to replay; the cassette's account of it stands
        outcome.error = TraceError.model_validate(recorded)
    meta = cassette_meta(
        run_name=str(cassette.meta.get("run", "")),
        case=case,
        repetition=rep,
        config=ctx.config,
        outcome=outcome,
    )
    derived = trace_from_cassette(cassette.interactions, meta, key, rep)
    if derived.hash == stored_hash:
        return None
    old, new = stored.hashable(), derived.hashable()
    # rounds first: a changed call explains a changed final text, not the other way round
    where = first_difference(old.get("rounds"), new.get("rounds"), "rounds") or first_difference(
        old, new
    )
    round_index = _round_of(where)
    if round_index is None and where == "final_text":
        round_index = max(0, len(derived.rounds) - 1)
    return Divergence(
        key,
        rep,
        round_index,
        where,
        f"re-derived trace differs from the stored one at {where} "
        f"(stored {stored_hash[:19]}, replayed {derived.hash[:19]})",
    )
