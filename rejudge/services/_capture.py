"""``rejudge.capture``: judge your own agent. The block's OpenAI/Anthropic traffic becomes a
scrubbed cassette (:func:`rejudge.recorder._capture.capture_cassette`) and, with a store, a trace
of the case you name, stored through the ingest path.

    import rejudge

    with rejudge.capture(case="fc-d1-001", suite="retail", store=store) as cap:
        my_agent.run("Can you check whether product P206 is currently in stock?")
    print(cap.trace.calls)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rejudge.model import Case, RunConfig, ToolRegistry, content_hash
from rejudge.recorder import Capture, capture_cassette, registry_from_interactions
from rejudge.services._ingest import SuiteSnapshot, evidence_of, ingest_run, stored_path
from rejudge.store import Store

__all__ = ["capture", "Capture", "open_store"]


def open_store(url: str) -> Store:
    """The store captured traces go to (the pytest plugin's ``--rejudge-db``)."""
    return Store.open(url)


@contextlib.contextmanager
def capture(
    *,
    case: Case | str,
    store: Store | None = None,
    cassettes_dir: Path | str = "cassettes",
    run: str | None = None,
    suite: Any = None,
    repetition: int = 0,
    record_mode: str = "once",
    model: str | None = None,
    registry: ToolRegistry | None = None,
) -> Iterator[Capture]:
    """Record the model traffic of the block into ``<cassettes>/<run>/<case>__r<k>.yaml``.

    With a ``store``, the cassette becomes a trace of ``case`` in run ``run`` (created on first
    use, harness mode ``imported``); capturing the same case again replaces its trace when the
    cassette changed. ``record_mode`` is vcrpy's: ``once`` (record if the cassette is absent,
    else replay), ``new_episodes``, ``none`` (replay only, network blocked), ``all``.
    """
    with capture_cassette(
        case=case,
        cassettes_dir=cassettes_dir,
        run=run,
        suite=suite,
        repetition=repetition,
        record_mode=record_mode,
    ) as result:
        yield result
    if store is not None and result.cassette is not None:
        result.stored = _store_capture(
            store, result, Path(cassettes_dir), model=model, registry=registry
        )


def _store_capture(
    store: Store,
    result: Capture,
    cassettes_dir: Path,
    *,
    model: str | None,
    registry: ToolRegistry | None,
) -> bool:
    case, suite, cassette = result.case, result.suite, result.cassette
    assert case is not None and cassette is not None  # filled by capture_cassette
    if suite is not None:
        snapshot = SuiteSnapshot.of_source(suite)
    else:
        reg = registry or registry_from_interactions(cassette.interactions, "captured")
        snapshot = SuiteSnapshot(
            name=result.run,
            domain=reg.domain,
            suite_hash=content_hash([reg.hash, case.hash]),
            registry=reg,
            cases=[case],
        )
    config = RunConfig(
        model=model or "captured",
        provider="captured",
        harness_mode="imported",
        temperature=None,
    )
    name_map = suite.registry.name_map or None if suite is not None else None
    item = evidence_of(
        cassette,
        case.id,
        result.repetition,
        stored_path(cassette.path, cassettes_dir),
        name_map=name_map,
    )
    # as before, a capture does not mark its run finished
    done = ingest_run(
        store,
        snapshot,
        name=result.run,
        config=config,
        evidence=[item],
        replace=True,
        finish="never",
    )
    return bool(done.inserted or done.replaced)
