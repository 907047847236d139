"""Use cases that read and write the store: ingest, judging, comparisons, baselines, exports,
reviews, sweeps, costs and the demo. The CLI and the dashboard call these; pure code never does.

The package's public names, imported lazily (``import rejudge.services`` loads neither the store
nor the judge)::

    from rejudge.services import judge_run, evaluation_report
    result = judge_run(store, "my-run", "golden", load_rule_set("standard@2"))
    report = evaluation_report(store, result.evaluation_id)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use); those
    # from rejudge.importers are still importable from here as before it was a package of its
    # own (rejudge.importers declares which module defines each)
    from rejudge.importers import BfclResultImport as BfclResultImport
    from rejudge.importers import Importer as Importer
    from rejudge.importers import ImportResult as ImportResult
    from rejudge.importers import InspectImportResult as InspectImportResult
    from rejudge.importers import Rederive as Rederive
    from rejudge.importers import ReplaySource as ReplaySource
    from rejudge.importers import TauImportResult as TauImportResult
    from rejudge.importers import get_importer as get_importer
    from rejudge.importers import import_bfcl as import_bfcl
    from rejudge.importers import import_bfcl_results as import_bfcl_results
    from rejudge.importers import import_cassettes as import_cassettes
    from rejudge.importers import import_inspect as import_inspect
    from rejudge.importers import import_tau_bench as import_tau_bench
    from rejudge.importers import importer_names as importer_names
    from rejudge.importers import importer_rows as importer_rows
    from rejudge.importers import read_tau_file as read_tau_file
    from rejudge.importers import register_importer as register_importer
    from rejudge.importers import replay_source as replay_source
    from rejudge.services._agreement import evaluation_agreement as evaluation_agreement
    from rejudge.services._agreement import run_agreement as run_agreement
    from rejudge.services._baseline import check_evaluation_baseline as check_evaluation_baseline
    from rejudge.services._baseline import lock_evaluation_baseline as lock_evaluation_baseline
    from rejudge.services._capture import Capture as Capture
    from rejudge.services._capture import capture as capture
    from rejudge.services._capture import open_store as open_store
    from rejudge.services._ci import evaluation_ci_results as evaluation_ci_results
    from rejudge.services._compare import BASELINE_INPUTS as BASELINE_INPUTS
    from rejudge.services._compare import FirstFlips as FirstFlips
    from rejudge.services._compare import FlipCodes as FlipCodes
    from rejudge.services._compare import compare_evaluations as compare_evaluations
    from rejudge.services._compare import compare_first_flips as compare_first_flips
    from rejudge.services._compare import comparison_flips as comparison_flips
    from rejudge.services._compare import evaluation_inputs as evaluation_inputs
    from rejudge.services._cost import read_price_table as read_price_table
    from rejudge.services._cost import run_cost as run_cost
    from rejudge.services._cost import trace_cost as trace_cost
    from rejudge.services._database import DatabaseRevision as DatabaseRevision
    from rejudge.services._database import RunsAndStatuses as RunsAndStatuses
    from rejudge.services._database import RunTraces as RunTraces
    from rejudge.services._database import database_revision as database_revision
    from rejudge.services._database import list_runs_with_statuses as list_runs_with_statuses
    from rejudge.services._database import run_traces as run_traces
    from rejudge.services._database import upgrade_database as upgrade_database
    from rejudge.services._demo import DEMO_REAL_WORLD as DEMO_REAL_WORLD
    from rejudge.services._demo import DEMO_RULES as DEMO_RULES
    from rejudge.services._demo import DEMO_SUITES as DEMO_SUITES
    from rejudge.services._demo import DEMO_TAU_RUN as DEMO_TAU_RUN
    from rejudge.services._demo import DemoError as DemoError
    from rejudge.services._demo import cassette_roots as cassette_roots
    from rejudge.services._demo import find_demo_cassettes as find_demo_cassettes
    from rejudge.services._demo import load_cassette_runs as load_cassette_runs
    from rejudge.services._demo import run_demo as run_demo
    from rejudge.services._demo_judge import DEMO_JUDGED as DEMO_JUDGED
    from rejudge.services._demo_judge import DemoJudged as DemoJudged
    from rejudge.services._demo_judge import DemoModelGraded as DemoModelGraded
    from rejudge.services._demo_judge import demo_model_graded as demo_model_graded
    from rejudge.services._demo_result import DemoComparison as DemoComparison
    from rejudge.services._demo_result import DemoEvaluation as DemoEvaluation
    from rejudge.services._demo_result import DemoHeadline as DemoHeadline
    from rejudge.services._demo_result import DemoResult as DemoResult
    from rejudge.services._demo_result import DemoRun as DemoRun
    from rejudge.services._demo_result import DemoSkipped as DemoSkipped
    from rejudge.services._demo_result import DemoSuite as DemoSuite
    from rejudge.services._demo_result import DemoTierComparison as DemoTierComparison
    from rejudge.services._demo_result import ModelVsModel as ModelVsModel
    from rejudge.services._demo_result import PassRate as PassRate
    from rejudge.services._demo_result import Tau2Pair as Tau2Pair
    from rejudge.services._demo_result import Tau2PairedRewards as Tau2PairedRewards
    from rejudge.services._demo_result import Tau2Run as Tau2Run
    from rejudge.services._demo_tau import DEMO_TAU2_FILES as DEMO_TAU2_FILES
    from rejudge.services._demo_tau import DEMO_TAU_RULES as DEMO_TAU_RULES
    from rejudge.services._demo_tau import tau2_model_vs_model as tau2_model_vs_model
    from rejudge.services._distributed import DaskCluster as DaskCluster
    from rejudge.services._distributed import DaskEngine as DaskEngine
    from rejudge.services._distributed import check_versions as check_versions
    from rejudge.services._distributed import connect_cluster as connect_cluster
    from rejudge.services._distributed import open_cluster as open_cluster
    from rejudge.services._distributed_import import ReadSpec as ReadSpec
    from rejudge.services._distributed_import import cut_partitions as cut_partitions
    from rejudge.services._distributed_import import import_identity as import_identity
    from rejudge.services._distributed_import import plan_on_cluster as plan_on_cluster
    from rejudge.services._distributed_import import read_partition as read_partition
    from rejudge.services._evaluation_meta import EvaluationMeta as EvaluationMeta
    from rejudge.services._evaluation_meta import EvaluationRunMeta as EvaluationRunMeta
    from rejudge.services._evaluation_meta import evaluation_meta as evaluation_meta
    from rejudge.services._evidence_paths import EVIDENCE_PATH_FORMAT as EVIDENCE_PATH_FORMAT
    from rejudge.services._evidence_paths import evidence_path as evidence_path
    from rejudge.services._evidence_paths import resolve_evidence_path as resolve_evidence_path
    from rejudge.services._evidence_paths import shipped_cassette_roots as shipped_cassette_roots
    from rejudge.services._exchanges import CassetteView as CassetteView
    from rejudge.services._exchanges import ExchangeView as ExchangeView
    from rejudge.services._exchanges import as_text as as_text
    from rejudge.services._exchanges import exchange_view as exchange_view
    from rejudge.services._exchanges import load_exchanges as load_exchanges
    from rejudge.services._export import evaluation_export_rows as evaluation_export_rows
    from rejudge.services._export import evaluation_verdicts as evaluation_verdicts
    from rejudge.services._export import export_bfcl as export_bfcl
    from rejudge.services._export import run_export_rows as run_export_rows
    from rejudge.services._external import record_external_verdicts as record_external_verdicts
    from rejudge.services._external import run_external_verdicts as run_external_verdicts
    from rejudge.services._html_report import ComparePageData as ComparePageData
    from rejudge.services._html_report import ReportPageData as ReportPageData
    from rejudge.services._html_report import compare_page_data as compare_page_data
    from rejudge.services._html_report import report_page_data as report_page_data
    from rejudge.services._ingest import Evidence as Evidence
    from rejudge.services._ingest import IngestedRun as IngestedRun
    from rejudge.services._ingest import IngestResult as IngestResult
    from rejudge.services._ingest import SuiteSnapshot as SuiteSnapshot
    from rejudge.services._ingest import VerdictItem as VerdictItem
    from rejudge.services._ingest import evidence_of as evidence_of
    from rejudge.services._ingest import ingest as ingest
    from rejudge.services._ingest import ingest_run as ingest_run
    from rejudge.services._ingest import save_suite_source as save_suite_source
    from rejudge.services._ingest import stored_path as stored_path
    from rejudge.services._ingest_staged import StagedItem as StagedItem
    from rejudge.services._ingest_staged import ingest_staged as ingest_staged
    from rejudge.services._ingest_staged import staged_run_name as staged_run_name
    from rejudge.services._judge_calibration import MODEL_GRADED_TIER as MODEL_GRADED_TIER
    from rejudge.services._judge_calibration import (
        evaluation_judge_calibration as evaluation_judge_calibration,
    )
    from rejudge.services._judge_calibration import source_label as source_label
    from rejudge.services._judge_replay import JudgeCheck as JudgeCheck
    from rejudge.services._judge_replay import check_judge_cassettes as check_judge_cassettes
    from rejudge.services._judge_steps import evaluation_rows as evaluation_rows
    from rejudge.services._judge_steps import iter_evaluation_rows as iter_evaluation_rows
    from rejudge.services._judge_steps import judged_by as judged_by
    from rejudge.services._judging import RejudgePlan as RejudgePlan
    from rejudge.services._judging import applicable_tiers as applicable_tiers
    from rejudge.services._judging import evaluation_report as evaluation_report
    from rejudge.services._judging import find_current_evaluation as find_current_evaluation
    from rejudge.services._judging import judge_run as judge_run
    from rejudge.services._judging import judge_run_summary as judge_run_summary
    from rejudge.services._judging import plan_rejudge as plan_rejudge
    from rejudge.services._judging import rejudge as rejudge
    from rejudge.services._mcp import McpSuiteSnapshot as McpSuiteSnapshot
    from rejudge.services._mcp import mcp_world_for_suite as mcp_world_for_suite
    from rejudge.services._mcp import snapshot_mcp_suite as snapshot_mcp_suite
    from rejudge.services._model_graded import JUDGE_RECORD_MODES as JUDGE_RECORD_MODES
    from rejudge.services._model_graded import ModelGradedOptions as ModelGradedOptions
    from rejudge.services._model_graded import judge_item as judge_item
    from rejudge.services._model_graded import judge_run_model_graded as judge_run_model_graded
    from rejudge.services._model_graded import rubric_file as rubric_file
    from rejudge.services._partitions import ClusterError as ClusterError
    from rejudge.services._partitions import PartitionSpec as PartitionSpec
    from rejudge.services._partitions import judge_partition as judge_partition
    from rejudge.services._partitions import worker_identity as worker_identity
    from rejudge.services._reasons import evaluation_reasons as evaluation_reasons
    from rejudge.services._record import RecordSummary as RecordSummary
    from rejudge.services._record import commit_batch as commit_batch
    from rejudge.services._record import harness_assistance as harness_assistance
    from rejudge.services._record import record_suite as record_suite
    from rejudge.services._record import record_suite_async as record_suite_async
    from rejudge.services._record import run_status as run_status
    from rejudge.services._replay import open_trace_cassette as open_trace_cassette
    from rejudge.services._replay import rederive_trace as rederive_trace
    from rejudge.services._replay import renormalize_run as renormalize_run
    from rejudge.services._replay import replay_run as replay_run
    from rejudge.services._replay import replay_run_async as replay_run_async
    from rejudge.services._results_replay import ResultsFile as ResultsFile
    from rejudge.services._results_replay import read_results_file as read_results_file
    from rejudge.services._review_page import ReviewPageState as ReviewPageState
    from rejudge.services._review_page import evaluation_review_rows as evaluation_review_rows
    from rejudge.services._review_page import judgment_labels as judgment_labels
    from rejudge.services._review_page import label_judgment as label_judgment
    from rejudge.services._review_page import review_page_state as review_page_state
    from rejudge.services._review_page import review_stamp as review_stamp
    from rejudge.services._reviews import ReviewImport as ReviewImport
    from rejudge.services._reviews import ReviewQueueFile as ReviewQueueFile
    from rejudge.services._reviews import ReviewRow as ReviewRow
    from rejudge.services._reviews import calibration_summary as calibration_summary
    from rejudge.services._reviews import evaluation_queue as evaluation_queue
    from rejudge.services._reviews import import_review_csv as import_review_csv
    from rejudge.services._reviews import resolve_review as resolve_review
    from rejudge.services._reviews import review_gaps as review_gaps
    from rejudge.services._reviews import review_queue as review_queue
    from rejudge.services._reviews import review_queue_file as review_queue_file
    from rejudge.services._reviews import review_rows as review_rows
    from rejudge.services._reviews import unlabelled_queue as unlabelled_queue
    from rejudge.services._reviews import with_labels as with_labels
    from rejudge.services._run_anomalies import ANOMALIES_SHOWN as ANOMALIES_SHOWN
    from rejudge.services._run_anomalies import run_anomalies as run_anomalies
    from rejudge.services._suites import Published as Published
    from rejudge.services._suites import StoredSuiteSummary as StoredSuiteSummary
    from rejudge.services._suites import SuiteSummary as SuiteSummary
    from rejudge.services._suites import open_suite as open_suite
    from rejudge.services._suites import publish_suite as publish_suite
    from rejudge.services._suites import snapshot_suite as snapshot_suite
    from rejudge.services._suites import stored_suite_source as stored_suite_source
    from rejudge.services._suites import stored_suite_summaries as stored_suite_summaries
    from rejudge.services._suites import suite_summaries as suite_summaries
    from rejudge.services._suites import validate_named_suite as validate_named_suite
    from rejudge.services._sweep import FAILURE_COLUMNS as FAILURE_COLUMNS
    from rejudge.services._sweep import SweepOptions as SweepOptions
    from rejudge.services._sweep import run_sweep as run_sweep
    from rejudge.services._sweep import summarize_cell as summarize_cell
    from rejudge.services._sweep import timeout_failures as timeout_failures
    from rejudge.services._sweep_result import ArmFailureShares as ArmFailureShares
    from rejudge.services._sweep_result import ArmSuccess as ArmSuccess
    from rejudge.services._sweep_result import CellSummary as CellSummary
    from rejudge.services._sweep_result import SweepCell as SweepCell
    from rejudge.services._sweep_result import SweepResult as SweepResult
    from rejudge.services._sweep_result import SweepTable as SweepTable
    from rejudge.services._sweep_result import sweep_table as sweep_table
    from rejudge.services._timeline import LATENCY_HEADERS as LATENCY_HEADERS
    from rejudge.services._timeline import TIMELINE_VERDICTS as TIMELINE_VERDICTS
    from rejudge.services._timeline import cassette_step_facts as cassette_step_facts
    from rejudge.services._timeline import failing_timelines as failing_timelines
    from rejudge.services._timeline import flip_timelines as flip_timelines
    from rejudge.services._timeline import trace_timeline as trace_timeline
    from rejudge.services._verify import CHECKS as CHECKS
    from rejudge.services._verify import Check as Check
    from rejudge.services._verify import TraceCheck as TraceCheck
    from rejudge.services._verify import Verification as Verification
    from rejudge.services._verify import run_origin as run_origin
    from rejudge.services._verify import verify_run as verify_run


__getattr__, __dir__ = lazy_exports(__name__)
