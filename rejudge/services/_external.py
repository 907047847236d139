"""External verdicts: record another harness's scores on a stored run's traces, and read them.

Importers call :func:`record_external_verdicts` with what the outside harness said of each trace
(τ-bench's reward, an Inspect AI scorer's value mapped to [0, 1]); the agreement view reads them
back with :func:`run_external_verdicts`. The run is named as every service names it (name or id).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.model import ExternalVerdict
from rejudge.store import Store, StoredExternalVerdict

__all__ = ["record_external_verdicts", "run_external_verdicts"]


def _verdict(
    source: str, value: Any, detail: Mapping[str, Any] | None, version: str | None = None
) -> ExternalVerdict:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(
            f"an external verdict is a number from 0 to 1, not {value!r}", field="value"
        )
    if not 0.0 <= float(value) <= 1.0:
        raise InvalidInputError(
            f"an external verdict is a number from 0 to 1, not {value}", field="value"
        )
    return ExternalVerdict(
        source=source,
        value=float(value),
        detail=dict(detail) if detail is not None else None,
        version=version,
    )


def record_external_verdicts(
    store: Store,
    run: str | int,
    source: str,
    verdicts: Iterable[tuple[str, int, float] | tuple[str, int, float, Mapping[str, Any] | None]],
    *,
    replace: bool = False,
    version: str | None = None,
) -> int:
    """Store ``source``'s verdicts on run ``run``'s traces: (case id, repetition, value[, detail])
    with value in [0, 1] (1 a success), given by ``version`` of the source when named (τ-bench's
    reward changed between versions). All or nothing; the same verdict again is a lookup, a
    different one is refused unless ``replace``. Returns the number of rows written."""
    if not (source or "").strip():
        raise InvalidInputError("an external verdict needs a source name", field="source")
    record = store.runs.get_run(run)
    triples: list[tuple[str, int, ExternalVerdict]] = []
    for item in verdicts:
        case_key, repetition, value = item[0], item[1], item[2]
        detail = item[3] if len(item) > 3 else None
        triples.append(
            (str(case_key), int(repetition), _verdict(source.strip(), value, detail, version))
        )
    return store.external.save_external_verdicts(record.id, triples, replace=replace)


def run_external_verdicts(
    store: Store, run: str | int, source: str | None = None
) -> list[StoredExternalVerdict]:
    """The external verdicts on run ``run``'s traces (of one ``source``, or all)."""
    return store.external.external_verdicts(store.runs.get_run(run).id, source)
