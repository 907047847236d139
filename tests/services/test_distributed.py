"""Judging on Dask: a real LocalCluster of separate worker processes, real schedulers and workers
started as `dask` commands, and the real PostgreSQL server (a fresh schema per store)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed", reason="needs dask[distributed] (the dask extra)")

from click.testing import CliRunner  # noqa: E402
from rejudge.judge import ENGINE_VERSION, load_rule_set  # noqa: E402
from rejudge.store import Store  # noqa: E402
from sqlalchemy import text  # noqa: E402

from rejudge.cli import cli  # noqa: E402
from rejudge.errors import ConflictError, InvalidInputError  # noqa: E402
from rejudge.services import (  # noqa: E402
    ClusterError,
    DaskEngine,
    check_versions,
    iter_evaluation_rows,
    judge_run,
    plan_rejudge,
    rejudge,
)
from tests.conftest import require_postgres  # noqa: E402
from tests.services.dask_cluster import (  # noqa: E402
    DATA,
    RESTART_TIMEOUT,
    free_port,
    kill_holders_of_unread_results,
    start_scheduler,
    start_worker,
    stop,
    wait_no_workers,
)
from tests.services.dask_store import fill, pg_schema  # noqa: E402

pytestmark = pytest.mark.postgres

RULES = "standard@2"


@pytest.fixture(scope="module")
def cluster(dask_cluster: Any) -> Any:
    """The module's cluster of two worker processes (tests/services/conftest.py); every test
    here needs PostgreSQL too."""
    require_postgres()
    return dask_cluster


@pytest.fixture(scope="module")
def client(cluster: Any) -> Iterator[Any]:
    """The test's own client of the cluster (to find and kill a busy worker)."""
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as c:
        yield c


@pytest.fixture
def pg_store() -> Iterator[Store]:
    require_postgres()
    with pg_schema() as url:
        store = Store.open(url)
        try:
            yield store
        finally:
            store.close()


def _engine(cluster: Any, **kw: Any) -> DaskEngine:
    return DaskEngine(scheduler=cluster.scheduler_address, partition_size=100, **kw)


def _judged(store: Store, evaluation_id: int) -> list[tuple[str, int, str]]:
    return sorted(
        (r["case"], r["repetition"], r["trace_hash"] + r["case_hash"])
        for r in iter_evaluation_rows(store, evaluation_id)
    )


def _hashes(store: Store, evaluation_id: int) -> list[tuple[str, int, str]]:
    return sorted(
        (r.case_key, r.repetition, r.judgment_hash)
        for r in store.judgments.iter_evaluation_rows(evaluation_id)
    )


def _count(store: Store, sql: str) -> int:
    with store.engine.connect() as c:
        return int(c.execute(text(sql)).scalar_one())


# --------------------------------------------------------------------------- results


def test_same_judgments_as_one_process(cluster: Any) -> None:
    """The same traces judged on two worker processes and in this process: the same judgment
    hashes, row for row, and the same summary."""
    rule_set = load_rule_set(RULES)
    with pg_schema() as url_a, pg_schema() as url_b:
        a, b = Store.open(url_a), Store.open(url_b)
        try:
            fill(a, 700)
            fill(b, 700)
            one = judge_run(a, "dask-run", "golden", rule_set)
            ticks: list[int] = []
            many = judge_run(
                b, "dask-run", "golden", rule_set, engine=_engine(cluster), progress=ticks.append
            )
            assert (many.judged, many.written) == (700, 700)
            assert sorted(ticks) == [100] * 7  # one tick per partition, every trace counted
            assert _hashes(a, one.evaluation_id) == _hashes(b, many.evaluation_id)
            assert many.summary == one.summary
            assert b.evaluations.get_evaluation(many.evaluation_id).status == "finished"
            # again on the cluster: the run's one evaluation, every judgment a lookup
            again = judge_run(b, "dask-run", "golden", rule_set, engine=_engine(cluster))
            assert (again.evaluation_id, again.judged, again.written) == (
                many.evaluation_id,
                700,
                0,
            )
        finally:
            a.close()
            b.close()


