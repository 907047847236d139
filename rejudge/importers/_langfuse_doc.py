"""Langfuse export files as traces of observations (pure: JSON values in, records out).

The shapes Langfuse writes or serves, each as one JSON document, a JSON list or JSON Lines:

- the public API's trace, ``GET /api/public/traces/{id}`` (``TraceWithFullDetails``: the
  trace's fields and ``observations``, a list of ``ObservationsView``); a list of them, or one
  per line;
- the UI's downloads: the trace view's (``{"trace": {...}, "observations": [...]}``, as the web
  app's ``byId`` routes return them), the server's ``/api/traces/{id}/download``
  (``{"observations": [...], "scores": [...]}``) and the log view's (a list of observations in
  tree order with a ``depth``, no trace or parent id: the file ``trace-<id>.json`` names the
  trace);
- an observation list: ``GET /api/public/observations`` and ``/api/public/v2/observations``
  (``{"data": [...], "meta": {...}}``), a JSON list or one observation per line (JSONL), and the
  blob storage export's rows (JSON or JSONL, ClickHouse's snake_case columns: ``trace_id``,
  ``parent_observation_id``, ``start_time`` as ``2025-06-11 14:01:34.290`` UTC,
  ``provided_model_name``, ``usage_details``...); observations are grouped by their trace id;
- the ingestion batch (``POST /api/public/ingestion``: ``{"batch": [{type, body}]}``): a
  ``trace-create`` names a trace, ``span|generation|event-create`` and the legacy
  ``observation-create`` make an observation (its type from the event's), ``*-update`` events
  merge into the observation of the same id, in order.

Every observation is a plain dict as Langfuse spells it (``id``, ``traceId``, ``type``,
``parentObservationId``, ``startTime``, ...); :mod:`._langfuse_read` reads its fields. What
cannot be placed (no id, no trace id) is left out with a problem naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "LangfuseTrace",
    "Record",
    "Router",
    "build_trace",
    "is_observation",
    "is_trace",
    "traces_of_documents",
]

#: Langfuse's ``ObservationType`` (the ingestion API's enum); newer SDKs add the agent types
OBSERVATION_TYPES = frozenset(
    {
        "SPAN",
        "GENERATION",
        "EVENT",
        "AGENT",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    }
)
_CREATE_TYPES = {
    "span-create": "SPAN",
    "generation-create": "GENERATION",
    "event-create": "EVENT",
}
_UPDATES = frozenset({"span-update", "generation-update", "observation-update"})


#: the blob storage export's columns (ClickHouse's snake_case, ``LEGACY_OBSERVATION_EXPORT_FIELDS``)
#: as the API names the same fields
_EXPORT_COLUMNS = {
    "trace_id": "traceId",
    "parent_observation_id": "parentObservationId",
    "start_time": "startTime",
    "end_time": "endTime",
    "completion_start_time": "completionStartTime",
    "status_message": "statusMessage",
    "provided_model_name": "model",
    "model_parameters": "modelParameters",
    "usage_details": "usageDetails",
    "cost_details": "costDetails",
    "tool_definitions": "toolDefinitions",
    "tool_calls": "toolCalls",
}


def _api_names(raw: dict[str, Any]) -> dict[str, Any]:
    """An observation under the API's field names (a blob storage export row renamed)."""
    if "trace_id" not in raw and "start_time" not in raw:
        return dict(raw)
    out = dict(raw)
    for column, name in _EXPORT_COLUMNS.items():
        if column in out and name not in out:
            out[name] = out.pop(column)
    return out


@dataclass
class LangfuseTrace:
    """One trace: its own fields (``name``, ``input``, ``output``, ...) and its observations."""

    id: str
    fields: dict[str, Any] = field(default_factory=dict)
    observations: list[dict[str, Any]] = field(default_factory=list)


