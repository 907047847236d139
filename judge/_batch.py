"""The batch judging engine's pure core: judge many stored trace bodies of one (registry, cases,
rule set, tier), in this process or in worker processes, into judgments ready for the store.

Takes data, never a Store: :func:`rejudge.services._judging.judge_run` streams a run's rows from
the store, looks their judgment keys up, hands the missing ones to a :class:`BatchJudge` and
writes what comes back. Judgments are keyed by (trace hash, case hash, registry hash, tier,
rule-set hash, engine version); :class:`KeyMaker` computes that key before anything is judged,
so a trace already judged under the same inputs is never decoded again.
"""

from __future__ import annotations

import gc
import json
import marshal
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from rejudge.store import (
    Case,
    PreparedJudgment,
    RuleSet,
    ToolRegistry,
    Trace,
    canonical_json,
    hash_bytes,
)

from ._context import registry_index
from ._engine import ENGINE_VERSION, judge_body
from .tiers import get_tier

__all__ = ["BatchJudge", "Judged", "JudgeRow", "KeyMaker", "decode_trace", "long_lived_frozen"]

# ---------------------------------------------------------------- worker side

_W: dict[str, Any] = {}


@contextmanager
def long_lived_frozen() -> Iterator[None]:
    """Move every object alive now (modules, registry, cases) out of the collector's sight.

    Judging allocates many short-lived containers; each full collection would otherwise walk
    every long-lived object again (about 40% of the judging time at 10k traces). Nothing about
    the judgments changes; the objects are unfrozen afterwards.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class KeyMaker:
    """``judgment_key`` for many traces of one (registry, tier, rule set, engine version).

    The key hashes the canonical JSON of ``[trace_hash, case_hash, registry_hash, tier,
    rule_set_hash, engine_version]``; everything after the trace hash is the same for every trace
    of a case, so that tail is serialized once per case and only the trace hash per trace. The
    text hashed is byte for byte the one :func:`store.schemas.judgment_key` hashes (a property
    test holds the two together).
    """

    def __init__(
        self, case_hashes: dict[str, str], registry_hash: str, tier: str, rule_set_hash: str
    ) -> None:
        self._tails = {
            case_key: canonical_json(
                [case_hash, registry_hash, tier, rule_set_hash, ENGINE_VERSION]
            )[1:]
            for case_key, case_hash in case_hashes.items()
        }

    def __call__(self, case_key: str, trace_hash: str) -> str:
        text = "[" + encode_basestring(trace_hash) + "," + self._tails[case_key]
        return hash_bytes(text.encode("utf-8"))


def _init_worker(
    registry: ToolRegistry, cases: dict[str, Case], rule_set: RuleSet, tier: str, freeze: bool
) -> None:
    """Worker-process setup (also run in-process for one worker)."""
    _W["registry"] = registry
    _W["behaviours"] = {}  # judged under other inputs: forget them
    _W["behaviour_stats"] = [0, 0]
    _W["cases"] = cases
    _W["case_hashes"] = {k: c.hash for k, c in cases.items()}
    _W["rule_set"] = rule_set
    _W["rule_set_hash"] = rule_set.hash
    _W["registry_hash"] = registry.hash
    _W["tier"] = get_tier(tier)
    if getattr(_W["tier"], "uses_registry_index", True):
        # compile the schemas once, before freezing; a tier that never reads them (bfcl-ast)
        # would pay seconds for thousands of tools it does not use
        registry_index(registry, _W["registry_hash"])
    if freeze:  # a worker process lives only for this batch: freeze its long-lived objects
        gc.collect()
        gc.freeze()


#: a judgment ready for the store, with what the run's summary reads of it: (prepared,
#: taxonomy, details.implicated_tools, anomalies)
Judged = tuple[PreparedJudgment, list[str], Any, list[str]]

#: one row to judge: (case key, trace hash, trace JSON text, judgment key)
JudgeRow = tuple[str, str, str, str]


def decode_trace(text: str) -> Trace:
    """A stored trace body, parsed and validated in one pass by pydantic's JSON parser (the
    same Trace as ``Trace.model_validate(json.loads(text))``, ~1/4 cheaper); any text it
    refuses (e.g. a lone surrogate escape) goes the ``json.loads`` way, as before."""
    try:
        return Trace.model_validate_json(text)
    except ValueError:
        return Trace.model_validate(json.loads(text))


#: what a judgment never depends on: the trace's repetition number and wall-clock timings (no
#: tier, matcher or rule reads them; tests/judge/test_behaviour_once.py holds this). Two traces
#: of one case equal but for these are one *behaviour*, judged once.
_NOT_JUDGED = ("repetition", "timings")

#: behaviours remembered per worker (a bound, so memory stays flat however large the run)
_BEHAVIOURS_MAX = 4096

#: after this many traces, a batch where fewer than 1 in 20 repeated an earlier behaviour stops
#: looking (the key costs ~6 us a trace, a tenth of judging one; a run of all-distinct traces
#: would pay it for nothing)
_BEHAVIOURS_PROBE = 2000


def _behaviour(case_key: str, text: str) -> tuple[str, bytes] | None:
    """The key of what the judge reads of a stored trace: its decoded JSON without
    ``_NOT_JUDGED``, marshalled (a faithful encoding of dicts, lists, strings and numbers with
    their types, ~4x cheaper than JSON: two texts that differ anywhere else give two keys, and
    one that differs only in key order or object sharing at worst costs a judging). None for
    a text the fast decoder refuses (judged as ever)."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if type(value) is not dict:
        return None
    for name in _NOT_JUDGED:
        value.pop(name, None)
    return case_key, marshal.dumps(value)


