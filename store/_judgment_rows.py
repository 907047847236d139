"""The rows the judgments' repository (:mod:`rejudge.store._judgments`) hands out: a
judgment's stored body, a judgment as a lookup finds it, and an evaluation's trace with its
judgment as a stream yields it."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, TypedDict

__all__ = ["EvaluatedTrace", "JudgmentBody", "JudgmentLink", "KnownJudgment"]

#: no body path asked for
_NO_PATHS: Mapping[str, Any] = MappingProxyType({})


class JudgmentBody(TypedDict, total=False):
    """A judgment's body as stored (``rejudge.model.Judgment``'s JSON, with its trace hash):
    what :meth:`JudgmentRepository.judgment_body` returns, decoded but not validated, so a body
    stored under an older judgment format reads as it was written (it may lack a key)."""

    format_version: int
    verdict: str
    taxonomy: list[str]
    partial_score: float | None
    partial_breakdown: dict[str, float]
    diff: list[dict[str, Any]]
    reasons: list[str]
    warnings: list[str]
    anomalies: list[str]
    details: dict[str, Any]
    tier: str
    trace_hash: str
    case_hash: str
    registry_hash: str
    rule_set_hash: str
    engine_version: str
    judge_hash: str


class KnownJudgment(NamedTuple):
    """A stored judgment as linking it to an evaluation (and summarizing it) needs it, without
    its body: what :meth:`JudgmentRepository.lookup_judgments` returns per key. A judging
    makes one too for a judgment of its own not inserted yet (``id`` None: linked by its key).
    """

    id: int | None
    verdict: str
    partial_score: float | None
    taxonomy: list[str] | None
    anomalies: list[str] | None
    implicated_tools: list[str] | None
    #: under each label of the lookup's ``body_paths``, the body's value at that path (None
    #: when absent)
    paths: Mapping[str, Any] = _NO_PATHS


class JudgmentLink(NamedTuple):
    """A trace linked to an evaluation through its judgment, as
    :meth:`JudgmentRepository.save_and_link_rows` writes it: by ``judgment_id``, or for a
    judgment written in the same call, by ``judgment_key`` (``judgment_id`` None). The fields
    up to the score are the link table's columns in the order the store writes them."""

    judgment_id: int | None
    trace_id: int
    case_key: str
    repetition: int
    verdict: str
    partial_score: float | None
    dimension: str | None
    category: str | None
    judgment_key: str | None


class EvaluatedTrace(NamedTuple):
    """One trace of an evaluation with its judgment, as
    :meth:`JudgmentRepository.iter_evaluation_rows` streams it: the link's columns (case,
    group, verdict), the judgment's id, key, hash, codes and input hashes, and on request its
    body (decoded, with its trace hash) or the body's values at some paths."""

    trace_id: int
    case_key: str
    repetition: int
    dimension: str | None
    category: str | None
    verdict: str
    partial_score: float | None
    judgment_id: int
    judgment_key: str
    judgment_hash: str
    taxonomy: list[str] | None
    anomalies: list[str] | None
    implicated_tools: list[str] | None
    trace_hash: str
    case_hash: str
    registry_hash: str
    rule_set_hash: str
    engine_version: str
    tier: str
    #: the judgment's body (read ``with_body=True``; None otherwise)
    body: dict[str, Any] | None = None
    #: under each label of the read's ``body_paths``, the body's value at that path (None when
    #: absent)
    paths: Mapping[str, Any] = _NO_PATHS