def test_shard_on_the_cluster_judges_only_its_traces(cluster: Any, pg_store: Store) -> None:
    fill(pg_store, 300)
    rule_set = load_rule_set(RULES)
    plan = plan_rejudge(pg_store, ["dask-run"], ["golden"], shard=(1, 3))
    result = rejudge(pg_store, plan, rule_set, shard=(1, 3), engine=_engine(cluster))
    ids = {
        r.trace_id
        for r in pg_store.judgments.iter_evaluation_rows(result.evaluations[0].evaluation)
    }
    assert len(ids) == 100 and all(i % 3 == 1 for i in ids)


def test_a_worker_killed_mid_task(cluster: Any, client: Any, pg_store: Store) -> None:
    """SIGKILL a worker process while it judges a partition: the scheduler runs that partition
    again elsewhere; every trace is linked once, every judgment stored once."""
    n = 1500
    fill(pg_store, n)
    killed: list[int] = []

    def tick(_n: int) -> None:
        if killed:
            return
        busy = [addr for addr, keys in client.processing().items() if keys]
        pids = client.run(os.getpid, workers=busy[:1])
        for pid in pids.values():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    result = judge_run(
        pg_store, "dask-run", "golden", load_rule_set(RULES), engine=_engine(cluster), progress=tick
    )
    assert killed, "no worker was busy to kill"
    # the killed task may have committed some of its chunks before it died: its re-run finds
    # them (written counts only what the re-run wrote), and the store holds each exactly once
    assert result.judged == n and result.written <= n
    ev = result.evaluation_id
    assert (
        _count(pg_store, f"SELECT count(*) FROM evaluation_judgments WHERE evaluation_id={ev}") == n
    )
    assert _count(pg_store, "SELECT count(DISTINCT trace_id) FROM evaluation_judgments") == n
    assert _count(pg_store, "SELECT count(*) FROM judgments") == n
    assert pg_store.evaluations.get_evaluation(ev).status == "finished"
    client.wait_for_workers(2, timeout=RESTART_TIMEOUT)  # the nanny restarts the killed one


def test_a_worker_killed_holding_judged_partitions(
    cluster: Any, client: Any, pg_store: Store
) -> None:
    """The worker killed holds finished partitions the driver has not read: their futures turn
    ``lost`` after ``as_completed`` queued them; the scheduler judges them again (a lookup for
    what was committed) and the run finishes, each judgment stored once."""
    n = 1500
    fill(pg_store, n)
    killed: list[int] = []

    def tick(_n: int) -> None:
        if not killed:
            killed.extend(kill_holders_of_unread_results(client, "rejudge-eval"))

    result = judge_run(
        pg_store, "dask-run", "golden", load_rule_set(RULES), engine=_engine(cluster), progress=tick
    )
    assert killed, "no worker held a judged partition to kill"
    assert result.judged == n
    ev = result.evaluation_id
    assert (
        _count(pg_store, f"SELECT count(*) FROM evaluation_judgments WHERE evaluation_id={ev}") == n
    )
    assert _count(pg_store, "SELECT count(*) FROM judgments") == n
    assert pg_store.evaluations.get_evaluation(ev).status == "finished"
    client.wait_for_workers(2, timeout=RESTART_TIMEOUT)  # the nannies restart the killed ones


