"""Canonical JSON and content hashes: stable, order-independent, prefixed, NaN refused."""

from __future__ import annotations

import hashlib
import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.model import (
    behaviour_hash,
    canonical_json,
    content_hash,
    hash_bytes,
    judgment_key,
    trace_content_hash,
    trace_hashes,
)
from tests.store.store_factories import make_case, make_registry, make_rule_set, make_trace

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=30,
)


def test_canonical_json_is_a_fixed_text() -> None:
    value = {"b": 1, "a": [3, {"d": "é", "c": None}], "e": 1.5, "f": True}
    assert canonical_json(value) == '{"a":[3,{"c":null,"d":"é"}],"b":1,"e":1.5,"f":true}'


def test_key_order_does_not_change_json_or_hash() -> None:
    one = {"x": {"p": 1, "q": [1, 2]}, "y": "z"}
    two = {"y": "z", "x": {"q": [1, 2], "p": 1}}
    assert canonical_json(one) == canonical_json(two)
    assert content_hash(one) == content_hash(two)
    # list order is content, not presentation
    assert content_hash({"x": [1, 2]}) != content_hash({"x": [2, 1]})


def test_hash_has_algorithm_prefix_and_is_sha256_of_canonical_json() -> None:
    value = {"tool": "get_order", "params": {"order_id": "#W1"}}
    digest = content_hash(value)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
    expected = hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
    assert digest == f"sha256:{expected}"
    assert hash_bytes(b"abc") == "sha256:" + hashlib.sha256(b"abc").hexdigest()


@pytest.mark.parametrize(
    "bad",
    [math.nan, math.inf, -math.inf, {"a": math.nan}, [1.0, math.inf], {"x": [{"y": math.nan}]}],
    ids=["nan", "inf", "-inf", "nested-nan", "list-inf", "deep-nan"],
)
def test_nan_and_infinity_are_refused(bad: object) -> None:
    with pytest.raises(ValueError):
        canonical_json(bad)
    with pytest.raises(ValueError):
        content_hash(bad)


def test_unserializable_objects_are_refused() -> None:
    with pytest.raises(TypeError):
        canonical_json({"f": object()})


def test_model_hashes_are_stable_and_content_sensitive() -> None:
    case = make_case(1)
    assert case.hash == make_case(1).hash
    assert case.hash == content_hash(case.model_dump(mode="json"))
    assert case.hash != make_case(1, instruction="Something else").hash
    assert make_registry().hash != make_registry(version="2").hash
    assert make_rule_set("1").hash != make_rule_set("1", strict=False).hash


def test_trace_hash_ignores_wall_clock_timings() -> None:
    trace = make_trace("case-001")
    retimed = trace.model_copy(update={"timings": {"wall_s": 99.0}})
    assert trace.hash == retimed.hash
    changed = trace.model_copy(update={"final_text": "Not cancelled."})
    assert trace.hash != changed.hash


def test_judgment_key_depends_on_every_input() -> None:
    base = ["sha256:t", "sha256:c", "sha256:r", "ast", "sha256:rules", "0.1.0"]
    key = judgment_key(*base)
    assert key.startswith("sha256:")
    assert key == judgment_key(*base)
    for position in range(len(base)):
        changed = list(base)
        changed[position] = changed[position] + "x"
        assert judgment_key(*changed) != key


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_canonical_json_round_trips(value: object) -> None:
    text = canonical_json(value)
    assert json.loads(text) == value
    # canonical form is a fixed point
    assert canonical_json(json.loads(text)) == text


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=6), st.randoms())
def test_canonical_json_ignores_dict_insertion_order(value: dict, rnd) -> None:  # type: ignore[no-untyped-def, type-arg]
    items = list(value.items())
    rnd.shuffle(items)
    shuffled = dict(items)
    assert canonical_json(shuffled) == canonical_json(value)
    assert content_hash(shuffled) == content_hash(value)


# the keys a stored trace body has, and others, so the left-out keys are drawn often
BODY_KEYS = st.sampled_from(
    ["rounds", "timings", "source_ids", "repetition", "case_id", "status", "é", "", 'a"b']
) | st.text(max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(BODY_KEYS, JSON_VALUES, max_size=8))
def test_trace_hashes_from_one_encoding_equal_the_two_hashes(body: dict[str, object]) -> None:
    assert trace_hashes(body) == (trace_content_hash(body), behaviour_hash(body))


def test_trace_hashes_of_a_stored_body() -> None:
    trace = make_trace("case-1")
    body = trace.model_dump(mode="json")
    body["timings"] = {"latency_s": 1.5}  # outside both hashes
    assert trace_hashes(body) == (trace.hash, behaviour_hash(body))
