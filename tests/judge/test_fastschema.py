"""The fast validity check agrees with jsonschema on the subset it accepts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from rejudge.judge import compile_fast

from .conftest import REGISTRY

leaf = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.text(max_size=4)
values = st.recursive(
    leaf,
    lambda c: (
        st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c"]), c, max_size=3)
    ),
    max_leaves=8,
)
types = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "null"])


def schemas():
    base = st.fixed_dictionaries(
        {},
        optional={
            "type": types | st.lists(types, min_size=1, max_size=2, unique=True),
            "enum": st.lists(leaf, min_size=1, max_size=3),
            "minimum": st.integers(-3, 3),
            "exclusiveMaximum": st.floats(-3, 3),
            "minLength": st.integers(0, 3),
            "maxItems": st.integers(0, 3),
            "description": st.text(max_size=3),
            "pattern": st.sampled_from(["^a", "b$", "^[0-9]{2}$", "a|c", "", "^U[0-9]{3}$"]),
            "uniqueItems": st.booleans(),
        },
    )
    return st.recursive(
        base,
        lambda c: (
            st.fixed_dictionaries(
                {"type": st.just("object")},
                optional={
                    "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), c, max_size=3),
                    "required": st.lists(st.sampled_from(["a", "b"]), unique=True, max_size=2),
                    "additionalProperties": st.booleans() | c,
                },
            )
            | st.fixed_dictionaries({"type": st.just("array"), "items": c})
        ),
        max_leaves=5,
    )


@settings(max_examples=400, deadline=None)
@given(schemas(), values)
def test_agrees_with_jsonschema(schema, instance):
    fast = compile_fast(schema)
    assert fast is not None
    assert fast(instance) == Draft202012Validator(schema).is_valid(instance)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(REGISTRY.tools),
    st.dictionaries(
        st.sampled_from(["order_id", "user_id", "quantity", "item_ids", "window", "x"]),
        values,
        max_size=3,
    ),
)
def test_registry_schemas(spec, args):
    fast = compile_fast(spec.parameters)
    assert fast is not None
    assert fast(args) == Draft202012Validator(spec.parameters).is_valid(args)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["^U[0-9]{3}$", "^[ACGT]+$", "x", "^$"]),
    st.text(alphabet="UACGTx0123\n", max_size=6),
)
def test_pattern_is_re_search(pattern, text):
    schema = {"type": "string", "pattern": pattern}
    assert compile_fast(schema)(text) == Draft202012Validator(schema).is_valid(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(values, max_size=4))
def test_unique_items_agrees(items):
    schema = {"type": "array", "uniqueItems": True}
    assert compile_fast(schema)(items) == Draft202012Validator(schema).is_valid(items)


def test_unsupported_keywords_fall_back():
    assert compile_fast({"type": "object", "oneOf": [{}]}) is None
    assert compile_fast({"$ref": "#/defs/x"}) is None
    assert compile_fast({"type": "decimal"}) is None
