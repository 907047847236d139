"""What an importer's detector sees of a path, read once for all of them.

``rejudge import FILE`` asks every importer whether FILE is its format. Reading a 1 GB export
once per importer would cost more than importing it, so the path is *sniffed* once: whether it
is a folder, its size, its first 64 KiB, the first JSON value of a JSON Lines file, and (for a
file small enough) the whole document parsed. Each detector reads from that and answers with a
:class:`Detection`: how sure it is (0 refuses) and why, in words a user reads when no importer
takes the file.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Detection", "Sniff", "HEAD_BYTES", "WHOLE_JSON_LIMIT"]

#: how much of a file every detector may look at without reading it whole
HEAD_BYTES = 64 * 1024
#: a JSON document up to this size is parsed whole for the detectors (bigger ones: the head only)
WHOLE_JSON_LIMIT = 16 * 1024 * 1024

_UNSET: Any = object()


@dataclass(frozen=True)
class Detection:
    """An importer's answer for one path: ``confidence`` in [0, 1] (0: not its format) and the
    reason, one line (``"an OTLP JSON export (resourceSpans)"``, ``"no resourceSpans key"``)."""

    confidence: float
    reason: str

    @classmethod
    def refuse(cls, reason: str) -> Detection:
        return cls(0.0, reason)

    @classmethod
    def accept(cls, confidence: float, reason: str) -> Detection:
        return cls(max(0.0, min(1.0, confidence)), reason)

    @property
    def accepted(self) -> bool:
        return self.confidence > 0


@dataclass
class Sniff:
    """A path as the detectors see it; each view is read on first use and kept."""

    path: Path
    _head: bytes | None = field(default=None, repr=False)
    _whole: Any = field(default=_UNSET, repr=False)
    _first_line: Any = field(default=_UNSET, repr=False)

    @property
    def is_dir(self) -> bool:
        return self.path.is_dir()

    @property
    def exists(self) -> bool:
        return self.path.exists()

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower()

    @property
    def size(self) -> int:
        return self.path.stat().st_size if self.path.is_file() else 0

    @property
    def head(self) -> bytes:
        """The file's first :data:`HEAD_BYTES` bytes (empty for a folder)."""
        if self._head is None:
            if not self.path.is_file():
                self._head = b""
            else:
                with self.path.open("rb") as fh:
                    self._head = fh.read(HEAD_BYTES)
        return self._head

    @property
    def head_text(self) -> str:
        return self.head.decode("utf-8", errors="replace").lstrip("\ufeff")

    @property
    def starts_with(self) -> str:
        """The first non-blank character of the file ('' for an empty one or a folder)."""
        text = self.head_text.lstrip()
        return text[:1]

    @property
    def is_zip(self) -> bool:
        return self.path.is_file() and zipfile.is_zipfile(self.path)

    def whole_json(self) -> Any:
        """The file parsed as one JSON document, when it is one and no bigger than
        :data:`WHOLE_JSON_LIMIT`; None otherwise (too big, not JSON, a folder)."""
        if self._whole is _UNSET:
            self._whole = None
            if self.path.is_file() and self.size <= WHOLE_JSON_LIMIT and self.starts_with in "{[":
                try:
                    self._whole = json.loads(self.path.read_bytes())
                except (ValueError, RecursionError, OSError):
                    self._whole = None
        return self._whole

    def first_json_line(self) -> Any:
        """The first non-blank line of the head parsed as JSON (a JSON Lines file's first
        record); None when that line is cut by the head or is not JSON."""
        if self._first_line is _UNSET:
            self._first_line = None
            for line in self.head_text.splitlines(keepends=True):
                if not line.strip():
                    continue
                if line.endswith("\n") or len(self.head) < HEAD_BYTES:
                    try:
                        self._first_line = json.loads(line)
                    except (ValueError, RecursionError):
                        pass
                break
        return self._first_line
