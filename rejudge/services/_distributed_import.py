"""``import cassettes --engine dask``: the cassettes read, scrubbed and normalized on a Dask cluster.

The driver (this process) lists the files and names their cases with the rules of a local import
(:func:`rejudge.recorder.name_cassettes`), cuts them into partitions of whole cases and submits
one task per partition. A task, on whichever worker runs it, reads its files with the recorder's
pure :func:`rejudge.recorder.read_cassettes` and returns a :class:`rejudge.recorder.PlanPart`
(its planned traces and skipped files). The driver assembles the parts into the plan a local
import of the folder makes (:func:`rejudge.recorder.assemble_plan`: same order, same cases and
repetitions), and :func:`rejudge.importers._cassettes.import_cassettes` stores it as it stores a
local plan: one transaction, on the driver.

A partition never cuts a case: a file without a repetition in its name takes the case's next
free one, so its repetition depends on every file of its case, and on no other case's.

The files are read on the workers from the path the driver sees: the folder must be shared
(the same path on every worker machine, e.g. a network mount), and a worker that does not see it
is refused before anything is read. The workers never open the store, so, unlike a distributed
judging, a SQLite store is fine: only the driver writes, as in a local import. The cluster is
checked as for judging (:func:`rejudge.services._distributed.connect_cluster`: a scheduler
answers, it and every worker run this Dask, every worker imports this rejudge). Nothing is
written before every partition is read, so a failure (a task failing every retry, the scheduler
lost) stores nothing.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from rejudge.judge import ENGINE_VERSION
from rejudge.model import ToolSpec
from rejudge.recorder import (
    NORMALIZER_VERSION,
    ImportPlan,
    NamedFile,
    PlanOptions,
    PlanPart,
    assemble_plan,
    name_cassettes,
    read_cassettes,
)
from rejudge.services._distributed import (
    DaskEngine,
    connect_cluster,
    lost_on_a_worker,
)
from rejudge.services._partitions import ClusterError, rejudge_version

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["ReadSpec", "plan_on_cluster", "read_partition", "import_identity", "cut_partitions"]

Progress = Callable[[int], None]

#: at most this many files a task: its result (the traces and the scrubbed bytes, ~20-40 KB a
#: shipped cassette) stays a few MB, and a lost worker costs a few seconds of reading again
MAX_PARTITION_FILES = 200
#: at least this many (unless the folder has fewer): a file takes ~5 ms, a task's round trip
#: a few ms, so smaller partitions would spend more on the scheduler than on the files
MIN_PARTITION_FILES = 20
#: partitions per worker: enough that a slow worker does not hold the last seconds alone
PARTITIONS_PER_WORKER = 4


@dataclass(frozen=True)
class ReadSpec:
    """What every task of one import shares: where the files are as the driver sees them, how
    to read them, and the versions the driver reads with (a worker that joined after the
    cluster was checked is refused by its task)."""

    folder: str
    cwd: str
    name_map: dict[str, str] | None
    strict: bool
    rejudge_version: str
    normalizer_version: str


# --------------------------------------------------------------------------- worker side


def import_identity() -> tuple[str, str, None]:
    """What :func:`rejudge.services._distributed.check_versions` reads of a worker: its rejudge
    and engine versions, and no store problem (an import's workers never open the store)."""
    return rejudge_version(), ENGINE_VERSION, None


def _sees(folder: str) -> bool:
    return os.path.exists(folder)


def read_partition(
    spec: ReadSpec, files: list[NamedFile], case_hashes: dict[str, str] | None
) -> PlanPart:
    """One task: read, scrub and derive ``files`` (every file of their cases)."""
    ours = (rejudge_version(), NORMALIZER_VERSION)
    if ours != (spec.rejudge_version, spec.normalizer_version):
        raise ClusterError(
            f"this worker runs rejudge {ours[0]} (normalizer {ours[1]}), the import asks for "
            f"{spec.rejudge_version} (normalizer {spec.normalizer_version})"
        )
    # every worker was checked before the first task; one may have joined since, or lost a mount
    if not _sees(spec.folder):
        raise ClusterError(f"this worker does not see {spec.folder}")
    part = read_cassettes(
        files,
        name_map=spec.name_map,
        case_hashes=case_hashes,
        strict=spec.strict,
        cwd=Path(spec.cwd),
    )
    return _one_object_per_tool(part)


def _one_object_per_tool(part: PlanPart) -> PlanPart:
    """``part`` with equal tool specs as one object: the files of a run offer the same tools in
    every request, and pickle sends an object once however often it is referenced. Otherwise
    the specs (JSON schemas, rebuilt as pydantic models) are most of the result's size and of
    the time spent pickling it here and unpickling it on the driver (10 MB, ~2.8 s of CPU for
    1,110 shipped cassettes; bench/dask_import.py)."""
    seen: dict[str, list[ToolSpec]] = {}

    def shared(spec: ToolSpec) -> ToolSpec:
        same_name = seen.setdefault(spec.name, [])
        for known in same_name:  # a model's == compares its fields: no dump, no hash
            if known == spec:
                return known
        same_name.append(spec)
        return spec

    traces = [replace(t, tools=tuple(shared(s) for s in t.tools)) for t in part.traces]
    return replace(part, traces=traces)


# --------------------------------------------------------------------------- driver side


def cut_partitions(files: Collection[NamedFile], size: int) -> list[list[NamedFile]]:
    """``files`` in partitions of about ``size`` files, whole cases each (in case order)."""
    by_case: dict[str, list[NamedFile]] = {}
    for f in files:
        by_case.setdefault(f.case_id, []).append(f)
    out: list[list[NamedFile]] = []
    current: list[NamedFile] = []
    for case_id in sorted(by_case):
        current.extend(by_case[case_id])
        if len(current) >= size:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _partition_size(n_files: int, n_workers: int) -> int:
    wanted = math.ceil(n_files / (PARTITIONS_PER_WORKER * max(n_workers, 1)))
    return max(MIN_PARTITION_FILES, min(MAX_PARTITION_FILES, wanted))


def plan_on_cluster(
    engine: DaskEngine,
    directory: str | Path,
    *,
    strict: bool = False,
    progress: Progress | None = None,
    **options: Unpack[PlanOptions],
) -> ImportPlan:
    """:func:`rejudge.recorder.plan_folder` with the files read on ``engine``'s cluster: the
    same plan, or the same error. ``progress`` gets each finished partition's file count."""
    # the folder is listed and named before any cluster starts: a bad folder, an unknown case,
    # is refused as a local import refuses it
    files = name_cassettes(
        directory, case_ids=options.get("case_ids"), mapping=options.get("mapping")
    )
    case_hashes = options.get("case_hashes")
    spec = ReadSpec(
        folder=os.path.abspath(directory),
        cwd=os.getcwd(),
        name_map=options.get("name_map"),
        strict=strict,
        rejudge_version=rejudge_version(),
        normalizer_version=NORMALIZER_VERSION,
    )
    with connect_cluster(engine, import_identity) as (client, where):
        seen = client.run(_sees, spec.folder, on_error="return")
        blind = sorted(address for address, ok in seen.items() if ok is not True)
        if blind:
            raise ClusterError(
                f"Dask worker {blind[0]} does not see {spec.folder}"
                + (f" (nor do {len(blind) - 1} other worker(s))" if len(blind) > 1 else "")
                + ": the workers read the cassettes where the driver sees them; share the "
                "folder at the same path on every worker"
            )
        size = _partition_size(len(files), len(seen))
        partitions = cut_partitions(files, size)
        parts = _read_all(client, engine, where, spec, partitions, case_hashes, progress)
    return assemble_plan(Path(directory), files, parts)


def _read_all(
    client: Client,
    engine: DaskEngine,
    where: str,
    spec: ReadSpec,
    partitions: list[list[NamedFile]],
    case_hashes: Mapping[str, str] | None,
    progress: Progress | None,
) -> list[PlanPart]:
    from distributed import as_completed

    token = uuid.uuid4().hex[:12]  # keys of this import only: never another import's results
    futures = {}
    for index, files in enumerate(partitions):
        hashes = None
        if case_hashes is not None:  # only its cases' hashes travel with a task
            hashes = {f.case_id: case_hashes[f.case_id] for f in files if f.case_id in case_hashes}
        fut = client.submit(
            read_partition,
            spec,
            files,
            hashes,
            key=f"rejudge-import-{token}-{index}",
            retries=engine.retries,
            pure=False,
        )
        futures[fut.key] = (fut, files)
    parts: list[PlanPart] = []
    total = len(partitions)
    try:
        done = as_completed([f for f, _files in futures.values()], loop=client.loop)
        for fut in done:
            if lost_on_a_worker(fut):
                done.add(fut)  # its worker died after it finished: the scheduler reads it again
                continue
            # dropped as soon as it is read: the worker releases a result the driver holds
            _f, files = futures.pop(fut.key)
            if fut.status != "finished":
                exc = fut.exception() if fut.status == "error" else None
                if exc is None:  # cancelled: the scheduler went away
                    raise _lost(where, len(parts), total)
                first_line = str(exc).splitlines()[0] if str(exc) else ""
                cases = sorted({f.case_id for f in files})  # consecutive case ids
                raise ClusterError(
                    f"the partition of cases {cases[0]} .. {cases[-1]} ({len(files)} file(s)) "
                    f"failed (after {engine.retries} retries): {type(exc).__name__}: "
                    f"{first_line}; nothing was imported"
                )
            parts.append(fut.result())
            if progress:
                progress(len(files))
    except (OSError, TimeoutError) as exc:  # CommClosedError is an OSError
        raise _lost(where, len(parts), total) from exc
    finally:
        for fut, _files in futures.values():
            if not fut.done():
                fut.cancel()
    return parts


def _lost(where: str, finished: int, total: int) -> ClusterError:
    return ClusterError(
        f"lost the Dask scheduler at {where} after {finished} of {total} partition(s) of the "
        "import; nothing was imported: run the same import again"
    )
