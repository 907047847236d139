"""The pages on real imported traffic and hostile evidence (AppTest, SQLite): nothing from a
trace or cassette renders as Markdown/HTML/LaTeX, results show as text or JSON by what they
hold, real cassettes (pydantic-ai ``parsed_body``, gzip, SSE) decode, ad-hoc cases read "not
scorable", and a lost or refused database is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from rejudge.store import Store
from streamlit.testing.v1 import AppTest

from rejudge.services import load_exchanges
from tests.dashboard.conftest import APP, app_on, evidence, messages, metrics
from tests.dashboard.factory import (
    GZIP,
    HOSTILE,
    PYDANTIC_AI,
    REAL_CASSETTES,
    SSE,
    Built,
    build_imported,
)

pytestmark = pytest.mark.skipif(
    not REAL_CASSETTES.is_dir(), reason=f"the real cassettes folder {REAL_CASSETTES} is missing"
)


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("imported")
    return build_imported(f"sqlite:///{root / 'rejudge.db'}", root / "cassettes")


def _markup(at: AppTest) -> list[str]:
    """Every string the page hands Streamlit's Markdown renderer."""
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    texts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    texts += [e.label for e in at.expander]  # figures are escaped HTML, not Markdown
    return texts


def _bare(text: str, token: str) -> bool:
    """``token`` occurs in ``text`` with its first character not escaped by a backslash."""
    start = text.find(token)
    while start != -1:
        if start == 0 or text[start - 1] != "\\":
            return True
        start = text.find(token, start + 1)
    return False


def _open_trace(imported: Built, case: str) -> AppTest:
    at = app_on(imported, "trace_viewer", run=str(imported.runs["run-imported"]))
    store = Store.open(imported.url)
    try:
        wanted = next(
            t.id
            for t in store.traces.run_traces(imported.runs["run-imported"])
            if t.case_key == case
        )
    finally:
        store.close()
    at.selectbox(key="tv_trace").set_value(wanted).run()
    assert not at.exception
    return at


def test_hostile_evidence_is_never_markup(imported: Built) -> None:
    at = _open_trace(imported, "imported-0")
    for text in _markup(at):
        # raw Markdown image/LaTeX/HTML syntax would render; escaped it cannot
        for token in ("![pixel](", "$x^2$", "<img", "**bold**"):
            assert not _bare(text, token), text
    for element in at.get("html"):  # evidence drawn as HTML is escaped into it: inert
        for token in ("<img", "<a ", "<script", "href="):
            assert token not in element.proto.body, element.proto.body
    shown = evidence(at, "text")
    assert any(HOSTILE in c for c in shown)  # the instruction, verbatim, as text
    # the messages (the second user turn, the n>1 alternative, the answer) are Markdown
    # rendered: emphasis takes effect, the image and the tag stay escaped text
    said = messages(at)
    for start in ("And now?", "another choice", "The answer."):
        block = next(m for m in said if start in m)
        assert "<strong>bold</strong>" in block, block
        assert "![pixel](http://203.0.113.9/pixel.png)" in block and "&lt;img src=" in block
    markdown = "\n".join(m.value for m in at.markdown)
    assert "provider tool" in markdown and "web\\_search" in markdown
    assert ":blue-badge[answer]" in markdown and "yellow-badge" not in markdown


def test_string_and_numeric_string_results_render_as_text(imported: Built) -> None:
    at = _open_trace(imported, "imported-0")
    texts = evidence(at, "text")
    assert any(c.startswith("plain text result") for c in texts)
    assert "12345" in texts
    # a JSON block only ever holds a structure (a string shows as text)
    structures = evidence(at, "json")
    assert structures
    for value in structures:
        assert isinstance(json.loads(value), dict | list)


@pytest.mark.parametrize("case, real", [("imported-0", PYDANTIC_AI), ("imported-1", GZIP)])
def test_real_cassettes_decode_in_the_viewer(imported: Built, case: str, real: str) -> None:
    at = _open_trace(imported, case)
    exchanges = [e for e in at.expander if "POST https" in e.label]
    assert exchanges, [e.label for e in at.expander]
    view = load_exchanges(imported.cassettes_dir, real)
    assert view is not None and view.error is None
    # the decoded response is JSON (not mojibake, not "(empty)"), the tools split off
    first = view.exchanges[0]
    assert isinstance(first.response, dict) and first.tool_names
    assert "tools" not in (first.request or {})
    shown = evidence(at)
    assert shown and "(empty)" not in "\n".join(shown)


def test_a_stream_is_reassembled_raw_kept() -> None:
    view = load_exchanges(REAL_CASSETTES, SSE)
    assert view is not None and view.error is None
    first = view.exchanges[0]
    assert first.streamed and first.raw_response.lstrip().startswith("data:")
    assert [c["name"] for c in first.response["calls"]] == ["multiply"]
    assert first.response["calls"][0]["arguments"] == {"a": 1231, "b": 2331}
    second = view.exchanges[1]
    assert "2,869,461" in second.response["text"] and second.response["finish_reason"] == "stop"


def test_ad_hoc_cases_are_not_scorable(imported: Built) -> None:
    at = _open_trace(imported, "imported-1")
    assert metrics(at)["Verdict"] == "not scorable"


def test_a_refused_database_is_one_line() -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = "postgresql+psycopg://nobody:secret@127.0.0.1:1/none"
    at.session_state["cassettes_dir"] = ""
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "Cannot open the store" in at.error[0].value
    assert "secret" not in at.error[0].value


def test_a_database_lost_mid_session_is_one_line(tmp_path: Path) -> None:
    built = build_imported(f"sqlite:///{tmp_path / 'r.db'}", tmp_path / "cassettes")
    at = app_on(built)
    assert not at.error
    # the file is replaced under the running app by something that is not a database
    (tmp_path / "r.db").write_bytes(b"this is not a database" * 100)
    st.cache_data.clear()
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "store is unavailable" in at.error[0].value
