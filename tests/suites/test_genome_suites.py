"""The built-in genome suites: shipped as authored, valid, big enough, self-testing clean, and
exercising every equivalence, alternative key, follow-up, call-only rule and repeated count."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from rejudge.judge import judge
from rejudge.judge.tiers import get_tier, tier_names
from rejudge.suites import (
    SuiteSource,
    builtin_suites,
    get_domain,
    golden_trace,
    load_suite,
    selftest_suite,
    validate_suite,
    write_suite,
)
from rejudge.suites.domains.genome import authoring

from rejudge import suites  # noqa: F401  registers the built-in domains
from rejudge.model import (
    Case,
    Golden,
    GoldenCall,
    Round,
    ToolCall,
    ToolRegistry,
    Trace,
    canonical_json,
)

NAMES = (authoring.SIMPLE_NAME, authoring.COMPLEX_NAME)
CALL_TIERS = ("contract", "execution", "completion", "golden")


@pytest.fixture(scope="module")
def simple() -> SuiteSource:
    return load_suite(authoring.SIMPLE_NAME)


@pytest.fixture(scope="module")
def complex_() -> SuiteSource:
    return load_suite(authoring.COMPLEX_NAME)


def all_cases() -> list[Case]:
    return [case for name in NAMES for case in load_suite(name).cases]


@pytest.mark.parametrize("name", NAMES)
def test_shipped_suite_is_what_authoring_builds(name: str) -> None:
    folder = builtin_suites()[name]
    manifest, cases = authoring.rendered()[name]
    assert folder == authoring.suite_folder(name)
    assert (folder / "cases.jsonl").read_text(encoding="utf-8") == authoring.rendered_text(name)
    assert load_suite(name).manifest == manifest
    assert list(load_suite(name).cases) == cases


@pytest.mark.parametrize("name", NAMES)
def test_suite_is_valid(name: str) -> None:
    assert [str(p) for p in validate_suite(name)] == []


def test_sizes_dimensions_and_ids(simple: SuiteSource, complex_: SuiteSource) -> None:
    assert len(simple.cases) >= 60 and len(complex_.cases) >= 15
    assert set(simple.dimensions()) == set(authoring.SIMPLE_DIMENSIONS)
    assert set(complex_.dimensions()) == set(authoring.COMPLEX_DIMENSIONS)
    assert all(case.id.startswith("gs-") for case in simple.cases)
    assert all(case.id.startswith("gc-") for case in complex_.cases)
    assert all(len(case.golden.calls) == 1 for case in simple.cases if not case.negative)
    assert all(case.expected_steps >= 2 for case in complex_.cases)
    assert sum(case.golden.order_sensitive for case in complex_.cases) >= 10
    assert simple.negative_count >= 1


@pytest.mark.parametrize("name", NAMES)
def test_selftest_is_clean_and_every_call_succeeds(name: str) -> None:
    report = selftest_suite(load_suite(name))
    assert report.ok, [r.as_dict() for r in report.failures]
    # call-only cases need not succeed, but here even their calls do
    failed = [(r.case_id, s.tool, s.error) for r in report.cases for s in r.steps if not s.ok]
    assert failed == []


def _judge_all(trace: Trace, case: Case, registry: ToolRegistry) -> Mapping[str, str]:
    """Every tier that applies to the case (at least the four call-matching ones)."""
    tiers = [name for name in tier_names() if get_tier(name).applies(case, registry)]
    assert set(CALL_TIERS) <= set(tiers)
    return {tier: judge(trace, case, registry, tier).verdict for tier in tiers}


@pytest.mark.parametrize("name", NAMES)
def test_every_golden_trace_passes_every_applicable_tier(name: str) -> None:
    report = selftest_suite(load_suite(name), judge_fn=_judge_all)
    assert report.judged
    assert report.ok, {r.case_id: r.problems for r in report.failures}


@pytest.mark.parametrize("name", NAMES)
def test_golden_traces_are_deterministic(name: str) -> None:
    source = load_suite(name)
    domain = get_domain("genome")
    for case in source.cases:
        first = golden_trace(case, domain.new_sandbox(case.metadata))
        second = golden_trace(case, domain.new_sandbox(case.metadata))
        assert first.hash == second.hash, case.id


# --------------------------------------------------------------------------- coverage


def test_every_registry_rule_is_exercised_by_some_case() -> None:
    registry = get_domain("genome").registry()
    cases = all_cases()
    golden_tools = {call.tool for case in cases for call in case.golden.calls}
    # every member of every equivalence group is a golden tool somewhere
    for group in registry.equivalences:
        assert set(group) <= golden_tools, group
    # every alternative key's parameter is set in some golden call of its tool
    for tool, keys in registry.alternative_keys.items():
        for param in keys:
            assert any(
                call.tool == tool and param in call.params
                for case in cases
                for call in case.golden.calls
            ), (tool, param)
    # every follow-up source is a golden step; execute_actions -> export_genbank_format appears
    # as a workflow too
    for tool, follow in registry.follow_ups.items():
        assert tool in golden_tools, tool
        assert set(follow) <= golden_tools, follow
    assert any(
        [c.tool for c in case.golden.calls][-2:] == ["execute_actions", "export_genbank_format"]
        for case in cases
    )
    # queued edits appear alone (execute_actions is then the tolerated follow-up)
    for tool in ("add_annotation", "edit_annotation", "delete_annotation"):
        assert any([c.tool for c in case.golden.calls] == [tool] for case in cases), tool


def test_golden_calls_never_spell_out_a_schema_default() -> None:
    """Omitted defaults are valid, so goldens leave them out (the golden tier compares keys)."""
    registry = get_domain("genome").registry()
    for case in all_cases():
        for call in case.golden.calls:
            properties = registry.tool(call.tool).parameters["properties"]  # type: ignore[union-attr]
            for key, value in call.params.items():
                assert properties[key].get("default", object()) != value, (case.id, key)


def test_call_only_is_exactly_the_similarity_searches() -> None:
    similarity = {"blast_search", "similarity_search"}
    for case in all_cases():
        uses = any(call.tool in similarity for call in case.golden.calls)
        assert case.call_only == uses, case.id
    assert sum(case.call_only for case in all_cases()) >= 8


def test_repeated_calls_carry_a_count() -> None:
    counted = {
        (case.id, call.tool, call.count)
        for case in all_cases()
        for call in case.golden.calls
        if call.count > 1
    }
    assert ("gs-tabs-003", "open_tab", 3) in counted
    assert ("gc-browse-001", "zoom_in", 2) in counted


# --------------------------------------------------------------------------- tolerance


def _trace(case: Case, calls: list[tuple[str, dict[str, Any]]], failing: bool = False) -> Trace:
    sandbox = get_domain("genome").new_sandbox(case.metadata)
    rounds = []
    for index, (tool, arguments) in enumerate(calls):
        outcome = sandbox.execute(tool, dict(arguments))
        ok, error, result = outcome.ok, outcome.error, outcome.as_message_content()
        if failing:  # what a real, slow search gives: no result in time
            ok, error, result = False, "timed out after 60 s", {"error": "timed out after 60 s"}
        rounds.append(
            Round(
                index=index,
                calls=[
                    ToolCall(
                        id=f"call-{index}",
                        name=tool,
                        arguments=arguments,
                        arguments_raw=canonical_json(arguments),
                        result=result,
                        ok=ok,
                        error=error,
                    )
                ],
            )
        )
    return Trace(case_id=case.id, rounds=rounds, final_text="done")


def _verdict(
    source: SuiteSource,
    case_id: str,
    calls: list[tuple[str, dict[str, Any]]],
    tier: str,
    failing: bool = False,
) -> str:
    case = source.case(case_id)
    return judge(_trace(case, calls, failing), case, source.registry, tier).verdict


ADD_PHELA = (
    "add_annotation",
    {
        "chromosome": "chrA",
        "start": 1120,
        "end": 1170,
        "strand": "+",
        "feature_type": "promoter",
        "name": "PhelA",
    },
)


def test_completion_tier_tolerates_the_declared_variants(
    simple: SuiteSource, complex_: SuiteSource
) -> None:
    seq = simple.case("gs-analysis-001").golden.calls[0].params["sequence"]
    # an equivalent tool
    assert (
        _verdict(simple, "gs-analysis-001", [("translate_dna", {"sequence": seq})], "completion")
        == "PASS"
    )
    assert (
        _verdict(simple, "gs-analysis-001", [("translate_dna", {"sequence": seq})], "contract")
        == "FAIL"
    )
    # the alternative key: a start-only navigation
    start_only = [("navigate_to_position", {"chromosome": "chrC", "start": 3000})]
    assert _verdict(simple, "gs-navigation-003", start_only, "completion") == "PASS"
    # execute_actions after a queued edit is a documented follow-up
    assert (
        _verdict(simple, "gs-annotation-001", [ADD_PHELA, ("execute_actions", {})], "completion")
        == "PASS"
    )
    # export_genbank_format repeating the file execute_actions wrote
    gbk = simple.case("gs-annotation-009")
    assert gbk.golden.calls[0].tool == "execute_actions"
    calls = [("execute_actions", {}), ("export_genbank_format", {"chromosome": "chrA"})]
    assert _verdict(simple, "gs-annotation-009", calls, "completion") == "PASS"
    # the case-level equivalence: list_tabs answers "which region is shown"
    assert _verdict(simple, "gs-navigation-009", [("list_tabs", {})], "completion") == "PASS"
    # workflow order is free under completion, enforced under golden
    workflow = [
        ("add_annotation", dict(complex_.case("gc-annotation-001").golden.calls[0].params)),
        ("export_genbank_format", {"chromosome": "chrB"}),
        ("execute_actions", {}),
    ]
    assert _verdict(complex_, "gc-annotation-001", workflow, "completion") == "PASS"
    assert _verdict(complex_, "gc-annotation-001", workflow, "golden") == "FAIL"


def test_call_only_cases_pass_when_the_slow_search_fails(simple: SuiteSource) -> None:
    golden = simple.case("gs-similarity-001").golden.calls[0]
    calls = [(golden.tool, dict(golden.params))]
    for tier in ("execution", "completion"):
        assert _verdict(simple, "gs-similarity-001", calls, tier, failing=True) == "PASS", tier
    # an ordinary case with a failed call does not pass execution
    calls = [("get_gene_details", {"gene_id": "SGB_0040"})]
    assert _verdict(simple, "gs-search-004", calls, "execution", failing=True) == "FAIL"


def test_counts_and_state_changing_extras(simple: SuiteSource) -> None:
    open_a = ("open_tab", {"chromosome": "chrA"})
    assert _verdict(simple, "gs-tabs-003", [open_a] * 3, "golden") == "PASS"
    assert _verdict(simple, "gs-tabs-003", [open_a] * 2, "completion") == "FAIL"
    # a read-only lookup on the side is tolerated; an unrequested view change is not
    get = ("get_gene_sequence", {"gene_id": "SGA_0030"})
    details = ("get_gene_details", {"gene_id": "SGA_0030"})
    jump = ("jump_to_gene", {"gene_id": "SGA_0030"})
    assert _verdict(simple, "gs-sequence-004", [details, get], "completion") == "PASS"
    assert _verdict(simple, "gs-sequence-004", [details, get], "golden") == "PASS"
    assert _verdict(simple, "gs-sequence-004", [jump, get], "completion") == "FAIL"
    # a negative case fails on any call
    assert _verdict(simple, "gs-search-010", [("list_chromosomes", {})], "golden") == "FAIL"
    assert _verdict(simple, "gs-search-010", [], "golden") == "PASS"


# --------------------------------------------------------------------------- domain checks


def test_domain_checks_catch_broken_genome_cases(tmp_path: Path) -> None:
    good = load_suite(authoring.SIMPLE_NAME).case("gs-annotation-007")
    broken = [
        good.model_copy(update={"id": "gs-export-001"}),  # dimension annotation vs id export
        good.model_copy(
            update={
                "id": "gs-annotation-002",
                "instruction": "Delete FTZ_09.",
                "golden": Golden(
                    calls=[
                        GoldenCall(tool="delete_annotation", params={"annotation_id": "FTZ_09"})
                    ],
                    order_sensitive=False,
                ),
            }
        ),
        good.model_copy(
            update={
                "id": "gs-annotation-003",
                "instruction": "Close the other tab.",
                "metadata": {
                    "setup_calls": [{"tool": "close_tab", "arguments": {"tab_id": "tab-1"}}]
                },
            }
        ),
        good.model_copy(
            update={
                "id": "gs-annotation-004",
                "instruction": "Set up with an unknown tool.",
                "metadata": {"setup_calls": [{"tool": "teleport"}]},
            }
        ),
    ]
    # version 1 only: the folder holds no cases.v2.jsonl
    manifest = authoring.simple_manifest().model_copy(update={"versions": []})
    write_suite(tmp_path, manifest, broken)
    found = [(p.line, p.case, p.field, p.message) for p in validate_suite(tmp_path)]
    expected = [
        (1, "gs-export-001", "dimension", "does not match the id (expected 'export')"),
        (
            2,
            "gs-annotation-002",
            "golden.calls[0].params.annotation_id",
            "unknown annotation 'FTZ_09'",
        ),
        (3, "gs-annotation-003", "metadata.setup_calls", "setup call 1 (close_tab) failed"),
        (4, "gs-annotation-004", "metadata.setup_calls[0].tool", "unknown tool 'teleport'"),
    ]
    assert len(found) == len(expected), found
    for (line, case_id, field, fragment), got in zip(expected, sorted(found), strict=True):
        assert got[:3] == (line, case_id, field) and fragment in got[3], got
