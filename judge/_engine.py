"""The judge: ``judge(trace, case, registry, tier, rules) -> Judgment``.

Pure: no I/O, no clock, no randomness; the same inputs give the same :class:`Judgment` (and the
same ``Judgment.hash``) on any machine. It never raises because of a trace: anything a tier cannot
evaluate is recorded (``RULE_ERROR`` for a rule, ``JUDGE_ERROR`` with the exception for a bug).
It does raise, with a message saying what to do, for a wrong *argument*: an unknown tier name or
a rule set whose settings do not validate.

Verdicts:

- ``SKIP`` when ``case.skip`` (whatever the trace holds);
- ``AGENT_ERROR`` when ``trace.status == "agent_error"`` (the harness got no normal result);
- ``SKIP`` with ``tier does not apply`` when the tier does not judge such a case
  (``Tier.applies``: ``outcome`` outside FuncBenchGen, ``bfcl-ast`` outside BFCL, ``state``
  without a world or, under ``state_applies: observable``, where nothing is to observe; a tier
  with an ``inapplicable(case, registry, settings)`` method gives its own reason);
- ``SKIP`` with a ``not scorable`` reason when the tier matches calls against golden calls and
  the case has none without being negative (an ad-hoc case imported from cassettes): no call
  can be right or wrong, so a FAIL would only drag accuracy down;
- ``SKIP`` when the tier says so itself (``TierResult.verdict``: the model-graded tier's
  unusable judge reply; the state tier finding no cause on a τ² task whose reward also needs
  NL assertions, a part it leaves to another judge: a cause it found is still a FAIL);
- a trace whose episode hit its step limit (``step_limit``) is judged, with the cause
  ``EPISODE_UNFINISHED`` added: it can never PASS;
- otherwise ``PASS`` when the tier finds no cause and ``FAIL`` with every cause, ordered by the
  taxonomy's precedence (:mod:`judge.taxonomy`).

The partial score is a diagnostic weighted sum of the tier's components with the rule set's
weights (``contract``: tools/arguments/schema; ``execution``: plus observed/success). It never
decides the verdict. Anomaly flags mark results a person should look at.
"""

from __future__ import annotations

from typing import Any

from rejudge.model import (
    JUDGMENT_FORMAT_VERSION,
    Case,
    Judgment,
    RuleSet,
    ToolRegistry,
    Trace,
    content_hash,
    hash_bytes,
)

from . import _taxonomy as tx
from ._context import build_context
from ._rulesets import DEFAULT_RULE_SET, load_rule_set, settings_of
from .tiers import Tier, TierResult, get_tier

__all__ = [
    "ENGINE_VERSION",
    "judge",
    "judge_body",
    "ANOMALY_ZERO_SCORE_ALL_EXECUTED",
    "STEP_LIMIT_REASON",
    "TIER_DOES_NOT_APPLY",
    "tier_does_not_apply",
]

#: bump when a change to the engine can change any judgment (it is part of the judgment key)
ENGINE_VERSION = "1.3.0"
#: the reason of a case no golden call can score (see the module docstring)
NOT_SCORABLE_REASON = (
    "not scorable: the case has no golden call and is not negative (an ad-hoc case), "
    "so no call can be judged right or wrong"
)

#: the reason of a tier that does not apply to a case (``Tier.applies``): a SKIP, never a FAIL
TIER_DOES_NOT_APPLY = "tier does not apply"
#: the first reason of a trace that hit its step limit (status ``step_limit``)
STEP_LIMIT_REASON = (
    "the episode hit its step limit before the conversation ended, so the task was never "
    "completed (τ-bench rewards such an episode 0)"
)


def tier_does_not_apply(tier: Tier) -> str:
    where = getattr(tier, "applies_to", None)
    return f"{TIER_DOES_NOT_APPLY}: {tier.name} judges {where}" if where else TIER_DOES_NOT_APPLY


ANOMALY_ZERO_SCORE_ALL_EXECUTED = "zero_partial_score_all_calls_executed"
ANOMALY_JUDGE_ERROR = "judge_error"
ANOMALY_RULE_ERROR = "rule_error"
ANOMALY_CASE_MISMATCH = "trace_case_id_mismatch"


def _safe_hash(obj: Any, dump: Any) -> str:
    try:
        return content_hash(dump())
    except (ValueError, TypeError):
        # non-finite floats cannot be canonical JSON; hash pydantic's JSON instead (stable too)
        return hash_bytes(obj.model_dump_json().encode("utf-8"))


