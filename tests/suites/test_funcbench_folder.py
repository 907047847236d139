"""A generated suite folder works with the generic tools: validate, selftest (outcome tier), and
the loop's restatement and per-case tools."""

from __future__ import annotations

from pathlib import Path

from rejudge.judge import judge, load_rule_set
from rejudge.recorder._loop import case_tools
from rejudge.suites import get_domain, golden_trace, load_suite, validate_suite
from rejudge.suites.generators import Knobs, generate_suite, write_generated_suite


def _folder(tmp_path: Path) -> Path:
    generated = generate_suite(
        Knobs(n_core=3, depth=2, cin=1, din=1, noise=0, subtypes=False, cases=2, seed=11),
        name="fb-folder",
    )
    return write_generated_suite(tmp_path / "fb-folder", generated)


def test_folder_validates_and_loads_its_own_registry(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    assert validate_suite(folder) == []
    source = load_suite(folder)
    first = source.cases[0]
    offered = case_tools(source.registry, first).tool_names()
    assert sorted(offered) == sorted(first.metadata["tools"])
    assert len(offered) < len(source.registry.tools), "a case sees only its own functions"


def test_golden_sequence_passes_outcome_with_its_own_final_text(tmp_path: Path) -> None:
    source = load_suite(_folder(tmp_path))
    rules = load_rule_set("standard@1")
    domain = get_domain(source.domain)
    for case in source.cases:
        trace = golden_trace(case, domain.new_sandbox(case.metadata))
        verdict = judge(trace, case, source.registry, "outcome", rules).verdict
        assert verdict == "PASS", case.id


def test_restatement_names_funcbench_variables(tmp_path: Path) -> None:
    source = load_suite(_folder(tmp_path))
    case = source.cases[0]
    sandbox = get_domain(source.domain).new_sandbox(case.metadata)
    text = sandbox.restatement()
    assert text.startswith("Known values so far:")
    graph = case.metadata["graph"]
    stated = [name for name, kind in graph["kinds"].items() if kind in ("input", "din_input")]
    assert stated
    for name in stated:
        assert f"{name} = {graph['values'][name]}" in text
