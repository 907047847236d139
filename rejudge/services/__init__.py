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

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "judge_run": "rejudge.services.judging",
    "judge_run_summary": "rejudge.services.judging",
    "evaluation_rows": "rejudge.services.judging",
    "iter_evaluation_rows": "rejudge.services.judging",
    "evaluation_report": "rejudge.services.judging",
    "RejudgePlan": "rejudge.services.judging",
    "plan_rejudge": "rejudge.services.judging",
    "rejudge": "rejudge.services.judging",
    "applicable_tiers": "rejudge.services.judging",
    "find_current_evaluation": "rejudge.services.judging",
    "evaluation_meta": "rejudge.services.compare",
    "evaluation_inputs": "rejudge.services.compare",
    "compare_evaluations": "rejudge.services.compare",
    "lock_evaluation_baseline": "rejudge.services.baseline",
    "check_evaluation_baseline": "rejudge.services.baseline",
    "review_rows": "rejudge.services.reviews",
    "calibration_summary": "rejudge.services.reviews",
    "review_gaps": "rejudge.services.reviews",
    "review_queue": "rejudge.services.reviews",
    "import_review_csv": "rejudge.services.reviews",
    "resolve_review": "rejudge.services.reviews",
    "evaluation_export_rows": "rejudge.services.export",
    "run_export_rows": "rejudge.services.export",
    "SweepOptions": "rejudge.services.sweep",
    "run_sweep": "rejudge.services.sweep",
    "summarize_cell": "rejudge.services.sweep",
    "timeout_failures": "rejudge.services.sweep",
    "sweep_table": "rejudge.services.sweep",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
