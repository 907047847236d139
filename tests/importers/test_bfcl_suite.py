"""Importing BFCL: schema dialect conversion, wire names, suites from bfcl-eval's data, result
files as imported runs, and evaluations exported as BFCL score files."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.importers import category_of, decode_result, trace_from_result
from rejudge.importers._bfcl_schema import _name_map, convert_parameters, wire_name

BFCL_MISSING = importlib.util.find_spec("bfcl_eval") is None
needs_bfcl = pytest.mark.skipif(
    BFCL_MISSING, reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)"
)
WIRE_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_schema_dialect_becomes_json_schema() -> None:
    bfcl = {
        "type": "dict",
        "required": ["a", "ghost"],
        "properties": {
            "a": {"type": "float", "description": "A."},
            "t": {"type": "tuple", "items": {"type": "integer"}},
            "d": {
                "type": "dict",
                "properties": {"k": {"type": "any"}, "b": {"type": "boolean"}},
                "required": ["k"],
            },
            "l": {
                "type": "array",
                "items": {"type": "dict", "properties": {"x": {"type": "float"}}},
            },
            "e": {"type": "string", "enum": ["x", "y"], "default": "x", "optional": True},
        },
    }
    schema = convert_parameters(bfcl)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["required"] == ["a"]
    props = schema["properties"]
    assert props["a"] == {"type": "number", "description": "A."}
    assert props["t"]["type"] == "array" and props["t"]["items"] == {"type": "integer"}
    assert props["d"]["properties"]["k"] == {"type": "string"}
    assert props["d"]["required"] == ["k"]
    assert props["l"]["items"]["properties"]["x"] == {"type": "number"}
    assert props["e"] == {"type": "string", "enum": ["x", "y"], "default": "x"}
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"a": 1, "t": [1, 2], "d": {"k": "v"}, "l": [{"x": 1.5}]})
    assert not validator.is_valid({"a": "1"})


def test_java_and_javascript_parameters_travel_as_strings() -> None:
    bfcl = {
        "type": "dict",
        "properties": {
            "n": {"type": "long"},
            "xs": {"type": "ArrayList", "items": {"type": "String"}},
        },
        "required": ["n"],
    }
    schema = convert_parameters(bfcl, "java")
    assert {p["type"] for p in schema["properties"].values()} == {"string"}
    assert "Java long" in schema["properties"]["n"]["description"]


def test_wire_names_are_provider_safe_and_reversible() -> None:
    names = ["math.factorial", "math_factorial", "a.b.c", "ok-name", "x" * 70 + ".y"]
    mapping = _name_map(names)
    assert set(mapping.values()) == {"math.factorial", "a.b.c", "x" * 70 + ".y"}
    wires = set(mapping) | {n for n in names if n not in mapping.values()}
    assert len(wires) == len(names)  # one wire name per tool: the map reverses
    assert all(WIRE_RE.match(w) for w in wires)
    assert mapping["math_factorial_2"] == "math.factorial"
    assert wire_name("geo.area") == "geo_area"


# --------------------------------------------------------------------------- result decoding


def test_decode_result_shapes() -> None:
    calls, text = decode_result([{"f": {"a": 1}}, {"g.h": '{"b": "x"}'}])
    assert [(c.name, c.arguments) for c in calls] == [("f", {"a": 1}), ("g.h", {"b": "x"})]
    assert text is None
    calls, _ = decode_result("[f(a=1, b='x'), g.h(c=[1, 2.5], d=my_var)]")
    assert [(c.name, c.arguments) for c in calls] == [
        ("f", {"a": 1, "b": "x"}),
        ("g.h", {"c": [1, 2.5], "d": "my_var"}),
    ]
    calls, _ = decode_result('[{"f": {"a": true}}]')
    assert calls[0].arguments == {"a": True}
    assert decode_result("[]") == ([], None)
    calls, text = decode_result("I cannot help with that.")
    assert calls == [] and text == "I cannot help with that."
    calls, _ = decode_result("[f(a=1, b=")
    assert calls[0].name == "f" and calls[0].parse_error and calls[0].arguments is None
    calls, _ = decode_result([{"f": "{not json"}])
    assert calls[0].parse_error and calls[0].arguments_raw == "{not json"
    calls, _ = decode_result("[f(1, 2)]")
    assert calls[0].parse_error  # positional arguments have no names


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(st.one_of(json_values, st.text(max_size=60)))
def test_decoding_never_raises(result: Any) -> None:
    trace = trace_from_result({"id": "simple_python_0", "result": result})
    for call in trace.calls:
        assert (call.arguments is None) == (call.parse_error is not None)


def test_category_from_file_or_id() -> None:
    assert (
        category_of("x", "BFCL_v4_live_parallel_multiple_result.json") == "live_parallel_multiple"
    )
    assert category_of("live_simple_12-3-4") == "live_simple"
    assert category_of("simple_python_3") == "simple_python"
    assert category_of("multi_turn_base_1") is None


# --------------------------------------------------------------------------- with bfcl-eval


@needs_bfcl
def test_every_category_imports_consistently() -> None:
    from rejudge.importers._bfcl_schema import CATEGORIES
    from rejudge.importers._bfcl_suite import _category_file, bfcl_data_dir, build_suite

    data = bfcl_data_dir()
    for category, info in CATEGORIES.items():
        suite = build_suite(category)
        lines = _category_file(data, category).read_text(encoding="utf-8").splitlines()
        assert len(suite.cases) == len([x for x in lines if x.strip()]), category
        registry = suite.registry
        inverse = {original: wire for wire, original in registry.name_map.items()}
        names = set(registry.tool_names())
        for tool in registry.openai_tools():
            assert WIRE_RE.match(tool["function"]["name"]), tool["function"]["name"]
        for spec in registry.tools[:50]:
            jsonschema.Draft202012Validator.check_schema(spec.parameters)
        for case in suite.cases:
            meta = case.metadata["bfcl"]
            assert set(case.metadata["tools"]) <= names
            assert meta["kind"] == info.kind and meta["language"] == info.language
            assert case.negative == (info.kind == "irrelevance")
            for call in case.golden.calls:
                assert call.tool in meta["functions"]
            if info.kind in ("irrelevance", "relevance"):
                assert not case.golden.calls and meta["ground_truth"] is None
            else:
                assert len(case.golden.calls) == len(meta["ground_truth"]) and case.call_only
        assert len(inverse) == len(registry.name_map)


@needs_bfcl
def test_import_stores_and_writes_loadable_suites(store: Any, tmp_path: Path) -> None:
    from rejudge.suites import load_suite

    from rejudge.services import import_bfcl

    first = import_bfcl(store, ["live_parallel"], out_dir=tmp_path)
    again = import_bfcl(store, ["live_parallel"])
    assert first[0].suite_id == again[0].suite_id and first[0].hash == again[0].hash
    assert first[0].cases == 16
    loaded = load_suite(tmp_path / "bfcl-live_parallel")
    assert loaded.hash == first[0].hash
    assert store.suites.get_suite("bfcl-live_parallel").hash == first[0].hash


@needs_bfcl
def test_results_round_trip_import_judge_export(store: Any, tmp_path: Path) -> None:
    from rejudge.judge import load_rule_set

    from rejudge.importers import build_suite
    from rejudge.services import export_bfcl, import_bfcl_results, judge_run

    suite = build_suite("live_parallel")
    lines = []
    for k, case in enumerate(suite.cases):
        if k % 4 == 0:  # decoded, correct (BFCL's provider spelling of dotted names)
            result: Any = [{c.tool.replace(".", "_"): dict(c.params)} for c in case.golden.calls]
        elif k % 4 == 1:  # raw Python syntax, correct
            result = (
                "["
                + ", ".join(
                    f"{c.tool}(" + ", ".join(f"{p}={v!r}" for p, v in c.params.items()) + ")"
                    for c in case.golden.calls
                )
                + "]"
            )
        elif k % 4 == 2:
            result = "[broken(call="  # undecodable: kept raw
        else:
            result = "Sorry, I can't."
        lines.append(json.dumps({"id": case.id, "result": result, "latency": 0.5}))
    lines.append("not json")
    lines.append(json.dumps({"id": "live_parallel_999-9-9", "result": []}))
    folder = tmp_path / "result" / "my-model"
    folder.mkdir(parents=True)
    (folder / "BFCL_v4_live_parallel_result.json").write_text("\n".join(lines), encoding="utf-8")

    [summary] = import_bfcl_results(store, tmp_path / "result", "my-model")
    assert summary.traces == 16 and summary.inserted == 16
    assert summary.undecodable == 4
    assert len(summary.bad_lines) == 1 and len(summary.unknown_ids) == 1
    run = store.runs.get_run(summary.run)
    assert run.harness_mode == "imported"
    again = import_bfcl_results(store, tmp_path / "result", "my-model")
    assert again[0].inserted == 0  # idempotent

    result = judge_run(
        store,
        summary.run,
        "bfcl-ast",
        load_rule_set("bfcl@1"),
    )
    counts = result.summary.verdict_counts
    assert counts.PASS == 8 and counts.FAIL == 8

    written = export_bfcl(store, result.evaluation_id, tmp_path / "score")
    [entry] = written
    path = Path(entry["path"])
    assert path.name == "BFCL_v4_live_parallel_score.json" and path.parent.name == "live"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == {"accuracy": 0.5, "correct_count": 8, "total_count": 16}
    assert len(rows) == 9 and all(r["valid"] is False for r in rows[1:])
    assert {r["error_type"] for r in rows[1:]} == {
        "ast_decoder:decoder_failed",
        "parallel_function_checker_no_order:wrong_count",
    }
