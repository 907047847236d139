"""Where the other benchmarks' files that ship with rejudge lie (pure).

The τ-bench and τ²-bench runs the demo imports are package data of ``rejudge.suites``
(``suites/importers/data/``, each folder with a README naming its origin and license): stores
name them by that place (``suites:importers/data/...``, :mod:`rejudge.services._evidence_paths`),
so they stay there while the code that reads them lives here. The folder is found without
importing ``rejudge.suites``, whose import registers every built-in domain.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["shipped_data"]


def shipped_data(*parts: str) -> Path:
    """A folder or file under ``rejudge.suites``' shipped data of other benchmarks."""
    spec = importlib.util.find_spec("rejudge.suites")
    if spec is None or spec.origin is None:  # pragma: no cover - rejudge.suites is ours
        raise ModuleNotFoundError("rejudge.suites")
    return Path(spec.origin).parent.joinpath("importers", "data", *parts)
