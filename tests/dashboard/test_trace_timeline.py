"""The Trace viewer's timeline section (AppTest, SQLite): closed, it costs nothing; opened, it
draws the trace with the per-step figures of its real cassette, and the hostile evidence in it
stays text (the same renderer as `rejudge report --html`)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.dashboard.conftest import app_on
from tests.dashboard.factory import build_imported
from tests.dashboard.test_timeline_html import assert_inert


def _timelines(at) -> list[str]:
    return [e.proto.body for e in at.get("html") if 'class="rj-timeline"' in e.proto.body]


def test_the_timeline_opens_with_step_figures_and_stays_inert(tmp_path: Path) -> None:
    built = build_imported(f"sqlite:///{tmp_path / 'h.db'}", tmp_path / "c")
    run = str(built.runs["run-imported"])
    at = app_on(built, "trace_viewer", run=run)
    assert not _timelines(at)  # folded: not drawn until opened
    at.session_state["tv_timeline_open"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _timelines(at)
    assert len(shown) == 1
    assert_inert(shown[0])
    # the pydantic-ai cassette's responses carry usage: the steps show their tokens
    assert re.search(r"round 0 · [^<]*\d+ tokens in / \d+ out \(response usage\)", shown[0])
