"""FuncBenchGen generator: graphs match their knobs, determinism, solvability, knob errors."""

from __future__ import annotations

import json
import re

import pytest
import rejudge.suites.domains.funcbench  # noqa: F401  registers the domain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rejudge.judge import judge
from rejudge.suites import dump_cases, get_domain, golden_trace, selftest_suite, validate_suite
from rejudge.suites.generators import (
    KnobError,
    Knobs,
    components,
    core_depth,
    generate_suite,
    load_generated_suite,
    write_generated_suite,
)

from rejudge.model import Case, canonical_json


@st.composite
def knobs(draw: st.DrawFn) -> Knobs:
    depth = draw(st.integers(0, 8))
    n_core = 1 if depth == 0 else draw(st.integers(depth + 1, depth + 12))
    return Knobs(
        n_core=n_core,
        depth=depth,
        cin=draw(st.integers(0, 8)),
        din=draw(st.integers(0, 8)),
        noise=draw(st.integers(0, 4)),
        subtypes=draw(st.booleans()),
        cases=draw(st.integers(1, 3)),
        seed=draw(st.integers(0, 2**32)),
    )


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _roles(case: Case) -> dict[str, str]:
    return {n["name"]: n["role"] for n in case.metadata["graph"]["nodes"]}


def _acyclic(graph: dict) -> bool:
    into: dict[str, set[str]] = {n["name"]: set() for n in graph["nodes"]}
    for src, dst in graph["edges"]:
        into[dst].add(src)
    done: set[str] = set()
    while len(done) < len(into):
        ready = [n for n, srcs in into.items() if n not in done and srcs <= done]
        if not ready:
            return False
        done.update(ready)
    return True


@FAST
@given(knobs())
def test_graph_matches_knobs(k: Knobs) -> None:
    generated = generate_suite(k)
    assert len(generated.source.cases) == k.cases
    all_names: list[str] = []
    for case in generated.source.cases:
        meta = case.metadata
        graph = meta["graph"]
        roles = _roles(case)
        all_names.extend(roles)
        core = {n for n, r in roles.items() if r == "core"}
        cin = {n for n, r in roles.items() if r == "cin"}
        din = {n for n, r in roles.items() if r == "din"}
        assert (len(core), len(cin), len(din)) == (k.n_core, k.cin, k.din)
        assert meta["n_core"] == k.n_core and meta["call_cap"] == 2 * k.n_core
        assert _acyclic(graph)
        # the longest core path into the target has exactly `depth` edges
        assert core_depth(graph, meta["target_function"]) == k.depth
        # every core node is an ancestor of the target (or the target itself)
        into: dict[str, set[str]] = {}
        for src, dst in graph["edges"]:
            into.setdefault(dst, set()).add(src)
        ancestors, frontier = {meta["target_function"]}, [meta["target_function"]]
        while frontier:
            for src in into.get(frontier.pop(), ()):
                if src not in ancestors:
                    ancestors.add(src)
                    frontier.append(src)
        assert ancestors == core
        # DIN: components of their own, sharing no variable with core or CIN
        for comp in components(graph):
            assert comp <= din or not (comp & din)
        nodes = {n["name"]: n for n in graph["nodes"]}
        core_vars = {
            v
            for n in core | cin
            for v in [nodes[n]["output"], *(p["var"] for p in nodes[n]["params"])]
        }
        for name in din:
            node = nodes[name]
            assert not ({node["output"], *(p["var"] for p in node["params"])} & core_vars)
        # CIN: each consumes a core or CIN output, and nothing core consumes a CIN output
        outputs = {nodes[n]["output"]: n for n in nodes}
        for name in cin:
            producers = {outputs.get(p["var"]) for p in nodes[name]["params"]}
            assert producers & (core | cin)
        for name in core:
            for p in nodes[name]["params"]:
                assert outputs.get(p["var"]) not in cin | din
        # values: distinct 3-digit integers; the target value is the target's
        values = graph["values"]
        assert all(100 <= v <= 999 for v in values.values())
        assert len(set(values.values())) == len(values)
        assert meta["target_value"] == values[meta["target"]]
        noise = [v for v, kind in graph["kinds"].items() if kind == "noise"]
        assert len(noise) == k.noise
        consumed = {p["var"] for n in nodes.values() for p in n["params"]}
        assert not set(noise) & consumed
        assert sorted(meta["tools"]) == sorted(roles)
    # function names are unique across the suite, and the registry is their union
    assert len(all_names) == len(set(all_names))
    assert sorted(generated.source.registry.tool_names()) == sorted(all_names)


