"""Fixtures of the dashboard tests: a store built through the Store API, and the numbers the
CLI's `report --json` / `compare --json` give for its evaluations (what the pages must show)."""

from __future__ import annotations

import html
import re
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rejudge.store import Store
from streamlit.testing.v1 import AppTest

from rejudge.services import compare_evaluations, evaluation_report
from tests.conftest import PG_URL_PREFIX, _admin, drop_schema, require_postgres
from tests.dashboard.factory import Built, build_store

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"


def _build(url: str, cassettes: Path) -> Built:
    return build_store(
        url, cases=12, repeat=3, cassettes_dir=cassettes, with_run_c=True, running_run=True
    )


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
    ],
)
def built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Built]:
    """Built once per test module and backend; tests only read it (a test that writes builds its
    own with ``fresh_built``). 12 cases x 3 repetitions: run-a under t@1 and t@2, run-b under
    t@1, run-c (oracle-assisted, half the cases) under t@1; cassettes for run-a; run-a left
    "running"."""
    root = tmp_path_factory.mktemp("dashboard")
    if request.param == "sqlite":
        yield _build(f"sqlite:///{root / 'rejudge.db'}", root / "cassettes")
        return
    require_postgres()
    schema = f"rejudge_dash_{uuid.uuid4().hex[:12]}"
    _admin(f'CREATE SCHEMA "{schema}"')
    try:
        yield _build(f"{PG_URL_PREFIX}?options=-csearch_path%3D{schema}", root / "cassettes")
    finally:
        drop_schema(schema)


@pytest.fixture
def fresh_built(tmp_path: Path) -> Built:
    """A store of the test's own (SQLite), for tests that write to it."""
    return _build(f"sqlite:///{tmp_path / 'rejudge.db'}", tmp_path / "cassettes")


def judge_report(url: str, evaluation_id: int) -> dict[str, Any]:
    """What `rejudge report EVAL --json` prints under ``summary`` (the judge's own report)."""
    store = Store.open(url)
    try:
        return evaluation_report(store, evaluation_id).to_json()["summary"]
    finally:
        store.close()


def judge_compare(url: str, a: int, b: int) -> dict[str, Any]:
    """What `rejudge compare A B --json` prints (the judge's own comparison)."""
    store = Store.open(url)
    try:
        return compare_evaluations(store, a, b).to_json()
    finally:
        store.close()


def app_on(built: Built, page: str | None = None, **query: str) -> AppTest:
    """The app on ``built``'s store, switched to ``page`` (views/<page>.py) and run."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = built.url
    at.session_state["cassettes_dir"] = str(built.cassettes_dir or "")
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(f"views/{page}.py")
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@dataclass
class ShownFigure:
    """A headline figure as a person reads it (``figure`` blocks, drawn with ``st.html``)."""

    label: str = ""
    value: str = ""
    delta: str = ""
    note: str = ""


class _FigureParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[ShownFigure] = []
        self._part: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kind = dict(attrs).get("class") or ""
        if kind == "rj-figure":
            self.found.append(ShownFigure())
        elif kind == "rj-figure-note" and self.found:
            self.found[-1].note = dict(attrs).get("title") or ""
            self._part = None
        elif kind.startswith("rj-figure-") and self.found:
            self._part = kind.removeprefix("rj-figure-")

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self._part = None

    def handle_data(self, data: str) -> None:
        if self._part and self.found:
            figure = self.found[-1]
            setattr(figure, self._part, getattr(figure, self._part) + data)


def figures_in(*blocks: str) -> list[ShownFigure]:
    """The headline figures in HTML ``blocks``, in order."""
    parser = _FigureParser()
    for block in blocks:
        parser.feed(block)
    return parser.found


def figures(at: AppTest) -> list[ShownFigure]:
    """The page's headline figures in page order."""
    return figures_in(*(element.proto.body for element in at.get("html")))


def metrics(at: AppTest) -> dict[str, str]:
    """Headline figure label -> value, as a person reads them."""
    return {f.label: f.value for f in figures(at)}


_BLOCK = re.compile(r'<pre class="(rj-text|rj-json)"[^>]*>(.*?)</pre>', re.S)


def evidence(at: AppTest, kind: str | None = None) -> list[str]:
    """The evidence the page shows as escaped HTML blocks (``st.html``), as a person reads them
    (entities decoded), in page order; ``kind`` "text" or "json" keeps one kind."""
    found: list[str] = []
    for element in at.get("html"):
        for block_kind, body in _BLOCK.findall(element.proto.body):
            if kind is None or block_kind == f"rj-{kind}":
                found.append(html.unescape(body))
    return found


def messages(at: AppTest) -> list[str]:
    """The messages the page shows with their Markdown rendered (``rj-md`` blocks), as HTML."""
    return [
        element.proto.body for element in at.get("html") if 'class="rj-md"' in element.proto.body
    ]


