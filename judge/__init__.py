"""The judge: pure judging, tiers, rule sets, reports, comparisons, baselines, calibration
statistics and the typed results of the judge's use cases.

The package's public names, imported lazily (``import judge`` loads nothing else; worker
processes and the CLI import only what they use)::

    from rejudge.judge import judge, load_rule_set
    judgment = judge(trace, case, registry, "golden", load_rule_set("standard@2"))

Nothing here reads or writes the store: judging a stored run, re-judging, comparing stored
evaluations and locking baselines are :mod:`rejudge.services`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use)
    from rejudge.judge._agreement import external_pass_hat_k as external_pass_hat_k
    from rejudge.judge._agreement import tier_agreement as tier_agreement
    from rejudge.judge._baseline import BaselineMismatchError as BaselineMismatchError
    from rejudge.judge._baseline import check_baseline as check_baseline
    from rejudge.judge._baseline import judge_changes as judge_changes
    from rejudge.judge._baseline import lock_baseline as lock_baseline
    from rejudge.judge._baseline import report_hash as report_hash
    from rejudge.judge._baseline import verify_baseline as verify_baseline
    from rejudge.judge._batch import BatchJudge as BatchJudge
    from rejudge.judge._batch import ChunkPlan as ChunkPlan
    from rejudge.judge._batch import Judged as Judged
    from rejudge.judge._batch import JudgeRow as JudgeRow
    from rejudge.judge._batch import KeyMaker as KeyMaker
    from rejudge.judge._batch import TraceRowLike as TraceRowLike
    from rejudge.judge._batch import decode_trace as decode_trace
    from rejudge.judge._batch import long_lived_frozen as long_lived_frozen
    from rejudge.judge._calibration import REVIEW_CSV_COLUMNS as REVIEW_CSV_COLUMNS
    from rejudge.judge._calibration import REVIEW_LABELS as REVIEW_LABELS
    from rejudge.judge._calibration import CsvReview as CsvReview
    from rejudge.judge._calibration import EvaluationTotals as EvaluationTotals
    from rejudge.judge._calibration import Review as Review
    from rejudge.judge._calibration import ReviewImportError as ReviewImportError
    from rejudge.judge._calibration import ReviewRequiredError as ReviewRequiredError
    from rejudge.judge._calibration import agreement as agreement
    from rejudge.judge._calibration import calibration_figures as calibration_figures
    from rejudge.judge._calibration import gaps_from as gaps_from
    from rejudge.judge._calibration import item_label as item_label
    from rejudge.judge._calibration import latest_labels as latest_labels
    from rejudge.judge._calibration import parse_review_csv as parse_review_csv
    from rejudge.judge._calibration import resolve_reviews as resolve_reviews
    from rejudge.judge._calibration_figures import CalibrationFigures as CalibrationFigures
    from rejudge.judge._calibration_figures import CalibrationSummary as CalibrationSummary
    from rejudge.judge._calibration_figures import Coverage as Coverage
    from rejudge.judge._calibration_figures import FlaggedLabel as FlaggedLabel
    from rejudge.judge._calibration_figures import Resolution as Resolution
    from rejudge.judge._calibration_figures import ReviewerAgreement as ReviewerAgreement
    from rejudge.judge._calibration_figures import ReviewerPair as ReviewerPair
    from rejudge.judge._ci import CiCase as CiCase
    from rejudge.judge._ci import CiResults as CiResults
    from rejudge.judge._ci import ci_results as ci_results
    from rejudge.judge._ci import github_annotations as github_annotations
    from rejudge.judge._ci import junit_xml as junit_xml
    from rejudge.judge._ci import step_summary as step_summary
    from rejudge.judge._compare import ALPHA as ALPHA
    from rejudge.judge._compare import CAUSES as CAUSES
    from rejudge.judge._compare import compare as compare
    from rejudge.judge._compare import compare_pairing as compare_pairing
    from rejudge.judge._compare import compare_rows as compare_rows
    from rejudge.judge._compare import comparison_kind as comparison_kind
    from rejudge.judge._compare import count_by_cause as count_by_cause
    from rejudge.judge._compare import mcnemar_exact as mcnemar_exact
    from rejudge.judge._compare import plain_verdict as plain_verdict
    from rejudge.judge._compare import select_flips as select_flips
    from rejudge.judge._context import ActualCall as ActualCall
    from rejudge.judge._context import JudgeContext as JudgeContext
    from rejudge.judge._context import ParamCheck as ParamCheck
    from rejudge.judge._context import RegistryIndex as RegistryIndex
    from rejudge.judge._context import Slot as Slot
    from rejudge.judge._context import build_context as build_context
    from rejudge.judge._context import registry_index as registry_index
    from rejudge.judge._context import safe_value as safe_value
    from rejudge.judge._engine import (
        ANOMALY_ZERO_SCORE_ALL_EXECUTED as ANOMALY_ZERO_SCORE_ALL_EXECUTED,
    )
    from rejudge.judge._engine import ENGINE_VERSION as ENGINE_VERSION
    from rejudge.judge._engine import STEP_LIMIT_REASON as STEP_LIMIT_REASON
    from rejudge.judge._engine import TIER_DOES_NOT_APPLY as TIER_DOES_NOT_APPLY
    from rejudge.judge._engine import judge as judge
    from rejudge.judge._engine import judge_body as judge_body
    from rejudge.judge._engine import tier_does_not_apply as tier_does_not_apply
    from rejudge.judge._exports import EVALUATION_EXPORT_COLUMNS as EVALUATION_EXPORT_COLUMNS
    from rejudge.judge._exports import RUN_EXPORT_COLUMNS as RUN_EXPORT_COLUMNS
    from rejudge.judge._fasterrors import compile_errors as compile_errors
    from rejudge.judge._fastschema import compile_fast as compile_fast
    from rejudge.judge._judge_calibration import AssertionReference as AssertionReference
    from rejudge.judge._judge_calibration import CalibrationReference as CalibrationReference
    from rejudge.judge._judge_calibration import assertion_table as assertion_table
    from rejudge.judge._judge_calibration import judge_calibration as judge_calibration
    from rejudge.judge._judge_calibration import merge_assertions as merge_assertions
    from rejudge.judge._judge_calibration import merge_table as merge_table
    from rejudge.judge._judge_calibration import review_reference as review_reference
    from rejudge.judge._judge_calibration import verdict_table as verdict_table
    from rejudge.judge._matchers import BUILTIN_RULES as BUILTIN_RULES
    from rejudge.judge._matchers import OK as OK
    from rejudge.judge._matchers import RULE_ERROR as RULE_ERROR
    from rejudge.judge._matchers import WRONG_FORMAT as WRONG_FORMAT
    from rejudge.judge._matchers import WRONG_VALUE as WRONG_VALUE
    from rejudge.judge._matchers import Matcher as Matcher
    from rejudge.judge._matchers import MatchOptions as MatchOptions
    from rejudge.judge._matchers import MatchResult as MatchResult
    from rejudge.judge._matchers import get_matcher as get_matcher
    from rejudge.judge._matchers import is_empty as is_empty
    from rejudge.judge._matchers import match_value as match_value
    from rejudge.judge._matchers import matcher_names as matcher_names
    from rejudge.judge._matchers import register_matcher as register_matcher
    from rejudge.judge._matchers import values_equal as values_equal
    from rejudge.judge._pairing import FlipSide as FlipSide
    from rejudge.judge._pairing import Pairing as Pairing
    from rejudge.judge._pairing import flip_between as flip_between
    from rejudge.judge._pairing import flip_of as flip_of
    from rejudge.judge._pairing import pair_rows as pair_rows
    from rejudge.judge._report import ReportBuilder as ReportBuilder
    from rejudge.judge._report import build_report as build_report
    from rejudge.judge._report import pass_hat_k as pass_hat_k
    from rejudge.judge._report import pass_hat_k_all as pass_hat_k_all
    from rejudge.judge._report import row_tools as row_tools
    from rejudge.judge._report import verdict_summary as verdict_summary
    from rejudge.judge._review_queue import QueueItem as QueueItem
    from rejudge.judge._review_queue import build_queue as build_queue
    from rejudge.judge._review_queue import queue_csv as queue_csv
    from rejudge.judge._review_queue import queue_items as queue_items
    from rejudge.judge._review_queue import sample_positions as sample_positions
    from rejudge.judge._rubric_prompt import RenderedPrompt as RenderedPrompt
    from rejudge.judge._rubric_prompt import ReplyReading as ReplyReading
    from rejudge.judge._rubric_prompt import cut_text as cut_text
    from rejudge.judge._rubric_prompt import read_reply as read_reply
    from rejudge.judge._rubric_prompt import render_prompt as render_prompt
    from rejudge.judge._rubric_prompt import render_transcript as render_transcript
    from rejudge.judge._rubrics import DEFAULT_RUBRIC as DEFAULT_RUBRIC
    from rejudge.judge._rubrics import NL_ASSERTIONS_RUBRIC as NL_ASSERTIONS_RUBRIC
    from rejudge.judge._rubrics import RUBRICS_DIR as RUBRICS_DIR
    from rejudge.judge._rubrics import TEMPLATE_VARIABLES as TEMPLATE_VARIABLES
    from rejudge.judge._rubrics import RubricError as RubricError
    from rejudge.judge._rubrics import builtin_rubric_refs as builtin_rubric_refs
    from rejudge.judge._rubrics import builtin_rubrics as builtin_rubrics
    from rejudge.judge._rubrics import check_rubric as check_rubric
    from rejudge.judge._rubrics import load_rubric as load_rubric
    from rejudge.judge._rubrics import rubric_from_text as rubric_from_text
    from rejudge.judge._rubrics import template_variables as template_variables
    from rejudge.judge._rule_impact import SETTING_CODES as SETTING_CODES
    from rejudge.judge._rule_impact import TIER_APPLIES as TIER_APPLIES
    from rejudge.judge._rule_impact import likely_settings as likely_settings
    from rejudge.judge._rulesets import BUILTIN_DIR as BUILTIN_DIR
    from rejudge.judge._rulesets import DEFAULT_RULE_SET as DEFAULT_RULE_SET
    from rejudge.judge._rulesets import EXTERNAL_RULE_SETS as EXTERNAL_RULE_SETS
    from rejudge.judge._rulesets import MatcherAlias as MatcherAlias
    from rejudge.judge._rulesets import PartialWeights as PartialWeights
    from rejudge.judge._rulesets import RuleSetError as RuleSetError
    from rejudge.judge._rulesets import RuleSettings as RuleSettings
    from rejudge.judge._rulesets import StringNormalization as StringNormalization
    from rejudge.judge._rulesets import Tolerance as Tolerance
    from rejudge.judge._rulesets import builtin_refs as builtin_refs
    from rejudge.judge._rulesets import builtin_rule_sets as builtin_rule_sets
    from rejudge.judge._rulesets import diff_rule_sets as diff_rule_sets
    from rejudge.judge._rulesets import load_rule_set as load_rule_set
    from rejudge.judge._rulesets import matching_rule_set as matching_rule_set
    from rejudge.judge._rulesets import parse_ref as parse_ref
    from rejudge.judge._rulesets import rule_set_from_dict as rule_set_from_dict
    from rejudge.judge._rulesets import settings_of as settings_of
    from rejudge.judge._taxonomy import ARGUMENTS_UNPARSABLE as ARGUMENTS_UNPARSABLE
    from rejudge.judge._taxonomy import CALL_WHEN_NONE_EXPECTED as CALL_WHEN_NONE_EXPECTED
    from rejudge.judge._taxonomy import CODES as CODES
    from rejudge.judge._taxonomy import EPISODE_UNFINISHED as EPISODE_UNFINISHED
    from rejudge.judge._taxonomy import EXECUTION_FAILED as EXECUTION_FAILED
    from rejudge.judge._taxonomy import FUNCTION_NOT_FOUND as FUNCTION_NOT_FOUND
    from rejudge.judge._taxonomy import INCORRECT_VALUE as INCORRECT_VALUE
    from rejudge.judge._taxonomy import JUDGE_ERROR as JUDGE_ERROR
    from rejudge.judge._taxonomy import ORDER_WRONG as ORDER_WRONG
    from rejudge.judge._taxonomy import OUTCOME_WRONG as OUTCOME_WRONG
    from rejudge.judge._taxonomy import PARAM_HALLUCINATED_ID as PARAM_HALLUCINATED_ID
    from rejudge.judge._taxonomy import PARAM_MISSING as PARAM_MISSING
    from rejudge.judge._taxonomy import PARAM_UNEXPECTED as PARAM_UNEXPECTED
    from rejudge.judge._taxonomy import PARAM_WRONG_FORMAT as PARAM_WRONG_FORMAT
    from rejudge.judge._taxonomy import PARAM_WRONG_VALUE as PARAM_WRONG_VALUE
    from rejudge.judge._taxonomy import SCHEMA_INVALID as SCHEMA_INVALID
    from rejudge.judge._taxonomy import TOOL_MISSING as TOOL_MISSING
    from rejudge.judge._taxonomy import TOOL_UNEXPECTED as TOOL_UNEXPECTED
    from rejudge.judge._taxonomy import TOOL_WRONG as TOOL_WRONG
    from rejudge.judge._taxonomy import UNKNOWN_VALUE as UNKNOWN_VALUE
    from rejudge.judge._taxonomy import WRONG_ARGUMENT_COUNT as WRONG_ARGUMENT_COUNT
    from rejudge.judge._taxonomy import describe as describe
    from rejudge.judge._taxonomy import order_codes as order_codes
    from rejudge.judge._taxonomy import rank as rank
    from rejudge.judge._taxonomy import register_code as register_code
    from rejudge.judge._timeline import build_timeline as build_timeline
    from rejudge.judge._timeline import json_diff as json_diff
    from rejudge.judge._verdict_export import EVALUATION_EVENT as EVALUATION_EVENT
    from rejudge.judge._verdict_export import LANGFUSE_SCORES_FORMAT as LANGFUSE_SCORES_FORMAT
    from rejudge.judge._verdict_export import OTEL_EVALUATIONS_FORMAT as OTEL_EVALUATIONS_FORMAT
    from rejudge.judge._verdict_export import ExportedVerdict as ExportedVerdict
    from rejudge.judge._verdict_export import evaluation_name as evaluation_name
    from rejudge.judge._verdict_export import langfuse_score_lines as langfuse_score_lines
    from rejudge.judge._verdict_export import otel_ids as otel_ids
    from rejudge.judge._verdict_export import otlp_log_lines as otlp_log_lines
    from rejudge.judge._verdict_export import verdict_explanation as verdict_explanation
    from rejudge.judge.tiers import Tier as Tier
    from rejudge.judge.tiers import TierNotFoundError as TierNotFoundError
    from rejudge.judge.tiers import TierResult as TierResult
    from rejudge.judge.tiers import get_tier as get_tier
    from rejudge.judge.tiers import register_tier as register_tier
    from rejudge.judge.tiers import tier_names as tier_names

    # the typed results live in the model (rejudge.model); the judge's facade keeps their names
    from rejudge.model._results import BaselineCheck as BaselineCheck
    from rejudge.model._results import BaselineLock as BaselineLock
    from rejudge.model._results import Comparison as Comparison
    from rejudge.model._results import EvaluationReport as EvaluationReport
    from rejudge.model._results import JudgeRunResult as JudgeRunResult
    from rejudge.model._results import JudgeSummary as JudgeSummary
    from rejudge.model._results import RejudgedEvaluation as RejudgedEvaluation
    from rejudge.model._results import RejudgeResult as RejudgeResult
    from rejudge.model._results import Result as Result


__getattr__, __dir__ = lazy_exports(__name__)
