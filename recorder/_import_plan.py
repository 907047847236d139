"""Planning an import of cassettes: name each file's case, read and derive the files, assemble
the plan (:class:`rejudge.recorder.ImportPlan`) before anything is written.

The three steps are separate so the reading, the costly one, can run elsewhere: the files of
some cases at a time (a file's repetition depends only on the files of its case), each part
small and picklable, assembled into the plan one reading of every file would give. A Dask
import runs :func:`read_cassettes` as its tasks (:mod:`rejudge.services._distributed_import`);
:func:`plan_folder` runs all three in this process.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypedDict, Unpack
from urllib.parse import urlsplit

from rejudge.recorder._cassettes import (
    CassetteError,
    CassetteFile,
    Exchange,
    cassette_stem,
    parse_cassette,
    scrubbed_cassette_bytes,
)
from rejudge.recorder._derive import run_config_from_meta, trace_of
from rejudge.recorder._importer import (
    MAPPING_FILE_NAMES,
    CassetteImportError,
    ImportPlan,
    PlannedTrace,
    SkippedFile,
    find_cassettes,
)
from rejudge.recorder._normalizer import model_exchanges
from rejudge.recorder.wire import describe_wire_formats

from rejudge.errors import RejudgeError
from rejudge.model import ToolSpec, hash_bytes

__all__ = [
    "NamedFile",
    "PlanPart",
    "PlanOptions",
    "reading_order",
    "name_cassettes",
    "read_cassettes",
    "assemble_plan",
    "plan_folder",
    "plan_import",
]

_REPETITION = re.compile(r"^(?P<case>.+?)__r(?P<rep>\d+)$")


def _case_from_name(stem: str) -> tuple[str, int | None]:
    match = _REPETITION.match(stem)
    if match:
        return match.group("case"), int(match.group("rep"))
    return stem, None


def _case_from_path(rel: str) -> tuple[str, int | None]:
    """The case a file names by its path under the imported folder (``anthropic/sync.yaml`` ->
    ``anthropic/sync``; ``a/b__r2.yaml`` -> ``a/b``, repetition 2). The folders are part of the
    name: two projects' ``sync.yaml`` are two tests, never two repetitions of one."""
    folder = PurePosixPath(rel).parent.as_posix()
    case, rep = _case_from_name(cassette_stem(Path(rel)))
    return (case if folder == "." else f"{folder}/{case}"), rep


def _facts(
    exchanges: list[Exchange],
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[ToolSpec, ...], str | None]:
    models: list[str] = []
    formats: list[str] = []
    hosts: list[str] = []
    tools: dict[str, ToolSpec] = {}
    instruction: str | None = None
    for m in model_exchanges(exchanges):
        body = m.exchange.request_body
        model = body.get("model") if isinstance(body, dict) else None
        if m.turn is not None and m.turn.raw_model:
            model = model or m.turn.raw_model
        fmt = m.wire_format
        if not model:  # Gemini and Bedrock name the model in the URL
            model = fmt.model_in_url(m.exchange.url)
        if isinstance(model, str) and model not in models:
            models.append(model)
        if fmt.name not in formats:
            formats.append(fmt.name)
        parts = urlsplit(m.exchange.url)
        host = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
        if host and host not in hosts:
            hosts.append(host)
        for spec in fmt.tool_specs(body):
            tools.setdefault(spec.name, spec)
        if instruction is None:
            instruction = fmt.first_user_text(body)
    return tuple(models), tuple(formats), tuple(hosts), tuple(tools.values()), instruction


class PlanOptions(TypedDict, total=False):
    """How a folder's cassettes are named and read, each optional (:func:`plan_folder`,
    :func:`plan_import`, ``rejudge.services.plan_on_cluster``): ``case_ids`` and ``mapping``
    name the cases (:func:`name_cassettes`), ``name_map`` and ``case_hashes`` go to the reading
    (:func:`read_cassettes`)."""

    case_ids: Collection[str] | None
    mapping: Mapping[str, tuple[str, int | None]] | None
    name_map: dict[str, str] | None
    case_hashes: Mapping[str, str] | None


def plan_import(directory: str | Path, **options: Unpack[PlanOptions]) -> list[PlannedTrace]:
    """Read and derive every cassette under ``directory`` and name its case (strict: a file that
    cannot be read raises its error). See :func:`plan_folder` for the arguments."""
    return plan_folder(directory, strict=True, **options).traces