def is_observation(value: Any) -> bool:
    """An observation: an id and one of Langfuse's observation types."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and value["type"].upper() in OBSERVATION_TYPES
        and "id" in value
    )


def is_trace(value: Any) -> bool:
    """A trace with its observations (the public API's or the UI's shape)."""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("trace"), dict) and isinstance(value.get("observations"), list):
        return True
    return "id" in value and isinstance(value.get("observations"), list) and "type" not in value


#: what an export says of one trace, in file order: ``(what, payload, where, event)``: the
#: trace's own ``fields``, an ``observation`` (API field names), or an ``update`` event's body
#: (``event`` names the event, for the problem of one that updates nothing)
Record = tuple[str, dict[str, Any], str, str]


class Router:
    """Reads documents into :data:`Record` s, each given to ``add`` with the key of the trace it
    is about, as the documents come: nothing is held but the ids of one ingestion batch's
    observations (an update event naming no trace finds it by them). :func:`build_trace` then
    makes a trace of one key's records."""

    def __init__(
        self,
        add: Callable[[str, Record], None],
        problems: list[str],
        default_trace_id: str | None,
    ) -> None:
        self.add = add
        self.problems = problems
        self.default_trace_id = default_trace_id
        self._batch: dict[str, str] = {}  # this batch's observation ids -> their trace's key

    def walk(self, document: Any, where: str) -> None:
        """Route one document (see the module for the shapes)."""
        self._batch = {}
        _walk(document, self, where)

    def batch(self) -> None:
        """An ingestion batch starts that is streamed an event at a time (:meth:`event` each):
        only this batch's observation ids place an update that names no trace, as when a
        whole batch is walked."""
        self._batch = {}

    def trace(self, trace_id: Any, fields: dict[str, Any]) -> None:
        self.add(str(trace_id), ("fields", fields, "", ""))

    def observation(self, raw: dict[str, Any], trace_id: Any, where: str) -> None:
        raw = _api_names(raw)
        if not (raw.get("traceId") or trace_id) and "depth" in raw:
            trace_id = self.default_trace_id  # a log download's row: its file names the trace
        trace_id = raw.get("traceId") or trace_id
        if raw.get("id") in (None, ""):
            self.problems.append(f"{where}: observation without an id; left out")
            return
        if trace_id in (None, ""):
            self.problems.append(f"{where}: observation {raw['id']} names no traceId; left out")
            return
        self._batch[str(raw["id"])] = str(trace_id)
        self.add(str(trace_id), ("observation", raw, where, ""))

    def full_trace(self, value: dict[str, Any], where: str) -> None:
        if isinstance(value.get("trace"), dict):  # the UI's download
            head = value["trace"]
            listed = value["observations"]
        else:
            head = {k: v for k, v in value.items() if k != "observations"}
            listed = value["observations"]
        trace_id = head.get("id")
        if trace_id in (None, ""):
            self.problems.append(f"{where}: a trace without an id; left out")
            return
        self.trace(trace_id, {k: v for k, v in head.items() if k not in ("observations", "scores")})
        nested = head.get("observations") if isinstance(head.get("observations"), list) else []
        # the UI's download lists each observation twice (the trace's summary rows and the
        # full ones); the full ones, read last, win
        for n, raw in enumerate([*nested, *listed]):
            if isinstance(raw, dict):
                self.observation(raw, trace_id, f"{where}: observation {n}")

    def event(self, raw: Any, where: str) -> None:
        if not isinstance(raw, dict) or not isinstance(raw.get("body"), dict):
            self.problems.append(f"{where}: not an ingestion event with a body; left out")
            return
        kind, body = str(raw.get("type") or ""), raw["body"]
        if kind == "trace-create":
            if body.get("id") in (None, ""):
                self.problems.append(f"{where}: trace-create without an id; left out")
                return
            self.trace(body["id"], body)
        elif kind in _CREATE_TYPES or kind == "observation-create":
            observation_type = _CREATE_TYPES.get(kind) or str(body.get("type") or "SPAN")
            self.observation({**body, "type": observation_type}, body.get("traceId"), where)
        elif kind in _UPDATES:
            # an update names its trace (the SDKs send traceId); one that does not is placed by
            # the observation it updates, when its batch created it
            trace_id = body.get("traceId") or self._batch.get(str(body.get("id")))
            if trace_id in (None, ""):
                self.problems.append(f"{where}: {kind} of an unknown observation; left out")
            else:
                self.add(str(trace_id), ("update", body, where, kind))
        # score-create and sdk-log carry no conversation


