"""The raw exchanges of the demo's runs open in the trace viewer from any working folder
(issue 27 item 1): the exchanges service (services/_exchanges.py) reads the path each trace stored, whatever its root."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from rejudge.store import Store

from rejudge.services import load_exchanges, run_origin

SHIPPED = Path(__file__).resolve().parents[2] / "cassettes"
OLD_STORE = (
    Path(__file__).resolve().parents[1] / "data" / "stores" / "pre-namespace" / "store.db.gz"
)


def _first_exchanges(url: str) -> dict[str, object]:
    """One trace's exchanges per run; a run imported from a results file has no cassette."""
    store = Store.open(url)
    try:
        out = {}
        for run in store.runs.list_runs():
            if run_origin(store.runs.get_run(run.id).config) == "results-file":
                continue
            trace = next(iter(store.traces.iter_traces(run.id)))
            # the dashboard's default: ./cassettes, which does not exist here
            out[run.name] = load_exchanges(Path("cassettes"), trace.cassette_path)
        return out
    finally:
        store.close()


def test_one_exchange_of_every_demo_run_opens_elsewhere(
    demo_store: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, elsewhere = demo_store
    monkeypatch.chdir(elsewhere)
    views = _first_exchanges(url)
    # the local model's runs, one per shipped run folder (a folder of judge cassettes only is
    # the model judge's, not a run), and the two real-world imports
    runs = [p for p in SHIPPED.iterdir() if p.is_dir() and any(p.glob("*__r*.yaml"))]
    assert len(views) >= len(runs) + 2
    for run, view in views.items():
        assert view is not None and view.error is None, (run, view and view.error)
        assert view.exchanges, run


def test_an_old_demo_store_opens_its_exchanges_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "old.db"
    with gzip.open(OLD_STORE, "rb") as src, open(db, "wb") as dst:
        shutil.copyfileobj(src, dst)
    monkeypatch.chdir(tmp_path)
    views = _first_exchanges(f"sqlite:///{db}")
    assert views and all(v is not None and v.error is None and v.exchanges for v in views.values())
