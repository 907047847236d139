"""A store that goes away under the dashboard (AppTest, SQLite): a deleted or replaced SQLite file
is refused in one line on every page and in every new session, so no label is written into an
orphaned WAL file; a database that stops answering on the live monitor is one line too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rejudge.dashboard import data
from sqlalchemy.exc import OperationalError

from tests.dashboard.conftest import app_on
from tests.dashboard.factory import Built

PAGES = ("overview", "compare", "trace_viewer", "review", "live", "report")


def _db_file(built: Built) -> Path:
    return Path(built.url.removeprefix("sqlite:///"))


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _one_line(at) -> str:
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    assert "\n" not in errors[0] and "Traceback" not in errors[0]
    return errors[0]


def test_a_deleted_sqlite_file_is_refused_on_every_page_and_new_session(
    fresh_built: Built,
) -> None:
    ev = fresh_built.evaluations["a1"]
    review = app_on(fresh_built, "review", ev=str(ev), reviewer="ann")
    assert review.button(key="rv_confirmed")  # the label buttons are there before
    _remove(_db_file(fresh_built))
    review.run()
    assert "gone" in _one_line(review)
    assert not [b for b in review.button if b.key == "rv_confirmed"]  # nothing to click
    for page in PAGES:  # a new tab is a new session on the same cached store
        at = app_on(fresh_built)
        at.switch_page(f"views/{page}.py").run()
        assert "gone" in _one_line(at), page


def test_a_replaced_sqlite_file_is_refused(fresh_built: Built, tmp_path: Path) -> None:
    at = app_on(fresh_built)
    db = _db_file(fresh_built)
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    _remove(db)
    copy.rename(db)  # another file (another inode) at the same path
    at.run()
    assert "replaced" in _one_line(at)


def test_a_label_is_refused_when_the_file_goes_during_the_click(
    fresh_built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    ev = fresh_built.evaluations["a1"]
    at = app_on(fresh_built, "review", ev=str(ev), reviewer="ann")
    calls: list[str] = []
    # the page run's own check passes; the file goes between it and the write
    gone = iter([None, "The store's SQLite file x is gone"])
    monkeypatch.setattr(data, "store_gone", lambda url: next(gone, None))
    monkeypatch.setattr("rejudge.services.label_judgment", lambda *a, **k: calls.append("written"))
    at.button(key="rv_confirmed").click().run()
    assert calls == [] and "gone" in _one_line(at)


def test_a_database_that_stops_on_the_live_monitor_is_one_line(
    fresh_built: Built, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = app_on(fresh_built, "live", run=str(fresh_built.runs["run-a"]))

    def refused(*_args, **_kwargs):
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))

    monkeypatch.setattr(data, "run_progress", refused)
    at.run()
    line = _one_line(at)
    assert line.startswith("The store is unavailable") and "connection refused" in line
