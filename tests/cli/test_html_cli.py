"""`rejudge report EVAL --html FILE` and `rejudge compare A B --html FILE` through click's
runner on SQLite: the page's figures are the ``--json`` figures of the same evaluation, each
failing (or flipped) trace has its timeline, and bad input is one ``Error:`` line."""

from __future__ import annotations

import html
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.dashboard.factory import Built, build_store


class _Figures(HTMLParser):
    """The page's figures (``data-key`` -> the JSON in ``data-value``) and its headings."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.figures: dict[str, object] = {}
        self.headings: list[str] = []
        self.traces = 0
        self._heading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("data-key") is not None:
            self.figures[str(found["data-key"])] = json.loads(str(found["data-value"]))
        if tag == "details" and found.get("class") == "rj-trace":
            self.traces += 1
        self._heading = tag in ("h1", "h2")

    def handle_data(self, data: str) -> None:
        if self._heading:
            self.headings.append(data)
            self._heading = False


def _read(path: Path) -> _Figures:
    parser = _Figures()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture()
def built(tmp_path: Path) -> Built:
    return build_store(
        f"sqlite:///{tmp_path / 'cli.db'}", cases=12, repeat=2, cassettes_dir=tmp_path / "c"
    )


def _cli(run_cli, built: Built, *args: str):
    return run_cli("--cassettes", str(built.cassettes_dir), *args, db=built.url)


def _one_line_error(result, fragment: str) -> None:
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert fragment in lines[0], lines[0]


def test_report_figures_are_the_json_figures(run_cli, built: Built, tmp_path: Path) -> None:
    ev = str(built.evaluations["a1"])
    data = json.loads(_cli(run_cli, built, "report", ev, "--json").output)
    out = tmp_path / "report.html"
    result = _cli(run_cli, built, "report", ev, "--html", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {out} (") and len(result.output.splitlines()) == 1
    page = _read(out)
    summary, counts = data["summary"], data["summary"]["verdict_counts"]
    assert page.figures["accuracy"] == summary["accuracy"]
    for verdict in ("PASS", "FAIL", "SKIP", "AGENT_ERROR"):
        assert page.figures[verdict] == counts[verdict]
    assert page.figures["cases"] == len(data["cases"])
    assert page.figures["average_partial_score"] == summary["average_partial_score"]
    failing = [c for c in data["cases"] if c["verdict"] in ("FAIL", "AGENT_ERROR")]
    assert failing and page.traces == len(failing)
    assert f"Failing traces ({len(failing)})" in page.headings
    assert {"Summary", "Calibration"} <= set(page.headings)


def test_html_with_json_says_what_was_written(run_cli, built: Built, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    result = _cli(
        run_cli, built, "report", str(built.evaluations["b1"]), "--html", str(out), "--json"
    )
    facts = json.loads(result.output)
    assert facts == {
        "written": str(out),
        "bytes": out.stat().st_size,
        "timelines": _read(out).traces,
    }


def test_compare_figures_are_the_json_figures(run_cli, built: Built, tmp_path: Path) -> None:
    a, b = str(built.evaluations["a1"]), str(built.evaluations["a2"])
    data = json.loads(_cli(run_cli, built, "compare", a, b, "--json").output)
    out = tmp_path / "compare.html"
    assert _cli(run_cli, built, "compare", a, b, "--html", str(out)).exit_code == 0
    page = _read(out)
    for key in ("accuracy_a", "accuracy_b", "accuracy_delta", "paired"):
        assert page.figures[key] == data[key], key
    assert page.figures["pass_to_fail"] == data["discordant"]["pass_to_fail"]
    assert page.figures["fail_to_pass"] == data["discordant"]["fail_to_pass"]
    assert page.figures["flips"] == len(data["flips"]) == page.traces > 0
    assert page.figures.get("mcnemar_p") == data["mcnemar_p"]
    assert f"Flips ({len(data['flips'])}) and their causes" in page.headings


def test_an_unknown_evaluation_is_one_line_and_writes_nothing(
    run_cli, built: Built, tmp_path: Path
) -> None:
    out = tmp_path / "r.html"
    _one_line_error(_cli(run_cli, built, "report", "999", "--html", str(out)), "999")
    _one_line_error(_cli(run_cli, built, "compare", "1", "999", "--html", str(out)), "999")
    assert not out.exists()


def test_an_unwritable_file_is_one_line(run_cli, built: Built, tmp_path: Path) -> None:
    ev = str(built.evaluations["a1"])
    missing = tmp_path / "no-such-folder" / "r.html"
    _one_line_error(_cli(run_cli, built, "report", ev, "--html", str(missing)), "cannot write")
    _one_line_error(
        _cli(run_cli, built, "compare", ev, ev, "--html", str(tmp_path)), "cannot write"
    )


def test_html_refuses_the_flags_it_would_drop(run_cli, built: Built, tmp_path: Path) -> None:
    ev = str(built.evaluations["a1"])
    out = str(tmp_path / "r.html")
    for extra in (["--against", "external"], ["--junit-xml", str(tmp_path / "j.xml")]):
        result = _cli(run_cli, built, "report", ev, "--html", out, *extra)
        assert result.exit_code == 2, result.output
        assert "--html" in result.output


def test_compare_page_says_a_weak_model_judge_is_weak(tmp_path: Path) -> None:
    from tests.services.test_judge_calibration import _cli as judge_cli
    from tests.services.test_judge_calibration import judged_twice

    db, golden, graded, warning = judged_twice(tmp_path)
    out = tmp_path / "c.html"
    code, output = judge_cli(db, "compare", str(golden), str(graded), "--html", str(out))
    assert code == 0, output
    text = out.read_text(encoding="utf-8")
    line = html.escape("B's judge: " + warning)
    assert f'<p class="rj-warn">{line}</p>' in text
    assert "A&#x27;s judge" not in text


def test_a_missing_cassette_is_named_and_the_rest_renders(
    run_cli, built: Built, tmp_path: Path
) -> None:
    ev = str(built.evaluations["a1"])
    data = json.loads(_cli(run_cli, built, "report", ev, "--json").output)
    failing = [c for c in data["cases"] if c["verdict"] in ("FAIL", "AGENT_ERROR")]
    first = failing[0]
    assert built.cassettes_dir is not None
    gone = built.cassettes_dir / "run-a" / f"{first['case']}__r{first['repetition']}.yaml"
    gone.unlink()
    out = tmp_path / "r.html"
    assert _cli(run_cli, built, "report", ev, "--html", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert text.count("no per-step figures") == 1
    assert html.escape(str(gone)) in text
    assert _read(out).traces == len(failing)  # every failing trace still has its timeline


def test_pass_hat_k_names_how_many_cases_it_is_over(run_cli, built: Built, tmp_path: Path) -> None:
    ev = str(built.evaluations["a1"])
    data = json.loads(_cli(run_cli, built, "report", ev, "--json").output)
    out = tmp_path / "r.html"
    assert _cli(run_cli, built, "report", ev, "--html", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    table = text.split("pass^k</h3>", 1)[1].split("</table>", 1)[0]
    scored: dict[str, int] = {}
    for row in data["cases"]:
        if row["verdict"] in ("PASS", "FAIL"):
            scored[row["case"]] = scored.get(row["case"], 0) + 1
    for k, value in data["summary"]["pass_at_k"].items():
        over = sum(1 for n in scored.values() if n >= int(k))
        shown = "n/a" if value is None else f"{100 * value:.1f}%"
        cells = f'<td>{k}</td><td class="n">{shown}</td><td class="n">{over}</td>'
        assert cells in table, (k, table)
