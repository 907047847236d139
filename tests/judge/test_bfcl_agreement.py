"""Agreement of the bfcl-ast tier (rule set bfcl@1) with bfcl-eval's own AST checker.

Both judge the same outputs: every sampled case's possible answers themselves (a representative
answer and the last acceptable value of every parameter) plus systematic mutations of them
(wrong function, dropped required and optional parameters, unexpected parameters, wrong values
and types, string case and punctuation changes, int/float swaps, extra, missing and reordered
parallel calls, empty and undecodable output). Every verdict must be identical.

bfcl-eval is installed without its dependencies (``pip install --no-deps bfcl-eval``); its
checker imports ``MODEL_CONFIG_MAPPING`` from a module that pulls in every model SDK, so the test
supplies that one name (a mapping whose entries have ``underscore_to_dot``) as a stub module.
The helpers here are reused by ``bench/bfcl_speed.py``.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from rejudge.model import Case, Round, ToolCall, Trace

BFCL_MISSING = importlib.util.find_spec("bfcl_eval") is None
SKIP_REASON = "bfcl-eval is not installed (pip install --no-deps bfcl-eval)"
STUB_MODEL = "rejudge-agreement"
PER_CATEGORY = 45


def load_bfcl_checker() -> Any:
    """bfcl-eval's ``ast_checker`` with the one model-config name it needs stubbed."""
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        stub = types.ModuleType(name)
        stub.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
            STUB_MODEL: types.SimpleNamespace(underscore_to_dot=True)
        }
        sys.modules[name] = stub
    else:
        sys.modules[name].MODEL_CONFIG_MAPPING.setdefault(  # type: ignore[attr-defined]
            STUB_MODEL, types.SimpleNamespace(underscore_to_dot=True)
        )
    from bfcl_eval.eval_checker.ast_eval import ast_checker

    return ast_checker


def bfcl_verdict(
    checker: Any, entry: dict[str, Any], case: Case, output: list[dict[str, Any]] | None
) -> tuple[bool, str | None]:
    """bfcl-eval's verdict on a decoded output (None: the decoder failed), as its runner gives it."""
    from bfcl_eval.constants.enums import Language

    meta = case.metadata["bfcl"]
    kind = meta["kind"]
    if kind in ("irrelevance", "relevance"):
        # the runner: a failed decode, [] and [{}] mean "no function call"
        has_call = output is not None and not (
            len(output) == 0 or (len(output) == 1 and len(output[0]) == 0)
        )
        return (not has_call, None) if kind == "irrelevance" else (has_call, None)
    if output is None:
        return False, "ast_decoder:decoder_failed"
    language = {"python": Language.PYTHON, "java": Language.JAVA}.get(
        meta["language"], Language.JAVASCRIPT
    )
    result = checker.ast_checker(
        entry["function"], output, meta["ground_truth"], language, meta["category"], STUB_MODEL
    )
    return bool(result["valid"]), result.get("error_type")


# --------------------------------------------------------------------------- outputs


def _bfcl_name(name: str) -> str:
    return name.replace(".", "_")


def trace_of(output: list[dict[str, Any]] | None, case_id: str = "c") -> Trace:
    """The trace a recorder or importer would store for a decoded output."""
    if output is None:
        call = ToolCall(name="f", arguments=None, arguments_raw="f(", parse_error="bad syntax")
        return Trace(case_id=case_id, rounds=[Round(index=0, calls=[call])])
    calls = [
        ToolCall(id=f"c{k}", name=name, arguments=args, arguments_raw="")
        for k, item in enumerate(output)
        for name, args in item.items()
    ]
    return Trace(case_id=case_id, rounds=[Round(index=0, calls=calls)] if calls else [])


def _last_value(values: Any) -> tuple[bool, Any]:
    if not isinstance(values, list):
        return True, values
    for value in reversed(values):
        if value != "":
            return True, value
    return False, None


def _base_outputs(case: Case) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    from rejudge.importers import render_value

    golden = [{_bfcl_name(c.tool): dict(c.params)} for c in case.golden.calls]
    yield "answer:first", golden
    meta = case.metadata["bfcl"]
    alt = []
    for answer in meta["ground_truth"] or []:
        (name, params), *_ = answer.items()
        sig = meta["functions"].get(name, {"properties": {}})
        args = {}
        for param, values in params.items():
            present, value = _last_value(values)
            if present:
                args[param] = render_value(
                    value, sig["properties"].get(param, {}), meta["language"]
                )
        alt.append({_bfcl_name(name): args})
    yield "answer:last", alt


