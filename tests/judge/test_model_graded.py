"""The model-graded tier's verdict logic (pure: the replies are handed to it), the prompt it
renders and the judgment key it adds to."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rejudge.judge import (
    NL_ASSERTIONS_RUBRIC,
    cut_text,
    judge,
    load_rubric,
    read_reply,
    render_prompt,
)
from rejudge.judge.tiers import (
    ASSERTION_NOT_MET,
    JUDGE_OUTPUT_INVALID,
    JUDGE_SPLIT,
    MODEL_GRADED_VERSION,
    RUBRIC_NOT_MET,
    JudgeCall,
    JudgeReply,
    ModelGradedTier,
    get_tier,
)

from rejudge.model import Case, JudgeModel, Judgment, Trace, judgment_key, model_graded_key

from .conftest import REGISTRY, call, case, gcall, trace

TASK = load_rubric("task-success@1")  # the whole conversation (the default is brief)
NL = load_rubric(NL_ASSERTIONS_RUBRIC)
JUDGE = JudgeModel()


def _reply(success: bool, why: str = "because") -> str:
    return json.dumps({"justification": why, "success": success})


def _judge(
    replies: list[str | None], *, rubric: Any = TASK, c: Case | None = None, t: Trace | None = None
) -> Judgment:
    c = c or case()
    t = t or trace(call("get_user", user_id="U101"))
    prompt = render_prompt(rubric, t, c, REGISTRY)
    bound = get_tier("model-graded")
    assert isinstance(bound, ModelGradedTier)
    tier = bound.bind(
        rubric,
        JUDGE,
        JudgeCall(prompt, tuple(JudgeReply(k, text) for k, text in enumerate(replies))),
    )
    return judge(t, c, REGISTRY, tier)


def test_pass_and_fail_follow_the_reply() -> None:
    passed = _judge([_reply(True, "it looked the user up")])
    assert passed.verdict == "PASS" and passed.taxonomy == []
    assert passed.details["justification"] == "it looked the user up"
    assert passed.partial_score == 1.0
    failed = _judge([_reply(False, "it never answered")])
    assert failed.verdict == "FAIL" and failed.taxonomy == [RUBRIC_NOT_MET]
    assert "it never answered" in failed.reasons[0]
    assert failed.details["judge"]["rubric"] == TASK.ref
    assert failed.details["judge"]["model"] == JUDGE.model


@pytest.mark.parametrize(
    "raw",
    [
        "I think the assistant did well.",
        '{"justification": "x"}',
        '{"justification": "x", "success": "yes"}',
        None,
        "",
    ],
)
def test_a_reply_the_schema_rejects_is_a_skip_with_the_raw_reply(raw: str | None) -> None:
    j = _judge([raw])
    assert j.verdict == "SKIP"
    assert j.taxonomy == [JUDGE_OUTPUT_INVALID]
    assert j.partial_score is None
    assert j.details["samples"][0]["raw"] == (raw or "")
    assert j.details["samples"][0]["verdict"] == "INVALID"
    assert "judge output invalid" in j.reasons[0]


def test_a_fenced_json_reply_is_read() -> None:
    assert _judge(["```json\n" + _reply(True) + "\n```"]).verdict == "PASS"


def test_samples_vote_and_disagreement_is_reported() -> None:
    j = _judge([_reply(False), _reply(True), _reply(False)])
    assert j.verdict == "FAIL"
    assert j.details["votes"] == {"PASS": 1, "FAIL": 2, "INVALID": 0}
    assert j.details["disagreement"] is True
    assert any("disagree" in w for w in j.warnings)
    assert len(j.details["samples"]) == 3
    agreed = _judge([_reply(True), _reply(True)])
    assert "disagreement" not in agreed.details and agreed.warnings == []
    # invalid samples do not vote, but are reported
    mixed = _judge(["nonsense", _reply(True)])
    assert mixed.verdict == "PASS" and mixed.details["votes"]["INVALID"] == 1


def test_an_even_split_is_a_skip() -> None:
    j = _judge([_reply(True), _reply(False)])
    assert j.verdict == "SKIP" and j.taxonomy == [JUDGE_SPLIT]


def _nl_case() -> Case:
    return case(nl_assertions=["The agent looks the user up.", "The agent says goodbye."])


def _assertions(*met: bool) -> str:
    items = [{"index": i, "justification": f"j{i}", "met": m} for i, m in enumerate(met, 1)]
    return json.dumps({"assertions": items})


def test_nl_assertions_each_judged_with_its_justification() -> None:
    j = _judge([_assertions(True, False)], rubric=NL, c=_nl_case())
    assert j.verdict == "FAIL" and j.taxonomy == [ASSERTION_NOT_MET]
    assertions = j.details["assertions"]
    assert [a["met"] for a in assertions] == [True, False]
    assert assertions[1]["assertion"] == "The agent says goodbye."
    assert assertions[1]["justification"] == "j2"
    assert j.partial_score == 0.5
    assert "assertion 2 not met" in j.reasons[0]
    assert _judge([_assertions(True, True)], rubric=NL, c=_nl_case()).verdict == "PASS"
    # the schema of this case fixes the number of assertions: one too few is invalid
    short = _judge([_assertions(True)], rubric=NL, c=_nl_case())
    assert short.verdict == "SKIP" and short.taxonomy == [JUDGE_OUTPUT_INVALID]


def test_a_case_without_assertions_is_not_judged_by_an_assertion_rubric() -> None:
    j = _judge([_assertions(True)], rubric=NL, c=case())
    assert j.verdict == "SKIP" and j.reasons[0].startswith("tier does not apply")


def test_key_adds_rubric_judge_and_prompt_only_for_this_tier() -> None:
    j = _judge([_reply(True)])
    assert j.judge_hash is not None
    plain = judgment_key(
        j.trace_hash, j.case_hash, j.registry_hash, j.tier, j.rule_set_hash, j.engine_version
    )
    assert j.key != plain
    assert Judgment.model_validate(j.model_dump(mode="json")).key == j.key
    golden = judge(trace(call("get_user", user_id="U101")), case(), REGISTRY, "golden")
    assert "judge_hash" not in golden.model_dump(mode="json")
    assert golden.key == judgment_key(
        golden.trace_hash,
        golden.case_hash,
        golden.registry_hash,
        "golden",
        golden.rule_set_hash,
        golden.engine_version,
    )
    # another judge model or rubric version: another key
    t, c = trace(call("get_user", user_id="U101")), case()
    prompt = render_prompt(TASK, t, c)
    reply = JudgeCall(prompt, (JudgeReply(0, _reply(True)),))
    tier = ModelGradedTier()
    other_model = judge(t, c, REGISTRY, tier.bind(TASK, JudgeModel(model="other"), reply))
    other_rubric = TASK.model_copy(update={"version": "9"})
    other_version = judge(t, c, REGISTRY, tier.bind(other_rubric, JUDGE, reply))
    assert len({j.key, other_model.key, other_version.key}) == 3
    # the replies are handed to the tier bound to their prompt: the key (rubric, judge, prompt)
    # is the one binding with them gives, and the replies are read
    asked = tier.bind(TASK, JUDGE, JudgeCall(prompt, ()))
    answered = asked.with_replies((JudgeReply(0, _reply(False)),))
    assert answered.judge_hash == asked.judge_hash
    assert answered.judge_hash == tier.bind(TASK, JUDGE, answered.call).judge_hash
    assert judge(t, c, REGISTRY, answered).verdict == "FAIL"
    with pytest.raises(RuntimeError, match="bind the tier"):
        tier.with_replies(())


def test_a_judge_fail_carries_no_call_scoring_anomaly() -> None:
    # a binary judge FAIL scores 0 while every call executed: the rule tiers flag that as a
    # suspicious rule, which says nothing of a model judge's verdict
    t = trace(call("get_user", user_id="U101"))
    assert all(c.ok is True for c in t.calls)
    failed = _judge([_reply(False)], t=t)
    assert failed.verdict == "FAIL" and failed.partial_score == 0.0
    assert failed.anomalies == []
    # a rule tier scoring the same trace 0 is still flagged (tests/judge/test_tiers.py's case)
    strict = case(gcall("request_cancel", order_id="W441", reason="x"), allowed_extra=[])
    rule = judge(t, strict, REGISTRY, "contract")
    assert rule.partial_score == 0.0
    assert rule.anomalies == ["zero_partial_score_all_calls_executed"]


def test_the_tier_version_is_in_the_key_and_the_details() -> None:
    j = _judge([_reply(True)])
    assert j.details["judge"]["tier_version"] == MODEL_GRADED_VERSION
    prompt_hash = j.details["prompt_hash"]
    assert j.judge_hash == model_graded_key(
        TASK.hash, JUDGE.hash, prompt_hash, MODEL_GRADED_VERSION
    )
    # another version of the tier is another key: its judgments are judged again, not looked up
    assert j.judge_hash != model_graded_key(
        TASK.hash, JUDGE.hash, prompt_hash, MODEL_GRADED_VERSION - 1
    )


def test_unbound_tier_judges_nothing() -> None:
    # no replies to read: every case is a SKIP, so a demo or self-test looping over every
    # tier never stores a verdict of it
    j = judge(trace(), case(), REGISTRY, "model-graded")
    assert j.verdict == "SKIP" and j.reasons[0].startswith("tier does not apply")
    tier = ModelGradedTier().bind(TASK, JUDGE, None)
    broken = judge(trace(), case(), REGISTRY, tier)
    assert broken.taxonomy == ["JUDGE_ERROR"] and "judging service" in broken.reasons[0]


def test_prompt_shows_the_conversation_and_is_cut_with_the_cut_recorded() -> None:
    t = trace(call("get_user", user_id="U101"))
    prompt = render_prompt(TASK, t, case(), REGISTRY)
    assert "get_user" in prompt.user and "do it" in prompt.user and prompt.cut is None
    long = Trace(
        case_id="c1",
        rounds=[],
        final_text="word " * 5000,
    )
    cut = render_prompt(TASK, long, case(), REGISTRY)
    assert cut.cut is not None and cut.cut["kept_chars"] == TASK.truncation.max_chars
    assert "characters of the conversation cut here" in cut.user
    j = _judge([_reply(True)], t=long)
    assert j.details["cut"] == cut.cut and any("cut" in w for w in j.warnings)


def test_a_trace_text_holding_template_syntax_is_not_expanded() -> None:
    t = Trace(case_id="c1", rounds=[], final_text="{{criteria}} {{instruction}}")
    prompt = render_prompt(TASK, t, case(), REGISTRY)
    assert "ASSISTANT: {{criteria}} {{instruction}}" in prompt.user


@given(st.text(max_size=300))
def test_any_reply_text_reads_without_raising(text: str) -> None:
    prompt = render_prompt(TASK, trace(), case())
    reading = read_reply(TASK, prompt, text)
    assert reading.valid == (reading.problem is None)


@given(st.booleans(), st.text(max_size=50))
def test_a_schema_valid_binary_reply_is_its_verdict(success: bool, why: str) -> None:
    prompt = render_prompt(TASK, trace(), case())
    reading = read_reply(TASK, prompt, _reply(success, why))
    assert reading.valid and reading.passed is success and reading.justification == why


@given(st.text(max_size=2000), st.integers(200, 1500), st.sampled_from(["head", "tail", "both"]))
def test_cut_text_keeps_its_budget_and_says_so(text: str, budget: int, keep: str) -> None:
    out, cut = cut_text(text, budget, keep)
    if len(text) <= budget:
        assert out == text and cut is None
    else:
        assert cut == {"original_chars": len(text), "kept_chars": budget, "keep": keep}
        assert f"{len(text) - budget} characters" in out
        if keep == "head":
            assert out.startswith(text[:budget])
        if keep == "tail":
            assert out.endswith(text[-budget:])


def test_each_view_shows_what_it_names() -> None:
    from rejudge.judge import render_transcript

    from rejudge.model import Round, UserTurn

    t = Trace(
        case_id="c1",
        rounds=[
            Round(index=0, text="Let me look.", calls=[call("get_order", order_id="W441")]),
            Round(index=1, text="Your order is on its way."),
        ],
        final_text="Your order is on its way.",
        user_turns=[
            UserTurn(before_round=0, position=0, text="Where is W441?"),
            UserTurn(before_round=2, position=1, text="Thanks!"),
        ],
    )
    c = case()
    assert render_transcript(t, c, "final_reply") == (
        "ASSISTANT (final reply): Your order is on its way."
    )
    calls = render_transcript(t, c, "calls")
    assert calls.startswith("ASSISTANT called get_order(") and "TOOL RESULT" in calls
    assert "Let me look." not in calls
    conversation = render_transcript(t, c, "conversation").splitlines()
    # the trace's own first user message opens it (not the case's instruction again), and the
    # user's last message stands after the last round
    assert conversation[0] == "USER: Where is W441?" and conversation[-1] == "USER: Thanks!"
    assert "USER: do it" not in conversation
    assert "ASSISTANT: Your order is on its way." in conversation
    assert render_transcript(Trace(case_id="c1"), c, "calls") == "(the assistant made no tool call)"


def test_a_graded_rubric_passes_at_its_threshold() -> None:
    schema = {
        "type": "object",
        "properties": {"score": {"type": "number"}, "justification": {"type": "string"}},
        "required": ["score"],
    }
    graded = TASK.model_copy(
        update={"name": "graded", "scale": "graded", "threshold": 0.7, "reply_schema": schema}
    )
    assert _judge(['{"score": 0.7}'], rubric=graded).verdict == "PASS"
    low = _judge(['{"score": 0.69, "justification": "partly"}'], rubric=graded)
    assert low.verdict == "FAIL" and low.partial_score == 0.69
    assert _judge(['{"score": "high"}'], rubric=graded).taxonomy == [JUDGE_OUTPUT_INVALID]
