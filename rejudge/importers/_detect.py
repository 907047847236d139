"""``rejudge import FILE``: which importer takes a path, asked of every importer in turn.

Each registered importer's ``detect`` sees the same :class:`~rejudge.importers._sniff.Sniff`
(the path read once) and answers with a confidence and a reason. The most confident wins; a
tie between two importers is refused by name rather than settled by registration order, since
either answer could be wrong. When none accepts, the error lists every importer tried and why
each refused, on one line, so a user sees at once whether the file is of a format rejudge knows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.importers._contract import Importer, get_importer, importer_names
from rejudge.importers._sniff import Detection, Sniff

__all__ = [
    "Detected",
    "DetectedImport",
    "NoImporterError",
    "detect_all",
    "detect_importer",
    "import_detected",
]


class NoImporterError(InvalidInputError):
    """No importer takes the path (or two take it equally); the message names each and why."""


@dataclass(frozen=True)
class Detected:
    """The importer that takes a path, how sure it is and why, and what the others said."""

    importer: Importer[Any]
    detection: Detection
    others: tuple[tuple[str, Detection], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "importer": self.importer.name,
            "confidence": self.detection.confidence,
            "reason": self.detection.reason,
            "others": [
                {"importer": name, "confidence": d.confidence, "reason": d.reason}
                for name, d in self.others
            ],
        }


def _safe_detect(importer: Importer[Any], sniff: Sniff) -> Detection:
    try:
        return importer.detect(sniff)
    except Exception as exc:  # a detector that breaks on odd input has refused it, named
        return Detection.refuse(f"its detector failed ({type(exc).__name__}: {exc})")


def detect_all(path: str | Path) -> list[tuple[str, Detection]]:
    """Every importer's answer for ``path``, most confident first (name order among equals)."""
    sniff = Sniff(Path(path))
    answers = [(name, _safe_detect(get_importer(name), sniff)) for name in importer_names()]
    return sorted(answers, key=lambda item: (-item[1].confidence, item[0]))


def detect_importer(path: str | Path) -> Detected:
    """The importer that takes ``path``; :class:`NoImporterError` when none does (every
    importer's reason in the message) or when two are equally sure."""
    source = Path(path)
    if not source.exists():
        raise NoImporterError(f"{source}: no such file or folder", file=str(source))
    answers = detect_all(source)
    best_name, best = answers[0]
    if not best.accepted:
        tried = "; ".join(f"{name}: {d.reason}" for name, d in answers)
        raise NoImporterError(
            f"{source}: no importer takes it (tried {tried})",
            file=str(source),
        )
    tied = [name for name, d in answers[1:] if d.confidence == best.confidence]
    if tied:
        named = ", ".join([best_name, *tied])
        raise NoImporterError(
            f"{source}: {named} all take it equally; name the importer to use",
            file=str(source),
        )
    return Detected(get_importer(best_name), best, tuple(answers[1:]))


@dataclass(frozen=True)
class DetectedImport:
    """What ``rejudge import FILE`` did: the importer it chose (and why) and that importer's
    result as JSON (its own ``to_json``)."""

    detected: Detected
    result: Any

    def to_json(self) -> dict[str, Any]:
        return {
            "importer": self.detected.importer.name,
            "confidence": self.detected.detection.confidence,
            "reason": self.detected.detection.reason,
            "result": self.result,
        }


def import_detected(
    store: Any,
    path: str | Path,
    *,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> DetectedImport:
    """Import ``path`` with the importer that takes it (:func:`detect_importer`), passing
    ``options`` on, and ``progress`` when the importer reports it (:attr:`Importer.streams`);
    the importer's own errors are raised as they are."""
    detected = detect_importer(path)
    importer = detected.importer
    if progress is not None and importer.streams:
        options["progress"] = progress
    return DetectedImport(detected, importer.to_json(importer(store, path, **options)))