@FAST
@given(knobs())
def test_every_case_solvable_by_its_golden_sequence(k: Knobs) -> None:
    generated = generate_suite(k)
    domain = get_domain("funcbench")
    registry = generated.source.registry
    for case in generated.source.cases:
        trace = golden_trace(case, domain.new_sandbox(case.metadata))
        # golden order is topological: every call returns the true output of its function
        nodes = {n["name"]: n for n in case.metadata["graph"]["nodes"]}
        values = case.metadata["graph"]["values"]
        assert [c.name for c in trace.calls] == [g.tool for g in case.golden.calls]
        for call in trace.calls:
            assert call.ok and call.result == values[nodes[call.name]["output"]]
        final = case.metadata["golden_final_text"]
        assert str(case.metadata["target_value"]) in final
        # the golden trace ends with the case's own final text, which states the target
        assert trace.final_text == final
        verdict = judge(trace, case, registry, "outcome")
        assert verdict.verdict == "PASS", verdict.reasons
        assert verdict.details["efficiency"] == 1.0
        # a final answer that states no number earns nothing, whatever the calls were
        silent = trace.model_copy(update={"final_text": "done"})
        assert judge(silent, case, registry, "outcome").verdict == "FAIL"


@settings(max_examples=25, deadline=None)
@given(knobs())
def test_same_seed_same_suite(k: Knobs) -> None:
    a, b = generate_suite(k), generate_suite(k)
    assert a.hash == b.hash
    assert dump_cases(a.source.cases) == dump_cases(b.source.cases)
    assert canonical_json(a.source.registry) == canonical_json(b.source.registry)


def test_different_seeds_differ() -> None:
    a = generate_suite(Knobs(n_core=5, depth=2, seed=1))
    b = generate_suite(Knobs(n_core=5, depth=2, seed=2))
    assert a.hash != b.hash


