"""``rejudge compare A B --html FILE``: a comparison as one static HTML page.

It shows what ``rejudge compare A B --json`` holds (the same :class:`Comparison`): what A and B
differ in and the one sentence that reads the comparison (:meth:`Comparison.reading`, so the
page cannot word it otherwise than the terminal), the accuracies with their counts, the flips
and their causes, the judges' agreement for a judge comparison, per-dimension deltas, and the
timeline of each flipped trace, folded.

Pure: it takes typed results and timelines and returns text (:mod:`.html_page` has the frame).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rejudge.dashboard.html_page import esc, figure, figures, page, pct, rate, table
from rejudge.dashboard.report_html import timelines_section

from rejudge.model import Comparison, Timeline, VerdictCounts

__all__ = ["compare_page"]


def _side(name: str, evaluation: object, meta: Mapping[str, Any]) -> str:
    return (
        f"<p><b>{name}</b>: evaluation {esc(evaluation)} · run <b>{esc(meta.get('run'))}</b> · "
        f"tier <b>{esc(meta.get('tier'))}</b> · rules <b>{esc(meta.get('rules'))}</b></p>"
    )


def _accuracy(key: str, label: str, value: float | None, counts: VerdictCounts) -> str:
    return figure(key, label, rate(value, counts.PASS, counts.scored, "scored"), value)


def _judge_lines(c: Comparison) -> str:
    """A model judge's line for each side judged by one (red when weak), the CLI's words."""
    return "".join(
        f'<p class="{"rj-warn" if weak else ""}">{esc(line)}</p>'
        for line, weak in c.judge_headlines()
    )


def _figures(c: Comparison) -> str:
    d = c.discordant
    delta = "n/a" if c.accuracy_delta is None else f"{100 * c.accuracy_delta:+.1f} pts"
    items = [
        _accuracy("accuracy_a", "Accuracy A", c.accuracy_a, c.verdict_counts_a),
        _accuracy("accuracy_b", "Accuracy B", c.accuracy_b, c.verdict_counts_b),
        figure("accuracy_delta", "B − A", delta, c.accuracy_delta),
        figure("paired", "Paired traces", str(c.paired), c.paired),
        figure("pass_to_fail", "PASS → FAIL", str(d["pass_to_fail"]), d["pass_to_fail"]),
        figure("fail_to_pass", "FAIL → PASS", str(d["fail_to_pass"]), d["fail_to_pass"]),
        figure("flips", "Flips", str(len(c.flips)), len(c.flips)),
    ]
    if c.mcnemar_p is not None:
        items.append(figure("mcnemar_p", "exact McNemar p", f"{c.mcnemar_p:.4g}", c.mcnemar_p))
    return figures(items)


def _judges(c: Comparison) -> str:
    if c.judges is None:
        return ""
    t = c.judges.to_json()["table"]
    rows = [["A PASS", t["pass_pass"], t["pass_fail"]], ["A FAIL", t["fail_pass"], t["fail_fail"]]]
    note = (
        f'<p class="rj-note">{c.judges.not_scored} pair(s) not scored by one of the judges '
        "(SKIP/AGENT_ERROR)</p>"
        if c.judges.not_scored
        else ""
    )
    return (
        "<h2>Agreement of the two judges</h2>"
        + table(["", "B PASS", "B FAIL"], rows, numeric=2)
        + note
    )


def _flips(c: Comparison) -> str:
    if not c.flips:
        return "<h2>Flips</h2><p>No verdict flipped.</p>"
    total = len(c.flips)
    by_cause = table(
        ["cause", "flips", "share"],
        [[k, n, rate(n / total, n, total, "flips")] for k, n in c.flips_by_cause.items()],
        numeric=2,
    )
    rows = [
        [
            f.case,
            f.repetition,
            f"{f.from_verdict} → {f.to_verdict}",
            ", ".join(f.causes or [f.cause]),
            " ".join(f.taxonomy_from),
            " ".join(f.taxonomy_to),
        ]
        for f in c.flips
    ]
    flips = table(["case", "rep", "verdict", "cause", "causes in A", "causes in B"], rows)
    return f"<h2>Flips ({total}) and their causes</h2>{by_cause}{flips}"


def _dimensions(c: Comparison) -> str:
    if not c.dimensions:
        return ""
    rows = [
        [
            name,
            pct(v.get("accuracy_a")),
            pct(v.get("accuracy_b")),
            "n/a" if v.get("delta") is None else f"{100 * v['delta']:+.1f}",
        ]
        for name, v in c.dimensions.items()
    ]
    return "<h2>Per dimension</h2>" + table(
        ["dimension", "A", "B", "delta (points)"], rows, numeric=3
    )


def compare_page(
    comparison: Comparison, timelines: Iterable[Timeline], *, generator: str = "rejudge"
) -> str:
    """The whole page (see the module)."""
    c = comparison
    title = f"rejudge compare: evaluation {c.a} vs {c.b}"
    reading_cls = "rj-warn" if c.kind == "mixed" else ""
    if c.comparable:
        lined_up = "<p>Comparable: the two evaluations measure the same cases.</p>"
    else:
        lined_up = f'<p class="rj-warn">Not comparable: {esc("; ".join(c.reasons))}</p>'
    differences = "".join(
        f"<li>{esc(d.get('field'))}: {esc(d.get('a'))} → {esc(d.get('b'))}</li>"
        for d in c.differences
    )
    body = (
        f"<h1>{esc(title)}</h1>"
        + _side("A", c.a, c.meta_a)
        + _side("B", c.b, c.meta_b)
        + f'<p class="{reading_cls}"><b>{esc(c.reading())}</b></p>'
        + _judge_lines(c)
        + "<h2>Summary</h2>"
        + _figures(c)
        + lined_up
        + (f"<p>What differs between A and B:</p><ul>{differences}</ul>" if differences else "")
        + _judges(c)
        + _flips(c)
        + _dimensions(c)
        + timelines_section("Flipped traces (B's trace)", timelines, empty="No trace flipped.")
    )
    return page(title, body, generator=generator)
