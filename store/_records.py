"""Record types: the frozen values ``Store`` hands out for stored rows (suites, runs, traces,
evaluations, baselines), the pre-serialized judgment ``PreparedJudgment``, and the helpers that
build a record from a row."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from rejudge.store._hashing import canonical_json, hash_bytes
from rejudge.store._judgment_text import JudgmentTemplate, join_judgment_text, split_judgment_text
from rejudge.store._schemas import Judgment, RunConfig, Trace, judgment_key

__all__ = [
    "SuiteRecord",
    "RunRecord",
    "StoredTrace",
    "EvaluationRecord",
    "PreparedJudgment",
    "BaselineRecord",
    "suite_record_from_row",
    "run_record_from_row",
    "evaluation_record_from_row",
    "run_differences",
    "text_hash",
]


@dataclass(frozen=True)
class SuiteRecord:
    id: int
    name: str
    hash: str
    domain: str
    format_version: int
    registry_id: int
    case_count: int
    meta: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class RunRecord:
    id: int
    name: str
    suite_id: int
    registry_id: int
    model: str
    provider: str
    base_url: str | None
    harness_mode: str
    config: RunConfig
    config_hash: str
    suite_hash: str
    registry_hash: str
    prompt_hash: str | None
    status: str
    started_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class StoredTrace:
    id: int
    run_id: int
    case_pk: int
    case_key: str
    repetition: int
    hash: str
    trace: Trace
    cassette_path: str | None
    cassette_hash: str | None


@dataclass(frozen=True)
class EvaluationRecord:
    id: int
    run_id: int
    tier: str
    rule_set_id: int
    engine_version: str
    inputs_hash: str | None
    status: str
    summary: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None


class PreparedJudgment(NamedTuple):
    """A judgment ready for the store: its key, its hash and its body as canonical JSON text,
    cut where the trace hash goes (``store._judgment_text``): ``shared_json`` is what
    ``judgment_bodies`` keeps once for every trace that behaved alike.

    The hash is ``Judgment.hash`` (sha256 of the canonical JSON of ``model_dump(mode="json")``)
    computed from the very text that is stored, so the body is serialized once. Built where the
    judging happens (a worker process pickles these small tuples of strings back; the copies
    of one behaviour share one ``shared_json`` string, pickled once).
    """

    key: str
    hash: str
    #: the canonical body without its trace hash (or whole: ``offset`` -1)
    shared_json: str
    #: sha256 of ``shared_json``: the ``judgment_bodies`` row it is stored as
    shared_hash: str
    #: where in ``shared_json`` the trace hash goes back
    offset: int
    trace_hash: str
    case_hash: str
    registry_hash: str
    tier: str
    rule_set_hash: str
    engine_version: str
    verdict: str
    partial_score: float | None
    taxonomy_json: str
    #: the body's ``anomalies`` and ``details.implicated_tools`` (None when absent), stored as
    #: columns next to it: what a report aggregates without parsing bodies
    anomalies_json: str
    implicated_tools_json: str | None

    @property
    def body_json(self) -> str:
        """The whole canonical body (what ``hash`` is the sha256 of)."""
        return join_judgment_text(self.shared_json, self.offset, self.trace_hash)

    @classmethod
    def of(cls, judgment: Judgment, key: str | None = None) -> PreparedJudgment:
        """``key``: the judgment's key when the caller already computed it (it must be
        ``judgment.key``)."""
        return cls.from_body(judgment.model_dump(mode="json"), key)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], key: str | None = None) -> PreparedJudgment:
        """From a judgment's JSON dump (``Judgment.model_dump(mode="json")``, or the same dict
        built directly: ``judge.engine.judge_body``); ``key`` as in :meth:`of`."""
        text = canonical_json(body)
        tools = body["details"].get("implicated_tools")
        shared, offset = split_judgment_text(text, body["trace_hash"])
        return cls(
            key=key
            if key is not None
            else judgment_key(
                body["trace_hash"],
                body["case_hash"],
                body["registry_hash"],
                body["tier"],
                body["rule_set_hash"],
                body["engine_version"],
            ),
            hash=hash_bytes(text.encode("utf-8")),
            shared_json=shared,
            shared_hash=text_hash(shared),
            offset=offset,
            trace_hash=body["trace_hash"],
            case_hash=body["case_hash"],
            registry_hash=body["registry_hash"],
            tier=body["tier"],
            rule_set_hash=body["rule_set_hash"],
            engine_version=body["engine_version"],
            verdict=body["verdict"],
            partial_score=body["partial_score"],
            taxonomy_json=canonical_json(body["taxonomy"]),
            anomalies_json=canonical_json(body["anomalies"]),
            implicated_tools_json=None if tools is None else canonical_json(tools),
        )

    def for_trace(
        self, trace_hash: str, key: str, template: JudgmentTemplate | None = None
    ) -> PreparedJudgment | None:
        """This judgment as the judgment of another trace that behaved alike (same case and
        inputs: only the trace hash differs), under that trace's judgment ``key``: the same
        shared body, its own hash. None when this body cannot be shared (its text holds its
        trace hash). ``template``: ``JudgmentTemplate(self.shared_json, self.offset)``, made
        once by a caller copying one judgment many times."""
        if template is None:
            template = JudgmentTemplate(self.shared_json, self.offset)
        digest = template.hash_for(trace_hash)
        if digest is None:
            return None
        return self._replace(key=key, hash=digest, trace_hash=trace_hash)


def text_hash(text: str) -> str:
    """sha256 of a stored text (a shared judgment body's row key)."""
    return hash_bytes(text.encode("utf-8"))


@dataclass(frozen=True)
class BaselineRecord:
    id: int
    name: str
    evaluation_id: int
    report_hash: str
    input_hashes: dict[str, Any]
    report: dict[str, Any]
    note: str | None
    created_at: datetime


def run_differences(existing: Any, suite: SuiteRecord, config: RunConfig) -> str:
    """What keeps ``config`` on ``suite`` from resuming the stored run row ``existing``: each
    differing identity field with its stored and its new value, and a changed suite."""
    out: list[str] = []
    if existing.suite_id != suite.id:
        out.append(f"suite snapshot: stored {existing.suite_hash}, now {suite.hash}")
    stored = existing.config if isinstance(existing.config, dict) else {}
    new = config.model_dump(mode="json")
    for key in sorted(set(stored) | set(new)):
        if key in RunConfig.OPERATIONAL_FIELDS or stored.get(key) == new.get(key):
            continue
        out.append(f"{key}: stored {stored.get(key)!r}, now {new.get(key)!r}")
    if not out:  # a format change the field comparison cannot see
        out.append(f"configuration hash: stored {existing.config_hash}, now {config.identity_hash}")
    shown = "; ".join(out[:4])
    shown += f"; and {len(out) - 4} more" if len(out) > 4 else ""
    port = _moved_loopback_port(stored.get("base_url"), new.get("base_url"))
    if port is not None:
        # the usual cause: a local server restarted on another free port
        shown += f" (the same local server on another port? restart it on port {port} to resume)"
    return shown


_LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def _moved_loopback_port(stored: Any, new: Any) -> int | None:
    """The stored port when two base URLs differ only in the port of a loopback host."""
    if not isinstance(stored, str) or not isinstance(new, str) or stored == new:
        return None
    a, b = urlsplit(stored), urlsplit(new)
    try:
        same_but_port = (
            a.hostname in _LOOPBACK_HOSTS
            and (a.scheme, a.hostname, a.path) == (b.scheme, b.hostname, b.path)
            and a.port != b.port
        )
        return a.port if same_but_port else None
    except ValueError:  # a port out of range in a stored URL: no hint
        return None


def suite_record_from_row(row: Any) -> SuiteRecord:
    m = row._mapping
    return SuiteRecord(**{**m, "meta": m["meta"] or {}})


def run_record_from_row(row: Any) -> RunRecord:
    m = row._mapping
    return RunRecord(
        id=m["id"],
        name=m["name"],
        suite_id=m["suite_id"],
        registry_id=m["registry_id"],
        model=m["model"],
        provider=m["provider"],
        base_url=m["base_url"],
        harness_mode=m["harness_mode"],
        config=RunConfig.model_validate(m["config"]),
        config_hash=m["config_hash"],
        suite_hash=m["suite_hash"],
        registry_hash=m["registry_hash"],
        prompt_hash=m["prompt_hash"],
        status=m["status"],
        started_at=m["started_at"],
        finished_at=m["finished_at"],
    )


def evaluation_record_from_row(row: Any) -> EvaluationRecord:
    m = row._mapping
    return EvaluationRecord(**{**m, "summary": m["summary"] or {}})
