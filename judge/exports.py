"""Analysis exports: one row per case and repetition of an evaluation (verdict, causes, partial
score, review label and every input hash), or one row per trace of a run, for ``rejudge export``
(CSV, JSON Lines, Parquet). The column lists are the documented formats (docs/calibration.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rejudge.store.repository import Store
from rejudge.store.reviews import list_reviews

from .calibration import item_label, latest_labels, review_rows

__all__ = [
    "EVALUATION_EXPORT_COLUMNS",
    "RUN_EXPORT_COLUMNS",
    "evaluation_export_rows",
    "run_export_rows",
]


#: (column, type, meaning) of ``rejudge export EVAL``: one row per case and repetition
EVALUATION_EXPORT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("evaluation", "int", "evaluation id"),
    ("run", "string", "run name"),
    ("suite", "string", "suite name"),
    ("model", "string", "model the run recorded"),
    ("provider", "string", "provider wire format"),
    ("harness_mode", "string", "production-parity or oracle-assisted"),
    ("tier", "string", "tier judged under"),
    ("rules", "string", "rule set NAME@VERSION"),
    ("case", "string", "case id"),
    ("repetition", "int", "repetition (0-based)"),
    ("dimension", "string", "case dimension"),
    ("category", "string", "case category"),
    ("verdict", "string", "PASS, FAIL, SKIP or AGENT_ERROR"),
    ("taxonomy", "list<string>", "failure causes in precedence order (CSV: space-separated)"),
    ("partial_score", "float?", "diagnostic partial score, empty when none"),
    ("anomalies", "list<string>", "anomaly flags (CSV: space-separated)"),
    ("review_label", "string?", "agreed review label, 'disputed', or empty when unreviewed"),
    ("judgment_key", "string", "judgment key (hash of every input below)"),
    ("judgment_hash", "string", "hash of the judgment's content"),
    ("trace_hash", "string", "hash of the normalized trace"),
    ("case_hash", "string", "hash of the case (with its golden calls)"),
    ("registry_hash", "string", "hash of the tool registry"),
    ("rule_set_hash", "string", "hash of the rule set"),
    ("engine_version", "string", "judge engine version"),
    ("suite_hash", "string", "hash of the suite snapshot the run recorded"),
    ("config_hash", "string", "hash of the run configuration"),
    ("prompt_hash", "string?", "hash of the system prompt, empty when none"),
)

#: (column, type, meaning) of ``rejudge export run RUN``: one row per trace
RUN_EXPORT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run", "string", "run name"),
    ("model", "string", "model"),
    ("suite", "string", "suite name"),
    ("case", "string", "case id"),
    ("repetition", "int", "repetition (0-based)"),
    ("status", "string", "trace status (completed, agent_error, ...)"),
    ("trace_hash", "string", "hash of the normalized trace"),
    ("rounds", "int", "number of rounds"),
    ("calls", "int", "number of tool calls"),
    ("cassette_path", "string?", "cassette file, relative to the cassettes folder"),
    ("cassette_hash", "string?", "hash of the cassette file"),
    ("normalizer_version", "string?", "normalizer version that derived the trace"),
    ("trace", "object", "the normalized trace (rounds, calls, results, usage, timings)"),
)


def evaluation_export_rows(store: Store, evaluation_id: int | str) -> Iterator[dict[str, Any]]:
    """One dict per case and repetition, keys of :data:`EVALUATION_EXPORT_COLUMNS`, case order."""
    ev = store.get_evaluation(evaluation_id)
    run = store.get_run(ev.run_id)
    suite = store.get_suite_by_id(run.suite_id)
    rules = store.get_rule_set(ev.rule_set_id).ref
    rows = review_rows(store, ev.id)
    latest = latest_labels(r.as_dict() for r in list_reviews(store, evaluation_id=ev.id))
    for r in rows:
        yield {
            "evaluation": ev.id,
            "run": run.name,
            "suite": suite.name,
            "model": run.model,
            "provider": run.provider,
            "harness_mode": run.harness_mode,
            "tier": r["tier"],
            "rules": rules,
            "case": r["case"],
            "repetition": int(r["repetition"]),
            "dimension": r["dimension"],
            "category": r["category"],
            "verdict": r["verdict"],
            "taxonomy": r["taxonomy"],
            "partial_score": None if r["partial_score"] is None else float(r["partial_score"]),
            "anomalies": r["anomalies"],
            "review_label": item_label(latest.get(r["judgment_id"], {})),
            "judgment_key": r["judgment_key"],
            "judgment_hash": r["judgment_hash"],
            "trace_hash": r["trace_hash"],
            "case_hash": r["case_hash"],
            "registry_hash": r["registry_hash"],
            "rule_set_hash": r["rule_set_hash"],
            "engine_version": r["engine_version"],
            "suite_hash": run.suite_hash,
            "config_hash": run.config_hash,
            "prompt_hash": run.prompt_hash,
        }


def run_export_rows(store: Store, run_ref: str | int) -> Iterator[dict[str, Any]]:
    """One dict per trace of a run (streamed), keys of :data:`RUN_EXPORT_COLUMNS`."""
    run = store.get_run(run_ref)
    suite = store.get_suite_by_id(run.suite_id)
    for stored in store.iter_traces(run.id):
        trace = stored.trace
        yield {
            "run": run.name,
            "model": run.model,
            "suite": suite.name,
            "case": stored.case_key,
            "repetition": stored.repetition,
            "status": trace.status,
            "trace_hash": stored.hash,
            "rounds": len(trace.rounds),
            "calls": sum(len(r.calls) for r in trace.rounds),
            "cassette_path": stored.cassette_path,
            "cassette_hash": stored.cassette_hash,
            "normalizer_version": trace.normalizer_version,
            "trace": trace.model_dump(mode="json"),
        }
