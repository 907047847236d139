"""An import is one transaction: when its last write fails (the external verdicts, the run's
finish), the suite, the run and the traces written before it are gone too (τ-bench, Inspect,
cassette and BFCL results imports; BFCL's every category at once)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from rejudge.store import Store
from rejudge.store._tables import RunRow, SuiteRow, TraceRow

from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.services import (
    import_bfcl_results,
    import_cassettes,
    import_inspect,
    import_tau_bench,
)
from tests.store.store_factories import count_rows

WORLD = Path(__file__).resolve().parents[1] / "data" / "world"
INSPECT_LOG = Path(__file__).resolve().parents[1] / "data" / "inspect" / "notes.json"


class LostDatabase(Exception):
    pass


def _fail_verdicts(*args: object, **kwargs: object) -> None:
    raise LostDatabase("the database went away while the verdicts were written")


@pytest.mark.parametrize("importer", ["tau-bench", "inspect"])
def test_a_failure_at_the_last_write_leaves_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, importer: str
) -> None:
    # the failure is injected into the store (a unit test's mock): everything before it is real
    monkeypatch.setattr(store.external, "save_external_verdicts", _fail_verdicts)
    with pytest.raises(LostDatabase):
        if importer == "tau-bench":
            import_tau_bench(
                SHIPPED_TAU_BENCH / "gpt-4o-airline.json",
                store,
                tools=SHIPPED_TAU_BENCH / "tools.json",
            )
        else:
            import_inspect(INSPECT_LOG, store)
    assert (
        count_rows(store, SuiteRow),
        count_rows(store, RunRow),
        count_rows(store, TraceRow),
    ) == (
        0,
        0,
        0,
    )
    # and the same import, once the store works again, lands whole
    monkeypatch.undo()
    if importer == "tau-bench":
        result = import_tau_bench(
            SHIPPED_TAU_BENCH / "gpt-4o-airline.json", store, tools=SHIPPED_TAU_BENCH / "tools.json"
        )
        assert (result.inserted, result.verdicts) == (200, 200)
    else:
        result = import_inspect(INSPECT_LOG, store)
        assert result.inserted > 0
    assert count_rows(store, TraceRow) == result.inserted


def test_a_cassette_import_that_fails_at_its_end_leaves_no_adhoc_suite(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = WORLD / "langchain-cohere"

    def lost(*args: object, **kwargs: object) -> None:
        raise LostDatabase("the database went away as the run was finished")

    monkeypatch.setattr(store.runs, "finish_run", lost)
    with pytest.raises(LostDatabase):
        import_cassettes(folder, store, copy_to=tmp_path / "copies", strict=False)
    assert (
        count_rows(store, SuiteRow),
        count_rows(store, RunRow),
        count_rows(store, TraceRow),
    ) == (
        0,
        0,
        0,
    )
    monkeypatch.undo()
    result = import_cassettes(folder, store, copy_to=tmp_path / "copies", strict=False)
    assert result.inserted == count_rows(store, TraceRow) > 0


@pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None,
    reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)",
)
def test_a_bfcl_results_import_whose_later_category_fails_stores_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    for category, case_id in (("simple_python", "simple_python_0"), ("live_relevance", None)):
        case_id = case_id or "live_relevance_0-0-0"
        (folder / f"BFCL_v4_{category}_result.json").write_text(
            json.dumps({"id": case_id, "result": "[f(a=1)]"}) + "\n", encoding="utf-8"
        )
    finished: list[int] = []
    real_finish = store.runs.finish_run

    def second_fails(run_id: int, status: str) -> None:
        finished.append(run_id)
        if len(finished) == 2:
            raise LostDatabase("the database went away as the second category's run was finished")
        real_finish(run_id, status)

    monkeypatch.setattr(store.runs, "finish_run", second_fails)
    with pytest.raises(LostDatabase):
        import_bfcl_results(store, folder, "m")
    assert len(finished) == 2  # the first category was stored before the second failed
    assert (
        count_rows(store, SuiteRow),
        count_rows(store, RunRow),
        count_rows(store, TraceRow),
    ) == (0, 0, 0)
    monkeypatch.undo()
    results = import_bfcl_results(store, folder, "m")
    assert [r.category for r in results] == ["simple_python", "live_relevance"]
    assert count_rows(store, RunRow) == 2 and count_rows(store, TraceRow) == 2
