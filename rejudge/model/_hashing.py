"""Canonical JSON and content hashes.

Every stored object is identified by ``sha256:<hex>`` of its canonical JSON, so the same content
always hashes the same on any machine and any backend.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

HASH_ALGORITHM = "sha256"

__all__ = [
    "HASH_ALGORITHM",
    "NOT_BEHAVIOUR",
    "NOT_CONTENT",
    "behaviour_hash",
    "canonical_json",
    "content_hash",
    "hash_bytes",
    "trace_content_hash",
    "trace_hashes",
]


def _default(value: Any) -> Any:
    # pydantic models and other objects that know how to dump themselves
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=lambda v: canonical_json(v))
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    raise TypeError(f"cannot canonicalize {type(value).__name__}")


def _check_floats(value: Any) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("canonical JSON cannot hold NaN or infinity")


#: ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
#: allow_nan=False, default=_default)``, with the encoder built once instead of on every call
#: (``json.dumps`` constructs a new ``JSONEncoder`` whenever an option differs from its
#: defaults); the text is the same byte for byte (a property test holds the two together)
_ENCODER = json.JSONEncoder(
    sort_keys=True,
    separators=(",", ":"),
    ensure_ascii=False,
    allow_nan=False,
    default=_default,
)


def canonical_json(value: Any) -> str:
    """Serialize ``value`` deterministically: sorted keys, no whitespace, UTF-8 kept as is."""
    _check_floats(value)
    return _ENCODER.encode(value)


def hash_bytes(data: bytes) -> str:
    return f"{HASH_ALGORITHM}:{hashlib.sha256(data).hexdigest()}"


def trace_content_hash(body: dict[str, Any]) -> str:
    """``sha256:<hex>`` of a stored trace body without :data:`NOT_CONTENT` (``Trace.hash``)."""
    return content_hash({k: v for k, v in body.items() if k not in NOT_CONTENT})


def content_hash(value: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``value``."""
    return hash_bytes(canonical_json(value).encode("utf-8"))


#: what a trace's *content* (its hash) leaves out: its wall-clock timings, and the ids it had in
#: the system it was imported from (``source_ids``): facts about when and where it ran, not what
#: it did, so a replay, or a re-import that learnt more ids, hashes the same
NOT_CONTENT = ("timings", "source_ids")

#: what a trace's *behaviour* leaves out: its repetition number and what its content leaves out.
#: No tier, matcher or rule reads any (tests/judge/test_behaviour_once.py holds this), so two
#: traces of one case equal but for these are judged alike, and judged once.
NOT_BEHAVIOUR = ("repetition", *NOT_CONTENT)


def behaviour_hash(body: dict[str, Any]) -> str:
    """``sha256:<hex>`` of a stored trace body (``Trace.model_dump(mode="json")``) without
    :data:`NOT_BEHAVIOUR`: the same for every repeated trial that behaved the same. Stored with
    each trace (``traces.behaviour_hash``), so judging groups repeats without decoding them."""
    return content_hash({k: v for k, v in body.items() if k not in NOT_BEHAVIOUR})


def trace_hashes(body: dict[str, Any]) -> tuple[str, str]:
    """(:func:`trace_content_hash`, :func:`behaviour_hash`) of a stored trace body, the same
    values, from one encoding of it: the canonical JSON of a mapping is ``{`` its sorted keys,
    each with its value's canonical JSON, ``}``, and the two texts differ only by the keys they
    leave out, so every value (the rounds are nearly all of it) is encoded once, not twice."""
    if not all(isinstance(key, str) for key in body):
        return trace_content_hash(body), behaviour_hash(body)
    members = [
        (key, f"{_ENCODER.encode(key)}:{_ENCODER.encode(body[key])}")
        for key in sorted(body)
        if key not in NOT_CONTENT
    ]
    content = "{" + ",".join(text for _key, text in members) + "}"
    behaviour = "{" + ",".join(text for key, text in members if key not in NOT_BEHAVIOUR) + "}"
    return hash_bytes(content.encode("utf-8")), hash_bytes(behaviour.encode("utf-8"))
