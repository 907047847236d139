"""An evaluation's reasons, case by case: what the dashboard's download carries beside each
verdict and its causes (the report itself holds verdicts and causes, not the judge's words).

Read by the database as one field of each judgment body, never the whole body."""

from __future__ import annotations

from rejudge.store import Store

__all__ = ["evaluation_reasons"]


def evaluation_reasons(store: Store, evaluation_id: int) -> dict[tuple[str, int], tuple[str, ...]]:
    """(case, repetition) -> the judgment's reasons, in the judge's order (empty for a PASS
    that needed none)."""
    out: dict[tuple[str, int], tuple[str, ...]] = {}
    for row in store.judgments.iter_evaluation_rows(
        evaluation_id, body_paths={"reasons": ["reasons"]}
    ):
        reasons = row.paths.get("reasons") or []
        key = (str(row.case_key), int(row.repetition))
        out[key] = tuple(str(r) for r in reasons) if isinstance(reasons, list) else (str(reasons),)
    return out
