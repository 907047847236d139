"""`import cassettes` on Dask: the files read on a real LocalCluster of separate worker processes
(and on real `dask worker` commands), stored by this process; the result is compared with a local
import of the same folder. The store is SQLite: an import's workers never open it."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed", reason="needs dask[distributed] (the dask extra)")

from click.testing import CliRunner  # noqa: E402
from rejudge.recorder import (  # noqa: E402
    CassetteError,
    NamedFile,
    name_cassettes,
    plan_folder,
)
from rejudge.store import Store  # noqa: E402

from rejudge.cli import cli  # noqa: E402
from rejudge.services import (  # noqa: E402
    ClusterError,
    DaskEngine,
    ImportResult,
    cut_partitions,
    import_cassettes,
)
from tests.services.dask_cluster import (  # noqa: E402
    DATA,
    free_port,
    kill_holders_of_unread_results,
    start_scheduler,
    start_worker,
    stop,
    wait_no_workers,
)

REPO = Path(__file__).resolve().parents[2]
WORLD = REPO / "tests" / "data" / "world"  # 81 files of 9 frameworks, 4 of them unreadable
RETAIL = REPO / "cassettes" / "smollm2-retail"  # 72 cassettes rejudge recorded on retail


def _engine(cluster: Any, **kw: Any) -> DaskEngine:
    return DaskEngine(scheduler=cluster.scheduler_address, **kw)


def _open(tmp_path: Path, name: str) -> Store:
    return Store.open(f"sqlite:///{tmp_path / name}.db")


def _stored(store: Store, result: ImportResult) -> dict[str, Any]:
    """What an import left in the store, in terms that do not depend on row ids."""
    run = store.runs.get_run(result.run.id)
    traces = sorted(
        (r.case_key, r.repetition, r.hash, r.cassette_hash)
        for r in store.traces.iter_trace_rows(run.id, with_body=False)
    )
    # each import copies into a folder of its own, which the stored path names: compare the
    # paths under it
    paths = sorted(
        (r.cassette_path or "").rsplit("//", 1)[-1]
        for r in store.traces.iter_trace_rows(run.id, with_body=False)
    )
    return {
        "suite": (result.suite.name, result.suite.hash),
        "run": (run.name, run.config.identity_hash, run.status),
        "traces": traces,
        "paths": paths,
        "counts": (result.inserted, result.skipped),
    }


def _both(
    cluster: Any, tmp_path: Path, folder: Path, suite: str | None = None, **kw: Any
) -> tuple[ImportResult, ImportResult, list[int]]:
    """The same folder imported locally and on the cluster, each into a store of its own."""
    ticks: list[int] = []
    local_store, dask_store = _open(tmp_path, "local"), _open(tmp_path, "dask")
    try:
        local = import_cassettes(
            folder, local_store, suite, copy_to=tmp_path / "copies-local", **kw
        )
        remote = import_cassettes(
            folder,
            dask_store,
            suite,
            copy_to=tmp_path / "copies-dask",
            engine=_engine(cluster),
            progress=ticks.append,
            **kw,
        )
        assert _stored(dask_store, remote) == _stored(local_store, local)
    finally:
        local_store.close()
        dask_store.close()
    return local, remote, ticks


def _copies(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------- the same import


def test_an_adhoc_import_is_the_local_one(dask_cluster: Any, tmp_path: Path) -> None:
    """Nine frameworks' cassettes, four files unreadable: the same plan (traces, order, skipped
    files with their reasons), the same ad-hoc suite hash, run and trace hashes, the same
    copies; the progress counted every file, partition by partition."""
    local, remote, ticks = _both(dask_cluster, tmp_path, WORLD, strict=False)
    assert remote.planned == local.planned
    assert remote.skipped_files == local.skipped_files and len(local.skipped_files) == 4
    assert remote.summary() == local.summary()
    assert _copies(tmp_path / "copies-dask") == _copies(tmp_path / "copies-local")
    assert sum(ticks) == len(name_cassettes(WORLD)) and len(ticks) > 1


def test_a_suite_import_numbers_repetitions_as_the_local_one(
    dask_cluster: Any, tmp_path: Path
) -> None:
    """Repetitions depend on the other files of a case: explicit ones first, then the free slots
    in file order, and an unreadable file takes none. The cluster numbers them as a local import
    does (whole cases per partition)."""
    src = tmp_path / "src"
    shutil.copytree(RETAIL, src)
    one = (RETAIL / "fc-d1-001__r0.yaml").read_bytes()
    (src / "extra").mkdir()
    (src / "extra" / "fc-d1-001__r0.yaml").write_bytes(one)  # first in file order: r0
    (src / "zz").mkdir()  # last in file order: a cut by file count would part it from r0
    (src / "zz" / "fc-d1-001__r0.yaml").write_bytes(one)  # r0 and r1 taken: r2
    (src / "fc-d1-001.yaml").write_bytes(one)  # no repetition: the first free one, r3
    (src / "fc-d1-002__r3.yaml").write_bytes((RETAIL / "fc-d1-002__r0.yaml").read_bytes())
    (src / "fc-d1-003__r0.yaml").write_text("not: [a cassette")  # skipped, takes no slot
    (src / "fc-d1-003.yaml").write_bytes((RETAIL / "fc-d1-003__r0.yaml").read_bytes())  # r0
    (src / "fc-d4-010__r0.yaml").write_text("interactions: 3")  # a second unreadable file
    local, remote, _ticks = _both(dask_cluster, tmp_path, src, "retail", strict=False)
    assert remote.planned == local.planned
    reps = {
        (p.rel, p.repetition) for p in remote.planned if p.case_id in {"fc-d1-001", "fc-d1-003"}
    }
    assert reps == {
        ("extra/fc-d1-001__r0.yaml", 0),
        ("fc-d1-001__r0.yaml", 1),  # r0 taken: the next free one
        ("zz/fc-d1-001__r0.yaml", 2),
        ("fc-d1-001.yaml", 3),
        ("fc-d1-003.yaml", 0),
    }
    assert [f.rel for f in remote.skipped_files] == ["fc-d1-003__r0.yaml", "fc-d4-010__r0.yaml"]
    assert _copies(tmp_path / "copies-dask") == _copies(tmp_path / "copies-local")

    # strict: the same first unreadable file stops both, and neither stores anything
    errors = []
    for engine in (None, _engine(dask_cluster)):
        store = _open(tmp_path, f"strict-{engine is None}")
        try:
            with pytest.raises(CassetteError) as caught:
                import_cassettes(src, store, "retail", engine=engine, strict=True)
            assert store.runs.list_runs() == []
            errors.append(str(caught.value))
        finally:
            store.close()
    assert errors[0] == errors[1] and "fc-d1-003__r0.yaml" in errors[0]


def test_partitions_hold_whole_cases() -> None:
    files = [
        NamedFile(Path(f"{c}__r{r}.yaml"), f"{c}__r{r}.yaml", c, r)
        for c, n in [("a", 3), ("b", 1), ("c", 5), ("d", 2)]
        for r in range(n)
    ]
    parts = cut_partitions(files, 2)
    assert [sorted({f.case_id for f in p}) for p in parts] == [["a"], ["b", "c"], ["d"]]
    assert sorted(f.rel for p in parts for f in p) == sorted(f.rel for f in files)
    assert cut_partitions(files, 100) == [sorted(files, key=lambda f: f.case_id)]


def test_a_worker_killed_mid_import(own_dask_cluster: Any, tmp_path: Path) -> None:
    """SIGKILL a busy worker after the first partition: the scheduler reads its partition again
    elsewhere (reading writes nothing), and the plan is still the local one."""
    src = tmp_path / "src"
    _world_copies(src, 6)  # 486 files: partitions of ~61, a few hundred ms each
    killed: list[int] = []
    with distributed.Client(own_dask_cluster.scheduler_address, set_as_default=False) as client:

        def tick(_n: int) -> None:
            if killed:
                return
            busy = [addr for addr, keys in client.processing().items() if keys]
            for pid in client.run(os.getpid, workers=busy[:1]).values():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        store = _open(tmp_path, "killed")
        try:
            result = import_cassettes(
                src, store, engine=_engine(own_dask_cluster), progress=tick, strict=False
            )
        finally:
            store.close()
        assert killed, "no worker was busy to kill"
        local = plan_folder(src)
        assert result.planned == local.traces and result.skipped_files == local.skipped


def _world_copies(src: Path, n: int) -> None:
    for k in range(n):
        for f in WORLD.rglob("*"):
            if (
                f.is_file()
                and f.suffix in {".yaml", ".yml", ".json"}
                and "rejudge-import" not in f.name
            ):
                dest = src / f"copy{k}" / f.relative_to(WORLD)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(f, dest)


def test_a_worker_killed_holding_results_not_yet_read(
    own_dask_cluster: Any, tmp_path: Path
) -> None:
    """The worker killed holds finished partitions the driver has not read yet: their futures turn
    ``lost`` after ``as_completed`` queued them, and the scheduler reads them again. That is a
    worker's loss, not the scheduler's (CI once failed this way: "lost the Dask scheduler after 2
    of 8 partition(s)" with the scheduler up)."""
    src = tmp_path / "src"
    _world_copies(src, 6)
    killed: list[int] = []
    with distributed.Client(own_dask_cluster.scheduler_address, set_as_default=False) as client:

        def tick(_n: int) -> None:
            if not killed:  # the driver is here, not reading: kill what holds unread results
                killed.extend(kill_holders_of_unread_results(client, "rejudge-import-"))

        store = _open(tmp_path, "killed-holding")
        try:
            result = import_cassettes(
                src, store, engine=_engine(own_dask_cluster), progress=tick, strict=False
            )
        finally:
            store.close()
        assert killed, "no worker held a finished partition to kill"
        local = plan_folder(src)
        assert result.planned == local.traces and result.skipped_files == local.skipped


# --------------------------------------------------------------------------- bad input


def test_refused_workers_and_a_failing_partition(tmp_path: Path) -> None:
    """Real `dask worker` processes: one without rejudge and one that does not see the folder
    are refused before any file is read; one whose reads fail has its partition tried again,
    then named in one line. Nothing is stored in any case."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = start_scheduler(port)
    engine = DaskEngine(scheduler=address, timeout=30, retries=1)
    store = _open(tmp_path, "refused")
    try:
        for preload, expected in [
            ("worker_without_rejudge.py", "cannot import rejudge"),
            ("worker_without_share.py", f"does not see {WORLD}"),
            ("worker_failing_reads.py", r"failed \(after 1 retries\): RuntimeError: this worker"),
        ]:
            worker = start_worker(port, "--preload", str(DATA / preload))
            try:
                with pytest.raises(ClusterError, match=expected) as caught:
                    import_cassettes(WORLD, store, engine=engine, strict=False)
                assert "\n" not in str(caught.value)
            finally:
                stop(worker)
                wait_no_workers(address)
        message = str(caught.value)
        # one worker gets the folder in four partitions of whole cases, each of at least 20
        # files (services/_distributed_import.py); the first is named in the message
        files = name_cassettes(WORLD)
        first = cut_partitions(files, max(20, math.ceil(len(files) / 4)))[0]
        assert message.startswith("the partition of cases ")
        assert f"({len(first)} file(s))" in message
        assert message.endswith("nothing was imported")
        assert store.runs.list_runs() == [] and store.suites.list_suites() == []
    finally:
        store.close()
        stop(scheduler)


def test_unreachable_scheduler(tmp_path: Path) -> None:
    store = _open(tmp_path, "nowhere")
    engine = DaskEngine(scheduler=f"tcp://127.0.0.1:{free_port()}", timeout=1)
    try:
        with pytest.raises(ClusterError, match="no Dask scheduler answers at tcp://127.0.0.1") as e:
            import_cassettes(WORLD, store, engine=engine, strict=False)
        assert "\n" not in str(e.value)
        assert store.runs.list_runs() == []
    finally:
        store.close()


# --------------------------------------------------------------------------- the CLI


def _cli(tmp_path: Path, *args: str) -> Any:
    return CliRunner().invoke(
        cli,
        ["--db", f"sqlite:///{tmp_path / 'cli.db'}", "--cassettes", str(tmp_path / "cas")]
        + ["import", "cassettes", *args],
        env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
    )


def test_the_cli_imports_on_the_cluster(dask_cluster: Any, tmp_path: Path) -> None:
    """`--engine dask --scheduler` on a SQLite store: the JSON a local import prints (same run,
    same traces); the local import after it finds every trace stored."""
    remote = _cli(
        tmp_path, str(RETAIL), "--suite", "retail", "--json", "--engine", "dask",
        "--scheduler", dask_cluster.scheduler_address,
    )  # fmt: skip
    assert remote.exit_code == 0, remote.output
    data = json.loads(remote.output)
    assert (data["cassettes"], data["inserted"], data["skipped"]) == (72, 72, 0)
    local = _cli(tmp_path, str(RETAIL), "--suite", "retail", "--json")
    assert local.exit_code == 0, local.output
    again = json.loads(local.output)
    assert (again["run"], again["inserted"], again["skipped"]) == (data["run"], 0, 72)
    assert again["traces"] == data["traces"]


def test_the_cli_refuses_a_bad_scheduler_in_one_line(tmp_path: Path) -> None:
    result = _cli(
        tmp_path, str(WORLD), "--engine", "dask", "--scheduler", f"tcp://127.0.0.1:{free_port()}"
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: no Dask scheduler answers at tcp://127.0.0.1:")
    assert result.output.count("\n") == 1
    usage = _cli(tmp_path, str(WORLD), "--workers", "2")
    assert usage.exit_code == 2 and "--workers needs --engine dask" in usage.output