def test_scheduler_gone_then_resumed(cluster: Any, pg_store: Store) -> None:
    """The scheduler dies mid-run: one ClusterError, the evaluation left unfinished with every
    stored link whole; the same judging on another cluster resumes and finishes it."""
    n = 1500
    fill(pg_store, n)
    port = free_port()
    scheduler = start_scheduler(port)
    worker = start_worker(port)
    rule_set = load_rule_set(RULES)
    try:

        def tick(_n: int) -> None:
            if scheduler.poll() is None:
                scheduler.kill()

        engine = DaskEngine(scheduler=f"tcp://127.0.0.1:{port}", partition_size=100, timeout=30)
        with pytest.raises(ClusterError, match="lost the Dask scheduler") as caught:
            judge_run(pg_store, "dask-run", "golden", rule_set, engine=engine, progress=tick)
    finally:
        stop(scheduler, worker)
    assert "\n" not in str(caught.value)
    (ev,) = pg_store.evaluations.list_evaluations()
    assert ev.status == "running"
    linked = _count(pg_store, "SELECT count(*) FROM evaluation_judgments")
    assert 100 <= linked < n
    # every link points at a stored judgment of its own trace
    assert _count(pg_store, "SELECT count(*) FROM judgments") >= linked
    resumed = judge_run(pg_store, "dask-run", "golden", rule_set, engine=_engine(cluster))
    assert resumed.evaluation_id == ev.id
    # every trace is distinct: each judgment linked before the loss was written before it
    assert resumed.judged == n and resumed.written == n - linked
    assert pg_store.evaluations.get_evaluation(ev.id).status == "finished"
    assert _count(pg_store, "SELECT count(*) FROM evaluation_judgments") == n
    assert _count(pg_store, "SELECT count(*) FROM judgments") == n


def test_two_concurrent_rejudges_of_one_evaluation(cluster: Any, pg_store: Store) -> None:
    """A second re-judge of the same evaluation while the first runs is refused; the first
    finishes it."""
    fill(pg_store, 600)
    rule_set = load_rule_set(RULES)
    second: list[BaseException] = []

    def tick(_n: int) -> None:
        if second:
            return
        try:
            judge_run(pg_store, "dask-run", "golden", rule_set, engine=_engine(cluster))
        except ConflictError as exc:
            second.append(exc)
        else:
            second.append(AssertionError("the second re-judge was not refused"))

    first = judge_run(
        pg_store, "dask-run", "golden", rule_set, engine=_engine(cluster), progress=tick
    )
    assert isinstance(second[0], ConflictError)
    assert f"evaluation {first.evaluation_id}" in str(second[0])
    assert "being judged by another" in str(second[0])
    assert first.judged == 600
    (ev,) = pg_store.evaluations.list_evaluations()
    assert ev.status == "finished"


def test_a_partition_failing_every_retry_is_named(cluster: Any, pg_store: Store) -> None:
    fill(pg_store, 300)
    with pg_store.engine.begin() as c:
        bad = c.execute(text("SELECT id FROM traces ORDER BY id LIMIT 1 OFFSET 150")).scalar_one()
        # a body no trace validates as, written behind the store's back: no behaviour hash
        # either (the store would have computed one from it), so it is judged, and fails
        c.execute(
            text("UPDATE traces SET body = '{\"rounds\": 3}', behaviour_hash = NULL WHERE id = :i"),
            {"i": bad},
        )
    with pytest.raises(ClusterError) as caught:
        judge_run(
            pg_store, "dask-run", "golden", load_rule_set(RULES), engine=_engine(cluster, retries=1)
        )
    message = str(caught.value)
    first, last = bad - 50, bad + 49  # the partition of traces 101..200 (ids in order)
    assert f"partition of traces {first}..{last}" in message and "after 1 retries" in message
    assert "\n" not in message
    (ev,) = pg_store.evaluations.list_evaluations()
    assert ev.status == "running"


# --------------------------------------------------------------------------- bad input


def test_sqlite_store_is_refused(tmp_path: Path) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'r.db'}")
    try:
        fill(store, 10)
        with pytest.raises(InvalidInputError, match="needs a store every worker can reach"):
            judge_run(store, "dask-run", "golden", load_rule_set(RULES), engine=DaskEngine())
        assert store.evaluations.list_evaluations() == []
    finally:
        store.close()
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'r.db'}", "rejudge", "dask-run", "--rules", RULES]
        + ["--tier", "golden", "--engine", "dask", "--workers", "2"],
        env={"REJUDGE_DB": None},
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert "sqlite" in result.output


def test_scheduler_flag_needs_the_dask_engine(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'r.db'}", "judge", "r", "--tier", "golden"]
        + ["--scheduler", "tcp://127.0.0.1:8786"],
        env={"REJUDGE_DB": None},
    )
    assert result.exit_code == 2 and "--scheduler needs --engine dask" in result.output


