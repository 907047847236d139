"""rejudge's model: the concepts every layer shares, with no I/O and no SQL.

- the data model (:mod:`._schemas`): cases and their goldens, tool registries, traces and their
  rounds, run configurations, rule sets, judgments, and the format versions of each;
- its hashing (:mod:`._hashing`): canonical JSON and the ``sha256:<hex>`` content hashes that
  name every stored object, and the behaviour hash of a trace;
- a judgment's canonical text cut around its trace hash (:mod:`._judgment_text`), and
  :class:`PreparedJudgment`, a judgment serialized once by the judge and written as it is by the
  store;
- the comparability rule and the flip-cause rule, with the :class:`Flip` they explain
  (:mod:`._comparison`, the one definition the CLI and the dashboard share), verdict counts and
  the one accuracy formula (:mod:`._verdicts`) and the statistics they report
  (:mod:`._statistics`);
- a report's aggregate and rows (:mod:`._report`: :class:`ReportSummary`, :class:`ReportRow`,
  :class:`PassHatK`), stored with an evaluation and hashed by a baseline as their ``to_json``;
- the typed results of the use cases (:mod:`._results`: reports, comparisons, baselines; and
  :mod:`._agreement`: the agreement with an external verdict), whose ``to_json`` is what
  ``--json`` prints;
- what a run cost under a price table the user supplies (:mod:`._prices`: the
  ``rejudge-prices@1`` format, :class:`PriceTable`, :class:`RunCost`; amounts are ``Decimal``);
- worlds with state (:class:`World`, its copy-on-write :class:`WorldState`, the readable
  :func:`diff_states`).

Pure code (the judge, the recorder, the suites) and the store both speak these types; the store
persists them (``rejudge.store``), nothing here knows of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # what a type checker sees behind the lazy table below (at run time nothing is imported
    # until first use)
    from rejudge.model._agreement import Agreement as Agreement
    from rejudge.model._agreement import AgreementTable as AgreementTable
    from rejudge.model._agreement import Disagreement as Disagreement
    from rejudge.model._agreement import TierAgreement as TierAgreement
    from rejudge.model._agreement import cohens_kappa as cohens_kappa
    from rejudge.model._agreement import kappa_of as kappa_of
    from rejudge.model._blocks import Block as Block
    from rejudge.model._comparison import COMPARISON_FORMAT_VERSION as COMPARISON_FORMAT_VERSION
    from rejudge.model._comparison import COMPARISON_KINDS as COMPARISON_KINDS
    from rejudge.model._comparison import FLIP_CAUSES as FLIP_CAUSES
    from rejudge.model._comparison import FLIP_DIRECTIONS as FLIP_DIRECTIONS
    from rejudge.model._comparison import JUDGE_FLIP_CAUSES as JUDGE_FLIP_CAUSES
    from rejudge.model._comparison import KEY_PARAMETERS as KEY_PARAMETERS
    from rejudge.model._comparison import SIGNIFICANCE_LEVEL as SIGNIFICANCE_LEVEL
    from rejudge.model._comparison import UNKNOWN_CAUSE as UNKNOWN_CAUSE
    from rejudge.model._comparison import ComparisonKind as ComparisonKind
    from rejudge.model._comparison import Flip as Flip
    from rejudge.model._comparison import JudgeAgreement as JudgeAgreement
    from rejudge.model._comparison import KeyParameter as KeyParameter
    from rejudge.model._comparison import comparability_reasons as comparability_reasons
    from rejudge.model._comparison import flip_cause as flip_cause
    from rejudge.model._comparison import flip_causes as flip_causes
    from rejudge.model._hashing import HASH_ALGORITHM as HASH_ALGORITHM
    from rejudge.model._hashing import NOT_BEHAVIOUR as NOT_BEHAVIOUR
    from rejudge.model._hashing import NOT_CONTENT as NOT_CONTENT
    from rejudge.model._hashing import behaviour_hash as behaviour_hash
    from rejudge.model._hashing import canonical_json as canonical_json
    from rejudge.model._hashing import content_hash as content_hash
    from rejudge.model._hashing import hash_bytes as hash_bytes
    from rejudge.model._hashing import trace_content_hash as trace_content_hash
    from rejudge.model._judge_calibration import WEAK_KAPPA as WEAK_KAPPA
    from rejudge.model._judge_calibration import CalibrationAgainst as CalibrationAgainst
    from rejudge.model._judge_calibration import CalibrationKind as CalibrationKind
    from rejudge.model._judge_calibration import JudgeCalibration as JudgeCalibration
    from rejudge.model._judgment_text import JudgmentTemplate as JudgmentTemplate
    from rejudge.model._judgment_text import PreparedJudgment as PreparedJudgment
    from rejudge.model._judgment_text import join_judgment_text as join_judgment_text
    from rejudge.model._judgment_text import put_trace_hash as put_trace_hash
    from rejudge.model._judgment_text import split_judgment_text as split_judgment_text
    from rejudge.model._judgment_text import text_hash as text_hash
    from rejudge.model._prices import MODEL_UNKNOWN as MODEL_UNKNOWN
    from rejudge.model._prices import NO_USAGE as NO_USAGE
    from rejudge.model._prices import NOT_PRICED as NOT_PRICED
    from rejudge.model._prices import PRICE_TABLE_FORMAT as PRICE_TABLE_FORMAT
    from rejudge.model._prices import Cost as Cost
    from rejudge.model._prices import ModelCost as ModelCost
    from rejudge.model._prices import NoCost as NoCost
    from rejudge.model._prices import Price as Price
    from rejudge.model._prices import PriceTable as PriceTable
    from rejudge.model._prices import PriceTableError as PriceTableError
    from rejudge.model._prices import RunCost as RunCost
    from rejudge.model._prices import TraceCost as TraceCost
    from rejudge.model._prices import format_amount as format_amount
    from rejudge.model._report import Anomaly as Anomaly
    from rejudge.model._report import PassHatK as PassHatK
    from rejudge.model._report import Report as Report
    from rejudge.model._report import ReportRow as ReportRow
    from rejudge.model._report import ReportSummary as ReportSummary
    from rejudge.model._report import TopFailure as TopFailure
    from rejudge.model._report import VerdictSummary as VerdictSummary
    from rejudge.model._report import WorstTool as WorstTool
    from rejudge.model._results import BaselineCheck as BaselineCheck
    from rejudge.model._results import BaselineLock as BaselineLock
    from rejudge.model._results import Comparison as Comparison
    from rejudge.model._results import EvaluationReport as EvaluationReport
    from rejudge.model._results import JudgeRunResult as JudgeRunResult
    from rejudge.model._results import JudgeSummary as JudgeSummary
    from rejudge.model._results import RejudgedEvaluation as RejudgedEvaluation
    from rejudge.model._results import RejudgeResult as RejudgeResult
    from rejudge.model._results import Result as Result
    from rejudge.model._rubric import DEFAULT_JUDGE_MODEL as DEFAULT_JUDGE_MODEL
    from rejudge.model._rubric import DEFAULT_JUDGE_PROVIDER as DEFAULT_JUDGE_PROVIDER
    from rejudge.model._rubric import RUBRIC_FORMAT_VERSION as RUBRIC_FORMAT_VERSION
    from rejudge.model._rubric import RUBRIC_INPUTS as RUBRIC_INPUTS
    from rejudge.model._rubric import RUBRIC_VIEWS as RUBRIC_VIEWS
    from rejudge.model._rubric import JudgeModel as JudgeModel
    from rejudge.model._rubric import Rubric as Rubric
    from rejudge.model._rubric import Truncation as Truncation
    from rejudge.model._rubric import model_graded_key as model_graded_key
    from rejudge.model._schemas import CASE_FORMAT_VERSION as CASE_FORMAT_VERSION
    from rejudge.model._schemas import EXTERNAL_PASS_AT as EXTERNAL_PASS_AT
    from rejudge.model._schemas import HARNESS_MODES as HARNESS_MODES
    from rejudge.model._schemas import JUDGMENT_FORMAT_VERSION as JUDGMENT_FORMAT_VERSION
    from rejudge.model._schemas import REGISTRY_FORMAT_VERSION as REGISTRY_FORMAT_VERSION
    from rejudge.model._schemas import REVIEW_LABELS as REVIEW_LABELS
    from rejudge.model._schemas import RULE_SET_FORMAT_VERSION as RULE_SET_FORMAT_VERSION
    from rejudge.model._schemas import SOURCE_ID_KEYS as SOURCE_ID_KEYS
    from rejudge.model._schemas import (
        SOURCE_LANGFUSE_OBSERVATION_ID as SOURCE_LANGFUSE_OBSERVATION_ID,
    )
    from rejudge.model._schemas import SOURCE_LANGFUSE_TRACE_ID as SOURCE_LANGFUSE_TRACE_ID
    from rejudge.model._schemas import SOURCE_OTEL_SPAN_ID as SOURCE_OTEL_SPAN_ID
    from rejudge.model._schemas import SOURCE_OTEL_TRACE_ID as SOURCE_OTEL_TRACE_ID
    from rejudge.model._schemas import TRACE_FORMAT_VERSION as TRACE_FORMAT_VERSION
    from rejudge.model._schemas import VERDICTS as VERDICTS
    from rejudge.model._schemas import Alternative as Alternative
    from rejudge.model._schemas import AssertionVerdict as AssertionVerdict
    from rejudge.model._schemas import Case as Case
    from rejudge.model._schemas import ExternalVerdict as ExternalVerdict
    from rejudge.model._schemas import Golden as Golden
    from rejudge.model._schemas import GoldenCall as GoldenCall
    from rejudge.model._schemas import HarnessAssistance as HarnessAssistance
    from rejudge.model._schemas import HarnessMode as HarnessMode
    from rejudge.model._schemas import Judgment as Judgment
    from rejudge.model._schemas import ParamRule as ParamRule
    from rejudge.model._schemas import Round as Round
    from rejudge.model._schemas import RuleSet as RuleSet
    from rejudge.model._schemas import RunConfig as RunConfig
    from rejudge.model._schemas import ServerToolUse as ServerToolUse
    from rejudge.model._schemas import ToolCall as ToolCall
    from rejudge.model._schemas import ToolRegistry as ToolRegistry
    from rejudge.model._schemas import ToolSpec as ToolSpec
    from rejudge.model._schemas import Trace as Trace
    from rejudge.model._schemas import TraceError as TraceError
    from rejudge.model._schemas import TraceStatus as TraceStatus
    from rejudge.model._schemas import UserTurn as UserTurn
    from rejudge.model._schemas import Verdict as Verdict
    from rejudge.model._schemas import WorldRef as WorldRef
    from rejudge.model._schemas import judgment_key as judgment_key
    from rejudge.model._schemas import normalize_label as normalize_label
    from rejudge.model._statistics import wilson_interval as wilson_interval
    from rejudge.model._verdicts import TraceStatuses as TraceStatuses
    from rejudge.model._verdicts import VerdictCounts as VerdictCounts
    from rejudge.model._verdicts import accuracy as accuracy
    from rejudge.model._world import CallResult as CallResult
    from rejudge.model._world import StateDifference as StateDifference
    from rejudge.model._world import World as World
    from rejudge.model._world import WorldData as WorldData
    from rejudge.model._world import WorldMismatchError as WorldMismatchError
    from rejudge.model._world import WorldState as WorldState
    from rejudge.model._world import diff_states as diff_states
    from rejudge.model._world import world_key as world_key

# public name -> the private module that defines it (tests/test_public_api.py keeps it complete)
_EXPORTS: dict[str, str] = {
    # the data model: cases, registries, traces, run configurations, rule sets, judgments
    "Alternative": "rejudge.model._schemas",
    "AssertionVerdict": "rejudge.model._schemas",
    "Case": "rejudge.model._schemas",
    "CASE_FORMAT_VERSION": "rejudge.model._schemas",
    "EXTERNAL_PASS_AT": "rejudge.model._schemas",
    "ExternalVerdict": "rejudge.model._schemas",
    "Golden": "rejudge.model._schemas",
    "GoldenCall": "rejudge.model._schemas",
    "HARNESS_MODES": "rejudge.model._schemas",
    "HarnessAssistance": "rejudge.model._schemas",
    "HarnessMode": "rejudge.model._schemas",
    "Judgment": "rejudge.model._schemas",
    "JUDGMENT_FORMAT_VERSION": "rejudge.model._schemas",
    "judgment_key": "rejudge.model._schemas",
    "normalize_label": "rejudge.model._schemas",
    "ParamRule": "rejudge.model._schemas",
    "REGISTRY_FORMAT_VERSION": "rejudge.model._schemas",
    "REVIEW_LABELS": "rejudge.model._schemas",
    "Round": "rejudge.model._schemas",
    "RULE_SET_FORMAT_VERSION": "rejudge.model._schemas",
    "RuleSet": "rejudge.model._schemas",
    "RunConfig": "rejudge.model._schemas",
    "ServerToolUse": "rejudge.model._schemas",
    "ToolCall": "rejudge.model._schemas",
    "ToolRegistry": "rejudge.model._schemas",
    "ToolSpec": "rejudge.model._schemas",
    "Trace": "rejudge.model._schemas",
    "Block": "rejudge.model._blocks",
    "TRACE_FORMAT_VERSION": "rejudge.model._schemas",
    "SOURCE_ID_KEYS": "rejudge.model._schemas",
    "SOURCE_LANGFUSE_OBSERVATION_ID": "rejudge.model._schemas",
    "SOURCE_LANGFUSE_TRACE_ID": "rejudge.model._schemas",
    "SOURCE_OTEL_SPAN_ID": "rejudge.model._schemas",
    "SOURCE_OTEL_TRACE_ID": "rejudge.model._schemas",
    "TraceError": "rejudge.model._schemas",
    "TraceStatus": "rejudge.model._schemas",
    "UserTurn": "rejudge.model._schemas",
    "Verdict": "rejudge.model._schemas",
    "VERDICTS": "rejudge.model._schemas",
    "WorldRef": "rejudge.model._schemas",
    # canonical JSON and content hashes (every stored object is named by one)
    "behaviour_hash": "rejudge.model._hashing",
    "canonical_json": "rejudge.model._hashing",
    "content_hash": "rejudge.model._hashing",
    "HASH_ALGORITHM": "rejudge.model._hashing",
    "hash_bytes": "rejudge.model._hashing",
    "NOT_BEHAVIOUR": "rejudge.model._hashing",
    "NOT_CONTENT": "rejudge.model._hashing",
    "trace_content_hash": "rejudge.model._hashing",
    # a judgment's canonical text cut around its trace hash, and the judgment ready for the store
    "join_judgment_text": "rejudge.model._judgment_text",
    "JudgmentTemplate": "rejudge.model._judgment_text",
    "PreparedJudgment": "rejudge.model._judgment_text",
    "put_trace_hash": "rejudge.model._judgment_text",
    "split_judgment_text": "rejudge.model._judgment_text",
    "text_hash": "rejudge.model._judgment_text",
    # when two evaluations may be compared, and why a verdict flipped
    "comparability_reasons": "rejudge.model._comparison",
    "COMPARISON_FORMAT_VERSION": "rejudge.model._comparison",
    "COMPARISON_KINDS": "rejudge.model._comparison",
    "ComparisonKind": "rejudge.model._comparison",
    "JudgeAgreement": "rejudge.model._comparison",
    "KEY_PARAMETERS": "rejudge.model._comparison",
    "KeyParameter": "rejudge.model._comparison",
    "Flip": "rejudge.model._comparison",
    "flip_cause": "rejudge.model._comparison",
    "FLIP_CAUSES": "rejudge.model._comparison",
    "JUDGE_FLIP_CAUSES": "rejudge.model._comparison",
    "SIGNIFICANCE_LEVEL": "rejudge.model._comparison",
    "FLIP_DIRECTIONS": "rejudge.model._comparison",
    "flip_causes": "rejudge.model._comparison",
    "UNKNOWN_CAUSE": "rejudge.model._comparison",
    # verdict counts and the one accuracy formula; statistics
    "accuracy": "rejudge.model._verdicts",
    "TraceStatuses": "rejudge.model._verdicts",
    "VerdictCounts": "rejudge.model._verdicts",
    "wilson_interval": "rejudge.model._statistics",
    # a model judge's agreement with people, the other tiers and external verdicts
    "CalibrationAgainst": "rejudge.model._judge_calibration",
    "CalibrationKind": "rejudge.model._judge_calibration",
    "JudgeCalibration": "rejudge.model._judge_calibration",
    "WEAK_KAPPA": "rejudge.model._judge_calibration",
    # a report: its aggregate, its rows, pass^k
    "ArgumentDiff": "rejudge.model._timeline",
    "DiffStatus": "rejudge.model._timeline",
    "StepFacts": "rejudge.model._timeline",
    "StepKind": "rejudge.model._timeline",
    "Timeline": "rejudge.model._timeline",
    "TimelineCall": "rejudge.model._timeline",
    "TimelineStep": "rejudge.model._timeline",
    "Anomaly": "rejudge.model._report",
    "PassHatK": "rejudge.model._report",
    "Report": "rejudge.model._report",
    "ReportRow": "rejudge.model._report",
    "ReportSummary": "rejudge.model._report",
    "TopFailure": "rejudge.model._report",
    "VerdictSummary": "rejudge.model._report",
    "WorstTool": "rejudge.model._report",
    # the typed results of the use cases (what --json dumps)
    "BaselineCheck": "rejudge.model._results",
    "BaselineLock": "rejudge.model._results",
    "Comparison": "rejudge.model._results",
    "EvaluationReport": "rejudge.model._results",
    "JudgeRunResult": "rejudge.model._results",
    "JudgeSummary": "rejudge.model._results",
    "RejudgeResult": "rejudge.model._results",
    "RejudgedEvaluation": "rejudge.model._results",
    "Result": "rejudge.model._results",
    # agreement with an external verdict (report --against external)
    "Agreement": "rejudge.model._agreement",
    "AgreementTable": "rejudge.model._agreement",
    "cohens_kappa": "rejudge.model._agreement",
    "kappa_of": "rejudge.model._agreement",
    "Disagreement": "rejudge.model._agreement",
    "TierAgreement": "rejudge.model._agreement",
    # what a run cost under a user's price table
    "PRICE_TABLE_FORMAT": "rejudge.model._prices",
    "NOT_PRICED": "rejudge.model._prices",
    "NO_USAGE": "rejudge.model._prices",
    "MODEL_UNKNOWN": "rejudge.model._prices",
    "PriceTableError": "rejudge.model._prices",
    "Price": "rejudge.model._prices",
    "PriceTable": "rejudge.model._prices",
    "Cost": "rejudge.model._prices",
    "NoCost": "rejudge.model._prices",
    "TraceCost": "rejudge.model._prices",
    "ModelCost": "rejudge.model._prices",
    "RunCost": "rejudge.model._prices",
    "format_amount": "rejudge.model._prices",
    # rubrics and judge models of the model-graded tier
    "DEFAULT_JUDGE_MODEL": "rejudge.model._rubric",
    "DEFAULT_JUDGE_PROVIDER": "rejudge.model._rubric",
    "JudgeModel": "rejudge.model._rubric",
    "model_graded_key": "rejudge.model._rubric",
    "Rubric": "rejudge.model._rubric",
    "RUBRIC_FORMAT_VERSION": "rejudge.model._rubric",
    "RUBRIC_INPUTS": "rejudge.model._rubric",
    "RUBRIC_VIEWS": "rejudge.model._rubric",
    "Truncation": "rejudge.model._rubric",
    # worlds with state
    "CallResult": "rejudge.model._world",
    "diff_states": "rejudge.model._world",
    "world_key": "rejudge.model._world",
    "StateDifference": "rejudge.model._world",
    "World": "rejudge.model._world",
    "WorldData": "rejudge.model._world",
    "WorldMismatchError": "rejudge.model._world",
    "WorldState": "rejudge.model._world",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
