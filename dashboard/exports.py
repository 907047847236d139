"""What the Report page's download holds: the rows on screen with what they are rows of.

A CSV cut from a page is read later, away from the page: each row carries the run, the model,
the tier and the rule set it was judged under, beside the case, its verdict, its causes and the
judge's reasons (issue 39: the download held only case, verdict and causes). Pure: the page
passes the evaluation, its shown cases and their reasons (``rejudge.services``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

from rejudge.store import EvaluationSummary

from rejudge.model import ReportRow

__all__ = ["EXPORT_COLUMNS", "export_csv"]

EXPORT_COLUMNS = (
    "evaluation",
    "run",
    "model",
    "suite",
    "tier",
    "rules",
    "case",
    "repetition",
    "verdict",
    "causes",
    "reasons",
    "partial_score",
)


def export_csv(
    ev: EvaluationSummary,
    cases: Sequence[ReportRow],
    reasons: Mapping[tuple[str, int], Sequence[str]],
) -> str:
    """``cases`` of ``ev`` as CSV (header first); causes and reasons each one cell, joined by
    ``; `` and `` | `` (a reason may hold a semicolon, never a line break once joined)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for c in cases:
        said = reasons.get((c.case, c.repetition), ())
        writer.writerow(
            (
                ev.id,
                ev.run,
                ev.model,
                ev.suite,
                ev.tier,
                ev.rule_set,
                c.case,
                c.repetition,
                c.verdict or "",
                "; ".join(c.taxonomy),
                " | ".join(" ".join(str(r).split()) for r in said),
                "" if c.partial_score is None else c.partial_score,
            )
        )
    return out.getvalue()