def _read_scrubbed(path: Path, cwd: Path | None) -> tuple[CassetteFile, bytes, str]:
    # the cassette as read from its scrubbed bytes, those bytes, and the hash of the file as is
    try:
        data = (cwd / path if cwd is not None else path).read_bytes()
    except OSError as exc:
        raise CassetteError(f"{path}: cannot read: {exc.strerror or exc}", path=path) from None
    clean = scrubbed_cassette_bytes(data, str(path))
    return parse_cassette(clean, str(path)), clean, hash_bytes(data)


def _reason(exc: Exception, path: Path) -> str:
    message = " ".join(str(exc).split())
    prefix = f"{path}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


@dataclass(frozen=True)
class NamedFile:
    """A cassette file under the folder and the case it names (with the repetition its name or
    the mapping gives, else None: it takes the case's next free one)."""

    path: Path
    rel: str
    case_id: str
    repetition: int | None


def reading_order(f: NamedFile) -> tuple[bool, str]:
    """The order files are read in: explicit repetitions first, then the others fill the free
    slots in file order (so a file's repetition depends only on the files of its case)."""
    return (f.repetition is None, f.rel)


@dataclass(frozen=True)
class PlanPart:
    """What reading some cases' files gave: their traces, the files skipped, the files recorded
    against another version of their case, and (strict) the first file that could not be read.
    Small and picklable: a Dask task returns one (:mod:`rejudge.services._distributed_import`)."""

    traces: list[PlannedTrace]
    skipped: list[SkippedFile]
    stale: list[str]
    error: RejudgeError | None = None
    error_rel: str | None = None


def name_cassettes(
    directory: str | Path,
    *,
    case_ids: Collection[str] | None = None,
    mapping: Mapping[str, tuple[str, int | None]] | None = None,
) -> list[NamedFile]:
    """Every cassette file under ``directory`` with the case it names, in file order (nothing is
    read but the folder's listing): its path under ``directory`` without the suffixes, and
    ``__r<k>`` for a repetition. See :func:`plan_folder` for the arguments and the errors."""
    root = Path(directory)
    files = find_cassettes(root)
    if not files:
        raise CassetteImportError(f"{root}: no cassette files (*.yaml, *.yml, *.json) to import")
    base = root if root.is_dir() else root.parent
    named: list[NamedFile] = []
    unknown: list[str] = []
    for path in files:
        rel = path.relative_to(base).as_posix()
        if mapping is not None and (rel in mapping or path.name in mapping):
            case_id, rep = mapping[rel] if rel in mapping else mapping[path.name]
        else:
            case_id, rep = _case_from_path(rel)
            if case_ids is not None and case_id not in case_ids:
                # a suite's case ids are plain names, and rejudge's own layout keeps them as
                # file names under a run's folder (<run>/<case>__r<k>.yaml): the file name
                # resolves to the suite's case when the path does not
                stem = cassette_stem(path)
                by_name = _case_from_name(stem)
                if by_name[0] in case_ids:
                    case_id, rep = by_name
                elif stem in case_ids:
                    case_id, rep = stem, None
        if case_ids is not None and case_id not in case_ids:
            unknown.append(rel)
            continue
        named.append(NamedFile(path, rel, case_id, rep))
    if unknown:
        raise CassetteImportError(
            f"{len(unknown)} cassette(s) name no case of the suite: {_shown(unknown)}; name each "
            f"file <case>.yaml or <case>__r<k>.yaml, or map files to cases in "
            f"{MAPPING_FILE_NAMES[0]}"
        )
    return named


def _shown(rels: list[str]) -> str:
    return ", ".join(rels[:5]) + (f" and {len(rels) - 5} more" if len(rels) > 5 else "")


