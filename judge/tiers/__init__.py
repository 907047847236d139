"""Tiers by name: ``contract``, ``execution``, ``completion``, ``completion-contract``,
``golden`` (:mod:`judge.tiers.calls`), ``outcome``, ``bfcl-ast``, ``state`` and
``model-graded``, plus any registered later
(see :mod:`judge.tiers.base`: names are looked up in the registry, never imported)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use)
    from rejudge.judge.tiers._base import BUILTIN_TIERS as BUILTIN_TIERS
    from rejudge.judge.tiers._base import Tier as Tier
    from rejudge.judge.tiers._base import TierNotFoundError as TierNotFoundError
    from rejudge.judge.tiers._base import TierResult as TierResult
    from rejudge.judge.tiers._base import get_tier as get_tier
    from rejudge.judge.tiers._base import register_tier as register_tier
    from rejudge.judge.tiers._base import tier_names as tier_names
    from rejudge.judge.tiers._bfcl_ast import FAITHFUL as FAITHFUL
    from rejudge.judge.tiers._bfcl_ast import FIXED as FIXED
    from rejudge.judge.tiers._bfcl_ast import BfclAstTier as BfclAstTier
    from rejudge.judge.tiers._bfcl_ast import BfclError as BfclError
    from rejudge.judge.tiers._bfcl_ast import BfclFixes as BfclFixes
    from rejudge.judge.tiers._bfcl_ast import BfclOutcome as BfclOutcome
    from rejudge.judge.tiers._bfcl_ast import check_output as check_output
    from rejudge.judge.tiers._bfcl_ast import fixes_for as fixes_for
    from rejudge.judge.tiers._bfcl_ast import java_value as java_value
    from rejudge.judge.tiers._bfcl_ast import js_value as js_value
    from rejudge.judge.tiers._bfcl_ast import output_from_trace as output_from_trace
    from rejudge.judge.tiers._bfcl_ast import standardize as standardize
    from rejudge.judge.tiers._calls import COMPLETION as COMPLETION
    from rejudge.judge.tiers._calls import COMPLETION_CONTRACT as COMPLETION_CONTRACT
    from rejudge.judge.tiers._calls import CONTRACT as CONTRACT
    from rejudge.judge.tiers._calls import EXECUTION as EXECUTION
    from rejudge.judge.tiers._calls import GOLDEN as GOLDEN
    from rejudge.judge.tiers._calls import OUTPUT_MISSING as OUTPUT_MISSING
    from rejudge.judge.tiers._calls import CallMatchingTier as CallMatchingTier
    from rejudge.judge.tiers._calls import missing_outputs as missing_outputs
    from rejudge.judge.tiers._calls import reply_texts as reply_texts
    from rejudge.judge.tiers._model_graded import ASSERTION_NOT_MET as ASSERTION_NOT_MET
    from rejudge.judge.tiers._model_graded import JUDGE_OUTPUT_INVALID as JUDGE_OUTPUT_INVALID
    from rejudge.judge.tiers._model_graded import JUDGE_SPLIT as JUDGE_SPLIT
    from rejudge.judge.tiers._model_graded import MODEL_GRADED as MODEL_GRADED
    from rejudge.judge.tiers._model_graded import MODEL_GRADED_VERSION as MODEL_GRADED_VERSION
    from rejudge.judge.tiers._model_graded import RUBRIC_NOT_MET as RUBRIC_NOT_MET
    from rejudge.judge.tiers._model_graded import JudgeCall as JudgeCall
    from rejudge.judge.tiers._model_graded import JudgeReply as JudgeReply
    from rejudge.judge.tiers._model_graded import ModelGradedTier as ModelGradedTier
    from rejudge.judge.tiers._model_graded import verdict_of as verdict_of
    from rejudge.judge.tiers._outcome import CALL_CAP_EXCEEDED as CALL_CAP_EXCEEDED
    from rejudge.judge.tiers._outcome import FAILURE_TYPES as FAILURE_TYPES
    from rejudge.judge.tiers._outcome import OUTCOME as OUTCOME
    from rejudge.judge.tiers._outcome import OutcomeTier as OutcomeTier
    from rejudge.judge.tiers._outcome import as_int as as_int
    from rejudge.judge.tiers._outcome import numbers_in as numbers_in
    from rejudge.judge.tiers._reward import DEFAULT_REWARD_BASIS as DEFAULT_REWARD_BASIS
    from rejudge.judge.tiers._reward import REWARD_PARTS as REWARD_PARTS
    from rejudge.judge.tiers._reward import UNCHECKED_PARTS as UNCHECKED_PARTS
    from rejudge.judge.tiers._reward import StateChecks as StateChecks
    from rejudge.judge.tiers._reward import action_matches as action_matches
    from rejudge.judge.tiers._reward import compare_args_of as compare_args_of
    from rejudge.judge.tiers._reward import reward_basis_of as reward_basis_of
    from rejudge.judge.tiers._reward import state_checks as state_checks
    from rejudge.judge.tiers._state import ANOMALY_OTHER_WORLD as ANOMALY_OTHER_WORLD
    from rejudge.judge.tiers._state import NOTHING_TO_OBSERVE as NOTHING_TO_OBSERVE
    from rejudge.judge.tiers._state import STATE as STATE
    from rejudge.judge.tiers._state import STATE_WRONG as STATE_WRONG
    from rejudge.judge.tiers._state import WORLD_MISMATCH as WORLD_MISMATCH
    from rejudge.judge.tiers._state import StateTier as StateTier
    from rejudge.judge.tiers._state import world_of as world_of
    from rejudge.judge.tiers._state import world_versions as world_versions


__getattr__, __dir__ = lazy_exports(__name__)
