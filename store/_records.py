"""Record types: the frozen values ``Store`` hands out for stored rows (suites, runs, traces,
evaluations, baselines) and the helpers that build a record from a row. (The pre-serialized
judgment the store writes, ``PreparedJudgment``, is built by the pure judge: it is part of the
data model, :mod:`rejudge.model._judgment_text`.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from rejudge.model._report import ReportSummary
from rejudge.model._schemas import RunConfig, Trace

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")

__all__ = ["SuiteRecord", "RunRecord", "StoredTrace", "EvaluationRecord", "BaselineRecord"]


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
    stored_summary: dict[str, Any]  # as the row holds it ({} until the evaluation is finished)
    created_at: datetime
    finished_at: datetime | None

    @cached_property
    def summary(self) -> ReportSummary | None:
        """The evaluation's summary, None until it is finished; read from the stored mapping
        when first asked for (most readers of an evaluation never look at it)."""
        return ReportSummary.from_json(self.stored_summary) if self.stored_summary else None


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


def record_of(cls: type[R], m: Mapping[str, Any], **given: Any) -> R:
    """A record from a row's columns: each of ``cls``'s fields from the column of its name (the
    row may hold more: a run's ``planned_cases``), but those ``given``."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return cls(**{n: m[n] for n in names if n not in given}, **given)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def run_record_from_row(row: Any) -> RunRecord:
    m = row._mapping
    return record_of(RunRecord, m, config=RunConfig.model_validate(m["config"]))


def evaluation_record_from_row(row: Any) -> EvaluationRecord:
    m = dict(row._mapping)
    stored = m.pop("summary") or {}
    return EvaluationRecord(**m, stored_summary=stored)
