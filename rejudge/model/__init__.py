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
    # the names this face exports, declared once (read by rejudge._lazy on first use), by theme
    # isort: off
    # the data model: cases, registries, traces, run configurations, rule sets, judgments
    from rejudge.model._schemas import Alternative as Alternative
    from rejudge.model._schemas import AssertionVerdict as AssertionVerdict
    from rejudge.model._schemas import Case as Case
    from rejudge.model._schemas import CASE_FORMAT_VERSION as CASE_FORMAT_VERSION
    from rejudge.model._schemas import EXTERNAL_PASS_AT as EXTERNAL_PASS_AT
    from rejudge.model._schemas import ExternalVerdict as ExternalVerdict
    from rejudge.model._schemas import Golden as Golden
    from rejudge.model._schemas import GoldenCall as GoldenCall
    from rejudge.model._schemas import HARNESS_MODES as HARNESS_MODES
    from rejudge.model._schemas import HarnessAssistance as HarnessAssistance
    from rejudge.model._schemas import HarnessMode as HarnessMode
    from rejudge.model._schemas import Judgment as Judgment
    from rejudge.model._schemas import JUDGMENT_FORMAT_VERSION as JUDGMENT_FORMAT_VERSION
    from rejudge.model._schemas import judgment_key as judgment_key
    from rejudge.model._schemas import normalize_label as normalize_label
    from rejudge.model._schemas import ParamRule as ParamRule
    from rejudge.model._schemas import REGISTRY_FORMAT_VERSION as REGISTRY_FORMAT_VERSION
    from rejudge.model._schemas import REVIEW_LABELS as REVIEW_LABELS
    from rejudge.model._schemas import Round as Round
    from rejudge.model._schemas import RULE_SET_FORMAT_VERSION as RULE_SET_FORMAT_VERSION
    from rejudge.model._schemas import RuleSet as RuleSet
    from rejudge.model._schemas import RunConfig as RunConfig
    from rejudge.model._schemas import ServerToolUse as ServerToolUse
    from rejudge.model._schemas import ToolCall as ToolCall
    from rejudge.model._schemas import ToolRegistry as ToolRegistry
    from rejudge.model._schemas import ToolSpec as ToolSpec
    from rejudge.model._schemas import Trace as Trace
    from rejudge.model._blocks import Block as Block
    from rejudge.model._schemas import TRACE_FORMAT_VERSION as TRACE_FORMAT_VERSION
    from rejudge.model._schemas import SOURCE_ID_KEYS as SOURCE_ID_KEYS
    from rejudge.model._schemas import (
        SOURCE_LANGFUSE_OBSERVATION_ID as SOURCE_LANGFUSE_OBSERVATION_ID,
    )
    from rejudge.model._schemas import SOURCE_LANGFUSE_TRACE_ID as SOURCE_LANGFUSE_TRACE_ID
    from rejudge.model._schemas import SOURCE_OTEL_SPAN_ID as SOURCE_OTEL_SPAN_ID
    from rejudge.model._schemas import SOURCE_OTEL_TRACE_ID as SOURCE_OTEL_TRACE_ID
    from rejudge.model._schemas import TraceError as TraceError
    from rejudge.model._schemas import TraceStatus as TraceStatus
    from rejudge.model._schemas import UserTurn as UserTurn
    from rejudge.model._schemas import Verdict as Verdict
    from rejudge.model._schemas import VERDICTS as VERDICTS
    from rejudge.model._schemas import WorldRef as WorldRef

    # canonical JSON and content hashes (every stored object is named by one)
    from rejudge.model._hashing import behaviour_hash as behaviour_hash
    from rejudge.model._hashing import canonical_json as canonical_json
    from rejudge.model._hashing import content_hash as content_hash
    from rejudge.model._hashing import HASH_ALGORITHM as HASH_ALGORITHM
    from rejudge.model._hashing import hash_bytes as hash_bytes
    from rejudge.model._hashing import NOT_BEHAVIOUR as NOT_BEHAVIOUR
    from rejudge.model._hashing import NOT_CONTENT as NOT_CONTENT
    from rejudge.model._hashing import trace_content_hash as trace_content_hash
    from rejudge.model._hashing import trace_hashes as trace_hashes

    # a judgment's canonical text cut around its trace hash, and the judgment ready for the store
    from rejudge.model._judgment_text import join_judgment_text as join_judgment_text
    from rejudge.model._judgment_text import JudgmentTemplate as JudgmentTemplate
    from rejudge.model._judgment_text import PreparedJudgment as PreparedJudgment
    from rejudge.model._judgment_text import put_trace_hash as put_trace_hash
    from rejudge.model._judgment_text import split_judgment_text as split_judgment_text
    from rejudge.model._judgment_text import text_hash as text_hash

    # when two evaluations may be compared, and why a verdict flipped
    from rejudge.model._comparison import comparability_reasons as comparability_reasons
    from rejudge.model._comparison import COMPARISON_FORMAT_VERSION as COMPARISON_FORMAT_VERSION
    from rejudge.model._comparison import COMPARISON_KINDS as COMPARISON_KINDS
    from rejudge.model._comparison import ComparisonKind as ComparisonKind
    from rejudge.model._comparison import JudgeAgreement as JudgeAgreement
    from rejudge.model._comparison import KEY_PARAMETERS as KEY_PARAMETERS
    from rejudge.model._comparison import KeyParameter as KeyParameter
    from rejudge.model._comparison import Flip as Flip
    from rejudge.model._comparison import flip_cause as flip_cause
    from rejudge.model._comparison import FLIP_CAUSES as FLIP_CAUSES
    from rejudge.model._comparison import JUDGE_FLIP_CAUSES as JUDGE_FLIP_CAUSES
    from rejudge.model._comparison import SIGNIFICANCE_LEVEL as SIGNIFICANCE_LEVEL
    from rejudge.model._comparison import FLIP_DIRECTIONS as FLIP_DIRECTIONS
    from rejudge.model._comparison import flip_causes as flip_causes
    from rejudge.model._comparison import UNKNOWN_CAUSE as UNKNOWN_CAUSE

    # verdict counts and the one accuracy formula; statistics
    from rejudge.model._verdicts import accuracy as accuracy
    from rejudge.model._verdicts import TraceStatuses as TraceStatuses
    from rejudge.model._verdicts import VerdictCounts as VerdictCounts
    from rejudge.model._statistics import wilson_interval as wilson_interval

    # a model judge's agreement with people, the other tiers and external verdicts
    from rejudge.model._judge_calibration import CalibrationAgainst as CalibrationAgainst
    from rejudge.model._judge_calibration import CalibrationKind as CalibrationKind
    from rejudge.model._judge_calibration import JudgeCalibration as JudgeCalibration
    from rejudge.model._judge_calibration import WEAK_KAPPA as WEAK_KAPPA
    from rejudge.model._review_queue import QueueRow as QueueRow

    # a report: its aggregate, its rows, pass^k
    from rejudge.model._timeline import ArgumentDiff as ArgumentDiff
    from rejudge.model._timeline import DiffStatus as DiffStatus
    from rejudge.model._timeline import StepFacts as StepFacts
    from rejudge.model._timeline import StepKind as StepKind
    from rejudge.model._timeline import Timeline as Timeline
    from rejudge.model._timeline import TimelineCall as TimelineCall
    from rejudge.model._timeline import TimelineStep as TimelineStep
    from rejudge.model._report import Anomaly as Anomaly
    from rejudge.model._report import PassHatK as PassHatK
    from rejudge.model._report import Report as Report
    from rejudge.model._report import ReportRow as ReportRow
    from rejudge.model._report import ReportSummary as ReportSummary
    from rejudge.model._report import TopFailure as TopFailure
    from rejudge.model._report import VerdictSummary as VerdictSummary
    from rejudge.model._report import WorstTool as WorstTool

    # the typed results of the use cases (what --json dumps)
    from rejudge.model._results import BaselineCheck as BaselineCheck
    from rejudge.model._results import BaselineLock as BaselineLock
    from rejudge.model._results import Comparison as Comparison
    from rejudge.model._results import EvaluationReport as EvaluationReport
    from rejudge.model._results import JudgeRunResult as JudgeRunResult
    from rejudge.model._results import JudgeSummary as JudgeSummary
    from rejudge.model._results import RejudgeResult as RejudgeResult
    from rejudge.model._results import RejudgedEvaluation as RejudgedEvaluation
    from rejudge.model._results import Result as Result

    # agreement with an external verdict (report --against external)
    from rejudge.model._agreement import Agreement as Agreement
    from rejudge.model._agreement import AgreementTable as AgreementTable
    from rejudge.model._agreement import cohens_kappa as cohens_kappa
    from rejudge.model._agreement import kappa_of as kappa_of
    from rejudge.model._agreement import Disagreement as Disagreement
    from rejudge.model._agreement import TierAgreement as TierAgreement

    # what a run cost under a user's price table
    from rejudge.model._prices import PRICE_TABLE_FORMAT as PRICE_TABLE_FORMAT
    from rejudge.model._prices import NOT_PRICED as NOT_PRICED
    from rejudge.model._prices import NO_USAGE as NO_USAGE
    from rejudge.model._prices import MODEL_UNKNOWN as MODEL_UNKNOWN
    from rejudge.model._prices import PriceTableError as PriceTableError
    from rejudge.model._prices import Price as Price
    from rejudge.model._prices import PriceTable as PriceTable
    from rejudge.model._prices import Cost as Cost
    from rejudge.model._prices import NoCost as NoCost
    from rejudge.model._prices import TraceCost as TraceCost
    from rejudge.model._prices import ModelCost as ModelCost
    from rejudge.model._prices import RunCost as RunCost
    from rejudge.model._prices import format_amount as format_amount

    # rubrics and judge models of the model-graded tier
    from rejudge.model._rubric import DEFAULT_JUDGE_MODEL as DEFAULT_JUDGE_MODEL
    from rejudge.model._rubric import DEFAULT_JUDGE_PROVIDER as DEFAULT_JUDGE_PROVIDER
    from rejudge.model._rubric import JudgeModel as JudgeModel
    from rejudge.model._rubric import model_graded_key as model_graded_key
    from rejudge.model._rubric import Rubric as Rubric
    from rejudge.model._rubric import RUBRIC_FORMAT_VERSION as RUBRIC_FORMAT_VERSION
    from rejudge.model._rubric import RUBRIC_INPUTS as RUBRIC_INPUTS
    from rejudge.model._rubric import RUBRIC_VIEWS as RUBRIC_VIEWS
    from rejudge.model._rubric import Truncation as Truncation

    # worlds with state
    from rejudge.model._world import CallResult as CallResult
    from rejudge.model._world import diff_states as diff_states
    from rejudge.model._world import world_key as world_key
    from rejudge.model._world import StateDifference as StateDifference
    from rejudge.model._world import World as World
    from rejudge.model._world import WorldData as WorldData
    from rejudge.model._world import WorldMismatchError as WorldMismatchError
    from rejudge.model._world import WorldState as WorldState
    # isort: on


__getattr__, __dir__ = lazy_exports(__name__)
