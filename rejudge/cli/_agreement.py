"""How ``rejudge report EVAL --against external`` (and the demo) print an agreement view."""

from __future__ import annotations

from rich.console import Console

from rejudge.cli._context import table
from rejudge.cli._figures import pass_hat_k, rate
from rejudge.model import Agreement

__all__ = ["render_agreement"]


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render_agreement(c: Console, result: Agreement, *, max_listed: int = 10) -> None:
    hat = pass_hat_k(result.external_pass_hat_k)
    c.print(
        f"run {result.run} against {result.source}: {result.traces} trace(s), "
        f"{result.source} success {result.external_success()}; its pass^k {hat}",
        markup=False,
    )
    if result.rules is not None and result.rules_reason is not None:
        # which rule set the tiers are taken under, and why (report --against external)
        versions = ", ".join(v or "not recorded" for v in result.external_versions)
        c.print(
            f"{result.source} reward version: {versions or 'not recorded'}; "
            f"rules {result.rules}: {result.rules_reason}",
            markup=False,
        )
    rows = []
    for t in result.tiers:
        tb = t.table
        rows.append(
            [
                t.tier,
                t.evaluation,
                tb.pass_1,
                tb.pass_0,
                tb.fail_1,
                tb.fail_0,
                # with its count: "100.0%" alone hides whether it is of 2 traces or 200
                rate(tb.pass_1 + tb.fail_0, tb.total),
                _num(tb.kappa),
                t.not_scored + t.no_external,
            ]
        )
    c.print(
        table(
            f"rejudge vs {result.source} (rows: rejudge PASS/FAIL; columns: {result.source} 1/0)",
            ["tier", "eval", "PASS/1", "PASS/0", "FAIL/1", "FAIL/0", "agree", "kappa", "left out"],
            rows,
        )
    )
    for t in result.tiers:
        if not t.disagreements:
            c.print(f"{t.tier}: no disagreement", markup=False)
            continue
        top = ", ".join(f"{code} {n}" for code, n in list(t.causes.items())[:5]) or "none"
        c.print(
            f"{t.tier}: {len(t.disagreements)} disagreement(s); causes rejudge names where "
            f"{result.source} gave 1: {top}",
            markup=False,
        )
        for d in t.disagreements[:max_listed]:
            why = d.reasons[0] if d.reasons else "rejudge found nothing wrong"
            c.print(
                f"  {d.case} r{d.repetition}: {d.kind} ({', '.join(d.causes) or '-'}): {why}",
                markup=False,
            )
        if len(t.disagreements) > max_listed:
            c.print(
                f"  ... {len(t.disagreements) - max_listed} more (--json lists all)", markup=False
            )
