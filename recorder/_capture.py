"""Capture: judge your own agent. Whatever OpenAI/Anthropic traffic your code sends inside
``with capture(...)`` (through httpx, requests or the official SDKs, which vcrpy patches) is kept
as a scrubbed cassette and stored as a trace of the case you name.

    import rejudge

    with rejudge.capture(case="fc-d1-001", suite="retail", store=store) as cap:
        my_agent.run("Can you check whether product P206 is currently in stock?")
    print(cap.trace.calls)

vcrpy does the interception and the matching (method, host, path and the JSON body with volatile
fields ignored); rejudge's persister writes the file scrubbed and atomically, in the same format as
the built-in recorder, and the derivation every path uses turns it into the trace. This module
writes only the cassette; :func:`rejudge.services._capture.capture` (``rejudge.capture``) also
stores the trace through the ingest path.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.recorder._cassettes import (
    CassetteFile,
    cassette_path,
    exchanges_from_interactions,
    read_cassette,
    write_cassette,
)
from rejudge.recorder._derive import capture_meta, trace_of
from rejudge.recorder._http import RecorderError
from rejudge.recorder._normalizer import model_exchanges
from rejudge.recorder._tape import (
    vcr_before_record_request,
    vcr_before_record_response,
    vcr_body_matcher,
)

from rejudge.model import Case, ToolRegistry, ToolSpec, Trace

__all__ = ["capture_cassette", "Capture", "RECORD_MODES", "registry_from_interactions"]

RECORD_MODES = ("once", "new_episodes", "none", "all")
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "rejudge_body")


@dataclass
class Capture:
    """What a capture produced; filled in when the ``with`` block ends."""

    case_id: str
    repetition: int
    cassette_path: Path
    run: str
    trace: Trace | None = None
    stored: bool = False
    interactions: int = 0
    # what the block was recorded for and what it left: the ingest service stores from these
    case: Case | None = None
    suite: Any = None
    cassette: CassetteFile | None = None


def _persister(meta: dict[str, Any]) -> type:
    from vcr.persisters.filesystem import CassetteNotFoundError
    from vcr.request import Request
    from vcr.serializers import compat

    class RejudgePersister:
        """vcrpy persister: our reader, and a scrubbed, atomic writer with the rejudge block."""

        @classmethod
        def load_cassette(cls, path: str, serializer: Any) -> Any:
            if not Path(path).is_file():
                raise CassetteNotFoundError()
            cassette = read_cassette(path)
            requests = [Request._from_dict(i["request"]) for i in cassette.interactions]
            responses = [compat.convert_to_bytes(i["response"]) for i in cassette.interactions]
            return requests, responses

        @staticmethod
        def save_cassette(path: str, cassette_dict: dict[str, Any], serializer: Any) -> None:
            interactions = [
                {
                    "request": compat.convert_to_unicode(request._to_dict()),
                    "response": compat.convert_to_unicode(response),
                }
                for request, response in zip(
                    cassette_dict["requests"], cassette_dict["responses"], strict=False
                )
            ]
            write_cassette(path, interactions, meta)

    return RejudgePersister


def registry_from_interactions(interactions: list[dict[str, Any]], domain: str) -> ToolRegistry:
    """The tools the captured model requests offered, first seen first.

    Each exchange's tools are read by its wire format (the registry's, as the importer and the
    normalizer read them), so a captured cassette and the same file imported give the same tools.
    """
    specs: dict[str, ToolSpec] = {}
    for m in model_exchanges(exchanges_from_interactions(interactions)):
        for spec in m.wire_format.tool_specs(m.exchange.request_body):
            specs.setdefault(spec.name, spec)
    return ToolRegistry(domain=domain, tools=list(specs.values()))


def _resolve_case(case: Case | str, suite: Any) -> tuple[Case, Any]:
    if isinstance(case, Case):
        return case, suite
    if suite is None:
        raise RecorderError(
            f"capture(case={case!r}) names a case id: also give suite= (a suite name or a loaded "
            "suite), or pass a Case object"
        )
    if isinstance(suite, str):
        from rejudge import suites

        suite = suites.load_suite(suite)
    return suite.case(case), suite


@contextlib.contextmanager
def capture_cassette(
    *,
    case: Case | str,
    cassettes_dir: Path | str = "cassettes",
    run: str | None = None,
    suite: Any = None,
    repetition: int = 0,
    record_mode: str = "once",
) -> Iterator[Capture]:
    """Record the model traffic of the block into ``<cassettes>/<run>/<case>__r<k>.yaml``.

    When the block ends the result holds the cassette and the trace it stands for (nothing is
    stored here). ``record_mode`` is vcrpy's: ``once`` (record if the cassette is absent, else
    replay), ``new_episodes``, ``none`` (replay only, network blocked), ``all``.
    """
    import vcr

    if record_mode not in RECORD_MODES:
        raise RecorderError(
            f"unknown record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}"
        )
    the_case, the_suite = _resolve_case(case, suite)
    run_name = run or f"captured-{the_suite.name if the_suite is not None else the_case.id}"
    path = cassette_path(cassettes_dir, run_name, the_case.id, repetition)
    meta = capture_meta(run_name=run_name, case=the_case, repetition=repetition)
    recorder = vcr.VCR(
        record_mode=record_mode,
        match_on=MATCH_ON,
        decode_compressed_response=True,
        before_record_request=vcr_before_record_request,
        before_record_response=vcr_before_record_response,
    )
    recorder.register_matcher("rejudge_body", vcr_body_matcher)
    recorder.register_persister(_persister(meta))
    result = Capture(
        case_id=the_case.id,
        repetition=repetition,
        cassette_path=path,
        run=run_name,
        case=the_case,
        suite=the_suite,
    )
    # allow_playback_repeats stays off: it also applies while recording (a known vcrpy trap)
    with recorder.use_cassette(str(path), allow_playback_repeats=False):
        yield result
    if not path.exists():
        return  # the block sent nothing
    cassette = read_cassette(path)
    result.cassette = cassette
    result.interactions = len(cassette.interactions)
    name_map = the_suite.registry.name_map or None if the_suite is not None else None
    result.trace = trace_of(cassette, the_case.id, repetition, name_map=name_map)
