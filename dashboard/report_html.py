"""``rejudge report EVAL --html FILE``: an evaluation's report as one static HTML page.

It shows what ``rejudge report EVAL --json`` holds (the same :class:`EvaluationReport`, built by
the same service): the summary with the counts beside every rate, the failure causes, the
calibration (a model judge's agreement with reviews, other tiers and external verdicts, with
the weak-judge line; the human-review figures; the run's tiers against external verdicts when
the run has them), every case, and the timeline of each failing trace, folded.

Pure: it takes typed results and timelines and returns text (:mod:`.html_page` has the frame).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rejudge.dashboard.html_page import esc, figure, figures, page, pct, rate, table
from rejudge.dashboard.timeline_html import timeline_html, timeline_summary

from rejudge.model import Agreement, EvaluationReport, JudgeCalibration, Timeline, VerdictSummary

__all__ = ["report_page", "timelines_section", "agreement_section"]


def _summary(report: EvaluationReport) -> str:
    s = report.summary
    c = s.verdict_counts
    items = [
        figure(
            "accuracy",
            "Accuracy",
            rate(s.accuracy, c.PASS, s.scored_count, "scored"),
            s.accuracy,
            note="PASS over PASS + FAIL; SKIP and AGENT_ERROR are not scored",
        ),
        figure("PASS", "PASS", str(c.PASS), c.PASS),
        figure("FAIL", "FAIL", str(c.FAIL), c.FAIL),
        figure("SKIP", "SKIP", str(c.SKIP), c.SKIP),
        figure("AGENT_ERROR", "AGENT_ERROR", str(c.AGENT_ERROR), c.AGENT_ERROR),
        figure("cases", "Traces", str(len(report.cases)), len(report.cases)),
        figure(
            "average_partial_score",
            "Average partial score",
            "n/a" if s.average_partial_score is None else f"{s.average_partial_score:.3f}",
            s.average_partial_score,
            note="diagnostic only: never decides a verdict",
        ),
    ]
    parts = [figures(items)]
    for title, groups in (("By dimension", s.dimensions), ("By suite", s.suites)):
        if groups:
            parts.append(f"<h3>{title}</h3>" + _groups(title.split()[-1], groups))
    if s.taxonomy_counts:
        fails = c.FAIL
        rows = [
            [k, n, rate(n / fails if fails else None, n, fails, "FAILs")]
            for k, n in s.taxonomy_counts.items()
        ]
        parts.append(
            "<h3>Failure causes</h3>" + table(["cause", "FAILs", "share"], rows, numeric=2)
        )
    if s.top_failures:
        rows = [[t.code, t.count, rate(t.share, t.count, c.FAIL, "FAILs")] for t in s.top_failures]
        parts.append(
            "<h3>Top failures (primary cause)</h3>"
            + table(["cause", "FAILs", "share"], rows, numeric=2)
        )
    if s.worst_tools:
        rows = [[w.tool, w.failures] for w in s.worst_tools]
        parts.append("<h3>Worst tools</h3>" + table(["tool", "FAILs"], rows, numeric=1))
    if s.pass_at_k is not None:
        scored: dict[str, int] = {}
        for row in report.cases:
            if row.verdict in ("PASS", "FAIL"):
                scored[row.case] = scored.get(row.case, 0) + 1
        rows = [
            [k, pct(v), sum(1 for n in scored.values() if n >= k)]
            for k, v in s.pass_at_k.values.items()
        ]
        parts.append(
            "<h3>pass^k</h3>"
            + '<p class="rj-note">over the cases with at least k scored repetitions</p>'
            + table(["k", "pass^k", "cases"], rows, numeric=2)
        )
    if s.anomalies:
        rows = [[a.case, a.repetition, ", ".join(a.flags)] for a in s.anomalies]
        parts.append(
            f"<details><summary>Anomalies ({len(rows)})</summary>"
            + table(["case", "rep", "flags"], rows)
            + "</details>"
        )
    if s.harness_mode:
        parts.append(f'<p class="rj-note">harness mode {esc(s.harness_mode)}</p>')
    return "".join(parts)


def _groups(name: str, groups: Mapping[str, VerdictSummary]) -> str:
    rows = [
        [
            key,
            g.cases,
            g.verdict_counts.PASS,
            g.verdict_counts.FAIL,
            g.verdict_counts.SKIP + g.verdict_counts.AGENT_ERROR,
            rate(g.accuracy, g.verdict_counts.PASS, g.scored_count, "scored"),
        ]
        for key, g in groups.items()
    ]
    return table([name, "traces", "PASS", "FAIL", "other", "accuracy"], rows, numeric=5)


def _judge_calibration(cal: JudgeCalibration) -> str:
    cls = "rj-warn" if cal.warning else ""
    parts = [f'<p class="{cls}">{esc(cal.headline)}</p>']
    if cal.against:
        rows = [
            a.row(rate(a.table.agreement, a.table.pass_1 + a.table.fail_0, a.table.total))
            for a in cal.against
        ]
        columns = ["against", "unit", "both scored", "PASS·1", "PASS·0", "FAIL·1", "FAIL·0"]
        columns += ["agreement", "kappa", "stricter", "judge unscored"]
        parts.append(table(columns, rows))
    return f"<h3>Model judge ({esc(cal.judge or cal.tier)})</h3>" + "".join(parts)


def _review(cal: Mapping[str, Any]) -> str:
    fails, passes = cal["fails"], cal["passes"]
    kappa = cal["agreement"]["kappa"]
    lines = [
        f"{cal['reviewed']} of {cal['judgments']} judgment(s) reviewed by people; "
        f"FAILs {rate(fails['coverage'], fails['reviewed'], fails['total'], 'reviewed')}, "
        f"PASSes {rate(passes['coverage'], passes['reviewed'], passes['total'], 'reviewed')}",
        f"judge misjudgment rate {pct(cal['misjudgment_rate'])} ({cal['misjudged']} judged "
        f"wrong), golden errors {cal['golden_errors']}, unclear {cal['unclear']}, disputed "
        f"{cal['disputed']}, reviewers' kappa {'n/a' if kappa is None else f'{kappa:.3f}'} over "
        f"{cal['agreement']['double_reviewed']} double-reviewed item(s)",
    ]
    body = "".join(f"<p>{esc(line)}</p>" for line in lines)
    if cal.get("flagged"):
        rows = [
            [
                f["case"],
                f["repetition"],
                f["label"],
                f["reviewer"],
                f["resolution"] if f["resolved"] else "open",
            ]
            for f in cal["flagged"]
        ]
        body += table(["case", "rep", "label", "reviewer", "status"], rows)
    return "<h3>Human review</h3>" + body


def agreement_section(agreement: Agreement) -> str:
    """A run's tiers against one source's external verdicts (``report --against external``)."""
    src = agreement.source
    head = (
        f"<h3>Against {esc(src)}'s verdicts</h3><p>{esc(agreement.traces)} trace(s); "
        f"{esc(src)} success {esc(agreement.external_success())}"
        + (
            f"; rules {esc(agreement.rules)}: {esc(agreement.rules_reason)}"
            if agreement.rules
            else ""
        )
        + "</p>"
    )
    rows = [
        [
            t.tier,
            t.table.pass_1,
            t.table.pass_0,
            t.table.fail_1,
            t.table.fail_0,
            rate(t.table.agreement, t.table.pass_1 + t.table.fail_0, t.table.total),
            "n/a" if t.table.kappa is None else f"{t.table.kappa:.3f}",
            t.not_scored + t.no_external,
            ", ".join(f"{k} {n}" for k, n in list(t.causes.items())[:5]) or "—",
        ]
        for t in agreement.tiers
    ]
    columns = ["tier", "PASS·1", "PASS·0", "FAIL·1", "FAIL·0", "agreement", "kappa"]
    columns += ["left out", "causes where the source gave 1"]
    return head + table(columns, rows)


def _calibration(report: EvaluationReport, agreements: Iterable[Agreement]) -> str:
    parts = []
    if report.judge_calibration is not None:
        parts.append(_judge_calibration(report.judge_calibration))
    if report.calibration:  # none reviewed yet is a figure too (0 of N)
        parts.append(_review(report.calibration))
    parts.extend(agreement_section(a) for a in agreements)
    if not parts:
        return (
            '<p class="rj-note">Nothing to calibrate against: no human review, no external '
            "verdicts and no model judge in this evaluation.</p>"
        )
    return "".join(parts)


def timelines_section(title: str, timelines: Iterable[Timeline], *, empty: str) -> str:
    """Each timeline folded under its one-line summary (case, verdict, causes, size, time)."""
    items = [
        f'<details class="rj-trace"><summary>{esc(timeline_summary(t))}</summary>'
        f"{timeline_html(t, inline=False)}</details>"
        for t in timelines
    ]
    if not items:
        return f'<h2>{esc(title)}</h2><p class="rj-note">{esc(empty)}</p>'
    return f"<h2>{esc(title)} ({len(items)})</h2>" + "".join(items)


def report_page(
    report: EvaluationReport,
    timelines: Iterable[Timeline],
    *,
    agreements: Iterable[Agreement] = (),
    generator: str = "rejudge",
) -> str:
    """The whole page (see the module)."""
    title = f"rejudge report: evaluation {report.evaluation}"
    head = (
        f"<h1>{esc(title)}</h1>"
        f"<p>run <b>{esc(report.run)}</b> · tier <b>{esc(report.tier)}</b> · rules "
        f"<b>{esc(report.rules)}</b></p>"
    )
    warning = ""
    if report.judge_calibration is not None and report.judge_calibration.warning:
        warning = f'<p class="rj-warn">{esc(report.judge_calibration.headline)}</p>'
    cases = table(
        ["case", "rep", "verdict", "causes", "partial"],
        [
            [
                r.case,
                r.repetition,
                r.verdict,
                " ".join(r.taxonomy),
                "" if r.partial_score is None else f"{r.partial_score:.2f}",
            ]
            for r in report.cases
        ],
    )
    body = (
        head
        + warning
        + "<h2>Summary</h2>"
        + _summary(report)
        + "<h2>Calibration</h2>"
        + _calibration(report, agreements)
        + timelines_section(
            "Failing traces", timelines, empty="No trace failed (FAIL or AGENT_ERROR)."
        )
        + f"<h2>Every case ({len(report.cases)})</h2>"
        + f"<details><summary>{len(report.cases)} row(s)</summary>{cases}</details>"
    )
    return page(title, body, generator=generator)
