"""The recorder: live runs to cassettes and traces, offline replay, imports, capture of any
agent's traffic, and the local model server.

The package's public names, imported lazily (``import recorder`` loads neither httpx nor vcrpy)::

    from recorder import record_suite, replay_run

(``capture`` is :func:`rejudge.capture`: here the name is the submodule.)
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "RecorderError": "recorder.http",
    "ProviderCallError": "recorder.http",
    "RetryPolicy": "recorder.http",
    "RateLimiter": "recorder.http",
    "CASSETTE_FORMAT": "recorder.cassettes",
    "CassetteError": "recorder.cassettes",
    "ReplayMissError": "recorder.cassettes",
    "read_cassette": "recorder.cassettes",
    "write_cassette": "recorder.cassettes",
    "scrub_interaction": "recorder.cassettes",
    "NORMALIZER_VERSION": "recorder.normalizer",
    "normalize_exchanges": "recorder.normalizer",
    "ProviderUnreachableError": "recorder.record",
    "RecordSummary": "recorder.record",
    "record_suite": "recorder.record",
    "record_suite_async": "recorder.record",
    "ReplayReport": "recorder.replay",
    "replay_run": "recorder.replay",
    "renormalize_run": "recorder.replay",
    "CassetteImportError": "recorder.importer",
    "import_cassettes": "recorder.importer",
    "Capture": "recorder.capture",
    "LocalModelError": "recorder.local_server",
    "LocalModelServer": "recorder.local_server",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