def _judge_rows(rows: list[JudgeRow]) -> list[Judged]:
    """Judge ``(case key, trace hash, trace JSON text, judgment key)`` rows into judgments
    ready for the store (decoded, judged and serialized here, in the worker).

    A trace whose behaviour (see :func:`_behaviour`) was judged before under these inputs is
    not judged again: its judgment is the earlier one's with the trace hash put in its place.
    The canonical text of a judgment body holds the trace hash once, as the value of
    ``trace_hash`` (a ``sha256:`` digest, no character to escape, keys sorted so nothing moves),
    so replacing it in the text gives byte for byte what serializing the new body gives, and
    the same hash; a body that holds the digest anywhere else is judged in full."""
    cases, case_hashes = _W["cases"], _W["case_hashes"]
    registry, tier, rule_set = _W["registry"], _W["tier"], _W["rule_set"]
    registry_hash, rule_set_hash = _W["registry_hash"], _W["rule_set_hash"]
    seen: dict[tuple[str, bytes], Judged] = _W.setdefault("behaviours", {})
    stats = _W.setdefault("behaviour_stats", [0, 0])  # [looked up, found]
    out: list[Judged] = []
    for case_key, trace_hash, text, key in rows:
        looking = stats[0] < _BEHAVIOURS_PROBE or 20 * stats[1] >= stats[0]
        behaviour = _behaviour(case_key, text) if looking else None
        earlier = seen.get(behaviour) if behaviour is not None else None
        if looking:
            stats[0] += 1
            stats[1] += earlier is not None
        if earlier is not None:
            p, taxonomy, tools, anomalies = earlier
            body_json = p.body_json.replace(p.trace_hash, trace_hash)
            out.append(
                (
                    p._replace(
                        key=key,
                        hash=hash_bytes(body_json.encode("utf-8")),
                        body_json=body_json,
                        trace_hash=trace_hash,
                    ),
                    list(taxonomy),
                    None if tools is None else list(tools),
                    list(anomalies),
                )
            )
            continue
        body = judge_body(
            decode_trace(text),
            cases[case_key],
            registry,
            tier,
            rule_set,
            trace_hash=trace_hash,
            case_hash=case_hashes[case_key],
            registry_hash=registry_hash,
            rule_set_hash=rule_set_hash,
        )
        prepared = PreparedJudgment.from_body(body, key)
        tools = body["details"].get("implicated_tools")
        judged = (prepared, list(body["taxonomy"]), tools, list(body["anomalies"]))
        out.append(judged)
        if (
            behaviour is not None
            and prepared.body_json.count(trace_hash) == 1
            and (tools is None or type(tools) is list)
        ):
            if len(seen) >= _BEHAVIOURS_MAX:
                seen.clear()
            seen[behaviour] = (
                prepared,
                list(body["taxonomy"]),
                None if tools is None else list(tools),
                list(body["anomalies"]),
            )
    return out


class BatchJudge:
    """Judges rows of one (registry, cases, rule set, tier) in this process or in a pool.

    ``judge_now`` judges in this process (one worker, or a chunk small enough not to ship);
    ``submit`` hands a chunk to the worker pool, which starts at the first chunk submitted (a
    re-judge of unchanged inputs judges nothing and never pays for the processes). Used as a
    context manager: the long-lived objects are frozen out of the collector's sight while it
    runs, and the pool is shut down on exit.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        cases: dict[str, Case],
        rule_set: RuleSet,
        tier: str,
        *,
        workers: int = 1,
    ) -> None:
        self.workers = workers
        self._init_args = (registry, cases, rule_set, tier)
        self._pool: ProcessPoolExecutor | None = None
        self.key = KeyMaker(
            {k: c.hash for k, c in cases.items()}, registry.hash, get_tier(tier).name, rule_set.hash
        )
        _init_worker(registry, cases, rule_set, tier, False)
        self._frozen = long_lived_frozen()

    def __enter__(self) -> BatchJudge:
        self._frozen.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._pool is not None:
                self._pool.shutdown()
                self._pool = None
        finally:
            self._frozen.__exit__(None, None, None)

    def judge_now(self, rows: list[JudgeRow]) -> list[Judged]:
        return _judge_rows(rows) if rows else []

    def submit(self, rows: list[JudgeRow]) -> Future[list[Judged]]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                initializer=_init_worker,
                initargs=(*self._init_args, True),
            )
        return self._pool.submit(_judge_rows, rows)
