"""Traces that made the same calls, judged once per batch: a finer reuse than one behaviour.

Two traces of one behaviour (``behaviour_hash``) are judged once already (judge/_batch.py). Traces
that differ only in free text (each model answer words its reply its own way) are distinct
behaviours, yet a call-matching tier reads of a trace only its calls, its status, error and case
id, and its texts only to find the case's required outputs (``CallMatchingTier.judged_by_calls``
says which reads; ``outputs_missing`` is the one text read). So under one (registry, cases, rule
set, tier) — one batch — two traces that agree on the key below get the same judgment body but
for the trace hash: the second one is a copy (``PreparedJudgment.for_trace``: the stored shared
text, its own hash), without judging or serializing. tests/judge/test_call_memo.py holds that
claim: every memoized judgment equals judging its trace fresh, byte for byte.

The key: (case key, trace's case id, status, error, the calls' fingerprint, the required
outputs missing). The fingerprint is each call's round index, name, arguments as ``repr``
writes them (the traces here are decoded from stored JSON, so their values are JSON's: repr
tells every one apart, types and insertion order kept, as an error message may quote the
object as it came; 2-3x cheaper than ``json.dumps``), the raw text of an unparsed call, parse
error, ok and error. A trace with provider-side tool uses (``server_tools``, which a rule set
may judge as calls) or arguments repr refuses (an int beyond the interpreter's digit limit)
is not memoized.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Generic, TypeVar

from rejudge.model import Case, RuleSet, Trace

from ._rulesets import settings_of

#: private to the batch judge (judge/_batch.py): nothing here is part of the face
__all__: list[str] = []

#: judgments remembered per batch (a bound, so memory stays flat however large the run)
_MEMO_MAX = 4096

#: what the memo keeps per key (the batch judge's judgment and its hash template)
V = TypeVar("V")


def _fingerprint(trace: Trace) -> tuple[Any, ...] | None:
    """Everything a call-matching tier reads of a trace's calls; None when it may read more."""
    out: list[Any] = []
    for rnd in trace.rounds:
        if rnd.server_tools:
            return None
        calls = rnd.calls
        if not calls:
            continue
        out.append(rnd.index)
        for c in calls:
            args = c.arguments
            try:
                text = None if args is None else repr(args)
            except ValueError:
                return None
            raw = c.arguments_raw if args is None else None
            out.append((c.name, text, raw, c.parse_error, c.ok, c.error))
    return tuple(out)


class CallMemo(Generic[V]):
    """The batch's judgments by what decides them (see the module), bounded: the entry used
    least recently goes when a new one would exceed ``_MEMO_MAX``. Least recently used, not
    oldest: a run's few call patterns that most traces repeat would otherwise be dropped
    behind every trace with calls of its own and judged again (100,000 distinct traces of
    the retail suite: 13,946 judged for 12,840 patterns when the oldest went; bench/README.md,
    "First judging, judge40b")."""

    def __init__(self, tier: Any, rule_set: RuleSet) -> None:
        self._tier = tier
        self._rule_set = rule_set
        self._entries: dict[Hashable, V] = {}

    def key(self, case_key: str, case: Case, trace: Trace) -> Hashable | None:
        """What decides ``trace``'s judgment besides the batch's inputs; None: judge it."""
        status = trace.status
        err = trace.error
        error = None if err is None else (err.kind, err.message)
        if status == "agent_error":  # judged from the error alone (or the case's skip)
            return (case_key, trace.case_id, status, error)
        calls = _fingerprint(trace)
        if calls is None:
            return None
        try:
            # the rule set's settings read here, not when the batch starts: a rule set that
            # does not validate fails where judging it always failed (in judge_body, below)
            settings = settings_of(self._rule_set)
            missing, _where = self._tier.outputs_missing(case, settings, trace, trace)
        except Exception:  # whatever it is, judging the trace records it as it always did
            return None
        return (case_key, trace.case_id, status, error, calls, tuple(missing))

    def get(self, key: Hashable) -> V | None:
        entries = self._entries
        value = entries.pop(key, None)
        if value is not None:
            entries[key] = value  # used now: the last to go
        return value

    def put(self, key: Hashable, value: V) -> None:
        entries = self._entries
        if len(entries) >= _MEMO_MAX:
            del entries[next(iter(entries))]
        entries[key] = value


def memo_for(tier: Any, rule_set: RuleSet) -> CallMemo[Any] | None:
    """A memo for ``tier`` under ``rule_set``, or None when the tier reads more of a trace
    than its calls."""
    if getattr(tier, "judged_by_calls", False) is not True:
        return None
    return CallMemo(tier, rule_set)