def read_cassettes(
    files: Collection[NamedFile],
    *,
    name_map: dict[str, str] | None = None,
    case_hashes: Mapping[str, str] | None = None,
    strict: bool = False,
    cwd: Path | None = None,
) -> PlanPart:
    """Read, scrub and derive ``files``, which hold every file of each of their cases (the
    repetitions are numbered per case). A file that cannot be read is skipped with its reason;
    when ``strict``, reading stops there and the part carries the error instead. ``cwd``: the
    folder relative paths are relative to (the driver's, on a Dask worker); the plan keeps the
    paths as given. Pure but for reading the files: the same files give the same part."""
    stale: list[str] = []
    skipped: list[SkippedFile] = []
    taken: set[tuple[str, int]] = set()
    out: list[PlannedTrace] = []
    for f in sorted(files, key=reading_order):
        path, case_id, rep = f.path, f.case_id, f.repetition
        try:
            cassette, clean, source_hash = _read_scrubbed(path, cwd)
            models, formats, hosts, tools, instruction = _facts(cassette.exchanges)
            if not formats:
                # the formats named from the registry, so a new one is never missing here
                raise CassetteImportError(
                    f"{path}: no model exchange ({describe_wire_formats()}) in this cassette"
                )
        except RejudgeError as exc:
            if strict:
                return PlanPart(out, skipped, stale, exc, f.rel)
            skipped.append(SkippedFile(f.rel, _reason(exc, path)))
            continue
        if rep is None or (case_id, rep) in taken:
            rep = 0
            while (case_id, rep) in taken:
                rep += 1
        taken.add((case_id, rep))
        recorded_hash = cassette.meta.get("case_hash")
        if (
            case_hashes is not None
            and isinstance(recorded_hash, str)
            and case_hashes.get(case_id) not in (None, recorded_hash)
        ):
            stale.append(f.rel)
        trace = trace_of(cassette, case_id, rep, name_map=name_map)
        out.append(
            PlannedTrace(
                path=path,
                rel=f.rel,
                case_id=case_id,
                repetition=rep,
                trace=trace,
                cassette_hash=cassette.sha256,
                models=models,
                wire_formats=formats,
                hosts=hosts,
                tools=tools,
                instruction=instruction,
                recorded_config=run_config_from_meta(cassette.meta, str(path)),
                data=clean,
                source_hash=source_hash,
            )
        )
    return PlanPart(out, skipped, stale)


def assemble_plan(
    directory: str | Path, files: list[NamedFile], parts: Collection[PlanPart]
) -> ImportPlan:
    """The plan of ``files`` (:func:`name_cassettes`) from the parts that read them, each part
    every file of its cases, in any order: the same plan as one part of all of them. Raises
    what a strict reading met first, then the stale files, then an import of nothing."""
    order = {f.rel: reading_order(f) for f in files}
    errors = [(order[p.error_rel], p.error) for p in parts if p.error is not None and p.error_rel]
    if errors:
        raise min(errors, key=lambda e: e[0])[1]
    stale = sorted((rel for p in parts for rel in p.stale), key=order.__getitem__)
    if stale:
        raise CassetteImportError(
            f"{len(stale)} cassette(s) were recorded against another version of their case "
            f"(the case hash in their rejudge block differs from the suite's): {_shown(stale)}; "
            "import them with the suite they were recorded on"
        )
    skipped = sorted((s for p in parts for s in p.skipped), key=lambda s: order[s.rel])
    out = sorted((t for p in parts for t in p.traces), key=lambda t: (t.case_id, t.repetition))
    if not out:
        shown = "; ".join(f"{f.rel}: {f.reason}" for f in skipped[:3])
        more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
        raise CassetteImportError(
            f"{directory}: none of the {len(skipped)} file(s) could be imported: {shown}{more}"
        )
    return ImportPlan(out, skipped)


def plan_folder(
    directory: str | Path, *, strict: bool = False, **options: Unpack[PlanOptions]
) -> ImportPlan:
    """Read and derive every cassette under ``directory`` and name its case.

    ``case_ids`` (a suite's cases) restricts the names: a cassette naming no case is an error
    listing every such file. Two cassettes of one case take successive repetitions.
    ``case_hashes`` (case id -> hash, the suite's): a cassette rejudge recorded against another
    version of its case is an error listing every such file. A file that cannot be read as a
    cassette with a model exchange is skipped with its reason, or raises when ``strict``; when
    every file is skipped the plan is an error (there is nothing to import).

    The three steps (:func:`name_cassettes`, :func:`read_cassettes`, :func:`assemble_plan`)
    are separate so that the reading can run elsewhere, a case's files at a time.
    """
    files = name_cassettes(
        directory, case_ids=options.get("case_ids"), mapping=options.get("mapping")
    )
    part = read_cassettes(
        files,
        name_map=options.get("name_map"),
        case_hashes=options.get("case_hashes"),
        strict=strict,
    )
    return assemble_plan(Path(directory), files, [part])