def _value_mutations(value: Any, language: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, bool):
        yield "bool:flip", not value
        yield "bool:as-string", "true" if value else "false"
        yield "bool:as-int", int(value)
    elif isinstance(value, int):
        yield "int:+1", value + 1
        yield "int:as-float", float(value)
        yield "int:as-string", str(value)
        yield "int:as-bool", bool(value)
    elif isinstance(value, float):
        yield "float:+0.5", value + 0.5
        if value.is_integer():
            yield "float:as-int", int(value)
        yield "float:as-string", str(value)
    elif isinstance(value, str):
        yield "str:upper", value.upper()
        yield "str:punctuation", f" {value}." if value else "-"
        yield "str:changed", value + "zq"
        yield "str:empty", ""
        yield "str:quote-swap", value.replace('"', "'") if '"' in value else value + "'"
        if language == "python":
            yield "str:as-int", 7
        else:
            yield "str:raw-python", value.strip('"')
            yield "str:not-a-string", 7
    elif isinstance(value, list):
        yield "list:empty", []
        if value:
            yield "list:drop-last", value[:-1]
            yield "list:reversed", list(reversed(value))
            yield "list:extra", [*value, value[0]]
            first = value[0]
            if isinstance(first, float) and first.is_integer():
                yield "list:float-as-int", [int(v) if isinstance(v, float) else v for v in value]
            if isinstance(first, int) and not isinstance(first, bool):
                yield "list:int-as-float", [float(v) if isinstance(v, int) else v for v in value]
            if isinstance(first, str):
                yield "list:upper", [v.upper() if isinstance(v, str) else v for v in value]
            if isinstance(first, dict) and first:
                key = next(iter(first))
                yield (
                    "list:dict-drop-key",
                    [{k: v for k, v in first.items() if k != key}, *value[1:]],
                )
        yield "list:as-string", str(value)
    elif isinstance(value, dict):
        yield "dict:empty", {}
        if value:
            key = next(iter(value))
            yield "dict:drop-key", {k: v for k, v in value.items() if k != key}
            yield "dict:extra-key", {**value, "zz_extra": 1}
            inner = value[key]
            for label, changed in _value_mutations(inner, "python"):
                if label.startswith(("str:changed", "int:+1", "str:upper", "float:as-int")):
                    yield f"dict:{label}", {**value, key: changed}
        yield "dict:as-string", str(value)


def mutations(case: Case) -> Iterator[tuple[str, list[dict[str, Any]] | None]]:
    """Outputs to judge for one case: its answers and systematic mutations of them."""
    meta = case.metadata["bfcl"]
    kind = meta["kind"]
    functions = list(meta["functions"])
    yield "empty", []
    yield "undecodable", None
    if kind in ("irrelevance", "relevance"):
        for name in functions[:3]:
            sig = meta["functions"][name]
            yield f"call:{name}", [{_bfcl_name(name): {p: "x" for p in sig["required"]}}]
        yield "empty-dict", [{}]
        return
    bases = list(_base_outputs(case))
    yield from bases
    language = meta["language"]
    for _label, base in bases[:1]:
        # function-level mutations
        others = [f for f in functions if _bfcl_name(f) not in base[0]]
        name0, args0 = next(iter(base[0].items()))
        if others:
            yield "wrong-function", [{_bfcl_name(others[0]): args0}, *base[1:]]
        yield "unknown-function", [{name0 + "_zz": args0}, *base[1:]]
        yield "extra-call", [*base, copy.deepcopy(base[0])]
        if len(base) > 1:
            yield "missing-call", base[:-1]
            yield "reordered", list(reversed(base))
            yield "swapped-args", [{name0: next(iter(base[1].values()))}, *base[1:]]
        if others and kind != "simple":
            yield "extra-other-call", [*base, {_bfcl_name(others[-1]): {}}]
        # parameter-level mutations on each call
        for index, call in enumerate(base):
            name, args = next(iter(call.items()))
            original = (
                next(f for f in functions if _bfcl_name(f) == name)
                if name in {_bfcl_name(f) for f in functions}
                else None
            )
            sig = meta["functions"].get(original or "", {"required": [], "properties": {}})
            for param in list(args):
                why = "required" if param in sig["required"] else "optional"
                dropped = {k: v for k, v in args.items() if k != param}
                yield f"drop-{why}:{index}:{param}", _replace(base, index, name, dropped)
            yield f"unexpected-param:{index}", _replace(base, index, name, {**args, "zz_param": 1})
            for param, value in args.items():
                for mlabel, changed in _value_mutations(value, language):
                    yield (
                        f"{mlabel}:{index}:{param}",
                        _replace(base, index, name, {**args, param: changed}),
                    )
            # an optional parameter given its documented acceptable value when absent
            answer = meta["ground_truth"][index]
            (_aname, acceptable), *_ = answer.items()
            for param, values in acceptable.items():
                if param not in args and isinstance(values, list) and "" in values:
                    yield (
                        f"optional-given:{index}:{param}",
                        _replace(base, index, name, {**args, param: "zz"}),
                    )


def _replace(
    base: list[dict[str, Any]], index: int, name: str, args: dict[str, Any]
) -> list[dict[str, Any]]:
    out = [dict(c) for c in base]
    out[index] = {name: args}
    return out


