"""CI-native renderings of an evaluation: JUnit XML, a GitHub step summary, error annotations.

Pure: they take the typed results of :mod:`rejudge.model._results` (a report, optionally the
baseline check it was gated by) plus each failed case's reasons and diff, and return text. The
CLI decides where the text goes (a file, ``$GITHUB_STEP_SUMMARY``, stdout).

One ``<testcase>`` per case and repetition. PASS passes; FAIL is a ``<failure>`` carrying the
verdict's causes (taxonomy codes), its reasons and the diff; AGENT_ERROR is an ``<error>`` (the
harness or the model broke, not a wrong call); SKIP is ``<skipped>``. Under a baseline check a
FAIL the baseline already had is rendered the way pytest renders an ``xfail``: ``<skipped>``
with ``type="rejudge.known_failure"`` -- a failure that was accepted when the baseline was
locked -- while a PASS -> FAIL flip or a failing case new since the baseline stays a
``<failure>``; the gate itself is one more testcase, failing when the check found a regression.

Evidence text (reasons, arguments in the diff) is untrusted: XML is escaped by ElementTree
(characters XML 1.0 cannot carry are replaced), Markdown is backslash-escaped, and annotation
messages are percent-encoded the way GitHub's workflow commands require.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rejudge.model import BaselineCheck, EvaluationReport, Result

__all__ = [
    "CiCase",
    "CiResults",
    "ci_results",
    "junit_xml",
    "step_summary",
    "github_annotations",
]

#: a case's outcome as a CI test
PASSED, FAILED, ERROR, SKIPPED, KNOWN_FAILURE = "passed", "failed", "error", "skipped", "known"
_OUTCOME = {"PASS": PASSED, "FAIL": FAILED, "AGENT_ERROR": ERROR, "SKIP": SKIPPED}
#: at most this many ``::error`` lines (GitHub shows 10 per step and 50 per job anyway)
MAX_ANNOTATIONS = 50


@dataclass(frozen=True)
class CiCase(Result):
    """One case and repetition as a CI test."""

    case: str
    repetition: int
    verdict: str | None
    outcome: str
    taxonomy: list[str]
    partial_score: float | None
    reasons: list[str] = field(default_factory=list)
    diff: list[dict[str, Any]] = field(default_factory=list)
    #: the case's verdict in the baseline checked against (None: no baseline, or a new case)
    baseline_verdict: str | None = None

    @property
    def name(self) -> str:
        return f"{self.case} [r{self.repetition}]"


@dataclass(frozen=True)
class CiResults(Result):
    """An evaluation (and the baseline check gating it) as CI tests."""

    evaluation: int
    run: str | int
    tier: str
    rules: str
    accuracy: float | None
    cases: list[CiCase]
    check: BaselineCheck | None = None

    @property
    def suite_name(self) -> str:
        return f"rejudge {self.run} ({self.tier}, {self.rules})"

    def count(self, outcome: str) -> int:
        return sum(1 for c in self.cases if c.outcome == outcome)


def ci_results(
    report: EvaluationReport,
    details: Mapping[tuple[str, int], Mapping[str, Any]],
    *,
    check: BaselineCheck | None = None,
    baseline_cases: Mapping[tuple[str, int], str | None] | None = None,
) -> CiResults:
    """The report's cases as CI tests; ``details`` maps (case, repetition) to the judgment's
    ``reasons`` and ``diff`` (only failed cases need them), ``baseline_cases`` to the verdict
    each case had in the baseline ``check`` was made against."""
    cases = []
    for row in report.cases:
        key = (str(row.case), row.repetition)
        verdict = row.verdict
        outcome = _OUTCOME.get(verdict or "", SKIPPED)
        before = (baseline_cases or {}).get(key)
        if check is not None and verdict == "FAIL" and before == "FAIL":
            outcome = KNOWN_FAILURE
        info = details.get(key, {})
        cases.append(
            CiCase(
                case=key[0],
                repetition=key[1],
                verdict=verdict,
                outcome=outcome,
                taxonomy=list(row.taxonomy),
                partial_score=row.partial_score,
                reasons=[str(r) for r in info.get("reasons") or []],
                diff=[d for d in info.get("diff") or [] if isinstance(d, dict)],
                baseline_verdict=before,
            )
        )
    return CiResults(
        evaluation=report.evaluation,
        run=report.run,
        tier=report.tier,
        rules=report.rules,
        accuracy=report.summary.accuracy,
        cases=cases,
        check=check,
    )


# --------------------------------------------------------------------------- JUnit XML

# characters XML 1.0 cannot hold at all (ElementTree would write them and break the file)
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _x(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _diff_lines(diff: list[dict[str, Any]]) -> list[str]:
    # entries that are fine say so with status ok/tolerated; the rest are the diff to read
    out = []
    for entry in diff:
        if entry.get("status") in ("ok", "tolerated") and not entry.get("codes"):
            continue
        out.append(json.dumps(entry, ensure_ascii=False, sort_keys=True, default=str))
    return out


def _body(case: CiCase) -> str:
    lines = [f"verdict: {case.verdict}"]
    if case.taxonomy:
        lines.append("causes: " + " ".join(case.taxonomy))
    if case.baseline_verdict is not None:
        lines.append(f"baseline verdict: {case.baseline_verdict}")
    if case.partial_score is not None:
        lines.append(f"partial score: {case.partial_score}")
    if case.reasons:
        lines.append("reasons:")
        lines += [f"  - {r}" for r in case.reasons]
    diff = _diff_lines(case.diff)
    if diff:
        lines.append("diff:")
        lines += [f"  {d}" for d in diff]
    return "\n".join(lines) + "\n"


def _message(case: CiCase) -> str:
    head = case.verdict or "no verdict"
    if case.baseline_verdict == "PASS" and case.verdict == "FAIL":
        head = "PASS -> FAIL since the baseline"
    elif case.outcome == KNOWN_FAILURE:
        head = "FAIL, as in the baseline"
    causes = " ".join(case.taxonomy)
    return f"{head}: {causes}" if causes else head


def junit_xml(results: CiResults) -> str:
    """The JUnit XML document (UTF-8 declared) CI systems read: one testsuite, one testcase
    per case and repetition, and under a baseline check one testcase for the gate."""
    cases = list(results.cases)
    failures = results.count(FAILED)
    errors = results.count(ERROR)
    skipped = results.count(SKIPPED) + results.count(KNOWN_FAILURE)
    tests = len(cases) + (results.check is not None)
    if results.check is not None and results.check.regression:
        failures += 1
    root = ET.Element(
        "testsuites",
        {"name": "rejudge", "tests": str(tests), "failures": str(failures), "errors": str(errors)},
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": _x(results.suite_name),
            "tests": str(tests),
            "failures": str(failures),
            "errors": str(errors),
            "skipped": str(skipped),
            "time": "0",
        },
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("evaluation", results.evaluation),
        ("run", results.run),
        ("tier", results.tier),
        ("rules", results.rules),
        ("accuracy", results.accuracy),
    ):
        ET.SubElement(
            props, "property", {"name": name, "value": _x("" if value is None else str(value))}
        )
    classname = _x(f"rejudge.{results.run}")
    for case in cases:
        element = ET.SubElement(
            suite, "testcase", {"classname": classname, "name": _x(case.name), "time": "0"}
        )
        tag = {FAILED: "failure", ERROR: "error", SKIPPED: "skipped", KNOWN_FAILURE: "skipped"}
        if case.outcome in tag:
            kind = "rejudge.known_failure" if case.outcome == KNOWN_FAILURE else str(case.verdict)
            child = ET.SubElement(
                element, tag[case.outcome], {"type": _x(kind), "message": _x(_message(case))}
            )
            child.text = _x(_body(case))
    check = results.check
    if check is not None:
        gate = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": "rejudge.baseline",
                "name": _x(f"baseline {check.baseline}"),
                "time": "0",
            },
        )
        if check.regression:
            failure = ET.SubElement(
                gate,
                "failure",
                {"type": "REGRESSION", "message": _x("; ".join(check.reasons))},
            )
            failure.text = _x(_gate_body(check))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _gate_body(check: BaselineCheck) -> str:
    lines = [f"regression: {'; '.join(check.reasons)}"]
    lines.append(f"accuracy: {check.accuracy_baseline} -> {check.accuracy_current}")
    lines += [
        f"flip: {f['case']} [r{f['repetition']}] PASS -> FAIL ({' '.join(f['taxonomy'])})"
        for f in check.flips
    ]
    lines += [f"missing: {m['case']} [r{m['repetition']}]" for m in check.missing_cases]
    lines += [f"input differs: {m['input']}" for m in check.input_mismatches]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- GitHub Actions

_MD_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")


def _md(text: Any) -> str:
    """Plain text in a Markdown table cell: every ASCII punctuation escaped, one line."""
    flat = " ".join(str(text).split())
    return _MD_PUNCT.sub(r"\\\1", flat)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def step_summary(results: CiResults) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: the headline, then a table of every case that
    did not pass (all of them when none failed would be noise: the count says it)."""
    counts = {o: results.count(o) for o in (PASSED, FAILED, ERROR, SKIPPED, KNOWN_FAILURE)}
    lines = [f"### {_md(results.suite_name)}", ""]
    lines.append(
        f"accuracy {_md(_pct(results.accuracy))} · {counts[PASSED]} passed · "
        f"{counts[FAILED]} failed · {counts[ERROR]} agent errors · {counts[SKIPPED]} skipped"
        + (f" · {counts[KNOWN_FAILURE]} known failures" if counts[KNOWN_FAILURE] else "")
    )
    check = results.check
    if check is not None:
        state = (
            "**REGRESSION**: " + _md("; ".join(check.reasons))
            if check.regression
            else "no regression"
        )
        lines += [
            "",
            f"baseline {_md(check.baseline)}: accuracy {_md(_pct(check.accuracy_baseline))} → "
            f"{_md(_pct(check.accuracy_current))}, {state}",
        ]
    shown = [c for c in results.cases if c.outcome != PASSED]
    if shown:
        lines += ["", "| case | rep | verdict | causes | first reason |", "|---|---|---|---|---|"]
        for c in shown:
            verdict = _md(_message(c).split(":")[0]) if c.outcome != SKIPPED else "SKIP"
            reason = _md(c.reasons[0]) if c.reasons else ""
            lines.append(
                f"| {_md(c.case)} | {c.repetition} | {verdict} | {_md(' '.join(c.taxonomy))} | "
                f"{reason} |"
            )
    return "\n".join(lines) + "\n"


def _command_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _command_property(text: str) -> str:
    return _command_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(results: CiResults) -> list[str]:
    """``::error`` workflow commands: the gate's regression, then each failing case (a flip or
    a failure new since the baseline, or every FAIL/AGENT_ERROR without one), at most
    :data:`MAX_ANNOTATIONS` lines, the last of them saying how many were left out."""
    out = []
    check = results.check
    if check is not None and check.regression:
        title = _command_property(f"rejudge baseline {check.baseline}")
        out.append(f"::error title={title}::{_command_data('; '.join(check.reasons))}")
    failing = [c for c in results.cases if c.outcome in (FAILED, ERROR)]
    room = MAX_ANNOTATIONS - len(out)
    if len(failing) > room:
        keep, left = failing[: room - 1], len(failing) - (room - 1)
    else:
        keep, left = failing, 0
    for c in keep:
        detail = _message(c) + (f" -- {c.reasons[0]}" if c.reasons else "")
        title = _command_property(f"rejudge {c.name}")
        out.append(f"::error title={title}::{_command_data(detail)}")
    if left:
        out.append(f"::error title=rejudge::{left} more failing case(s); see the JUnit report")
    return out