def judge(
    trace: Trace,
    case: Case,
    registry: ToolRegistry,
    tier: str | Tier,
    rules: RuleSet | None = None,
    *,
    trace_hash: str | None = None,
    case_hash: str | None = None,
    registry_hash: str | None = None,
    rule_set_hash: str | None = None,
) -> Judgment:
    """Judge one trace of one case under one tier and rule set.

    The ``*_hash`` keywords let a batch caller pass hashes it already has (from the store), to
    skip recomputing them; they must be the inputs' true content hashes.
    """
    fields, _plain = _judge_fields(
        trace, case, registry, tier, rules, trace_hash, case_hash, registry_hash, rule_set_hash
    )
    return Judgment(**fields)


def judge_body(
    trace: Trace,
    case: Case,
    registry: ToolRegistry,
    tier: str | Tier,
    rules: RuleSet | None = None,
    *,
    trace_hash: str | None = None,
    case_hash: str | None = None,
    registry_hash: str | None = None,
    rule_set_hash: str | None = None,
) -> dict[str, Any]:
    """``judge(...).model_dump(mode="json")``, the body a judgment is stored and hashed as.

    For a tier whose results are plain JSON by construction (``plain_json_results``: str keys;
    str, int, finite float, bool, None, list and dict values; the call-matching tiers) the body
    is assembled directly, without validating a :class:`Judgment` and dumping it again: the
    same dict, so the same canonical text, hash and key (a property test holds the two paths
    together). Any other tier goes through the model.
    """
    fields, plain = _judge_fields(
        trace, case, registry, tier, rules, trace_hash, case_hash, registry_hash, rule_set_hash
    )
    # the fields are every key of the body already, in one order for every outcome
    return fields if plain else Judgment(**fields).model_dump(mode="json")


def _judge_fields(
    trace: Trace,
    case: Case,
    registry: ToolRegistry,
    tier: str | Tier,
    rules: RuleSet | None,
    trace_hash: str | None,
    case_hash: str | None,
    registry_hash: str | None,
    rule_set_hash: str | None,
) -> tuple[dict[str, Any], bool]:
    """A judgment's fields, and whether they are plain JSON already (see :func:`judge_body`):
    every outcome but a tier's own result is (hashes, verdicts, reasons as text)."""
    tier_obj = get_tier(tier) if isinstance(tier, str) else tier
    rule_set = rules if rules is not None else load_rule_set(DEFAULT_RULE_SET)
    settings = settings_of(rule_set)  # validate early: a broken rule set is the caller's error
    # every field of the body, in the order the stored body has always had (defaults first,
    # then the inputs, the verdict last); the outcomes below overwrite values, never add keys
    keys: dict[str, Any] = {
        "format_version": JUDGMENT_FORMAT_VERSION,
        "taxonomy": [],
        "partial_score": None,
        "partial_breakdown": {},
        "diff": [],
        "reasons": [],
        "warnings": [],
        "anomalies": [],
        "details": {},
        "tier": tier_obj.name,
        "trace_hash": trace_hash or _safe_hash(trace, trace.hashable),
        "case_hash": case_hash or _safe_hash(case, lambda: case.model_dump(mode="json")),
        "registry_hash": registry_hash or registry.hash,
        "rule_set_hash": rule_set_hash or rule_set.hash,
        "engine_version": ENGINE_VERSION,
        "verdict": "FAIL",
    }
    judge_hash = getattr(tier_obj, "judge_hash", None)
    if judge_hash is not None:  # the model-graded tier: its rubric, judge and prompt
        keys["judge_hash"] = judge_hash
    if case.skip:
        keys["verdict"] = "SKIP"
        keys["reasons"] = [f"case skipped: {case.skip_reason or 'no reason given'}"]
        return keys, True
    if trace.status == "agent_error":
        err = trace.error
        why = f"{err.kind}: {err.message}" if err is not None else "agent error (no detail)"
        keys["verdict"] = "AGENT_ERROR"
        keys["reasons"] = [why]
        return keys, True
    inapplicable = getattr(tier_obj, "inapplicable", None)
    if inapplicable is not None:
        # a tier whose applicability depends on the rule set says why it does not apply
        why_not: str | None = inapplicable(case, registry, settings)
    else:
        why_not = None if tier_obj.applies(case, registry) else tier_does_not_apply(tier_obj)
    if why_not is not None:
        keys["verdict"] = "SKIP"
        keys["reasons"] = [why_not]
        return keys, True
    if (
        getattr(tier_obj, "needs_golden_calls", False) is True
        and not case.negative
        and not case.golden.calls
    ):
        keys["verdict"] = "SKIP"
        keys["reasons"] = [NOT_SCORABLE_REASON]
        return keys, True
    require = getattr(tier_obj, "require", None)
    if require is not None:
        # outside the catch below: inputs the tier cannot have as keyed (a world of another
        # version) are the caller's error, never a verdict stored under that key
        require(registry)
    try:
        ctx = build_context(trace, case, registry, rule_set, keys["registry_hash"], settings)
        result = tier_obj.evaluate(ctx)
        if trace.status == "step_limit":
            result.codes.append(tx.EPISODE_UNFINISHED)
            result.reasons.insert(0, STEP_LIMIT_REASON)
        _assemble(keys, result, tier_obj, settings, trace, case)
        return keys, getattr(tier_obj, "plain_json_results", False) is True
    except Exception as exc:  # never raise on a trace: record the failure as a judgment
        keys["verdict"] = "FAIL"
        keys["taxonomy"] = [tx.JUDGE_ERROR]
        keys["reasons"] = [f"judge error: {type(exc).__name__}: {exc}"[:2000]]
        keys["anomalies"] = [ANOMALY_JUDGE_ERROR]
        return keys, True