def sample_cases(case_count: int = PER_CATEGORY) -> Iterator[tuple[str, dict[str, Any], Case]]:
    """(category, BFCL prompt entry, imported case) for an even sample of every category."""
    from rejudge.importers._bfcl_schema import CATEGORIES
    from rejudge.importers._bfcl_suite import _category_file, bfcl_data_dir, build_suite
    from rejudge.importers._bfcl_suite import read_jsonl as read

    data = bfcl_data_dir()
    for category in CATEGORIES:
        suite = build_suite(category)
        entries = {e["id"]: e for e in read(_category_file(data, category))}
        cases = list(suite.cases)
        step = max(1, len(cases) // case_count)
        for case in cases[::step][:case_count]:
            yield category, entries[case.id], case


# --------------------------------------------------------------------------- the test


@pytest.mark.skipif(BFCL_MISSING, reason=SKIP_REASON)
def test_bfcl_ast_agrees_with_bfcl_eval() -> None:
    from rejudge.judge import judge

    from rejudge.importers import build_suite

    checker = load_bfcl_checker()
    rules = bfcl_rules("1")
    rules_hash = rules.hash
    registries: dict[str, Any] = {}
    total = passes = 0
    disagreements: list[str] = []
    crashes: list[str] = []
    type_agree = type_total = 0
    for category, entry, case in sample_cases():
        if category not in registries:
            registry = build_suite(category).registry
            registries[category] = (registry, registry.hash)
        registry, registry_hash = registries[category]
        case_hash = case.hash
        for label, output in mutations(case):
            try:
                expected, etype = bfcl_verdict(checker, entry, case, copy.deepcopy(output))
            except Exception as exc:  # bfcl-eval itself crashed on this output
                crashes.append(f"{case.id} {label}: {type(exc).__name__}: {exc}")
                continue
            judgment = judge(
                trace_of(output, case.id),
                case,
                registry,
                "bfcl-ast",
                rules,
                case_hash=case_hash,
                registry_hash=registry_hash,
                rule_set_hash=rules_hash,
            )
            got = judgment.verdict == "PASS"
            total += 1
            passes += expected
            if got != expected:
                disagreements.append(
                    f"{case.id} {label}: bfcl-eval {'PASS' if expected else 'FAIL'} ({etype}), "
                    f"bfcl-ast {judgment.verdict} {judgment.reasons[:2]}"
                )
            elif (
                not expected
                and etype is not None
                and category.startswith(("simple", "live_simple"))
            ):
                type_total += 1
                type_agree += judgment.details.get("bfcl_error_type") == etype
    print(
        f"\nbfcl-ast vs bfcl-eval: {total - len(disagreements)}/{total} identical verdicts "
        f"({passes} PASS); first error type identical on {type_agree}/{type_total} simple "
        f"failures; bfcl-eval crashed on {len(crashes)} outputs"
    )
    assert total > 5000
    assert 0 < passes < total
    assert not disagreements, f"{len(disagreements)} disagreements: " + "\n".join(
        disagreements[:30]
    )


def bfcl_rules(version: str) -> Any:
    from rejudge.judge import load_rule_set

    return load_rule_set(f"bfcl@{version}")


@pytest.mark.skipif(BFCL_MISSING, reason=SKIP_REASON)
def test_documented_differences_are_bfcl_evals_own_verdicts() -> None:
    """Each bfcl@2 fix changes a verdict that bfcl-eval really gives (docs/bfcl.md)."""
    from bfcl_eval.constants.enums import Language

    checker = load_bfcl_checker()
    functions = [
        {
            "name": "geo.area",
            "parameters": {
                "type": "dict",
                "required": ["base", "height"],
                "properties": {
                    "base": {"type": "integer"},
                    "height": {"type": "float"},
                    "opts": {"type": "dict"},
                    "scale": {"type": "array", "items": {"type": "float"}},
                },
            },
        }
    ]

    def run(output: list[dict[str, Any]], answer: list[dict[str, Any]], category: str) -> bool:
        result = checker.ast_checker(
            functions, output, answer, Language.PYTHON, category, STUB_MODEL
        )
        return bool(result["valid"])

    greedy = [
        {"geo.area": {"base": [1, 2], "height": [1.0]}},
        {"geo.area": {"base": [1], "height": [1.0]}},
    ]
    calls = [{"geo_area": {"base": 1, "height": 1.0}}, {"geo_area": {"base": 2, "height": 1.0}}]
    assert run(calls, greedy, "parallel") is False  # a valid pairing exists
    floats = [{"geo.area": {"base": [1], "height": [1.0], "scale": [[0.5, 2.0]]}}]
    assert (
        run([{"geo_area": {"base": 1, "height": 1, "scale": [0.5, 2]}}], floats, "simple") is False
    )
    bools = [{"geo.area": {"base": [1], "height": [1.0], "opts": [{"flag": [True]}]}}]
    assert run([{"geo_area": {"base": 1, "height": 1.0, "opts": {"flag": 1}}}], bools, "simple")
