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
    # the hand-picked entry points a type checker sees for real (the rest resolve through the
    # lazy table as Any); tests/test_types.py checks them
    from rejudge.importers._cassettes import ImportResult as ImportResult
    from rejudge.importers._cassettes import import_cassettes as import_cassettes
    from rejudge.services._agreement import evaluation_agreement as evaluation_agreement
    from rejudge.services._agreement import run_agreement as run_agreement
    from rejudge.services._baseline import (
        check_evaluation_baseline as check_evaluation_baseline,
    )
    from rejudge.services._baseline import lock_evaluation_baseline as lock_evaluation_baseline
    from rejudge.services._capture import capture as capture
    from rejudge.services._capture import open_store as open_store
    from rejudge.services._compare import compare_evaluations as compare_evaluations
    from rejudge.services._cost import read_price_table as read_price_table
    from rejudge.services._cost import run_cost as run_cost
    from rejudge.services._demo import run_demo as run_demo
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
    from rejudge.services._demo_tau import tau2_model_vs_model as tau2_model_vs_model
    from rejudge.services._judge_calibration import (
        evaluation_judge_calibration as evaluation_judge_calibration,
    )
    from rejudge.services._judging import evaluation_report as evaluation_report
    from rejudge.services._judging import judge_run as judge_run
    from rejudge.services._record import record_suite as record_suite
    from rejudge.services._replay import renormalize_run as renormalize_run
    from rejudge.services._replay import replay_run as replay_run

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "CassetteView": "rejudge.services._exchanges",
    "ExchangeView": "rejudge.services._exchanges",
    "as_text": "rejudge.services._exchanges",
    "exchange_view": "rejudge.services._exchanges",
    "load_exchanges": "rejudge.services._exchanges",
    "DatabaseRevision": "rejudge.services._database",
    "RunsAndStatuses": "rejudge.services._database",
    "RunTraces": "rejudge.services._database",
    "database_revision": "rejudge.services._database",
    "list_runs_with_statuses": "rejudge.services._database",
    "run_traces": "rejudge.services._database",
    "upgrade_database": "rejudge.services._database",
    "ReviewQueueFile": "rejudge.services._reviews",
    "review_queue_file": "rejudge.services._reviews",
    "evaluation_agreement": "rejudge.services._agreement",
    "run_agreement": "rejudge.services._agreement",
    "evaluation_judge_calibration": "rejudge.services._judge_calibration",
    "MODEL_GRADED_TIER": "rejudge.services._judge_calibration",
    "source_label": "rejudge.services._judge_calibration",
    "check_evaluation_baseline": "rejudge.services._baseline",
    "lock_evaluation_baseline": "rejudge.services._baseline",
    "Capture": "rejudge.services._capture",
    "capture": "rejudge.services._capture",
    "open_store": "rejudge.services._capture",
    "evaluation_ci_results": "rejudge.services._ci",
    "evaluation_reasons": "rejudge.services._reasons",
    "read_price_table": "rejudge.services._cost",
    "run_cost": "rejudge.services._cost",
    "trace_cost": "rejudge.services._cost",
    "BASELINE_INPUTS": "rejudge.services._compare",
    "compare_evaluations": "rejudge.services._compare",
    "evaluation_inputs": "rejudge.services._compare",
    "evaluation_meta": "rejudge.services._compare",
    "DEMO_RULES": "rejudge.services._demo",
    "DEMO_TAU_RULES": "rejudge.services._demo_tau",
    "DEMO_SUITES": "rejudge.services._demo",
    "DEMO_TAU_RUN": "rejudge.services._demo",
    "DEMO_TAU2_FILES": "rejudge.services._demo_tau",
    "tau2_model_vs_model": "rejudge.services._demo_tau",
    "DEMO_REAL_WORLD": "rejudge.services._demo",
    "DemoError": "rejudge.services._demo",
    "DemoComparison": "rejudge.services._demo_result",
    "DemoEvaluation": "rejudge.services._demo_result",
    "DemoHeadline": "rejudge.services._demo_result",
    "DEMO_JUDGED": "rejudge.services._demo_judge",
    "DemoJudged": "rejudge.services._demo_judge",
    "DemoModelGraded": "rejudge.services._demo_judge",
    "demo_model_graded": "rejudge.services._demo_judge",
    "DemoResult": "rejudge.services._demo_result",
    "DemoRun": "rejudge.services._demo_result",
    "DemoSkipped": "rejudge.services._demo_result",
    "DemoSuite": "rejudge.services._demo_result",
    "DemoTierComparison": "rejudge.services._demo_result",
    "ModelVsModel": "rejudge.services._demo_result",
    "PassRate": "rejudge.services._demo_result",
    "Tau2Pair": "rejudge.services._demo_result",
    "Tau2PairedRewards": "rejudge.services._demo_result",
    "Tau2Run": "rejudge.services._demo_result",
    "cassette_roots": "rejudge.services._demo",
    "find_demo_cassettes": "rejudge.services._demo",
    "load_cassette_runs": "rejudge.services._demo",
    "run_demo": "rejudge.services._demo",
    "ClusterError": "rejudge.services._partitions",
    "DaskCluster": "rejudge.services._distributed",
    "DaskEngine": "rejudge.services._distributed",
    "check_versions": "rejudge.services._distributed",
    "connect_cluster": "rejudge.services._distributed",
    "ReadSpec": "rejudge.services._distributed_import",
    "cut_partitions": "rejudge.services._distributed_import",
    "import_identity": "rejudge.services._distributed_import",
    "plan_on_cluster": "rejudge.services._distributed_import",
    "read_partition": "rejudge.services._distributed_import",
    "open_cluster": "rejudge.services._distributed",
    "PartitionSpec": "rejudge.services._partitions",
    "judge_partition": "rejudge.services._partitions",
    "worker_identity": "rejudge.services._partitions",
    "evaluation_export_rows": "rejudge.services._export",
    "evaluation_verdicts": "rejudge.services._export",
    "ReportPageData": "rejudge.services._html_report",
    "ComparePageData": "rejudge.services._html_report",
    "report_page_data": "rejudge.services._html_report",
    "compare_page_data": "rejudge.services._html_report",
    "TIMELINE_VERDICTS": "rejudge.services._timeline",
    "LATENCY_HEADERS": "rejudge.services._timeline",
    "cassette_step_facts": "rejudge.services._timeline",
    "failing_timelines": "rejudge.services._timeline",
    "flip_timelines": "rejudge.services._timeline",
    "trace_timeline": "rejudge.services._timeline",
    "export_bfcl": "rejudge.services._export",
    "record_external_verdicts": "rejudge.services._external",
    "run_external_verdicts": "rejudge.services._external",
    "run_export_rows": "rejudge.services._export",
    "CHECKS": "rejudge.services._verify",
    "Check": "rejudge.services._verify",
    "TraceCheck": "rejudge.services._verify",
    "Verification": "rejudge.services._verify",
    "run_origin": "rejudge.services._verify",
    "verify_run": "rejudge.services._verify",
    "ResultsFile": "rejudge.services._results_replay",
    "read_results_file": "rejudge.services._results_replay",
    "open_trace_cassette": "rejudge.services._replay",
    "rederive_trace": "rejudge.services._replay",
    "EVIDENCE_PATH_FORMAT": "rejudge.services._evidence_paths",
    "evidence_path": "rejudge.services._evidence_paths",
    "resolve_evidence_path": "rejudge.services._evidence_paths",
    "shipped_cassette_roots": "rejudge.services._evidence_paths",
    "Evidence": "rejudge.services._ingest",
    "IngestResult": "rejudge.services._ingest",
    "IngestedRun": "rejudge.services._ingest",
    "SuiteSnapshot": "rejudge.services._ingest",
    "VerdictItem": "rejudge.services._ingest",
    "ingest_run": "rejudge.services._ingest",
    "StagedItem": "rejudge.services._ingest_staged",
    "ingest_staged": "rejudge.services._ingest_staged",
    "staged_run_name": "rejudge.services._ingest_staged",
    "evidence_of": "rejudge.services._ingest",
    "ingest": "rejudge.services._ingest",
    "save_suite_source": "rejudge.services._ingest",
    "stored_path": "rejudge.services._ingest",
    "JUDGE_RECORD_MODES": "rejudge.services._model_graded",
    "ModelGradedOptions": "rejudge.services._model_graded",
    "judge_item": "rejudge.services._model_graded",
    "judged_by": "rejudge.services._judge_steps",
    "judge_run_model_graded": "rejudge.services._model_graded",
    "rubric_file": "rejudge.services._model_graded",
    "JudgeCheck": "rejudge.services._judge_replay",
    "check_judge_cassettes": "rejudge.services._judge_replay",
    "RejudgePlan": "rejudge.services._judging",
    "applicable_tiers": "rejudge.services._judging",
    "evaluation_report": "rejudge.services._judging",
    "evaluation_rows": "rejudge.services._judge_steps",
    "find_current_evaluation": "rejudge.services._judging",
    "iter_evaluation_rows": "rejudge.services._judge_steps",
    "judge_run": "rejudge.services._judging",
    "judge_run_summary": "rejudge.services._judging",
    "plan_rejudge": "rejudge.services._judging",
    "rejudge": "rejudge.services._judging",
    "McpSuiteSnapshot": "rejudge.services._mcp",
    "mcp_world_for_suite": "rejudge.services._mcp",
    "snapshot_mcp_suite": "rejudge.services._mcp",
    "RecordSummary": "rejudge.services._record",
    "harness_assistance": "rejudge.services._record",
    "commit_batch": "rejudge.services._record",
    "record_suite": "rejudge.services._record",
    "record_suite_async": "rejudge.services._record",
    "run_status": "rejudge.services._record",
    "renormalize_run": "rejudge.services._replay",
    "replay_run": "rejudge.services._replay",
    "replay_run_async": "rejudge.services._replay",
    "ReviewPageState": "rejudge.services._review_page",
    "judgment_labels": "rejudge.services._review_page",
    "label_judgment": "rejudge.services._review_page",
    "review_page_state": "rejudge.services._review_page",
    "evaluation_review_rows": "rejudge.services._review_page",
    "review_stamp": "rejudge.services._review_page",
    "calibration_summary": "rejudge.services._reviews",
    "import_review_csv": "rejudge.services._reviews",
    "resolve_review": "rejudge.services._reviews",
    "review_gaps": "rejudge.services._reviews",
    "review_queue": "rejudge.services._reviews",
    "unlabelled_queue": "rejudge.services._reviews",
    "with_labels": "rejudge.services._reviews",
    "review_rows": "rejudge.services._reviews",
    "ReviewRow": "rejudge.services._reviews",
    "Published": "rejudge.services._suites",
    "open_suite": "rejudge.services._suites",
    "publish_suite": "rejudge.services._suites",
    "snapshot_suite": "rejudge.services._suites",
    "stored_suite_source": "rejudge.services._suites",
    "stored_suite_summaries": "rejudge.services._suites",
    "suite_summaries": "rejudge.services._suites",
    "validate_named_suite": "rejudge.services._suites",
    "FAILURE_COLUMNS": "rejudge.services._sweep",
    "SweepOptions": "rejudge.services._sweep",
    "run_sweep": "rejudge.services._sweep",
    "summarize_cell": "rejudge.services._sweep",
    "sweep_table": "rejudge.services._sweep",
    "timeout_failures": "rejudge.services._sweep",
}

# the importers' names, still importable from here as before they had a package of their own;
# rejudge.importers' table is the one that says which module defines each
_EXPORTS.update(
    dict.fromkeys(
        "ImportResult InspectImportResult import_inspect import_cassettes TauImportResult "
        "import_tau_bench read_tau_file BfclResultImport import_bfcl import_bfcl_results "
        "Importer ReplaySource Rederive get_importer importer_names importer_rows "
        "register_importer replay_source".split(),
        "rejudge.importers",
    )
)

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
