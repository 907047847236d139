"""The fast validity check agrees with jsonschema on the subset it accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
    validators,
)
from rejudge.judge import RegistryIndex, _fasterrors, compile_errors, compile_fast

from rejudge.model import ToolRegistry, ToolSpec

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


# --------------------------------------------------------------------------- the error lists
# compile_errors must give the very multiset of (path, message) that iter_errors yields


DRAFTS = [Draft6Validator, Draft7Validator, Draft201909Validator, Draft202012Validator]
KEYS = ["a", "b", "c", "é", "ключ", "1"]
# the error tests' own leaves: booleans next to 0/1, integral floats, NaN and infinities
err_leaf = (
    leaf
    | st.sampled_from([0, 1, 0.0, 1.0, -0.0, 2**70, float("nan"), float("inf"), "é", "ключ"])
    | st.integers()
)
err_values = st.recursive(
    err_leaf,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(KEYS), c, max_size=3),
    max_leaves=8,
)


def err_schemas():
    numbers_ = st.integers(-3, 3) | st.floats(-3, 3) | st.sampled_from([0.5, 1.0, 2**70])
    base = st.fixed_dictionaries(
        {},
        optional={
            "type": types | st.lists(types, min_size=1, max_size=3, unique=True),
            "enum": st.lists(err_leaf | st.lists(leaf, max_size=2), min_size=1, max_size=3),
            "const": err_leaf | st.lists(leaf, max_size=2),
            "minimum": numbers_,
            "maximum": numbers_,
            "exclusiveMinimum": numbers_,
            "exclusiveMaximum": numbers_,
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "minItems": st.integers(0, 3),
            "maxItems": st.integers(0, 3),
            "uniqueItems": st.booleans(),
            "pattern": st.sampled_from(["^a", "b$", "^[0-9]{2}$", "a|c", "", "^é", "\\d"]),
            "format": st.sampled_from(["date", "email"]),
            "description": st.text(max_size=3),
        },
    )
    return st.recursive(
        base | st.booleans(),
        lambda c: (
            st.fixed_dictionaries(
                {},
                optional={
                    "type": st.just("object") | st.just(["object", "null"]),
                    "properties": st.dictionaries(st.sampled_from(KEYS), c, max_size=3),
                    "required": st.lists(st.sampled_from(KEYS), unique=True, max_size=3),
                    "additionalProperties": c,
                    "minimum": st.just(1),
                },
            )
            | st.fixed_dictionaries(
                {"items": c},
                optional={"type": st.just("array"), "maxItems": st.integers(0, 2)},
            )
        ),
        max_leaves=6,
    )


@st.composite
def near(draw, schema, depth=0):
    """An instance shaped like the schema often enough that errors come from deep inside."""
    if not isinstance(schema, dict) or depth > 4 or draw(st.integers(0, 4)) == 0:
        return draw(err_values)
    if "enum" in schema and draw(st.booleans()):
        return draw(st.sampled_from(schema["enum"]))
    typ = schema.get("type", [])
    names = [typ] if isinstance(typ, str) else typ
    if "properties" in schema or "additionalProperties" in schema or "object" in names:
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        keys = draw(st.lists(st.sampled_from(sorted(set(props) | set(KEYS))), unique=True))
        return {k: draw(near(props.get(k, extra), depth + 1)) for k in keys[:4]}
    if "items" in schema or "array" in names:
        return [
            draw(near(schema.get("items", True), depth + 1)) for _ in range(draw(st.integers(0, 3)))
        ]
    return draw(err_values)


def jsonschema_errors(validator, instance):
    return sorted(((tuple(e.path), e.message) for e in validator.iter_errors(instance)), key=repr)


def fast_errors(schema, validator, instance):
    errors = compile_errors(schema, validator)
    assert errors is not None, schema
    return sorted(errors(instance), key=repr)


@st.composite
def schema_and_instance(draw):
    schema = draw(err_schemas())
    return schema, draw(near(schema))


@settings(max_examples=1500, deadline=None)
@given(schema_and_instance(), st.sampled_from(DRAFTS))
def test_errors_equal_jsonschema(case, draft):
    schema, instance = case
    validator = draft(schema)
    assert fast_errors(schema, validator, instance) == jsonschema_errors(validator, instance)


@settings(max_examples=300, deadline=None)
@given(schemas(), values)
def test_errors_on_the_validity_strategies(schema, instance):
    validator = Draft202012Validator(schema)
    assert fast_errors(schema, validator, instance) == jsonschema_errors(validator, instance)


EDGES = [
    ({"type": "integer"}, [True, False, 1.0, 1.5, -0.0, 2**70, float("inf"), "1", None]),
    ({"type": ["integer", "string"]}, [True, 1.0, 1.5, [1]]),
    ({"type": "number", "minimum": 1, "exclusiveMaximum": 2.5}, [True, 0, 1, 2.5, float("nan")]),
    ({"enum": [1, "1", True, None, [1, 2], {"a": 1}]}, [1.0, True, False, 0, "1", [1, 2.0], {}]),
    ({"enum": [0, False]}, [0.0, False, True, [], None]),
    ({"const": True}, [1, True, 1.0]),
    ({"const": [1, {"a": False}]}, [[1, {"a": 0}], [1.0, {"a": False}], (1,)]),
    (
        {
            "type": "object",
            "properties": {"é": {"type": "string"}, "ключ": {"additionalProperties": False}},
            "additionalProperties": {"type": "object", "additionalProperties": False},
            "required": ["ключ", "é"],
        },
        [
            {"é": 1, "ключ": {"x": 1, "y": 2}},
            {"z": {"q": 1}, "w": 3, "ключ": {}},
            {"1": {"é": 1, "a": 2}, "é": "ok", "ключ": {"x": 1}},
        ],
    ),
    ({"type": "string", "pattern": "^[0-9]{2}$", "minLength": 1}, ["", "1", "12", "123", 12]),
    ({"maxLength": 0, "minItems": 1}, ["", "a", [], [1]]),
    ({"maxItems": 0, "minLength": 2, "uniqueItems": True}, [[1], "a", [1, True], [1, 1.0]]),
    ({"items": False}, [[], [1], [1, 2], "x"]),
    ({"items": {"items": {"type": "null"}}}, [[[None, 1], [2]], [[[]]]]),
    ({"properties": {"a": False, "b": True}, "required": ["a"]}, [{"a": 1}, {"b": 1}, [1]]),
]


@pytest.mark.parametrize("draft", DRAFTS)
@pytest.mark.parametrize("schema,instances", EDGES)
def test_error_edges(schema, instances, draft):
    validator = draft(schema)
    for instance in instances:
        assert fast_errors(schema, validator, instance) == jsonschema_errors(validator, instance)


def test_integer_edges_are_jsonschemas():
    errors = compile_errors({"type": "integer"})
    assert errors(True) == [((), "True is not of type 'integer'")]
    assert errors(1.0) == []
    enum = compile_errors({"enum": [1, "a"]})
    assert enum(True) == [((), "True is not one of [1, 'a']")]


def test_errors_refuse_what_was_not_read():
    schema = {"type": "integer"}
    assert compile_errors(schema, Draft4Validator(schema)) is None  # 1.0 is no integer there
    assert compile_errors({"type": "object", "oneOf": [{}]}) is None
    assert compile_errors({"items": {"$schema": "x", "type": "integer"}}) is None
    with_formats = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert compile_errors(schema, with_formats) is None
    extended = validators.extend(Draft202012Validator, {"minimum": lambda *a: iter(())})
    assert compile_errors(schema, extended(schema)) is None


def test_errors_refuse_an_unverified_jsonschema(monkeypatch):
    assert compile_errors({"type": "integer"}) is not None
    monkeypatch.setattr(_fasterrors, "_VERSION", "99.0.0")
    assert compile_errors({"type": "integer"}) is None


# --------------------------------------------------------------------------- validate()


@st.composite
def object_schema_and_args(draw):
    schema = draw(err_schemas().filter(lambda s: isinstance(s, dict) and "items" not in s))
    schema = {**schema, "type": "object"}
    return schema, draw(near(schema, depth=1))


@settings(max_examples=500, deadline=None)
@given(object_schema_and_args())
def test_validate_same_with_fast_errors_on_and_off(case):
    schema, args = case
    if not isinstance(args, dict):
        args = {"a": args}
    registry = ToolRegistry(domain="t", tools=[ToolSpec(name="t", parameters=schema)])
    on, off = RegistryIndex(registry), RegistryIndex(registry, fast_errors=False)
    assert "t" in on.fast_errors and not off.fast_errors
    expected = off.validate("t", args)
    assert on.validate("t", args) == expected
    # and off is jsonschema's own list, sorted and cut as before
    errors = sorted(
        off.validators["t"].iter_errors(args), key=lambda e: (list(map(str, e.path)), e.message)
    )
    assert expected[0] == [
        f"{'/'.join(map(str, e.path)) or '(arguments)'}: {e.message}" for e in errors[:5]
    ]
    assert expected[1] == frozenset(str(e.path[0]) for e in errors if e.path)


def test_validate_registry_tools_use_fast_errors():
    index = RegistryIndex(REGISTRY)
    assert set(index.fast_errors) == {spec.name for spec in REGISTRY.tools}
    messages, params = index.validate("check_stock", {"quantity": True, "x": 1})
    assert params == {"quantity"}
    assert messages == [
        "(arguments): 'product_id' is a required property",
        "(arguments): Additional properties are not allowed ('x' was unexpected)",
        "quantity: True is not of type 'integer'",
    ]
