"""Analysis exports read from the store: one row per case and repetition of an evaluation, or one
row per trace of a run, with the columns :mod:`rejudge.judge._exports` documents; and an
evaluation as BFCL score files (built by :func:`rejudge.importers.score_files`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.judge import ExportedVerdict, item_label, latest_labels
from rejudge.store import EvaluationRecord, Store

from ._reviews import review_rows

__all__ = ["evaluation_export_rows", "evaluation_verdicts", "export_bfcl", "run_export_rows"]


def evaluation_export_rows(store: Store, evaluation_id: int | str) -> Iterator[dict[str, Any]]:
    """One dict per case and repetition, keys of :data:`EVALUATION_EXPORT_COLUMNS`, case order.
    The evaluation is looked up now: an unknown one fails before anything is written."""
    return _evaluation_export_rows(store, store.evaluations.get_evaluation(evaluation_id))


def _evaluation_export_rows(store: Store, ev: EvaluationRecord) -> Iterator[dict[str, Any]]:
    run = store.runs.get_run(ev.run_id)
    suite = store.suites.get_suite_by_id(run.suite_id)
    rules = store.rule_sets.get_rule_set(ev.rule_set_id).ref
    rows = review_rows(store, ev.id)
    latest = latest_labels(store.reviews.list_reviews(evaluation_id=ev.id))
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


def evaluation_verdicts(store: Store, evaluation_id: int | str) -> Iterator[ExportedVerdict]:
    """An evaluation's judgments as :class:`ExportedVerdict` (case order, streamed), each with
    the judge's reasons and the ids its trace had where it was imported from."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    run = store.runs.get_run(ev.run_id)
    rules = store.rule_sets.get_rule_set(ev.rule_set_id).ref
    judged_at = ev.finished_at or ev.created_at
    source_ids = _source_ids(store, run.id)
    for r in store.judgments.iter_evaluation_rows(ev.id, body_paths={"reasons": ["reasons"]}):
        reasons = r.paths.get("reasons")
        yield ExportedVerdict(
            evaluation=ev.id,
            run=run.name,
            case=r.case_key,
            repetition=int(r.repetition),
            tier=r.tier,
            rules=rules,
            verdict=r.verdict,
            judgment_key=r.judgment_key,
            trace_hash=r.trace_hash,
            judged_at=judged_at,
            taxonomy=tuple(r.taxonomy or ()),
            partial_score=None if r.partial_score is None else float(r.partial_score),
            reasons=tuple(str(x) for x in reasons) if isinstance(reasons, list) else (),
            source_ids=source_ids.get(r.trace_id, {}),
        )


def _source_ids(store: Store, run_id: int) -> dict[int, dict[str, str]]:
    """Trace id -> the trace's source ids, for the traces that have any (imported ones). The
    bodies are read as text and only those naming ``source_ids`` decoded: no trace is
    validated into the model to learn that it has none."""
    out: dict[int, dict[str, str]] = {}
    for row in store.traces.iter_trace_rows(run_id):
        text = row.body
        if text is None or '"source_ids"' not in text:
            continue
        ids = json.loads(text).get("source_ids")
        if isinstance(ids, dict) and ids:
            out[row.id] = {str(k): str(v) for k, v in ids.items()}
    return out


def run_export_rows(store: Store, run_ref: str | int) -> Iterator[dict[str, Any]]:
    """One dict per trace of a run (streamed), keys of :data:`RUN_EXPORT_COLUMNS`."""
    run = store.runs.get_run(run_ref)
    suite = store.suites.get_suite_by_id(run.suite_id)
    for stored in store.traces.iter_traces(run.id):
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


def export_bfcl(
    store: Store,
    evaluation_id: int | str,
    out_dir: Path | str,
    *,
    model_name: str | None = None,
    repetition: int = 0,
) -> list[dict[str, Any]]:
    """Write an evaluation as BFCL score files, ``<out>/<model>/<non_live|live>/
    BFCL_v4_<category>_score.json`` (the accuracy line, then one line per failed case); returns
    one summary per file written. One repetition is exported; a SKIPped case is left out."""
    from rejudge.importers import score_file_path, score_files

    evaluation = store.evaluations.get_evaluation(evaluation_id)
    run = store.runs.get_run(evaluation.run_id)
    cases = {key: case for key, (_pk, case) in store.suites.get_cases(run.suite_id).items()}
    traces = {
        st.id: st.trace for st in store.traces.iter_traces(run.id) if st.repetition == repetition
    }
    model = model_name or run.model
    files = score_files(
        store.judgments.iter_evaluation_rows(evaluation.id, with_body=True),
        cases,
        traces,
        model,
        repetition,
    )
    if not files:
        raise InvalidInputError(
            f"evaluation {evaluation.id} has no judged traces for repetition {repetition}"
        )
    written: list[dict[str, Any]] = []
    for category, lines in files.items():
        path = score_file_path(out_dir, model, category)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines),
            encoding="utf-8",
        )
        written.append({"category": category, "path": str(path), **lines[0]})
    return written