# (partial family, id(settings)) -> (settings, the weights' keys sorted, their (key, weight)
# pairs in the rule set's order): the same for every judgment under one tier and rule set
_WEIGHTS: dict[tuple[str, int], tuple[Any, tuple[str, ...], tuple[tuple[str, float], ...]]] = {}


def _weights_of(
    settings: Any, family: str
) -> tuple[tuple[str, ...], tuple[tuple[str, float], ...]]:
    hit = _WEIGHTS.get((family, id(settings)))
    if hit is not None and hit[0] is settings:  # held, so its id cannot be reused while cached
        return hit[1], hit[2]
    weights = (
        settings.partial_weights.contract
        if family == "contract"
        else settings.partial_weights.execution
    )
    if len(_WEIGHTS) > 256:
        _WEIGHTS.clear()
    entry = _WEIGHTS[(family, id(settings))] = (
        settings,
        tuple(sorted(weights)),
        tuple(weights.items()),
    )
    return entry[1], entry[2]


def _assemble(
    out: dict[str, Any],
    result: TierResult,
    tier: Tier,
    settings: Any,
    trace: Trace,
    case: Case,
) -> None:
    """Set a tier result's judgment fields in ``out``."""
    codes = tx.order_codes(result.codes)
    ordered, pairs = _weights_of(settings, tier.partial_family)
    partial = result.partial
    breakdown = {k: float(partial.get(k, 0.0)) for k in ordered}
    # float(): the model's field is a float, so an empty sum (int 0) is stored as 0.0; sum()
    # over the rule set's order, as ever (float addition depends on the order)
    score = float(round(sum([w * breakdown[k] for k, w in pairs]), 6))
    extra: list[str] = []
    # a zero score although every call executed says a call-scoring rule may be wrong; a
    # tier whose score measures no call (a model judge's) says nothing of the kind
    if score == 0.0 and getattr(tier, "scores_calls", True) is not False:
        calls = trace.calls
        if calls and all(c.ok is True for c in calls):
            extra.append(ANOMALY_ZERO_SCORE_ALL_EXECUTED)
    if codes and tx.RULE_ERROR in codes:
        extra.append(ANOMALY_RULE_ERROR)
    warnings = list(result.warnings)
    if trace.case_id != case.id:
        extra.append(ANOMALY_CASE_MISMATCH)
        warnings.append(f"trace is for case {trace.case_id!r}, judged against {case.id!r}")
    anomalies = result.anomalies
    details = dict(result.details)
    if codes:
        details["primary_cause"] = codes[0]
    out["verdict"] = "FAIL" if codes else "PASS"
    out["partial_score"] = score
    out["partial_breakdown"] = breakdown
    if result.verdict == "SKIP":  # the tier's own SKIP (its codes say why): nothing scored
        out["verdict"] = "SKIP"
        out["partial_score"] = None
        out["partial_breakdown"] = {}
        extra = [a for a in extra if a != ANOMALY_ZERO_SCORE_ALL_EXECUTED]
    out["taxonomy"] = codes
    out["diff"] = result.diff
    out["reasons"] = result.reasons
    out["warnings"] = warnings
    out["anomalies"] = sorted(set(anomalies).union(extra)) if anomalies or extra else []
    out["details"] = details