class TableParser(HTMLParser):
    """Reads the cells of every `<table>` fed to it (the static tables of `st.html`)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_tables(at: AppTest) -> list[list[dict[str, str]]]:
    """The page's static tables (``rj-table``), each as rows of column -> cell text."""
    parser = TableParser()
    for element in at.get("html"):
        if 'class="rj-table"' in element.proto.body:
            parser.feed(element.proto.body)
    return [[dict(zip(t[0], row, strict=True)) for row in t[1:]] for t in parser.tables if t]


class BarsParser(HTMLParser):
    """Reads the bars of every ``rj-bars`` chart fed to it as (label, series, width %, text)
    tuples, one list per chart (the series is "" when the chart has one)."""

    _WIDTH = re.compile(r"(?:^|;)width:([0-9.]+)%")

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[list[tuple[str, str, float, str]]] = []
        self._label = ""
        self._cells: list[str] = []
        self._cell: list[str] | None = None
        self._width = 0.0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table" and found.get("class") == "rj-bars":
            self.charts.append([])
        elif tag == "tr":
            self._cells, self._width = [], 0.0
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "div":
            width = self._WIDTH.search(found.get("style") or "")
            self._width = float(width.group(1)) if width else 0.0

    def handle_endtag(self, tag: str) -> None:
        if tag == "th" and self._cell is not None:
            self._label, self._cell = "".join(self._cell), None
        elif tag == "td" and self._cell is not None:
            self._cells.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self.charts:
            series = self._cells[0] if len(self._cells) == 3 else ""
            self.charts[-1].append((self._label, series, self._width, self._cells[-1]))

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_bars(at: AppTest) -> list[list[tuple[str, str, float, str]]]:
    """The page's bar charts (``rj-bars``), each as (label, series, width %, text) per bar."""
    parser = BarsParser()
    for element in at.get("html"):
        if 'class="rj-bars"' in element.proto.body:
            parser.feed(element.proto.body)
    return parser.charts


@dataclass
class ShownLines:
    """A line chart (``rj-lines``) as a person reads it: the x axis's labels (from its picture),
    what hovering each point shows, and the legend."""

    x_labels: list[str]
    points: list[str]
    legend: list[str]


_PICTURE = re.compile(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')
_X_LABEL = re.compile(r'<text class="rj-x"[^>]*><title>(.*?)</title>')
_POINT = re.compile(r'<span class="rj-point" title="([^"]*)"')
_LEGEND = re.compile(r'<ul class="rj-legend".*?</ul>', re.S)
_ENTRY = re.compile(r"</span>(.*?)</li>", re.S)


def lines_in(bodies: Iterable[str]) -> list[ShownLines]:
    """The line charts (``rj-lines``) among HTML ``bodies``, in order."""
    import base64

    charts = []
    for body in bodies:
        if 'class="rj-lines"' not in body:
            continue
        found = _PICTURE.search(body)
        assert found, "a line chart without its picture"
        picture = base64.b64decode(found.group(1)).decode()
        legend = _LEGEND.search(body)
        charts.append(
            ShownLines(
                x_labels=[html.unescape(t) for t in _X_LABEL.findall(picture)],
                points=[html.unescape(t) for t in _POINT.findall(body)],
                legend=[html.unescape(t) for t in _ENTRY.findall(legend.group(0))]
                if legend
                else [],
            )
        )
    return charts


def html_lines(at: AppTest) -> list[ShownLines]:
    """The page's line charts (``rj-lines``), in page order."""
    return lines_in(element.proto.body for element in at.get("html"))


WORLD = Path(__file__).resolve().parents[1] / "data" / "world"


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The world corpus (tests/data/world: cassettes other projects recorded) imported as one
    ad-hoc run, its cassettes copied into the store's folder, judged under two tiers."""
    from rejudge.judge import load_rule_set

    from rejudge.services import import_cassettes, judge_run

    root = tmp_path_factory.mktemp("world")
    url = f"sqlite:///{root / 'rejudge.db'}"
    store = Store.open(url)
    try:
        result = import_cassettes(
            WORLD, store, run_name="world", copy_to=root / "cassettes", strict=False
        )
        rules = load_rule_set("standard@2")
        built = Built(url=url, cassettes_dir=root / "cassettes")
        built.runs["world"] = store.runs.get_run("world").id
        for tier in ("golden", "contract"):
            built.evaluations[tier] = judge_run(store, "world", tier, rules).evaluation_id
        built.traces = result.traces if hasattr(result, "traces") else 0
    finally:
        store.close()
    return built


@pytest.fixture(scope="session")
def demo_served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """`rejudge demo` into a store of its own, served by `rejudge dashboard`: (store URL, port).
    Shared by the browser tests (the walk of every page, the six questions)."""
    import subprocess
    import sys

    from tests.dashboard.test_browser import _dashboard  # a test module: imported when used

    root = tmp_path_factory.mktemp("demo-browser")
    url = f"sqlite:///{root / 'demo.db'}"
    cassettes = APP.parents[1] / "cassettes"
    done = subprocess.run(
        [sys.executable, "-m", "rejudge", "--db", url, "--cassettes", str(cassettes), "demo"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    with _dashboard(url, root, cassettes) as (port, _proc):
        yield url, port
