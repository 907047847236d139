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
    # the hand-picked entry points a type checker sees for real (the rest resolve through the
    # lazy table as Any); tests/test_types.py checks them
    from rejudge.judge._agreement import tier_agreement as tier_agreement
    from rejudge.judge._batch import BatchJudge as BatchJudge
    from rejudge.judge._batch import ChunkPlan as ChunkPlan
    from rejudge.judge._batch import Judged as Judged
    from rejudge.judge._calibration import build_queue as build_queue
    from rejudge.judge._calibration import calibration_figures as calibration_figures
    from rejudge.judge._calibration import gaps_from as gaps_from
    from rejudge.judge._calibration import latest_labels as latest_labels
    from rejudge.judge._calibration import parse_review_csv as parse_review_csv
    from rejudge.judge._calibration import resolve_reviews as resolve_reviews
    from rejudge.judge._compare import compare as compare
    from rejudge.judge._engine import ENGINE_VERSION as ENGINE_VERSION
    from rejudge.judge._engine import judge as judge
    from rejudge.judge._judge_calibration import judge_calibration as judge_calibration
    from rejudge.judge._rulesets import RuleSetError as RuleSetError
    from rejudge.judge._rulesets import load_rule_set as load_rule_set
    from rejudge.judge._rulesets import matching_rule_set as matching_rule_set
    from rejudge.judge._verdict_export import ExportedVerdict as ExportedVerdict
    from rejudge.judge._verdict_export import langfuse_score_lines as langfuse_score_lines
    from rejudge.judge._verdict_export import otlp_log_lines as otlp_log_lines

    from rejudge.model._results import BaselineCheck as BaselineCheck
    from rejudge.model._results import BaselineLock as BaselineLock
    from rejudge.model._results import Comparison as Comparison
    from rejudge.model._results import EvaluationReport as EvaluationReport
    from rejudge.model._results import JudgeRunResult as JudgeRunResult
    from rejudge.model._results import JudgeSummary as JudgeSummary

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "external_pass_hat_k": "rejudge.judge._agreement",
    "tier_agreement": "rejudge.judge._agreement",
    "BaselineMismatchError": "rejudge.judge._baseline",
    "check_baseline": "rejudge.judge._baseline",
    "judge_changes": "rejudge.judge._baseline",
    "lock_baseline": "rejudge.judge._baseline",
    "report_hash": "rejudge.judge._baseline",
    "verify_baseline": "rejudge.judge._baseline",
    "BatchJudge": "rejudge.judge._batch",
    "ChunkPlan": "rejudge.judge._batch",
    "JudgeRow": "rejudge.judge._batch",
    "Judged": "rejudge.judge._batch",
    "KeyMaker": "rejudge.judge._batch",
    "TraceRowLike": "rejudge.judge._batch",
    "decode_trace": "rejudge.judge._batch",
    "long_lived_frozen": "rejudge.judge._batch",
    "REVIEW_CSV_COLUMNS": "rejudge.judge._calibration",
    "REVIEW_LABELS": "rejudge.judge._calibration",
    "ReviewImportError": "rejudge.judge._calibration",
    "ReviewRequiredError": "rejudge.judge._calibration",
    "agreement": "rejudge.judge._calibration",
    "build_queue": "rejudge.judge._calibration",
    "calibration_figures": "rejudge.judge._calibration",
    "gaps_from": "rejudge.judge._calibration",
    "item_label": "rejudge.judge._calibration",
    "latest_labels": "rejudge.judge._calibration",
    "parse_review_csv": "rejudge.judge._calibration",
    "queue_csv": "rejudge.judge._calibration",
    "resolve_reviews": "rejudge.judge._calibration",
    "CiCase": "rejudge.judge._ci",
    "AssertionReference": "rejudge.judge._judge_calibration",
    "CalibrationReference": "rejudge.judge._judge_calibration",
    "assertion_table": "rejudge.judge._judge_calibration",
    "judge_calibration": "rejudge.judge._judge_calibration",
    "review_reference": "rejudge.judge._judge_calibration",
    "verdict_table": "rejudge.judge._judge_calibration",
    "merge_table": "rejudge.judge._judge_calibration",
    "merge_assertions": "rejudge.judge._judge_calibration",
    "CiResults": "rejudge.judge._ci",
    "ci_results": "rejudge.judge._ci",
    "github_annotations": "rejudge.judge._ci",
    "junit_xml": "rejudge.judge._ci",
    "step_summary": "rejudge.judge._ci",
    "ALPHA": "rejudge.judge._compare",
    "CAUSES": "rejudge.judge._compare",
    "compare": "rejudge.judge._compare",
    "compare_rows": "rejudge.judge._compare",
    "comparison_kind": "rejudge.judge._compare",
    "count_by_cause": "rejudge.judge._compare",
    "likely_settings": "rejudge.judge._rule_impact",
    "SETTING_CODES": "rejudge.judge._rule_impact",
    "TIER_APPLIES": "rejudge.judge._rule_impact",
    "select_flips": "rejudge.judge._compare",
    "mcnemar_exact": "rejudge.judge._compare",
    "plain_verdict": "rejudge.judge._compare",
    "ActualCall": "rejudge.judge._context",
    "JudgeContext": "rejudge.judge._context",
    "ParamCheck": "rejudge.judge._context",
    "RegistryIndex": "rejudge.judge._context",
    "Slot": "rejudge.judge._context",
    "build_context": "rejudge.judge._context",
    "registry_index": "rejudge.judge._context",
    "safe_value": "rejudge.judge._context",
    "ANOMALY_ZERO_SCORE_ALL_EXECUTED": "rejudge.judge._engine",
    "ENGINE_VERSION": "rejudge.judge._engine",
    "STEP_LIMIT_REASON": "rejudge.judge._engine",
    "TIER_DOES_NOT_APPLY": "rejudge.judge._engine",
    "tier_does_not_apply": "rejudge.judge._engine",
    "judge": "rejudge.judge._engine",
    "judge_body": "rejudge.judge._engine",
    "EVALUATION_EXPORT_COLUMNS": "rejudge.judge._exports",
    "RUN_EXPORT_COLUMNS": "rejudge.judge._exports",
    "EVALUATION_EVENT": "rejudge.judge._verdict_export",
    "LANGFUSE_SCORES_FORMAT": "rejudge.judge._verdict_export",
    "OTEL_EVALUATIONS_FORMAT": "rejudge.judge._verdict_export",
    "ExportedVerdict": "rejudge.judge._verdict_export",
    "evaluation_name": "rejudge.judge._verdict_export",
    "langfuse_score_lines": "rejudge.judge._verdict_export",
    "otel_ids": "rejudge.judge._verdict_export",
    "otlp_log_lines": "rejudge.judge._verdict_export",
    "verdict_explanation": "rejudge.judge._verdict_export",
    "compile_errors": "rejudge.judge._fasterrors",
    "compile_fast": "rejudge.judge._fastschema",
    "BUILTIN_RULES": "rejudge.judge._matchers",
    "MatchOptions": "rejudge.judge._matchers",
    "MatchResult": "rejudge.judge._matchers",
    "Matcher": "rejudge.judge._matchers",
    "OK": "rejudge.judge._matchers",
    "RULE_ERROR": "rejudge.judge._matchers",
    "WRONG_FORMAT": "rejudge.judge._matchers",
    "WRONG_VALUE": "rejudge.judge._matchers",
    "get_matcher": "rejudge.judge._matchers",
    "is_empty": "rejudge.judge._matchers",
    "match_value": "rejudge.judge._matchers",
    "matcher_names": "rejudge.judge._matchers",
    "register_matcher": "rejudge.judge._matchers",
    "values_equal": "rejudge.judge._matchers",
    "build_timeline": "rejudge.judge._timeline",
    "json_diff": "rejudge.judge._timeline",
    "ReportBuilder": "rejudge.judge._report",
    "build_report": "rejudge.judge._report",
    "pass_hat_k": "rejudge.judge._report",
    "pass_hat_k_all": "rejudge.judge._report",
    "row_tools": "rejudge.judge._report",
    "verdict_summary": "rejudge.judge._report",
    # the typed results live in the model (rejudge.model); the judge's facade keeps their names
    "BaselineCheck": "rejudge.model._results",
    "BaselineLock": "rejudge.model._results",
    "Comparison": "rejudge.model._results",
    "EvaluationReport": "rejudge.model._results",
    "JudgeRunResult": "rejudge.model._results",
    "JudgeSummary": "rejudge.model._results",
    "RejudgeResult": "rejudge.model._results",
    "RejudgedEvaluation": "rejudge.model._results",
    "Result": "rejudge.model._results",
    "RenderedPrompt": "rejudge.judge._rubric_prompt",
    "ReplyReading": "rejudge.judge._rubric_prompt",
    "cut_text": "rejudge.judge._rubric_prompt",
    "read_reply": "rejudge.judge._rubric_prompt",
    "render_prompt": "rejudge.judge._rubric_prompt",
    "render_transcript": "rejudge.judge._rubric_prompt",
    "DEFAULT_RUBRIC": "rejudge.judge._rubrics",
    "NL_ASSERTIONS_RUBRIC": "rejudge.judge._rubrics",
    "RUBRICS_DIR": "rejudge.judge._rubrics",
    "RubricError": "rejudge.judge._rubrics",
    "TEMPLATE_VARIABLES": "rejudge.judge._rubrics",
    "builtin_rubric_refs": "rejudge.judge._rubrics",
    "builtin_rubrics": "rejudge.judge._rubrics",
    "check_rubric": "rejudge.judge._rubrics",
    "load_rubric": "rejudge.judge._rubrics",
    "rubric_from_text": "rejudge.judge._rubrics",
    "template_variables": "rejudge.judge._rubrics",
    "BUILTIN_DIR": "rejudge.judge._rulesets",
    "DEFAULT_RULE_SET": "rejudge.judge._rulesets",
    "MatcherAlias": "rejudge.judge._rulesets",
    "PartialWeights": "rejudge.judge._rulesets",
    "RuleSetError": "rejudge.judge._rulesets",
    "RuleSettings": "rejudge.judge._rulesets",
    "StringNormalization": "rejudge.judge._rulesets",
    "Tolerance": "rejudge.judge._rulesets",
    "builtin_refs": "rejudge.judge._rulesets",
    "builtin_rule_sets": "rejudge.judge._rulesets",
    "diff_rule_sets": "rejudge.judge._rulesets",
    "load_rule_set": "rejudge.judge._rulesets",
    "parse_ref": "rejudge.judge._rulesets",
    "rule_set_from_dict": "rejudge.judge._rulesets",
    "settings_of": "rejudge.judge._rulesets",
    "EXTERNAL_RULE_SETS": "rejudge.judge._rulesets",
    "matching_rule_set": "rejudge.judge._rulesets",
    "ARGUMENTS_UNPARSABLE": "rejudge.judge._taxonomy",
    "EPISODE_UNFINISHED": "rejudge.judge._taxonomy",
    "CALL_WHEN_NONE_EXPECTED": "rejudge.judge._taxonomy",
    "CODES": "rejudge.judge._taxonomy",
    "EXECUTION_FAILED": "rejudge.judge._taxonomy",
    "FUNCTION_NOT_FOUND": "rejudge.judge._taxonomy",
    "INCORRECT_VALUE": "rejudge.judge._taxonomy",
    "JUDGE_ERROR": "rejudge.judge._taxonomy",
    "ORDER_WRONG": "rejudge.judge._taxonomy",
    "OUTCOME_WRONG": "rejudge.judge._taxonomy",
    "PARAM_HALLUCINATED_ID": "rejudge.judge._taxonomy",
    "PARAM_MISSING": "rejudge.judge._taxonomy",
    "PARAM_UNEXPECTED": "rejudge.judge._taxonomy",
    "PARAM_WRONG_FORMAT": "rejudge.judge._taxonomy",
    "PARAM_WRONG_VALUE": "rejudge.judge._taxonomy",
    "SCHEMA_INVALID": "rejudge.judge._taxonomy",
    "TOOL_MISSING": "rejudge.judge._taxonomy",
    "TOOL_UNEXPECTED": "rejudge.judge._taxonomy",
    "TOOL_WRONG": "rejudge.judge._taxonomy",
    "UNKNOWN_VALUE": "rejudge.judge._taxonomy",
    "WRONG_ARGUMENT_COUNT": "rejudge.judge._taxonomy",
    "describe": "rejudge.judge._taxonomy",
    "order_codes": "rejudge.judge._taxonomy",
    "rank": "rejudge.judge._taxonomy",
    "register_code": "rejudge.judge._taxonomy",
    "Tier": "rejudge.judge.tiers",
    "TierNotFoundError": "rejudge.judge.tiers",
    "TierResult": "rejudge.judge.tiers",
    "get_tier": "rejudge.judge.tiers",
    "register_tier": "rejudge.judge.tiers",
    "tier_names": "rejudge.judge.tiers",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
