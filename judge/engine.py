"""The judge: ``judge(trace, case, registry, tier, rules) -> Judgment``.

Pure: no I/O, no clock, no randomness; the same inputs give the same :class:`Judgment` (and the
same ``Judgment.hash``) on any machine. It never raises because of a trace: anything a tier cannot
evaluate is recorded (``RULE_ERROR`` for a rule, ``JUDGE_ERROR`` with the exception for a bug).
It does raise, with a message saying what to do, for a wrong *argument*: an unknown tier name or
a rule set whose settings do not validate.

Verdicts:

- ``SKIP`` when ``case.skip`` (whatever the trace holds);
- ``AGENT_ERROR`` when ``trace.status == "agent_error"`` (the harness got no normal result);
- otherwise ``PASS`` when the tier finds no cause and ``FAIL`` with every cause, ordered by the
  taxonomy's precedence (:mod:`judge.taxonomy`).

The partial score is a diagnostic weighted sum of the tier's components with the rule set's
weights (``contract``: tools/arguments/schema; ``execution``: plus observed/success). It never
decides the verdict. Anomaly flags mark results a person should look at.
"""

from __future__ import annotations

from typing import Any

from store.hashing import content_hash, hash_bytes
from store.schemas import Case, Judgment, RuleSet, ToolRegistry, Trace

from . import taxonomy as tx
from .context import build_context
from .rulesets import DEFAULT_RULE_SET, load_rule_set, settings_of
from .tiers import Tier, TierResult, get_tier

__all__ = ["ENGINE_VERSION", "judge", "ANOMALY_ZERO_SCORE_ALL_EXECUTED"]

#: bump when a change to the engine can change any judgment (it is part of the judgment key)
ENGINE_VERSION = "1.0.0"

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
    tier_obj = get_tier(tier) if isinstance(tier, str) else tier
    rule_set = rules if rules is not None else load_rule_set(DEFAULT_RULE_SET)
    settings_of(rule_set)  # validate early: a broken rule set is the caller's error
    keys = {
        "tier": tier_obj.name,
        "trace_hash": trace_hash or _safe_hash(trace, trace.hashable),
        "case_hash": case_hash or _safe_hash(case, lambda: case.model_dump(mode="json")),
        "registry_hash": registry_hash or registry.hash,
        "rule_set_hash": rule_set_hash or rule_set.hash,
        "engine_version": ENGINE_VERSION,
    }
    if case.skip:
        return Judgment(
            verdict="SKIP",
            reasons=[f"case skipped: {case.skip_reason or 'no reason given'}"],
            **keys,
        )
    if trace.status == "agent_error":
        err = trace.error
        why = f"{err.kind}: {err.message}" if err is not None else "agent error (no detail)"
        return Judgment(verdict="AGENT_ERROR", reasons=[why], **keys)
    try:
        ctx = build_context(trace, case, registry, rule_set, keys["registry_hash"])
        result = tier_obj.evaluate(ctx)
        return _assemble(result, tier_obj, ctx.settings, trace, case, keys)
    except Exception as exc:  # never raise on a trace: record the failure as a judgment
        return Judgment(
            verdict="FAIL",
            taxonomy=[tx.JUDGE_ERROR],
            reasons=[f"judge error: {type(exc).__name__}: {exc}"[:2000]],
            anomalies=[ANOMALY_JUDGE_ERROR],
            **keys,
        )


def _assemble(
    result: TierResult,
    tier: Tier,
    settings: Any,
    trace: Trace,
    case: Case,
    keys: dict[str, str],
) -> Judgment:
    codes = tx.order_codes(result.codes)
    weights = (
        settings.partial_weights.contract
        if tier.partial_family == "contract"
        else settings.partial_weights.execution
    )
    breakdown = {k: float(result.partial.get(k, 0.0)) for k in sorted(weights)}
    score = round(sum(weights[k] * breakdown[k] for k in weights), 6)
    anomalies = set(result.anomalies)
    calls = trace.calls
    if score == 0.0 and calls and all(c.ok is True for c in calls):
        anomalies.add(ANOMALY_ZERO_SCORE_ALL_EXECUTED)
    if tx.RULE_ERROR in codes:
        anomalies.add(ANOMALY_RULE_ERROR)
    warnings = list(result.warnings)
    if trace.case_id != case.id:
        anomalies.add(ANOMALY_CASE_MISMATCH)
        warnings.append(f"trace is for case {trace.case_id!r}, judged against {case.id!r}")
    details = dict(result.details)
    if codes:
        details["primary_cause"] = codes[0]
    return Judgment(
        verdict="FAIL" if codes else "PASS",
        taxonomy=codes,
        partial_score=score,
        partial_breakdown=breakdown,
        diff=result.diff,
        reasons=result.reasons,
        warnings=warnings,
        anomalies=sorted(anomalies),
        details=details,
        **keys,
    )
