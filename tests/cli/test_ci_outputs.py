# ruff: noqa: F811  (the shared fixtures are imported from test_judge_cli)
"""`--junit-xml` and `--github` on `rejudge report` and `rejudge baseline check`: the XML is
valid under the JUnit schema CI systems read (tests/data/junit, Jenkins' junit-10.xsd), has the
shape pytest's own ``--junit-xml`` gives, and carries each failure's causes, reasons and diff."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli.test_judge_cli import _json, _one_line_error, _registered, _seed, seeded  # noqa: F401
from tests.judge.conftest import call, trace

xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (the dev extra) validates JUnit XML")

XSD = Path(__file__).parents[1] / "data" / "junit" / "junit-10.xsd"
WORSE = [
    trace(call("get_order", order_id="W441"), case_id="a"),
    trace(call("request_cancel", order_id="W442", reason="changed my mind"), case_id="b"),
    trace(case_id="n"),
    trace(call("get_order", order_id="W999"), case_id="a", repetition=1),
]


def _schema():
    return xmlschema.XMLSchema10(str(XSD))


def _cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {tc.get("name"): tc for tc in root.iter("testcase")}


def _gate(run_cli, tmp_path: Path):
    good = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@2"))
    _json(run_cli("--json", "baseline", "lock", str(good["evaluation"]), "--name", "main"))
    _seed(tmp_path / "cli.db", "r2", WORSE)
    return good, _json(
        run_cli("--json", "judge", "r2", "--tier", "golden", "--rules", "standard@2")
    )


def test_report_junit_xml_is_valid_and_carries_failures(run_cli, seeded, tmp_path) -> None:
    ev = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@2"))
    out = tmp_path / "report.xml"
    result = run_cli("--json", "report", str(ev["evaluation"]), "--junit-xml", str(out))
    report = _json(result)  # stdout stays one JSON document
    _schema().validate(str(out))
    cases = _cases(out)
    assert sorted(cases) == ["a [r0]", "a [r1]", "b [r0]", "n [r0]"]
    assert len(report["cases"]) == len(cases)
    suite = ET.parse(out).getroot().find("testsuite")
    counts = report["summary"]["verdict_counts"]
    assert suite.get("tests") == "4"
    assert suite.get("failures") == str(counts["FAIL"])
    failure = cases["a [r1]"].find("failure")
    assert failure is not None and failure.get("type") == "FAIL"
    row = next(r for r in report["cases"] if r["case"] == "a" and r["repetition"] == 1)
    assert failure.get("message") == "FAIL: " + " ".join(row["taxonomy"])
    assert "W999" in failure.text and "diff:" in failure.text and "reasons:" in failure.text
    assert cases["a [r0]"].find("failure") is None


def test_baseline_check_junit_github(run_cli, seeded, tmp_path) -> None:
    _good, bad = _gate(run_cli, tmp_path)
    out, summary = tmp_path / "gate.xml", tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    args = ["baseline", "check", str(bad["evaluation"]), "--against", "main"]
    result = run_cli(*args, "--junit-xml", str(out), "--github", env=env)
    assert result.exit_code == 1, result.output  # the gate still decides the exit code
    _schema().validate(str(out))
    cases = _cases(out)
    # b flipped: a failure; a r1 failed in the baseline too: rendered like pytest's xfail
    flip = cases["b [r0]"].find("failure")
    assert flip.get("message").startswith("PASS -> FAIL since the baseline")
    assert "W442" in flip.text
    known = cases["a [r1]"].find("skipped")
    assert known.get("type") == "rejudge.known_failure"
    gate = cases["baseline main"].find("failure")
    assert gate.get("type") == "REGRESSION" and "flip" in gate.get("message")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")  # appended, as GitHub expects
    assert "| b | 0 |" in text and "REGRESSION" in text
    errors = [line for line in result.stderr.splitlines() if line.startswith("::error ")]
    assert errors[0].startswith("::error title=rejudge baseline main::")
    assert any("title=rejudge b [r0]::PASS -> FAIL" in e for e in errors)
    assert not any("a [r1]" in e for e in errors)  # an accepted failure is not an error

    # outside GitHub Actions --github writes nothing
    summary.write_text("", encoding="utf-8")
    quiet = run_cli(*args, "--github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert quiet.exit_code == 1 and summary.read_text() == "" and "::error" not in quiet.output


def test_unwritable_junit_path_is_one_line(run_cli, seeded, tmp_path) -> None:
    ev = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@2"))
    target = tmp_path / "no-such-dir" / "r.xml"
    _one_line_error(
        run_cli("report", str(ev["evaluation"]), "--junit-xml", str(target)),
        f"cannot write {target}",
    )
    assert not target.parent.exists()


PYTEST_SAMPLE = """
import pytest

