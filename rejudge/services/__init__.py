"""Use cases that read and write the store: ingest, judging, comparisons, baselines, exports,
reviews, sweeps and the demo. The CLI and the dashboard call these; pure code never does.

The package's public names, imported lazily (``import rejudge.services`` loads neither the store
nor the judge)::

    from rejudge.services import judge_run, evaluation_report
    result = judge_run(store, "my-run", "golden", load_rule_set("standard@2"))
    report = evaluation_report(store, result.evaluation_id)
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "check_evaluation_baseline": "rejudge.services._baseline",
    "lock_evaluation_baseline": "rejudge.services._baseline",
    "Capture": "rejudge.services._capture",
    "capture": "rejudge.services._capture",
    "open_store": "rejudge.services._capture",
    "BASELINE_INPUTS": "rejudge.services._compare",
    "compare_evaluations": "rejudge.services._compare",
    "evaluation_inputs": "rejudge.services._compare",
    "evaluation_meta": "rejudge.services._compare",
    "DEMO_RULES": "rejudge.services._demo",
    "DEMO_SUITES": "rejudge.services._demo",
    "DemoError": "rejudge.services._demo",
    "DemoResult": "rejudge.services._demo",
    "cassette_roots": "rejudge.services._demo",
    "find_demo_cassettes": "rejudge.services._demo",
    "load_cassette_runs": "rejudge.services._demo",
    "run_demo": "rejudge.services._demo",
    "ClusterError": "rejudge.services._distributed",
    "DaskCluster": "rejudge.services._distributed",
    "DaskEngine": "rejudge.services._distributed",
    "check_versions": "rejudge.services._distributed",
    "open_cluster": "rejudge.services._distributed",
    "PartitionSpec": "rejudge.services._partitions",
    "judge_partition": "rejudge.services._partitions",
    "worker_identity": "rejudge.services._partitions",
    "evaluation_export_rows": "rejudge.services._export",
    "run_export_rows": "rejudge.services._export",
    "ImportResult": "rejudge.services._imports",
    "import_cassettes": "rejudge.services._imports",
    "Evidence": "rejudge.services._ingest",
    "IngestResult": "rejudge.services._ingest",
    "evidence_of": "rejudge.services._ingest",
    "ingest": "rejudge.services._ingest",
    "save_suite_source": "rejudge.services._ingest",
    "stored_path": "rejudge.services._ingest",
    "RejudgePlan": "rejudge.services._judging",
    "applicable_tiers": "rejudge.services._judging",
    "evaluation_report": "rejudge.services._judging",
    "evaluation_rows": "rejudge.services._judging",
    "find_current_evaluation": "rejudge.services._judging",
    "iter_evaluation_rows": "rejudge.services._judging",
    "judge_run": "rejudge.services._judging",
    "judge_run_summary": "rejudge.services._judging",
    "plan_rejudge": "rejudge.services._judging",
    "rejudge": "rejudge.services._judging",
    "RecordSummary": "rejudge.services._record",
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
    "calibration_summary": "rejudge.services._reviews",
    "import_review_csv": "rejudge.services._reviews",
    "resolve_review": "rejudge.services._reviews",
    "review_gaps": "rejudge.services._reviews",
    "review_queue": "rejudge.services._reviews",
    "review_rows": "rejudge.services._reviews",
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

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
