"""Where a stored evidence path points: the cassette a trace names, the results file a run names.

A store outlives the folder it was written from: ``cd X; rejudge demo`` stores runs whose
cassettes ship with rejudge, and ``rejudge dashboard`` or ``replay`` may read that store from
anywhere. So a stored path says which root it is relative to.

Path format 2 (written from now on), one string per path:

- ``cassettes:<folder>//<relative>``: under a cassettes folder, written by ``record``,
  ``capture`` and an import that copies its files. Read under the cassettes folder the reader
  is given (``--cassettes``: a folder moved or checked out elsewhere, as in CI) and, when it is
  not there, under ``<folder>``, the absolute folder it was written into.
- ``shipped:<relative>``: relative to the cassettes rejudge ships (the demo's recordings of the
  local model), wherever this rejudge is installed (:func:`shipped_cassette_roots`).
- ``suites:<relative>``: relative to the ``rejudge.suites`` package, whose data holds the
  real-world cassettes and the τ-bench files the demo imports.
- an absolute path: the file where an import found it.

Format 1 (stores written before) knew only two forms: a plain relative path, under the
cassettes folder the reader is given, and an absolute one. Both still read; and since the demo
wrote its shipped cassettes as plain relative paths, one missing from the given folder is looked
up in the shipped cassettes too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rejudge.errors import InvalidInputError

__all__ = [
    "EVIDENCE_PATH_FORMAT",
    "shipped_cassette_roots",
    "evidence_path",
    "resolve_evidence_path",
]

EVIDENCE_PATH_FORMAT = 2
# ``cassettes:<folder>//<relative>``: a normalized path never holds "//", so the last one
# splits the folder from the path under it
_FOLDER, _SEP = "cassettes", "//"


def shipped_cassette_roots() -> list[Path]:
    """Where this rejudge's shipped cassettes live: next to the packages (a source checkout or
    an editable install), or ``<prefix>/share/rejudge/cassettes`` (a wheel's data files)."""
    here = Path(__file__).resolve().parents[2]
    roots = [here / "cassettes", Path(sys.prefix) / "share" / "rejudge" / "cassettes"]
    return list(dict.fromkeys(roots))


def _suites_root() -> Path:
    import rejudge.suites

    return Path(rejudge.suites.__file__).resolve().parent


def _named_roots() -> dict[str, list[Path]]:
    return {"shipped": shipped_cassette_roots(), "suites": [_suites_root()]}


def _under(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def evidence_path(path: Path | str, cassettes_dir: Path | str | None = None) -> str:
    """How a store names ``path``: relative to ``cassettes_dir`` when it lies there, else to a
    named root of rejudge's own data, else by its absolute path."""
    resolved = Path(path).resolve()
    if cassettes_dir is not None:
        folder = Path(cassettes_dir).resolve()
        relative = _under(resolved, folder)
        if relative is not None:
            return f"{_FOLDER}:{folder.as_posix()}{_SEP}{relative}"
    for name, roots in _named_roots().items():
        for root in roots:
            relative = _under(resolved, root)
            if relative is not None:
                return f"{name}:{relative}"
    return resolved.as_posix()


def _inside(root: Path, relative: str, stored: str) -> Path:
    base = root.resolve()
    path = (base / relative).resolve()
    if path != base and base not in path.parents:
        raise InvalidInputError(f"stored path {stored!r} leaves its folder {base}", file=stored)
    return path


def resolve_evidence_path(stored: str, cassettes_dir: Path | str | None = None) -> Path:
    """The file a stored path names (see the module for the forms). A path that does not exist
    comes back as the first place it would be, for the caller to report as missing; a path
    that climbs out of its root (``..``) is an :class:`InvalidInputError`."""
    name, sep, rest = stored.partition(":")
    roots = _named_roots()
    if sep and name == _FOLDER and _SEP in rest:
        folder, relative = rest.rsplit(_SEP, 1)
        if cassettes_dir is not None:
            given = _inside(Path(cassettes_dir), relative, stored)
            if given.exists():
                return given
        return _inside(Path(folder), relative, stored)
    if sep and name in roots:
        candidates = [_inside(root, rest, stored) for root in roots[name]]
        return next((p for p in candidates if p.exists()), candidates[0])
    path = Path(stored)
    if path.is_absolute():
        return path
    given = _inside(Path(cassettes_dir) if cassettes_dir is not None else Path("."), stored, stored)
    if given.exists():
        return given
    # format 1: the demo stored its shipped cassettes relative to the shipped folder
    for root in roots["shipped"]:
        shipped = _inside(root, stored, stored)
        if shipped.exists():
            return shipped
    return given