def test_passes():
    assert True

def test_fails():
    assert 1 == 2, "wrong"

@pytest.mark.skip(reason="not today")
def test_skipped():
    pass
"""


def test_same_shape_as_pytest_junit(run_cli, seeded, tmp_path) -> None:
    """pytest's --junit-xml is the reference: both validate under the schema, and every element
    and attribute rejudge writes for a testsuite, testcase, failure and skip, pytest writes too
    (rejudge writes no attribute a JUnit reader would not expect)."""
    sample = tmp_path / "sample" / "test_sample.py"
    sample.parent.mkdir()
    sample.write_text(PYTEST_SAMPLE, encoding="utf-8")
    ref = tmp_path / "pytest.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:rejudge",
         str(sample), f"--junit-xml={ref}"],
        cwd=sample.parent, capture_output=True, check=False,
    )  # fmt: skip
    _schema().validate(str(ref))

    _good, bad = _gate(run_cli, tmp_path)
    ours = tmp_path / "ours.xml"
    run_cli(
        "baseline", "check", str(bad["evaluation"]), "--against", "main", "--junit-xml", str(ours)
    )
    _schema().validate(str(ours))

    def shape(path: Path) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for el in ET.parse(path).getroot().iter():
            out.setdefault(el.tag, set()).update(el.attrib)
        return out

    theirs, mine = shape(ref), shape(ours)
    assert ET.parse(ours).getroot().tag == ET.parse(ref).getroot().tag == "testsuites"
    for tag in ("testsuite", "testcase", "failure", "skipped"):
        assert tag in mine and tag in theirs
        extra = mine[tag] - theirs[tag] - {"type"}  # pytest gives failure/skipped a type too
        assert not extra, (tag, extra)
    # the counts agree with the testcases, the way pytest keeps them
    for path in (ref, ours):
        suite = ET.parse(path).getroot().find("testsuite")
        tcs = list(suite.iter("testcase"))
        assert int(suite.get("tests")) == len(tcs)
        assert int(suite.get("failures")) == sum(tc.find("failure") is not None for tc in tcs)
        assert int(suite.get("skipped")) == sum(tc.find("skipped") is not None for tc in tcs)


def test_markup_in_evidence_stays_text() -> None:
    from rejudge.judge import CiCase, CiResults, github_annotations, junit_xml, step_summary

    nasty = "called 'x' | <script>alert(1)</script>\n**bold** [link](http://e) %0A \x07"
    case = CiCase(
        case="c|1", repetition=0, verdict="FAIL", outcome="failed", taxonomy=["TOOL_WRONG"],
        partial_score=0.0, reasons=[nasty], diff=[{"kind": "extra", "name": nasty}],
    )  # fmt: skip
    results = CiResults(evaluation=1, run="r", tier="golden", rules="standard@2",
                        accuracy=0.0, cases=[case])  # fmt: skip
    md = step_summary(results)
    row = [line for line in md.splitlines() if line.startswith("| c")][0]
    assert row.count(" | ") == 4  # the pipe in the case and the reason did not add columns
    assert "<script>" not in md and "**bold**" not in md and "](" not in md
    xml = junit_xml(results)
    root = ET.fromstring(xml.encode("utf-8"))  # \x07 (not XML) was replaced, the file parses
    assert nasty.replace("\x07", "\ufffd") in root.find(".//failure").text
    (line,) = github_annotations(results)
    assert "\n" not in line and "%0A" in line and "%250A" in line


def test_report_junit_on_both_backends(run_cli, db_url, tmp_path) -> None:
    """The failed judgments' reasons and diff are read by the database (both backends)."""
    _seed(db_url)
    ev = _json(run_cli("--json", "judge", "r1", "--tier", "golden", "--rules", "standard@2",
                       db=db_url))  # fmt: skip
    out = tmp_path / "r.xml"
    result = run_cli("report", str(ev["evaluation"]), "--junit-xml", str(out), db=db_url)
    assert result.exit_code == 0, result.output
    _schema().validate(str(out))
    failure = _cases(out)["a [r1]"].find("failure")
    assert "W999" in failure.text and "reasons:" in failure.text
