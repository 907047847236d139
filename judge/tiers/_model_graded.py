"""The ``model-graded`` tier: a model judges the trace against a rubric.

The tier is pure, like every tier: it never calls a model. The services layer renders the
prompt (:func:`judge.rubric_prompt.render_prompt`), gets the judge's replies (replayed from the
judge's cassettes, or recorded through the recorder) and hands them over by binding them to the
tier (:meth:`ModelGradedTier.bind`); the tier reads them. The registered, unbound tier names the
tier for listings and lookups; unbound it applies to no case (there is no reply to read).

Verdicts, over the k samples' replies (``--judge-samples``):

- each reply is read against the rubric's schema; one the schema rejects is *invalid*;
- no valid reply: ``SKIP`` with the cause ``JUDGE_OUTPUT_INVALID`` and every raw reply kept in
  the details: an unusable judge reply says nothing about the agent, so it is never a FAIL and
  never in the accuracy's denominator;
- otherwise the majority of the valid replies: ``PASS``, or ``FAIL`` with ``RUBRIC_NOT_MET``
  (``ASSERTION_NOT_MET`` for a per-assertion rubric); a tie is ``SKIP`` with ``JUDGE_SPLIT``;
- samples that disagree (or some invalid) are reported in the details and as a warning.

The score (the reply's score, the share of assertions met, 1/0 for a binary rubric; averaged
over valid samples) is the partial score: diagnostic, never the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from rejudge.model import Case, JudgeModel, Rubric, ToolRegistry, model_graded_key

from .. import _taxonomy as tx
from .._rubric_prompt import RenderedPrompt, ReplyReading, read_reply
from ._base import TierResult, register_tier

__all__ = [
    "MODEL_GRADED",
    "MODEL_GRADED_VERSION",
    "JUDGE_OUTPUT_INVALID",
    "JUDGE_SPLIT",
    "RUBRIC_NOT_MET",
    "ASSERTION_NOT_MET",
    "JudgeReply",
    "JudgeCall",
    "ModelGradedTier",
    "verdict_of",
]

MODEL_GRADED = "model-graded"
RUBRIC_NOT_MET = "RUBRIC_NOT_MET"
ASSERTION_NOT_MET = "ASSERTION_NOT_MET"
JUDGE_OUTPUT_INVALID = "JUDGE_OUTPUT_INVALID"
JUDGE_SPLIT = "JUDGE_SPLIT"
tx.register_code(ASSERTION_NOT_MET, 185, "(model-graded) a case's NL assertion was judged not met")
tx.register_code(RUBRIC_NOT_MET, 186, "(model-graded) the judge found the rubric not met")
tx.register_code(JUDGE_SPLIT, 980, "(model-graded) the judge's samples split evenly (a SKIP)")
tx.register_code(
    JUDGE_OUTPUT_INVALID, 985, "(model-graded) no judge reply the rubric's schema accepts (a SKIP)"
)

#: the tier's own version, part of every model-graded judgment's key (through its judge hash,
#: :func:`rejudge.model.model_graded_key`) and recorded in its details (``judge.tier_version``):
#: bump it when a change to this tier or to what the engine makes of its result can change a
#: model-graded judgment, so unchanged inputs are judged again rather than looked up. 1: the
#: first; 2: a judge FAIL no longer carries the rule anomaly
#: ``zero_partial_score_all_calls_executed``.
MODEL_GRADED_VERSION = 2

#: the longest raw reply kept in a judgment (a reply is capped by max_tokens anyway)
_RAW_CHARS = 4000


@dataclass(frozen=True)
class JudgeReply:
    """One sample's reply as the services layer hands it over: the text the judge sent (None
    when it sent none) and the cassette it was recorded in (relative to the cassette root)."""

    sample: int
    text: str | None
    cassette: str | None = None


@dataclass(frozen=True)
class JudgeCall:
    """What the judge was asked for one trace and what it answered."""

    prompt: RenderedPrompt
    replies: tuple[JudgeReply, ...]


@dataclass(frozen=True)
class ModelGradedTier:
    name: str = MODEL_GRADED
    description: str = (
        "a model judges the trace against a rubric; every judge exchange is a recorded "
        "cassette, replayed offline"
    )
    partial_family: str = "contract"
    uses_registry_index: ClassVar[bool] = False
    # the score is the judge's, not a measure of the calls: no call-scoring anomaly applies
    scores_calls: ClassVar[bool] = False
    applies_to: ClassVar[str] = "cases the rubric has inputs for (NL assertions, outputs, a world)"
    rubric: Rubric | None = None
    judge: JudgeModel | None = None
    call: JudgeCall | None = None
    _hash: str | None = field(default=None, compare=False)

    def bind(self, rubric: Rubric, judge: JudgeModel, call: JudgeCall | None) -> ModelGradedTier:
        """This tier for one trace: its rubric, judge and (once fetched) the judge's replies."""
        prompt_hash = call.prompt.hash if call is not None else ""
        return replace(
            self,
            rubric=rubric,
            judge=judge,
            call=call,
            _hash=model_graded_key(rubric.hash, judge.hash, prompt_hash, MODEL_GRADED_VERSION),
        )

    def with_replies(self, replies: tuple[JudgeReply, ...]) -> ModelGradedTier:
        """This bound tier with the judge's replies to its prompt: the key stays, it names the
        rubric, judge and prompt, never the replies (no second hashing per trace)."""
        if self.call is None:
            raise RuntimeError("bind the tier to a prompt before handing it replies")
        return replace(self, call=JudgeCall(self.call.prompt, replies))

    @property
    def judge_hash(self) -> str | None:
        """What this tier adds to the judgment key (None unbound)."""
        return self._hash

    def applies(self, case: Case, registry: ToolRegistry) -> bool:
        rubric = self.rubric
        if rubric is None:
            # unbound, it has no judge replies to read: it judges nothing (a listing of every
            # tier, a demo judging each applicable tier, a suite self-test pass it over)
            return False
        if rubric.inputs == "nl_assertions" and not case.nl_assertions:
            return False
        if rubric.inputs == "required_outputs" and not case.required_outputs:
            return False
        return not (rubric.view == "state_diff" and registry.world is None)

    def evaluate(self, ctx: Any) -> TierResult:
        rubric, judge, call = self.rubric, self.judge, self.call
        if rubric is None or judge is None or call is None:
            raise RuntimeError(
                "the model-graded tier judges the replies the judging service fetched for it "
                "(judge the run through the services layer, which binds them)"
            )
        readings = [(r, read_reply(rubric, call.prompt, r.text)) for r in call.replies]
        return verdict_of(rubric, judge, call, readings, ctx.case)