def test_pinned_hash_is_stable_across_runs() -> None:
    # regenerating in a fresh process gives the same bytes (no hash randomization leaks in)
    import subprocess
    import sys

    code = (
        "from rejudge.suites.generators import Knobs, generate_suite;"
        "print(generate_suite(Knobs(n_core=10, depth=4, cin=3, din=3, noise=2, subtypes=True,"
        " cases=4, seed=11)).hash)"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    here = generate_suite(
        Knobs(n_core=10, depth=4, cin=3, din=3, noise=2, subtypes=True, cases=4, seed=11)
    ).hash
    assert runs == {here}


def test_schemas_reveal_types_only() -> None:
    generated = generate_suite(
        Knobs(n_core=8, depth=3, cin=3, din=3, noise=2, subtypes=True, seed=5)
    )
    case = generated.source.cases[0]
    graph = case.metadata["graph"]
    other_functions = {n["name"] for n in graph["nodes"]}
    variables = set(graph["values"])
    for tool in generated.source.registry.openai_tools(case.metadata["tools"]):
        fn = tool["function"]
        text = json.dumps(fn)
        assert re.fullmatch(r"func_[a-z]+", fn["name"])
        # no schema names another function; parameters are neutral x1, x2, ...
        assert not (other_functions - {fn["name"]}) & set(re.findall(r"func_[a-z]+", text))
        for pname, prop in fn["parameters"]["properties"].items():
            assert re.fullmatch(r"x[0-9]+", pname)
            assert prop["type"] == "integer"
            assert re.fullmatch(r"a [A-Z][a-z]+-[A-Z][a-z]+ value", prop["description"])
    # the instruction states every known input and names the target's type, nothing of the graph
    for var in case.metadata["inputs"]:
        assert f"a {var} value: {graph['values'][var]}." in case.instruction
    assert case.metadata["target"] in case.instruction
    assert "func_" not in case.instruction
    assert str(case.metadata["target_value"]) not in case.instruction
    assert variables  # sanity


def test_subtypes_are_used_and_stated() -> None:
    generated = generate_suite(Knobs(n_core=12, depth=4, cin=4, subtypes=True, cases=3, seed=3))
    used = 0
    for case in generated.source.cases:
        graph = case.metadata["graph"]
        specs = {
            t["function"]["name"]: t["function"] for t in generated.source.registry.openai_tools()
        }
        producers = {n["output"]: n["name"] for n in graph["nodes"]}
        for node in graph["nodes"]:
            for p in node["params"]:
                if p["type"] != p["var"]:
                    used += 1
                    assert graph["supertypes"][p["var"]] == p["type"]
                    statement = f"Every {p['var']} is also a {p['type']}."
                    where = (
                        specs[producers[p["var"]]]["description"]
                        if p["var"] in producers
                        else case.instruction
                    )
                    assert statement in where
    assert used > 0
    plain = generate_suite(Knobs(n_core=12, depth=4, cin=4, subtypes=False, cases=3, seed=3))
    for case in plain.source.cases:
        assert all(
            p["type"] == p["var"] for n in case.metadata["graph"]["nodes"] for p in n["params"]
        )


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"n_core": 3, "depth": 3}, "depth + 1 = 4 core nodes"),
        ({"n_core": 0, "depth": 0}, "n_core must be at least 1"),
        ({"n_core": 3, "depth": 0}, "depth 0 allows a single core node"),
        ({"n_core": 3, "depth": -1}, "depth must not be negative"),
        ({"n_core": 3, "depth": 1, "cin": -2}, "cin must not be negative"),
        ({"n_core": 3, "depth": 1, "din": -1}, "din must not be negative"),
        ({"n_core": 3, "depth": 1, "noise": -1}, "noise must not be negative"),
        ({"n_core": 3, "depth": 1, "cases": 0}, "cases must be at least 1"),
        ({"n_core": 150, "depth": 2, "cin": 60}, "functions per case"),
        ({"n_core": 3, "depth": 1, "noise": 500}, "noise inputs"),
    ],
)
def test_impossible_knobs_are_refused(kwargs: dict, fragment: str) -> None:
    with pytest.raises(KnobError, match=re.escape(fragment)):
        generate_suite(Knobs(**kwargs))


def test_star_and_path_extremes() -> None:
    star = generate_suite(Knobs(n_core=6, depth=1, seed=4)).source.cases[0].metadata
    target = star["target_function"]
    assert all(dst == target for _src, dst in star["graph"]["edges"])
    path = generate_suite(Knobs(n_core=6, depth=5, seed=4)).source.cases[0].metadata
    assert len(path["graph"]["edges"]) == 5
    single = generate_suite(Knobs(n_core=1, depth=0, seed=4)).source.cases[0].metadata
    assert single["graph"]["edges"] == []


def test_written_folder_round_trips_and_validates(tmp_path) -> None:
    generated = generate_suite(Knobs(n_core=5, depth=2, cin=2, din=2, noise=1, cases=4, seed=9))
    folder = write_generated_suite(tmp_path / "fb", generated)
    assert {p.name for p in folder.iterdir()} == {"suite.json", "cases.jsonl", "registry.json"}
    loaded = load_generated_suite(folder)
    assert loaded.hash == generated.hash
    assert validate_suite(generated.source) == []
    report = selftest_suite(loaded)
    assert report.ok and report.calls_executed == 4 * 5


def test_type_and_function_names_are_unique_across_the_suite() -> None:
    # the union registry never offers two functions returning the same type
    generated = generate_suite(Knobs(n_core=10, depth=3, cin=5, din=5, noise=3, cases=20, seed=8))
    types: list[str] = []
    for case in generated.source.cases:
        types.extend(case.metadata["graph"]["values"])
        types.extend(case.metadata["graph"]["supertypes"].values())
    assert len(types) == len(set(types))
