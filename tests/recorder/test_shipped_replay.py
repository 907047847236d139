"""`rejudge replay` of the shipped SmolLM2 runs: every trace re-runs from its cassette with the
network blocked, the sandbox executing each call again, and re-derives its stored hash. A tool
result that changed by one byte changes the request the loop sends next, so it shows here as a
replay miss (tests/suites/test_stateful_worlds.py compares the results themselves)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rejudge.store import Store
from rejudge.suites import builtin_suites, load_suite

from rejudge.services import load_cassette_runs, replay_run

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
RUNS = {
    "smollm2-retail": 72,
    "smollm2-retail-oracle": 3,
    "smollm2-retail-required": 3,
    "smollm2-genome-simple": 73,
    "smollm2-genome-complex": 22,
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The shipped runs loaded as the demo loads them."""
    opened = Store.open(f"sqlite:///{tmp_path_factory.mktemp('shipped') / 'store.db'}")
    sources = {name: load_suite(name) for name in builtin_suites()}
    load_cassette_runs(opened, CASSETTES, sources, {})
    yield opened
    opened.close()


@pytest.mark.parametrize("run", sorted(RUNS))
def test_every_shipped_trace_replays_to_its_stored_hash(store: Store, run: str) -> None:
    report = replay_run(store, run, CASSETTES)
    assert [d.message for d in report.divergences] == []
    assert report.ok and report.traces == report.matched == RUNS[run]
