"""The funcbench sandbox: silent failures, error results, restatement state, the domain seam."""

from __future__ import annotations

from typing import Any

import pytest
import rejudge.suites.domains.funcbench  # noqa: F401  registers the domain
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.suites import SuiteError, get_domain
from rejudge.suites.domains.funcbench import FuncBenchSandbox, wrong_value
from rejudge.suites.generators import Knobs, generate_suite

GENERATED = generate_suite(
    Knobs(n_core=6, depth=3, cin=2, din=2, noise=1, subtypes=True, cases=2, seed=21)
)
CASE = GENERATED.source.cases[0]
META = CASE.metadata
NODES = {n["name"]: n for n in META["graph"]["nodes"]}
VALUES = META["graph"]["values"]


def _true_args(name: str) -> dict[str, int]:
    return {p["name"]: VALUES[p["var"]] for p in NODES[name]["params"]}


def _sandbox() -> FuncBenchSandbox:
    sandbox = get_domain("funcbench").new_sandbox(META)
    assert isinstance(sandbox, FuncBenchSandbox)
    return sandbox


def test_true_inputs_give_the_true_output_for_every_function() -> None:
    sandbox = _sandbox()
    for name, node in NODES.items():
        result = sandbox.execute(name, _true_args(name))
        assert result.ok and result.error is None
        assert result.result == VALUES[node["output"]]


def test_integral_floats_count_as_the_integer() -> None:
    name = META["target_function"]
    args = {k: float(v) for k, v in _true_args(name).items()}
    assert _sandbox().execute(name, args).result == META["target_value"]


@settings(max_examples=80, deadline=None)
@given(
    name=st.sampled_from(sorted(NODES)),
    data=st.data(),
)
def test_any_wrong_input_fails_silently(name: str, data: st.DataObject) -> None:
    args: dict[str, Any] = _true_args(name)
    param = data.draw(st.sampled_from(sorted(args)))
    bad = data.draw(
        st.one_of(
            st.integers(-10_000, 10_000).filter(lambda v: v != args[param]),
            st.text(max_size=5),
            st.booleans(),
            st.none(),
        )
    )
    args[param] = bad
    sandbox = _sandbox()
    first = sandbox.execute(name, args)
    true_output = VALUES[NODES[name]["output"]]
    # no error, a plausible 3-digit number, never the true one, and the same every time
    assert first.ok and first.error is None
    assert isinstance(first.result, int) and 100 <= first.result <= 999
    assert first.result != true_output
    assert sandbox.execute(name, args).result == first.result
    assert _sandbox().execute(name, args).result == first.result


def test_wrong_value_never_equals_the_true_value() -> None:
    for true_value in range(100, 1000):
        assert wrong_value("func_x", {"x1": true_value}, true_value) != true_value


def test_unknown_function_and_foreign_case_functions_are_errors() -> None:
    sandbox = _sandbox()
    result = sandbox.execute("func_nothere", {})
    assert not result.ok and "unknown function" in (result.error or "")
    # a function of another case of the same suite (it is in the suite's registry) is unknown here
    other = GENERATED.source.cases[1].metadata["tools"][0]
    assert other in GENERATED.source.registry.tool_names()
    assert not sandbox.execute(other, {}).ok


def test_wrong_argument_names_or_count_are_errors() -> None:
    name = next(n for n, node in NODES.items() if len(node["params"]) >= 1)
    args = _true_args(name)
    sandbox = _sandbox()
    extra = sandbox.execute(name, {**args, "zz": 1})
    assert not extra.ok and "unexpected zz" in (extra.error or "")
    missing = dict(args)
    missing.pop(next(iter(missing)))
    short = sandbox.execute(name, missing)
    assert not short.ok and "missing" in (short.error or "")
    assert not sandbox.execute(name, [1, 2]).ok  # type: ignore[arg-type]


def test_known_values_and_restatement_track_inputs_and_outputs() -> None:
    sandbox = _sandbox()
    assert sandbox.known_values() == {v: VALUES[v] for v in META["inputs"]}
    name = CASE.golden.calls[0].tool
    out = NODES[name]["output"]
    sandbox.execute(name, _true_args(name))
    assert sandbox.known_values()[out] == VALUES[out]
    wrong = {k: v + 1 for k, v in _true_args(name).items()}
    bad = sandbox.execute(name, wrong).result
    # the model was told the wrong value: the restatement shows what it was told, newest first
    assert sandbox.known_values()[out] == bad
    text = sandbox.restatement()
    assert text.startswith("Known values so far:")
    assert f"- {out} = {bad} (returned by {name})" in text
    for var in META["inputs"]:
        assert f"- {var} = {VALUES[var]} (given)" in text
    # errors leave the known values alone
    before = sandbox.known_values()
    sandbox.execute("func_nothere", {})
    assert sandbox.known_values() == before


def test_domain_registry_points_to_the_generated_registry() -> None:
    domain = get_domain("funcbench")
    with pytest.raises(SuiteError, match="registry.json"):
        domain.registry()
    with pytest.raises(SuiteError, match="metadata"):
        domain.new_sandbox(None)


def test_domain_case_checks() -> None:
    domain = get_domain("funcbench")
    registry = GENERATED.source.registry
    assert list(domain.check_case(CASE, registry)) == []
    broken = CASE.model_copy(update={"metadata": {**META, "target_value": 1, "n_core": 99}})
    fields = {f for f, _m in domain.check_case(broken, registry)}
    assert fields == {"metadata.target_value", "metadata.n_core"}
    no_graph = CASE.model_copy(update={"metadata": {}})
    assert [f for f, _m in domain.check_case(no_graph, registry)] == ["metadata.graph"]
