"""The batch judging engine's pure core: judge many stored trace bodies of one (registry, cases,
rule set, tier), in this process or in worker processes, into judgments ready for the store.

Takes data, never a Store: :func:`rejudge.services._judging.judge_run` streams a run's rows from
the store, looks their judgment keys up, hands the missing ones to a :class:`BatchJudge` and
writes what comes back. Judgments are keyed by (trace hash, case hash, registry hash, tier,
rule-set hash, engine version); :class:`KeyMaker` computes that key before anything is judged,
so a trace already judged under the same inputs is never decoded again.

Repeated trials that behaved alike (same stored ``behaviour_hash``: everything but repetition and
timings, which no tier reads) are judged once per batch: :meth:`BatchJudge.plan` picks one
representative per behaviour, whose body alone is fetched and judged, and
:meth:`BatchJudge.complete` gives every other trace of it the same judgment with its own trace
hash (``PreparedJudgment.for_trace``: byte for byte the body judging it would give, its own
hash). tests/judge/test_behaviour_once.py holds both halves of that claim.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Callable, Container, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Protocol

from rejudge.model import (
    Case,
    JudgmentTemplate,
    PreparedJudgment,
    RuleSet,
    ToolRegistry,
    Trace,
    canonical_json,
    hash_bytes,
)

from ._call_memo import CallMemo, memo_for
from ._context import clear_case_caches, registry_index
from ._engine import ENGINE_VERSION, judge_body
from .tiers import get_tier

__all__ = [
    "BatchJudge",
    "ChunkPlan",
    "Judged",
    "JudgeRow",
    "KeyMaker",
    "TraceRowLike",
    "decode_trace",
    "long_lived_frozen",
]

# ---------------------------------------------------------------- worker side

_W: dict[str, Any] = {}


#: allocations between two collections of the collector's young generation while judging
#: (Python's default: 700). A chunk's rows, bodies and judgments outlive hundreds of those
#: collections each, and every one that survives is walked again by the older generations'
#: collections: 100,000 distinct traces, first judging, 1,868 collections, 8.6 µs a trace;
#: at 50,000, six collections, 2.5 µs, peak RSS +4 MB (the cyclic garbage a collection finds
#: waits longer, bounded by the threshold; bench/README.md, "First judging, judge40b")
_YOUNG_THRESHOLD = 50_000


def _collect_young_less_often() -> None:
    young, *older = gc.get_threshold()
    gc.set_threshold(max(young, _YOUNG_THRESHOLD), *older)


#: judgings inside :func:`long_lived_frozen` in this process now, and the collector's thresholds
#: before the first of them entered: the first to enter saves them, the last to leave restores
#: them and unfreezes (two judgings in threads of one process may leave in any order)
_frozen_lock = threading.Lock()
_frozen_depth = 0
_frozen_thresholds: tuple[int, ...] = ()


@contextmanager
def long_lived_frozen() -> Iterator[None]:
    """Move every object alive now (modules, registry, cases) out of the collector's sight,
    and collect the young generation less often (``_YOUNG_THRESHOLD``).

    Judging allocates many short-lived containers; each full collection would otherwise walk
    every long-lived object again (about 40% of the judging time at 10k traces). Nothing about
    the judgments changes; the objects are unfrozen and the thresholds restored afterwards,
    when the last judging of this process inside it leaves (judgings in threads nest).
    """
    global _frozen_depth, _frozen_thresholds
    with _frozen_lock:
        if not _frozen_depth:
            _frozen_thresholds = gc.get_threshold()
        _frozen_depth += 1
        gc.freeze()
        _collect_young_less_often()
    try:
        yield
    finally:
        with _frozen_lock:
            _frozen_depth -= 1
            if not _frozen_depth:
                gc.set_threshold(*_frozen_thresholds)
                gc.unfreeze()


class KeyMaker:
    """``judgment_key`` for many traces of one (registry, tier, rule set, engine version).

    The key hashes the canonical JSON of ``[trace_hash, case_hash, registry_hash, tier,
    rule_set_hash, engine_version]``; everything after the trace hash is the same for every trace
    of a case, so that tail is serialized once per case and only the trace hash per trace. The
    text hashed is byte for byte the one :func:`rejudge.model.judgment_key` hashes (a property
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
    _W["cases"] = cases
    _W["case_hashes"] = {k: c.hash for k, c in cases.items()}
    _W["rule_set"] = rule_set
    _W["rule_set_hash"] = rule_set.hash
    _W["registry_hash"] = registry.hash
    _W["tier"] = get_tier(tier)
    # traces that made the same calls judged once per batch (judge/_call_memo.py)
    _W["memo"] = memo_for(_W["tier"], rule_set)
    if getattr(_W["tier"], "uses_registry_index", True):
        # compile the schemas once, before freezing; a tier that never reads them (bfcl-ast)
        # would pay seconds for thousands of tools it does not use
        registry_index(registry, _W["registry_hash"])
    if freeze:  # a worker process lives only for this batch: freeze its long-lived objects
        gc.collect()
        gc.freeze()
        _collect_young_less_often()


def _release_worker(cases: dict[str, Case]) -> None:
    """In-process end of a batch over ``cases``: forget its inputs (``_W``) and the judge's
    per-case caches, so the run's cases do not outlive the batch. ``_W`` is left alone when
    another batch of this process has set it since (it holds that batch's cases)."""
    if _W.get("cases") is cases:
        _W.clear()
    clear_case_caches()


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


#: behaviours remembered per batch (a bound, so memory stays flat however large the run)
_BEHAVIOURS_MAX = 4096


def _judge_rows(rows: list[JudgeRow]) -> list[Judged]:
    """Judge ``(case key, trace hash, trace JSON text, judgment key)`` rows into judgments
    ready for the store (decoded, judged and serialized here, in the worker)."""
    cases, case_hashes = _W["cases"], _W["case_hashes"]
    registry, tier, rule_set = _W["registry"], _W["tier"], _W["rule_set"]
    registry_hash, rule_set_hash = _W["registry_hash"], _W["rule_set_hash"]
    memo: CallMemo[_Template] | None = _W["memo"]
    out: list[Judged] = []
    for case_key, trace_hash, text, key in rows:
        trace = decode_trace(text)
        case = cases[case_key]
        decides = memo.key(case_key, case, trace) if memo is not None else None
        earlier = memo.get(decides) if memo is not None and decides is not None else None
        copied = _copy(earlier, trace_hash, key) if earlier is not None else None
        if copied is not None:
            out.append(copied)
            continue
        body = judge_body(
            trace,
            case,
            registry,
            tier,
            rule_set,
            trace_hash=trace_hash,
            case_hash=case_hashes[case_key],
            registry_hash=registry_hash,
            rule_set_hash=rule_set_hash,
        )
        made: Judged = (
            PreparedJudgment.from_body(body, key),
            list(body["taxonomy"]),
            body["details"].get("implicated_tools"),
            list(body["anomalies"]),
        )
        out.append(made)
        p = made[0]
        if memo is not None and decides is not None and p.offset >= 0:
            memo.put(decides, (*made, JudgmentTemplate(p.shared_json, p.offset)))
    return out


#: a behaviour: (case key, the trace's behaviour hash)
Behaviour = tuple[str, str]


class TraceRowLike(Protocol):
    """What the engine reads of a stored trace's row (``rejudge.store.StreamedTrace``, read
    without its body): the judge imports nothing of the store."""

    @property
    def id(self) -> int: ...

    @property
    def case_key(self) -> str: ...

    @property
    def hash(self) -> str: ...

    @property
    def behaviour_hash(self) -> str | None: ...


@dataclass
class ChunkPlan:
    """What a chunk of stored rows needs judged: one *representative* row per behaviour not
    judged before (its body is fetched and judged), the other rows of the same behaviour
    (``followers``: copies of the representative's judgment), and copies of judgments made
    earlier in the batch (``copies``). Rows without a behaviour hash are representatives of
    their own."""

    reps: list[tuple[TraceRowLike, str]] = field(default_factory=list)
    followers: dict[Behaviour, list[tuple[TraceRowLike, str]]] = field(default_factory=dict)
    copies: list[Judged] = field(default_factory=list)

    @property
    def body_ids(self) -> list[int]:
        """The trace ids whose bodies judging this chunk reads."""
        return [row.id for row, _key in self.reps]

    def judge_rows(self, bodies: dict[int, str]) -> list[JudgeRow]:
        """The representatives as rows to judge, with their fetched ``bodies`` (id -> text)."""
        return [(row.case_key, row.hash, bodies[row.id], key) for row, key in self.reps]


def _copy(earlier: _Template, trace_hash: str, key: str) -> Judged | None:
    prepared, taxonomy, tools, anomalies, template = earlier
    copy = prepared.for_trace(trace_hash, key, template)
    if copy is None:
        return None
    # the lists are shared by every copy: nothing downstream changes them (the summary and
    # the links read them)
    return (copy, taxonomy, tools, anomalies)


#: a judgment another trace of the same behaviour is copied from, with its hash template
_Template = tuple[PreparedJudgment, list[str], Any, list[str], JudgmentTemplate]


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
        self._seen: dict[Behaviour, _Template] = {}

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
            self._seen.clear()
            _release_worker(self._init_args[1])

    def judge_now(self, rows: list[JudgeRow]) -> list[Judged]:
        if not rows:
            return []
        if _W.get("cases") is not self._init_args[1]:
            # another batch of this process set (or released) the in-process inputs since
            _init_worker(*self._init_args, False)
        return _judge_rows(rows)

    def plan(
        self, chunk: Sequence[TraceRowLike], keys: list[str], known: Container[str]
    ) -> ChunkPlan:
        """What judging ``chunk`` (stored rows with ``behaviour_hash``, bodies not needed)
        takes, given the judgment ``keys`` of its rows and the ones ``known`` (stored)."""
        plan = ChunkPlan()
        planned: set[str] = set()
        for row, key in zip(chunk, keys, strict=True):
            if key in known or key in planned:
                continue
            planned.add(key)
            digest = row.behaviour_hash
            if digest is None:
                plan.reps.append((row, key))
                continue
            behaviour = (row.case_key, digest)
            earlier = self._seen.get(behaviour)
            copied = _copy(earlier, row.hash, key) if earlier is not None else None
            if copied is not None:
                plan.copies.append(copied)
            elif behaviour in plan.followers:
                plan.followers[behaviour].append((row, key))
            else:
                plan.followers[behaviour] = []
                plan.reps.append((row, key))
        return plan

    def complete(
        self,
        plan: ChunkPlan,
        judged: list[Judged],
        fetch: Callable[[list[int]], dict[int, str]],
    ) -> list[Judged]:
        """Every new judgment of a planned chunk: the representatives' ``judged`` (in
        ``plan.reps`` order), their followers' copies, the earlier behaviours' copies. A
        follower whose representative's body cannot be shared (see
        ``rejudge.model._judgment_text``) is judged here, its body read with ``fetch``."""
        out = list(plan.copies)
        alone: list[tuple[TraceRowLike, str]] = []
        for (row, _key), made in zip(plan.reps, judged, strict=True):
            out.append(made)
            digest = row.behaviour_hash
            if digest is None:
                continue
            behaviour = (row.case_key, digest)
            p = made[0]
            earlier: _Template = (*made, JudgmentTemplate(p.shared_json, p.offset))
            if p.offset >= 0:
                if len(self._seen) >= _BEHAVIOURS_MAX:
                    self._seen.clear()
                self._seen[behaviour] = earlier
            for follower, key in plan.followers.get(behaviour, []):
                copied = _copy(earlier, follower.hash, key)
                if copied is None:
                    alone.append((follower, key))
                else:
                    out.append(copied)
        if alone:
            bodies = fetch([row.id for row, _key in alone])
            out.extend(
                self.judge_now(
                    [(row.case_key, row.hash, bodies[row.id], key) for row, key in alone]
                )
            )
        return out

    def submit(self, rows: list[JudgeRow]) -> Future[list[Judged]]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                initializer=_init_worker,
                initargs=(*self._init_args, True),
            )
        return self._pool.submit(_judge_rows, rows)
