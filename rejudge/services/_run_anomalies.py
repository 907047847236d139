"""An imported run's anomalies as its import reports them: bounded, from where they are stored.

A run imported since revision 0104 has them in ``store.anomalies``, a row per trace; one
imported before has them in its config (``extra["anomalies"]``, trace id -> anomalies), which
is left as it was stored. Either way what is shown is how many traces have anomalies and the
first :data:`ANOMALIES_SHOWN` of them in the file's order: at 1 GB of spans 19,121 traces have
some (11 MiB of JSON), more than a result is for.
"""

from __future__ import annotations

from rejudge.store import RunRecord, Store, TraceAnomalies

__all__ = ["ANOMALIES_SHOWN", "run_anomalies"]

#: how many traces' anomalies an import's result shows (the count says how many there are)
ANOMALIES_SHOWN = 100


def run_anomalies(store: Store, run: RunRecord, limit: int | None = None) -> TraceAnomalies:
    """How many traces of ``run`` have anomalies and the first ``limit`` of them (default
    :data:`ANOMALIES_SHOWN`, read when called): the table's, else its config's for a run
    imported before the table."""
    limit = ANOMALIES_SHOWN if limit is None else limit
    stored = store.anomalies.first(run.id, limit)
    if stored.traces:
        return TraceAnomalies(stored.traces, _visible(stored.first))
    kept = run.config.extra.get("anomalies")
    if not isinstance(kept, dict) or not kept:
        return stored
    # an old config's mapping is in the file's order (trace id order, as it was built)
    first = {str(k): [str(a) for a in v] for k, v in list(kept.items())[:limit]}
    return TraceAnomalies(len(kept), _visible(first))


def _visible(first: dict[str, list[str]]) -> dict[str, list[str]]:
    """Anomalies as shown: a NUL in a text (an untrusted span name or value it quotes), which
    the store keeps, is shown as the six characters ``\\u0000`` (as rows stored from fdd331b
    hold it), so what an import shows does not depend on when or where it was stored."""
    return {
        key: [text.replace("\x00", "\\u0000") for text in found] for key, found in first.items()
    }