def build_trace(key: str, records: Iterable[Record], problems: list[str]) -> LangfuseTrace | None:
    """One trace of its records in file order: its fields, its observations (the same id
    again merges into the first, the later fields winning: a page overlap), updates merged
    into the observation they name; None when the records hold neither fields nor
    observations."""
    trace = LangfuseTrace(key)
    by_id: dict[str, dict[str, Any]] = {}
    for what, payload, where, event in records:
        if what == "fields":
            trace.fields.update(payload)
        elif what == "observation":
            oid = str(payload["id"])
            if oid in by_id:
                by_id[oid].update(payload)
            else:
                by_id[oid] = observation = dict(payload)
                trace.observations.append(observation)
        else:
            found = by_id.get(str(payload.get("id")))
            if found is None:
                problems.append(f"{where}: {event} of an unknown observation; left out")
            else:
                found.update({k: v for k, v in payload.items() if v is not None})
    return trace if trace.observations or trace.fields else None


def _parents_from_depth(items: list[Any]) -> list[Any]:
    """The trace view's log download lists observations in tree order with a ``depth`` and no
    parent id: each one's parent is the nearest earlier one a level up."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("depth"), int) for i in items):
        return items
    if any("parentObservationId" in i for i in items):
        return items
    path: list[Any] = []  # the ids of the current branch, by depth
    out = []
    for item in items:
        depth = max(0, min(item["depth"], len(path)))
        path = path[:depth]
        out.append({**item, "parentObservationId": path[-1] if path else None})
        path.append(item.get("id"))
    return out


def _walk(document: Any, collect: Router, where: str) -> None:
    if isinstance(document, list):
        for n, item in enumerate(_parents_from_depth(document)):
            _walk(item, collect, f"{where}[{n}]")
        return
    if not isinstance(document, dict):
        collect.problems.append(f"{where}: neither a trace nor an observation; left out")
        return
    if isinstance(document.get("batch"), list):
        for n, event in enumerate(document["batch"]):
            collect.event(event, f"{where} batch[{n}]")
    elif is_trace(document):
        collect.full_trace(document, where)
    elif isinstance(document.get("observations"), list):  # the server download: no trace row
        for n, item in enumerate(document["observations"]):
            _walk(item, collect, f"{where} observations[{n}]")
    elif isinstance(document.get("data"), list):
        for n, item in enumerate(document["data"]):
            _walk(item, collect, f"{where} data[{n}]")
    elif is_observation(document):
        collect.observation(document, None, where)
    else:
        collect.problems.append(f"{where}: neither a trace nor an observation; left out")


def traces_of_documents(
    documents: list[tuple[str, Any]], problems: list[str], default_trace_id: str | None = None
) -> list[LangfuseTrace]:
    """The traces of parsed documents (each with where it came from: ``line 3``), in the
    order their ids first appear; an observation naming no trace belongs to
    ``default_trace_id`` when given (the log download's, named by its file). (A file of any
    size streams instead, :func:`rejudge.importers._langfuse.iter_langfuse`: the same records
    grouped in bounded memory.)"""
    grouped: dict[str, list[Record]] = {}
    router = Router(
        lambda key, record: grouped.setdefault(key, []).append(record), problems, default_trace_id
    )
    for where, document in documents:
        router.walk(document, where)
    built = (build_trace(key, records, problems) for key, records in grouped.items())
    return [trace for trace in built if trace is not None]
