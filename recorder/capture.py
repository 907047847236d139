"""Capture: judge your own agent. Whatever OpenAI/Anthropic traffic your code sends inside
``with capture(...)`` (through httpx, requests or the official SDKs, which vcrpy patches) is kept
as a scrubbed cassette and stored as a trace of the case you name.

    from rejudge.recorder.capture import capture

    with capture(case="fc-d1-001", suite="retail", store=store, cassettes_dir="cassettes") as cap:
        my_agent.run("Can you check whether product P206 is currently in stock?")
    print(cap.trace.calls)

vcrpy does the interception and the matching (method, host, path and the JSON body with volatile
fields ignored); rejudge's persister writes the file scrubbed and atomically, in the same format as
the built-in recorder, and the normalizer turns it into the trace.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rejudge.recorder.cassettes import (
    CASSETTE_FORMAT,
    cassette_path,
    read_cassette,
    vcr_before_record_request,
    vcr_before_record_response,
    vcr_body_matcher,
    write_cassette,
)
from rejudge.recorder.http import RecorderError
from rejudge.recorder.record import rejudge_version, trace_from_cassette
from rejudge.store.schemas import Case, RunConfig, ToolRegistry, ToolSpec, Trace

__all__ = ["capture", "Capture", "RECORD_MODES", "registry_from_interactions"]

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


def _tool_spec(tool: dict[str, Any]) -> ToolSpec | None:
    function = tool.get("function")
    fn = function if isinstance(function, dict) else tool
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        return None
    params = fn.get("parameters") or fn.get("input_schema") or {"type": "object", "properties": {}}
    return ToolSpec(name=name, description=str(fn.get("description") or ""), parameters=params)


def registry_from_interactions(interactions: list[dict[str, Any]], domain: str) -> ToolRegistry:
    """The tools the captured requests declared (OpenAI or Anthropic format), first seen first."""
    import json

    specs: dict[str, ToolSpec] = {}
    for interaction in interactions:
        body = interaction.get("request", {}).get("body")
        if isinstance(body, bytes):
            body = body.decode("utf-8", "replace")
        try:
            data = json.loads(body) if isinstance(body, str) else None
        except ValueError:
            data = None
        for tool in (data or {}).get("tools") or []:
            if isinstance(tool, dict):
                spec = _tool_spec(tool)
                if spec is not None and spec.name not in specs:
                    specs[spec.name] = spec
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
def capture(
    *,
    case: Case | str,
    store: Any = None,
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
    use, harness mode ``imported``). ``record_mode`` is vcrpy's: ``once`` (record if the cassette
    is absent, else replay), ``new_episodes``, ``none`` (replay only, network blocked), ``all``.
    """
    import vcr

    if record_mode not in RECORD_MODES:
        raise RecorderError(
            f"unknown record mode {record_mode!r}: choose one of {', '.join(RECORD_MODES)}"
        )
    the_case, the_suite = _resolve_case(case, suite)
    run_name = run or f"captured-{the_suite.name if the_suite is not None else the_case.id}"
    path = cassette_path(cassettes_dir, run_name, the_case.id, repetition)
    meta = {
        "cassette_format": CASSETTE_FORMAT,
        "rejudge_version": rejudge_version(),
        "run": run_name,
        "case": the_case.id,
        "case_hash": the_case.hash,
        "repetition": repetition,
        "captured": True,
    }
    recorder = vcr.VCR(
        record_mode=record_mode,
        match_on=MATCH_ON,
        decode_compressed_response=True,
        before_record_request=vcr_before_record_request,
        before_record_response=vcr_before_record_response,
    )
    recorder.register_matcher("rejudge_body", vcr_body_matcher)
    recorder.register_persister(_persister(meta))
    result = Capture(case_id=the_case.id, repetition=repetition, cassette_path=path, run=run_name)
    # allow_playback_repeats stays off: it also applies while recording (a known vcrpy trap)
    with recorder.use_cassette(str(path), allow_playback_repeats=False):
        yield result
    if not path.exists():
        return  # the block sent nothing
    cassette = read_cassette(path)
    result.interactions = len(cassette.interactions)
    trace = trace_from_cassette(cassette.interactions, cassette.meta, the_case.id, repetition)
    result.trace = trace
    if store is not None:
        result.stored = _store_trace(
            store,
            trace,
            the_case,
            the_suite,
            run_name,
            cassette,
            Path(cassettes_dir),
            model=model,
            registry=registry,
        )


def _store_trace(
    store: Any,
    trace: Trace,
    case: Case,
    suite: Any,
    run_name: str,
    cassette: Any,
    cassettes_dir: Path,
    *,
    model: str | None,
    registry: ToolRegistry | None,
) -> bool:
    if suite is not None:
        suite_record = store.save_suite(
            name=suite.name,
            domain=suite.domain,
            suite_hash=suite.hash,
            registry=suite.registry,
            cases=list(suite.cases),
            format_version=suite.format_version,
        )
    else:
        from rejudge.store.hashing import content_hash

        reg = registry or registry_from_interactions(cassette.interactions, "captured")
        suite_record = store.save_suite(
            name=run_name,
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
    record = store.create_run(name=run_name, suite=suite_record, config=config)
    case_pk = store.get_case_pks(suite_record.id)[case.id]
    relative = cassette.path.relative_to(cassettes_dir).as_posix()
    existing = [
        row
        for row in store.iter_trace_rows(record.id, case_key=case.id)
        if row["repetition"] == trace.repetition
    ]
    if existing:
        row = existing[0]
        if row["hash"] == trace.hash and row["cassette_hash"] == cassette.sha256:
            return False
        store.replace_trace(row["id"], trace, cassette_hash=cassette.sha256)
        return True
    return bool(
        store.save_trace(
            record.id, case_pk, trace, cassette_path=relative, cassette_hash=cassette.sha256
        )
    )