def test_unreachable_scheduler(pg_store: Store) -> None:
    fill(pg_store, 10)
    engine = DaskEngine(scheduler=f"tcp://127.0.0.1:{free_port()}", timeout=1)
    with pytest.raises(ClusterError, match="no Dask scheduler answers at tcp://127.0.0.1") as e:
        judge_run(pg_store, "dask-run", "golden", load_rule_set(RULES), engine=engine)
    assert "\n" not in str(e.value)
    assert pg_store.evaluations.list_evaluations() == []


def test_workers_without_rejudge_or_of_another_engine_are_refused(pg_store: Store) -> None:
    """Real `dask worker` processes: one that cannot import rejudge, one whose rejudge judges
    with another engine version. Each is refused before anything is written."""
    fill(pg_store, 10)
    port = free_port()
    scheduler = start_scheduler(port)
    engine = DaskEngine(scheduler=f"tcp://127.0.0.1:{port}", timeout=30)
    rule_set = load_rule_set(RULES)
    try:
        for preload, expected in [
            ("worker_without_rejudge.py", "cannot import rejudge"),
            ("worker_other_engine.py", "judging engine 0.9.0"),
        ]:
            worker = start_worker(port, "--preload", str(DATA / preload))
            try:
                with pytest.raises(ClusterError, match=expected) as caught:
                    judge_run(pg_store, "dask-run", "golden", rule_set, engine=engine)
                assert "\n" not in str(caught.value)
            finally:
                stop(worker)
                wait_no_workers(str(engine.scheduler))
        assert pg_store.evaluations.list_evaluations() == []
    finally:
        stop(scheduler)


def test_versions_of_another_dask_are_refused() -> None:
    """The version check itself, on the shapes ``Client.get_versions`` and ``Client.run``
    return (another Dask cannot be installed beside this one in one environment)."""
    ours = {"packages": {"distributed": "2026.8.0"}}
    ok_worker = ("0.1.0", ENGINE_VERSION, None)
    kw = {"dask_version": "2026.8.0", "rejudge_version": "0.1.0"}
    check_versions("s", {"scheduler": ours, "workers": {"w": ours}}, {"w": ok_worker}, **kw)
    old = {"packages": {"distributed": "2024.1.0"}}
    with pytest.raises(ClusterError, match="scheduler at s runs distributed 2024.1.0"):
        check_versions("s", {"scheduler": old, "workers": {}}, {"w": ok_worker}, **kw)
    with pytest.raises(ClusterError, match="worker w runs distributed 2024.1.0"):
        check_versions("s", {"scheduler": ours, "workers": {"w": old}}, {"w": ok_worker}, **kw)
    with pytest.raises(ClusterError, match="has no worker"):
        check_versions("s", {"scheduler": ours, "workers": {}}, {}, **kw)
    with pytest.raises(ClusterError, match="cannot reach the store: OperationalError"):
        check_versions(
            "s",
            {"scheduler": ours, "workers": {"w": ours}},
            {"w": ("0.1.0", ENGINE_VERSION, "OperationalError: connection refused")},
            **kw,
        )


def test_the_cli_judges_and_rejudges_on_the_cluster(cluster: Any) -> None:
    import json

    with pg_schema() as url:
        store = Store.open(url)
        try:
            fill(store, 250)
        finally:
            store.close()
        env = {"REJUDGE_DB": None}
        address = cluster.scheduler_address
        judged = CliRunner().invoke(
            cli,
            ["--db", url, "judge", "dask-run", "--tier", "golden", "--engine", "dask"]
            + ["--scheduler", address, "--json"],
            env=env,
        )
        assert judged.exit_code == 0, judged.output
        first = json.loads(judged.output)
        assert (first["judged"], first["written"]) == (250, 250)
        again = CliRunner().invoke(
            cli,
            ["--db", url, "rejudge", "dask-run", "--rules", RULES, "--engine", "dask"]
            + ["--scheduler", address, "--json"],
            env=env,
        )
        assert again.exit_code == 0, again.output
        (evaluation,) = json.loads(again.output)["evaluations"]
        assert evaluation["evaluation"] == first["evaluation"]
        assert (evaluation["judged"], evaluation["written"]) == (250, 0)
