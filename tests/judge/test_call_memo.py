"""Traces that made the same calls, judged once per batch (judge/_call_memo.py): every judgment
the batch judge copies from its memo is byte for byte the one judging that trace fresh gives
(same key, hash, shared text, columns; the whole body equals ``canonical_json`` of the fresh
body), and traces that differ only in free text are judged once."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import BatchJudge, judge_body

from rejudge.model import PreparedJudgment, Round, Trace, TraceError, canonical_json

from .conftest import REGISTRY
from .test_properties import RULES, TIERS, arbitrary_cases, tool_calls

#: short words, so required outputs are sometimes said and sometimes not
words = st.sampled_from(["", "42", "1,000", "1000", "ok", "Paris", "paris here"])


@st.composite
def call_patterns(draw):
    """Rounds' calls (with the round indexes) that several traces will share."""
    return [draw(st.lists(tool_calls(), max_size=2)) for _ in range(draw(st.integers(0, 3)))]


@st.composite
def batches(draw):
    case = draw(arbitrary_cases())
    outputs = draw(st.lists(st.sampled_from(["42", "1000", "Paris", "x"]), max_size=2))
    case = case.model_copy(update={"required_outputs": outputs})
    patterns = draw(st.lists(call_patterns(), min_size=1, max_size=3))
    traces = []
    for _ in range(draw(st.integers(2, 7))):
        pattern = _near(draw(st.sampled_from(patterns)), draw(st.integers(0, 5)))
        first = draw(st.integers(0, 1))  # the calls' round indexes, shifted or not
        rounds = [
            Round(index=first + i, calls=calls, text=draw(st.none() | words))
            for i, calls in enumerate(pattern)
        ]
        if draw(st.booleans()):  # a reply without a call, as an answer ends
            rounds.append(Round(index=len(rounds), text=draw(words)))
        status = draw(st.sampled_from(["completed", "completed", "step_limit", "agent_error"]))
        error = (
            TraceError(kind="timeout", message=draw(st.sampled_from(["x", "y"])))
            if status == "agent_error" and draw(st.booleans())
            else None
        )
        traces.append(
            Trace(
                case_id=draw(st.sampled_from(["c", "c", "d"])),
                rounds=rounds,
                status=status,
                error=error,
                final_text=draw(st.none() | words),
            )
        )
    return case, traces


def _near(pattern, how):
    """``pattern``, or it with one thing of its first call changed that a tier may read: its
    outcome (``ok``), its error, or the order of its arguments (a schema message may quote
    the object as it came)."""
    rounds = [list(calls) for calls in pattern]
    at = next((r for r in rounds if r), None)
    if at is None or how > 2:
        return pattern
    call = at[0]
    if how == 0:
        at[0] = call.model_copy(update={"ok": {True: False, False: None, None: True}[call.ok]})
    elif how == 1:
        at[0] = call.model_copy(update={"error": (call.error or "") + "!"})
    elif call.arguments:
        at[0] = call.model_copy(update={"arguments": dict(reversed(call.arguments.items()))})
    return rounds


def _rows(case, traces):
    return [
        (case.id, f"sha256:{i:064x}", json.dumps(t.model_dump(mode="json")), f"key{i}")
        for i, t in enumerate(traces)
    ]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches(), st.sampled_from(TIERS), st.sampled_from(RULES))
def test_memoized_judgments_are_fresh_judgments(batch, tier, rules):
    case, traces = batch
    rows = _rows(case, traces)
    with BatchJudge(REGISTRY, {case.id: case}, rules, tier) as judge_:
        made = judge_.judge_now(rows)
    assert [p.key for p, *_ in made] == [key for *_, key in rows]
    for (prepared, taxonomy, tools, anomalies), (_c, trace_hash, text, key) in zip(
        made, rows, strict=True
    ):
        body = judge_body(
            Trace.model_validate_json(text), case, REGISTRY, tier, rules, trace_hash=trace_hash
        )
        assert prepared == PreparedJudgment.from_body(body, key)
        assert prepared.body_json == canonical_json(body)
        assert taxonomy == body["taxonomy"]
        assert anomalies == body["anomalies"]
        assert tools == body["details"].get("implicated_tools")


def _answers(case, n):
    """``n`` traces of ``case`` making its golden calls, each answering in its own words."""
    calls = [
        {"name": g.tool, "arguments": dict(g.params), "ok": True}
        for g in case.golden.calls
        for _ in range(g.count)
    ]
    rounds = [{"index": i, "calls": [c]} for i, c in enumerate(calls)]
    return [
        Trace.model_validate(
            {
                "case_id": case.id,
                "rounds": [*rounds, {"index": len(rounds), "text": f"done ({i})"}],
                "final_text": f"done ({i})",
            }
        )
        for i in range(n)
    ]


def test_answers_in_their_own_words_are_judged_once(monkeypatch):
    """Distinct behaviours (the texts differ) whose calls agree: one judged, the rest copied;
    a tier that reads more than the calls (``state``) gets no memo."""
    from rejudge.judge import _batch
    from rejudge.suites import load_suite

    source = load_suite("retail")
    case = next(c for c in source.cases if c.golden.calls and not c.required_outputs)
    judged = []
    real = _batch.judge_body

    def counting(*args, **kw):
        judged.append(args[0])
        return real(*args, **kw)

    monkeypatch.setattr(_batch, "judge_body", counting)
    rules = RULES[-1]
    traces = _answers(case, 5)
    with BatchJudge(source.registry, {case.id: case}, rules, "golden") as judge_:
        made = judge_.judge_now(_rows(case, traces))
    assert len(judged) == 1
    assert len({p.hash for p, *_ in made}) == 5  # each its own trace hash, so its own hash
    assert len({p.shared_hash for p, *_ in made}) == 1
    assert made[0][0].verdict == "PASS"
    assert _batch.memo_for(_batch.get_tier("state"), rules) is None


def test_the_memo_lets_the_entry_used_least_recently_go(monkeypatch):
    """Full, the memo drops the entry used least recently, not the oldest: a call pattern
    most traces repeat stays while traces with calls of their own come and go."""
    from rejudge.judge import _call_memo, load_rule_set
    from rejudge.judge.tiers import get_tier

    monkeypatch.setattr(_call_memo, "_MEMO_MAX", 2)
    memo = _call_memo.memo_for(get_tier("golden"), load_rule_set("standard@2"))
    assert memo is not None
    memo.put("often", 1)
    memo.put("once", 2)
    assert memo.get("often") == 1
    memo.put("new", 3)  # full: "once" goes, "often" was used since it came
    assert (memo.get("often"), memo.get("once"), memo.get("new")) == (1, None, 3)
