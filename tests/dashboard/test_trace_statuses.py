"""The Overview lists how each run's traces ended as the store holds them (issue 36 item 6):
τ-bench's GPT-4o run reads "200 (completed 195, step_limit 5)"."""

from __future__ import annotations

from pathlib import Path

from rejudge.store import Store
from streamlit.testing.v1 import AppTest

from rejudge.services._demo import DEMO_TAU_RUN
from tests.dashboard.conftest import APP


def test_the_overview_shows_every_run_s_statuses_as_stored(demo_store: tuple[str, Path]) -> None:
    url, _ = demo_store
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = url
    at.session_state["cassettes_dir"] = ""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    runs = at.dataframe[0].value
    shown = dict(zip(runs["run"], runs["trace statuses"], strict=True))
    assert shown[DEMO_TAU_RUN] == "200 (completed 195, step_limit 5)"
    store = Store.open(url)
    try:
        stored = store.catalog.trace_statuses()
        names = {r.id: r.name for r in store.runs.list_runs()}
    finally:
        store.close()
    assert shown == {names[run_id]: s.describe() for run_id, s in stored.items()}
