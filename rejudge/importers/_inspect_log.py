"""Reading Inspect AI eval logs as published: the ``.json`` log and the ``.eval`` zip.

The two formats hold the same ``EvalLog`` (``version`` 2 since 2024, 1 before it):

- ``.json``: one object, ``{"version", "status", "eval", "plan", "results", "stats", "error",
  "samples": [...], "reductions"}``.
- ``.eval``: a zip archive of ``header.json`` (the log without its samples), one
  ``samples/<id>_epoch_<n>.json`` per sample and epoch, ``summaries.json``,
  ``reductions.json`` and the ``_journal/`` Inspect writes while the eval runs (a log still
  running or killed has only ``_journal/start.json`` for a header). Recent Inspect compresses
  the entries with zstd (zip method 93); Python reads those with ``zipfile-zstd`` (the
  ``inspect`` extra) before 3.14, natively after.

Only the published JSON is read; inspect-ai itself is never imported. An unknown version or a
file that is cut short (a truncated zip, a sample that is not JSON) is one
:class:`InspectLogError` naming the file.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.model import hash_bytes

__all__ = ["InspectLogError", "InspectLog", "SUPPORTED_LOG_VERSIONS", "read_inspect_log"]

SUPPORTED_LOG_VERSIONS = (1, 2)
_ZSTD = 93  # the zip compression method number of zstd


class InspectLogError(InvalidInputError):
    """A file that cannot be read as an Inspect AI eval log (unknown version, truncated)."""


@dataclass
class InspectLog:
    """A log's header (the ``EvalLog`` without samples) and its samples, read one at a time."""

    path: Path
    header: dict[str, Any]
    sample_count: int
    _samples: Any
    _hash: str | None = None

    @property
    def version(self) -> int:
        return int(self.header.get("version", 0))

    def file_hash(self) -> str:
        """The hash of the log file's bytes (a ``.json`` log's: of the bytes it was parsed
        from, so the file is read once)."""
        if self._hash is None:
            self._hash = hash_bytes(self.path.read_bytes())
        return self._hash

    def samples(self) -> Iterator[dict[str, Any]]:
        yield from self._samples()


def _fail(path: Path, detail: str) -> InspectLogError:
    return InspectLogError(
        f"{path} is not a complete Inspect AI log ({detail}); a log cut short or still being "
        "written cannot be imported",
        file=str(path),
    )


def _check_version(path: Path, header: Any) -> dict[str, Any]:
    if not isinstance(header, dict) or "eval" not in header:
        raise InspectLogError(
            f"{path} is not an Inspect AI eval log (no eval header)", file=str(path)
        )
    version = header.get("version")
    if version not in SUPPORTED_LOG_VERSIONS:
        supported = ", ".join(str(v) for v in SUPPORTED_LOG_VERSIONS)
        raise InspectLogError(
            f"{path} is an Inspect AI log of format version {version!r}, which this rejudge "
            f"does not read (it reads versions {supported}); export it with an Inspect that "
            "writes one of those, or upgrade rejudge",
            file=str(path),
            field="version",
        )
    return header


def _read_json_log(path: Path) -> InspectLog:
    try:
        raw = path.read_bytes()
        data = json.loads(raw)
    except OSError as exc:
        raise InspectLogError(
            f"cannot read {path}: {exc.strerror or exc}", file=str(path)
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise _fail(path, f"invalid JSON: {exc}") from None
    header = _check_version(path, data)
    samples = data.get("samples") or []
    if not isinstance(samples, list):
        raise _fail(path, "its samples are not a list")
    return InspectLog(path, header, len(samples), lambda: iter(samples), hash_bytes(raw))


def _enable_zstd(path: Path) -> None:
    if hasattr(zipfile, "ZIP_ZSTANDARD"):
        return
    try:
        import zipfile_zstd  # noqa: F401  (teaches zipfile zstd, Python < 3.14)
    except ImportError:
        raise InspectLogError(
            f"{path} is zstd-compressed (as recent Inspect writes it), which this Python cannot "
            "unpack without zipfile-zstd: `pip install 'rejudge[inspect]'`, or convert the log "
            "to Inspect's JSON format",
            file=str(path),
        ) from None


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(path)
    except OSError as exc:
        raise InspectLogError(
            f"cannot read {path}: {exc.strerror or exc}", file=str(path)
        ) from None
    except zipfile.BadZipFile as exc:
        raise _fail(path, f"not a readable zip archive: {exc}") from None
    if any(info.compress_type == _ZSTD for info in archive.infolist()):
        _enable_zstd(path)
    return archive


def _load(path: Path, archive: zipfile.ZipFile, name: str) -> Any:
    try:
        with archive.open(name) as handle:
            return json.loads(handle.read())
    except (zipfile.BadZipFile, EOFError, zlib.error, OSError, ValueError) as exc:
        raise _fail(path, f"{name}: {exc}") from None
    except Exception as exc:  # a decompressor's own error (zstd)
        raise _fail(path, f"{name}: {type(exc).__name__}: {exc}") from None


def _read_eval_log(path: Path) -> InspectLog:
    with _open_zip(path) as archive:
        names = set(archive.namelist())
        if "header.json" in names:
            header = _load(path, archive, "header.json")
        elif "_journal/start.json" in names:
            # a log Inspect had not finished writing
            header = _load(path, archive, "_journal/start.json")
        else:
            raise InspectLogError(
                f"{path} is not an Inspect AI eval log (no header.json in the archive)",
                file=str(path),
            )
    header = _check_version(path, header)
    sample_names = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))

    def samples() -> Iterator[dict[str, Any]]:
        # one sample in memory at a time; the archive is open only while they are read
        with _open_zip(path) as archive:
            for name in sample_names:
                sample = _load(path, archive, name)
                if not isinstance(sample, dict):
                    raise _fail(path, f"{name} is not a sample object")
                yield sample

    return InspectLog(path, header, len(sample_names), samples)


def read_inspect_log(path: Path | str) -> InspectLog:
    """Open an Inspect AI log (``.eval`` or ``.json``); samples are read as they are iterated."""
    source = Path(path)
    if not source.is_file():
        raise InspectLogError(f"no Inspect AI log at {source}", file=str(source))
    with source.open("rb") as handle:
        magic = handle.read(4)
    if magic.startswith(b"PK") or source.suffix == ".eval":
        return _read_eval_log(source)
    return _read_json_log(source)
