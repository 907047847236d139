"""``canonical_json`` reuses one encoder; its text must stay byte-identical to the ``json.dumps``
call that defines canonical JSON (every stored hash depends on it)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.model import Judgment, canonical_json, content_hash, hash_bytes
from rejudge.model._hashing import _default


def reference(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("canonical JSON cannot hold NaN or infinity")
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
        default=_default,
    )


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(max_size=8), inner, max_size=5)
        | st.frozensets(st.integers() | st.text(max_size=4), max_size=4)
        | st.binary(max_size=8)
    ),
    max_leaves=30,
)


def outcome(fn: Any, value: Any) -> tuple[str, str]:
    try:
        return "ok", fn(value)
    except (ValueError, TypeError) as exc:
        return type(exc).__name__, ""


@settings(max_examples=300, deadline=None)
@given(values)
def test_canonical_json_is_the_reference_text(value: Any) -> None:
    assert outcome(canonical_json, value) == outcome(reference, value)


@given(
    st.dictionaries(st.text(max_size=6), st.text() | st.floats(allow_nan=False), max_size=4),
    st.lists(st.text(max_size=10), max_size=4),
)
def test_judgment_hash_is_sha256_of_the_reference_text(details: dict, reasons: list) -> None:  # type: ignore[type-arg]
    judgment = Judgment(
        verdict="FAIL",
        taxonomy=["wrong_tool"],
        partial_score=0.5,
        reasons=reasons,
        details=details,
        diff=[{"a": details}],
        tier="golden",
        trace_hash="sha256:t",
        case_hash="sha256:c",
        registry_hash="sha256:r",
        rule_set_hash="sha256:s",
        engine_version="1.0.0",
    )
    text = reference(judgment.model_dump(mode="json"))
    assert judgment.hash == hash_bytes(text.encode("utf-8")) == content_hash(judgment)


def test_non_finite_and_unknown_values_are_still_refused() -> None:
    for bad in (float("nan"), [float("inf")], {"x": float("-inf")}):
        with pytest.raises(ValueError):
            canonical_json(bad)
    with pytest.raises(TypeError, match="cannot canonicalize object"):
        canonical_json(object())


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(), max_size=6)
    | st.lists(st.text(max_size=4) | st.integers() | st.none(), max_size=4)
    | values
)
def test_a_judgments_short_lists_are_the_reference_text(value: Any) -> None:
    """A prepared judgment's taxonomy, anomalies and tools columns (lists of strings joined
    without the encoder, anything else through it): the reference text, escapes and all."""
    from rejudge.model._judgment_text import _names_json

    assert outcome(_names_json, value) == outcome(reference, value)
