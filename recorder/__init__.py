"""The recorder: live runs to cassettes and traces, offline replay, imports, capture of any
agent's traffic, and the local model server.

The package's public names, imported lazily (``import recorder`` loads neither httpx nor vcrpy)::

    from rejudge.recorder import read_cassette, trace_of

Use cases that read or write the store (record, replay, renormalize, import, capture into a
store) are in :mod:`rejudge.services`; ``capture`` here is the submodule.
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "RecorderError": "rejudge.recorder.http",
    "ProviderCallError": "rejudge.recorder.http",
    "RetryPolicy": "rejudge.recorder.http",
    "RateLimiter": "rejudge.recorder.http",
    "CASSETTE_FORMAT": "rejudge.recorder.cassettes",
    "CassetteError": "rejudge.recorder.cassettes",
    "CassetteFile": "rejudge.recorder.cassettes",
    "Exchange": "rejudge.recorder.cassettes",
    "read_cassette": "rejudge.recorder.cassettes",
    "write_cassette": "rejudge.recorder.cassettes",
    "scrub_interaction": "rejudge.recorder.cassettes",
    "ReplayMissError": "rejudge.recorder.tape",
    "NORMALIZER_VERSION": "rejudge.recorder.normalizer",
    "normalize_exchanges": "rejudge.recorder.normalizer",
    "trace_of": "rejudge.recorder.derive",
    "trace_from_cassette": "rejudge.recorder.derive",
    "ProviderUnreachableError": "rejudge.recorder.record",
    "ReplayReport": "rejudge.recorder.replay",
    "CassetteImportError": "rejudge.recorder.importer",
    "Capture": "rejudge.recorder.capture",
    "LocalModelError": "rejudge.recorder.local_server",
    "LocalModelServer": "rejudge.recorder.local_server",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
