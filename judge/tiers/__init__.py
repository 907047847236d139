"""Tiers by name: ``contract``, ``execution``, ``completion``, ``completion-contract``,
``golden`` (:mod:`judge.tiers.calls`), ``outcome``, ``bfcl-ast``, ``state`` and
``model-graded``, plus any registered later
(see :mod:`judge.tiers.base`: names are looked up in the registry, never imported)."""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "BUILTIN_TIERS": "rejudge.judge.tiers._base",
    "Tier": "rejudge.judge.tiers._base",
    "TierNotFoundError": "rejudge.judge.tiers._base",
    "TierResult": "rejudge.judge.tiers._base",
    "get_tier": "rejudge.judge.tiers._base",
    "register_tier": "rejudge.judge.tiers._base",
    "tier_names": "rejudge.judge.tiers._base",
    "BfclAstTier": "rejudge.judge.tiers._bfcl_ast",
    "BfclError": "rejudge.judge.tiers._bfcl_ast",
    "BfclFixes": "rejudge.judge.tiers._bfcl_ast",
    "BfclOutcome": "rejudge.judge.tiers._bfcl_ast",
    "FAITHFUL": "rejudge.judge.tiers._bfcl_ast",
    "FIXED": "rejudge.judge.tiers._bfcl_ast",
    "check_output": "rejudge.judge.tiers._bfcl_ast",
    "fixes_for": "rejudge.judge.tiers._bfcl_ast",
    "java_value": "rejudge.judge.tiers._bfcl_ast",
    "js_value": "rejudge.judge.tiers._bfcl_ast",
    "output_from_trace": "rejudge.judge.tiers._bfcl_ast",
    "standardize": "rejudge.judge.tiers._bfcl_ast",
    "COMPLETION": "rejudge.judge.tiers._calls",
    "COMPLETION_CONTRACT": "rejudge.judge.tiers._calls",
    "CONTRACT": "rejudge.judge.tiers._calls",
    "CallMatchingTier": "rejudge.judge.tiers._calls",
    "EXECUTION": "rejudge.judge.tiers._calls",
    "GOLDEN": "rejudge.judge.tiers._calls",
    "OUTPUT_MISSING": "rejudge.judge.tiers._calls",
    "missing_outputs": "rejudge.judge.tiers._calls",
    "ASSERTION_NOT_MET": "rejudge.judge.tiers._model_graded",
    "JUDGE_OUTPUT_INVALID": "rejudge.judge.tiers._model_graded",
    "JUDGE_SPLIT": "rejudge.judge.tiers._model_graded",
    "JudgeCall": "rejudge.judge.tiers._model_graded",
    "JudgeReply": "rejudge.judge.tiers._model_graded",
    "MODEL_GRADED": "rejudge.judge.tiers._model_graded",
    "MODEL_GRADED_VERSION": "rejudge.judge.tiers._model_graded",
    "ModelGradedTier": "rejudge.judge.tiers._model_graded",
    "RUBRIC_NOT_MET": "rejudge.judge.tiers._model_graded",
    "verdict_of": "rejudge.judge.tiers._model_graded",
    "CALL_CAP_EXCEEDED": "rejudge.judge.tiers._outcome",
    "FAILURE_TYPES": "rejudge.judge.tiers._outcome",
    "OUTCOME": "rejudge.judge.tiers._outcome",
    "OutcomeTier": "rejudge.judge.tiers._outcome",
    "as_int": "rejudge.judge.tiers._outcome",
    "numbers_in": "rejudge.judge.tiers._outcome",
    "REWARD_PARTS": "rejudge.judge.tiers._reward",
    "DEFAULT_REWARD_BASIS": "rejudge.judge.tiers._reward",
    "UNCHECKED_PARTS": "rejudge.judge.tiers._reward",
    "StateChecks": "rejudge.judge.tiers._reward",
    "state_checks": "rejudge.judge.tiers._reward",
    "reward_basis_of": "rejudge.judge.tiers._reward",
    "action_matches": "rejudge.judge.tiers._reward",
    "compare_args_of": "rejudge.judge.tiers._reward",
    "ANOMALY_OTHER_WORLD": "rejudge.judge.tiers._state",
    "NOTHING_TO_OBSERVE": "rejudge.judge.tiers._state",
    "STATE": "rejudge.judge.tiers._state",
    "STATE_WRONG": "rejudge.judge.tiers._state",
    "StateTier": "rejudge.judge.tiers._state",
    "WORLD_MISMATCH": "rejudge.judge.tiers._state",
    "reply_texts": "rejudge.judge.tiers._calls",
    "world_of": "rejudge.judge.tiers._state",
    "world_versions": "rejudge.judge.tiers._state",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