def _sample_row(reply: JudgeReply, reading: ReplyReading) -> dict[str, Any]:
    row: dict[str, Any] = {
        "sample": reply.sample,
        "verdict": "INVALID" if not reading.valid else ("PASS" if reading.passed else "FAIL"),
        "raw": (reply.text or "")[:_RAW_CHARS],
        "cassette": reply.cassette,
    }
    if reading.problem:
        row["problem"] = reading.problem
    if reading.justification:
        row["justification"] = reading.justification
    if reading.score is not None:
        row["score"] = reading.score
    if reading.assertions:
        row["assertions"] = reading.assertions
    return row


def verdict_of(
    rubric: Rubric,
    judge: JudgeModel,
    call: JudgeCall,
    readings: list[tuple[JudgeReply, ReplyReading]],
    case: Case,
) -> TierResult:
    """The tier's result from the samples' readings (see the module docstring)."""
    samples = [_sample_row(reply, reading) for reply, reading in readings]
    valid = [reading for _reply, reading in readings if reading.valid]
    passes = sum(1 for r in valid if r.passed)
    fails = len(valid) - passes
    details: dict[str, Any] = {
        "judge": {
            "rubric": rubric.ref,
            "rubric_hash": rubric.hash,
            "provider": judge.provider,
            "model": judge.model,
            # everything else that shapes a reply: a flip under other params names them
            "params": judge.model_dump(mode="json", exclude={"provider", "model"}),
            "tier_version": MODEL_GRADED_VERSION,
        },
        "prompt_hash": call.prompt.hash,
        "samples": samples,
        "votes": {"PASS": passes, "FAIL": fails, "INVALID": len(readings) - len(valid)},
    }
    if call.prompt.cut is not None:
        details["cut"] = call.prompt.cut
    warnings: list[str] = []
    if call.prompt.cut is not None:
        cut = call.prompt.cut
        warnings.append(
            f"the transcript was cut to {cut['kept_chars']} of {cut['original_chars']} "
            f"characters (kept: {cut['keep']}) for the judge"
        )
    if len({s["verdict"] for s in samples}) > 1:
        details["disagreement"] = True
        warnings.append(
            f"the judge's {len(samples)} samples disagree: {passes} PASS, {fails} FAIL, "
            f"{len(readings) - len(valid)} invalid"
        )
    if not valid:
        problems = sorted({s.get("problem", "") for s in samples})
        return TierResult(
            codes=[JUDGE_OUTPUT_INVALID],
            reasons=[f"judge output invalid ({judge.model}): {'; '.join(problems)}"],
            warnings=warnings,
            details=details,
            verdict="SKIP",
        )
    score = round(sum(r.score or 0.0 for r in valid) / len(valid), 6)
    details["score"] = score
    # the representative reading: the first valid one that voted with the majority
    majority = passes > fails
    rep = next(r for r in valid if r.passed == majority) if passes != fails else valid[0]
    if rep.justification:
        details["justification"] = rep.justification
    reasons: list[str] = []
    codes: list[str] = []
    if rubric.inputs == "nl_assertions":
        assertions = [
            {**a, "assertion": text}
            for a, text in zip(rep.assertions, case.nl_assertions, strict=False)
        ]
        details["assertions"] = assertions
        for a in assertions:
            if not a["met"]:
                reasons.append(
                    f"assertion {a['index']} not met: {a['assertion']}"
                    + (f" ({a['justification']})" if a.get("justification") else "")
                )
        if not majority and passes != fails:
            codes.append(ASSERTION_NOT_MET)
    elif not majority and passes != fails:
        codes.append(RUBRIC_NOT_MET)
        reasons.append(
            f"{judge.model} under {rubric.ref}: not met"
            + (f" ({rep.justification})" if rep.justification else "")
        )
    elif rep.justification:
        reasons.append(f"{judge.model} under {rubric.ref}: met ({rep.justification})")
    partial = {"tools": score, "arguments": score, "schema": score}
    if passes == fails:
        return TierResult(
            codes=[JUDGE_SPLIT],
            reasons=[f"the judge's valid samples split {passes}-{fails}: no majority", *reasons],
            warnings=warnings,
            details=details,
            verdict="SKIP",
        )
    return TierResult(
        codes=codes, reasons=reasons, warnings=warnings, details=details, partial=partial
    )


register_tier(ModelGradedTier())
