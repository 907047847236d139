"""The bfcl-ast tier on hand-written BFCL cases: semantics, every error listed, bfcl@2's fixes.

These need no bfcl-eval: the cases carry the metadata the importer writes.
"""

from __future__ import annotations

from typing import Any

import pytest
from rejudge.judge import judge, load_rule_set
from rejudge.judge.tiers import (
    FAITHFUL,
    FIXED,
    check_output,
    fixes_for,
    get_tier,
    java_value,
    standardize,
)

from rejudge.model import Case, Golden, Round, ToolCall, ToolRegistry, ToolSpec, Trace

BFCL1 = load_rule_set("bfcl@1")
BFCL2 = load_rule_set("bfcl@2")

AREA = {
    "required": ["base", "height"],
    "properties": {
        "base": {"type": "integer"},
        "height": {"type": "float"},
        "unit": {"type": "string"},
        "dims": {"type": "tuple", "items": "integer"},
        "opts": {"type": "dict"},
        "rows": {"type": "array", "items": "dict"},
        "scale": {"type": "array", "items": "float"},
    },
}


def make_case(
    kind: str = "simple",
    ground_truth: list[dict[str, Any]] | None = None,
    functions: dict[str, Any] | None = None,
    language: str = "python",
) -> Case:
    functions = functions or {"geo.area": AREA, "other": {"required": [], "properties": {}}}
    return Case(
        id="c1",
        dimension=kind,
        category=kind,
        instruction="x",
        golden=Golden(),
        negative=kind == "irrelevance",
        metadata={
            "tools": list(functions),
            "bfcl": {
                "category": kind,
                "kind": kind,
                "language": language,
                "ground_truth": ground_truth,
                "functions": functions,
            },
        },
    )


REGISTRY = ToolRegistry(
    domain="bfcl-test",
    tools=[ToolSpec(name="geo.area"), ToolSpec(name="other")],
    name_map={"geo_area": "geo.area"},
)
GT = [{"geo.area": {"base": [10], "height": [5.0], "unit": ["cm", ""]}}]


def trace(*calls: tuple[str, Any], later: list[tuple[str, Any]] | None = None) -> Trace:
    def tc(name: str, args: Any) -> ToolCall:
        if args is None:
            return ToolCall(name=name, arguments=None, arguments_raw="{", parse_error="bad")
        return ToolCall(name=name, arguments=args)

    rounds = [Round(index=0, calls=[tc(n, a) for n, a in calls])]
    if later:
        rounds.append(Round(index=1, calls=[tc(n, a) for n, a in later]))
    return Trace(case_id="c1", rounds=rounds)


def verdict(case: Case, t: Trace, rules: Any = BFCL1) -> Any:
    return judge(t, case, REGISTRY, "bfcl-ast", rules)


def test_registered_and_applies_only_to_bfcl_cases() -> None:
    tier = get_tier("bfcl-ast")
    assert tier.applies(make_case(ground_truth=GT), REGISTRY)
    plain = make_case(ground_truth=GT).model_copy(update={"metadata": {}})
    assert not tier.applies(plain, REGISTRY)
    skipped = verdict(plain, trace())
    assert skipped.verdict == "SKIP" and skipped.taxonomy == []
    assert skipped.reasons[0].startswith("tier does not apply: bfcl-ast judges BFCL cases")


def test_standardize_like_bfcl() -> None:
    assert standardize("April 1, 2024") == standardize("april 1,2024") == "april12024"
    assert standardize("New-York_City*^/.") == "newyorkcity"
    assert standardize("it's") == 'it"s'


def test_simple_pass_wire_name_int_for_float_and_optional() -> None:
    case = make_case(ground_truth=GT)
    j = verdict(case, trace(("geo_area", {"base": 10, "height": 5, "unit": "CM"})))
    assert j.verdict == "PASS", j.reasons
    assert verdict(case, trace(("geo.area", {"base": 10, "height": 5.0}))).verdict == "PASS"


def test_every_error_is_listed_first_is_bfcls() -> None:
    case = make_case(ground_truth=GT)
    j = verdict(case, trace(("geo_area", {"height": "5", "unit": "mm", "zz": 1})))
    assert j.verdict == "FAIL"
    types = [d["type"] for d in j.diff]
    assert types == [
        "simple_function_checker:missing_required",
        "type_error:simple",
        "value_error:string",
        "simple_function_checker:unexpected_param",
    ]
    assert j.details["bfcl_error_type"] == "simple_function_checker:missing_required"
    assert set(j.taxonomy) == {
        "PARAM_MISSING",
        "PARAM_WRONG_FORMAT",
        "PARAM_WRONG_VALUE",
        "PARAM_UNEXPECTED",
    }


def test_float_for_int_fails_and_bool_is_not_int() -> None:
    case = make_case(ground_truth=GT)
    assert verdict(case, trace(("geo_area", {"base": 10.0, "height": 5.0}))).verdict == "FAIL"
    assert verdict(case, trace(("geo_area", {"base": True, "height": 5.0}))).verdict == "FAIL"


def test_missing_non_optional_answer_param() -> None:
    gt = [{"geo.area": {"base": [10], "height": [5.0], "unit": ["cm"]}}]
    j = verdict(make_case(ground_truth=gt), trace(("geo_area", {"base": 10, "height": 5.0})))
    assert j.details["bfcl_error_type"] == "simple_function_checker:missing_optional"


def test_tuples_dicts_and_lists_of_dicts() -> None:
    gt = [
        {
            "geo.area": {
                "base": [1],
                "height": [1.0],
                "dims": [[2, 3]],
                "opts": [{"mode": ["Fast Mode"], "level": [1, ""]}],
                "rows": [[{"k": ["a"]}, {"k": ["b"]}]],
            }
        }
    ]
    case = make_case(ground_truth=gt)
    good = {
        "base": 1,
        "height": 1.0,
        "dims": [2, 3],
        "opts": {"mode": "fast-mode"},
        "rows": [{"k": "A"}, {"k": "b"}],
    }
    assert verdict(case, trace(("geo_area", good))).verdict == "PASS"
    for bad in (
        {**good, "dims": [3, 2]},
        {**good, "opts": {"mode": "slow"}},
        {**good, "opts": {"level": 1}},
        {**good, "rows": [{"k": "b"}, {"k": "a"}]},
        {**good, "rows": [{"k": "a"}]},
    ):
        assert verdict(case, trace(("geo_area", bad))).verdict == "FAIL", bad


def test_multiple_chooses_the_function_and_counts() -> None:
    case = make_case("multiple", GT)
    ok = ("geo_area", {"base": 10, "height": 5.0})
    assert verdict(case, trace(ok)).verdict == "PASS"
    j = verdict(case, trace(("other", {})))
    assert j.taxonomy == ["TOOL_WRONG"]
    j = verdict(case, trace(("nope", {})))
    assert j.taxonomy == ["FUNCTION_NOT_FOUND", "TOOL_WRONG"]
    assert verdict(case, trace(ok, ok)).taxonomy == ["TOOL_UNEXPECTED"]
    assert verdict(case, trace()).taxonomy == ["TOOL_MISSING"]


def test_parallel_any_order_extra_and_missing() -> None:
    gt = [
        {"geo.area": {"base": [1], "height": [1.0]}},
        {"geo.area": {"base": [2], "height": [2.0]}},
    ]
    case = make_case("parallel", gt)
    a = ("geo_area", {"base": 1, "height": 1.0})
    b = ("geo_area", {"base": 2, "height": 2.0})
    assert verdict(case, trace(b, a)).verdict == "PASS"
    assert "TOOL_MISSING" in verdict(case, trace(a)).taxonomy
    assert "TOOL_UNEXPECTED" in verdict(case, trace(a, b, a)).taxonomy
    j = verdict(case, trace(a, ("geo_area", {"base": 3, "height": 2.0})))
    assert j.taxonomy == ["PARAM_WRONG_VALUE"]
    assert any(d.get("param") == "base" for d in j.diff)


def test_bfcl2_pairs_parallel_calls_by_maximum_matching() -> None:
    # answer 0 accepts base 1 or 2, answer 1 only base 1; calls [base 1, base 2]
    gt = [
        {"geo.area": {"base": [1, 2], "height": [1.0]}},
        {"geo.area": {"base": [1], "height": [1.0]}},
    ]
    case = make_case("parallel", gt)
    t = trace(("geo_area", {"base": 1, "height": 1.0}), ("geo_area", {"base": 2, "height": 1.0}))
    assert verdict(case, t, BFCL1).verdict == "FAIL"  # greedy gives call 0 to answer 0
    assert verdict(case, t, BFCL2).verdict == "PASS"


def test_bfcl2_accepts_int_for_float_in_lists() -> None:
    gt = [{"geo.area": {"base": [1], "height": [1.0], "scale": [[0.5, 2.0]]}}]
    t = trace(("geo_area", {"base": 1, "height": 1, "scale": [0.5, 2]}))
    assert verdict(make_case(ground_truth=gt), t, BFCL1).verdict == "FAIL"
    assert verdict(make_case(ground_truth=gt), t, BFCL2).verdict == "PASS"


def test_bfcl2_booleans_are_not_numbers() -> None:
    gt = [{"geo.area": {"base": [1], "height": [1.0], "opts": [{"flag": [True]}]}}]
    t = trace(("geo_area", {"base": 1, "height": 1.0, "opts": {"flag": 1}}))
    assert verdict(make_case(ground_truth=gt), t, BFCL1).verdict == "PASS"  # True == 1
    assert verdict(make_case(ground_truth=gt), t, BFCL2).verdict == "FAIL"


def test_irrelevance_and_relevance() -> None:
    irr = make_case("irrelevance", None)
    assert verdict(irr, trace()).verdict == "PASS"
    assert verdict(irr, trace(("other", {}))).taxonomy == ["CALL_WHEN_NONE_EXPECTED"]
    broken = trace(("other", None))
    assert verdict(irr, broken, BFCL1).verdict == "PASS"  # undecodable = no call, for bfcl-eval
    assert verdict(irr, broken, BFCL2).verdict == "FAIL"  # a call attempt is a call
    rel = make_case("relevance", None)
    assert verdict(rel, trace(("other", {}))).verdict == "PASS"
    assert verdict(rel, trace()).verdict == "FAIL"
    assert verdict(rel, broken).verdict == "FAIL"


def test_undecodable_output_fails_ast_categories() -> None:
    j = verdict(make_case(ground_truth=GT), trace(("geo_area", None)))
    assert j.taxonomy == ["ARGUMENTS_UNPARSABLE"]


def test_only_the_first_response_is_judged() -> None:
    t = trace(("geo_area", {"base": 10, "height": 5.0}), later=[("other", {})])
    j = verdict(make_case(ground_truth=GT), t)
    assert j.verdict == "PASS"
    assert any("ignored" in w for w in j.warnings)


def test_java_values_are_strings_of_java_syntax() -> None:
    functions = {
        "A.run": {
            "required": ["flag", "n", "names", "conf"],
            "properties": {
                "flag": {"type": "boolean"},
                "n": {"type": "long"},
                "names": {"type": "ArrayList", "items": "String"},
                "conf": {"type": "HashMap"},
            },
        }
    }
    gt = [
        {
            "A.run": {
                "flag": [True],
                "n": [5],
                "names": [["a", "b"]],
                "conf": [{"limit": [50], "mode": ["x"]}],
            }
        }
    ]
    case = make_case("simple", gt, functions, language="java")
    args = {
        "flag": "true",
        "n": "5L",
        "names": 'new ArrayList<>(Arrays.asList("a", "b"))',
        "conf": 'new HashMap<String, Object>() {{ put("limit", 50); put("mode", "x"); }}',
    }
    assert verdict(case, trace(("A_run", args))).verdict == "PASS"
    j = verdict(case, trace(("A_run", {**args, "flag": True})))
    assert j.details["bfcl_error_type"] == "type_error:java"
    assert java_value("new int[]{1, 2}", "Array", "integer") == [1, 2]
    assert java_value("12", "long") == "12"  # a long needs its L


def test_fixes_follow_the_rule_set() -> None:
    assert fixes_for(BFCL1) == FAITHFUL
    assert fixes_for(BFCL2) == FIXED
    assert fixes_for(load_rule_set("standard@2")) == FAITHFUL


@pytest.mark.parametrize(
    "output",
    [None, [], [("x", {})], [("geo.area", {"base": {"a": [1]}, "height": [[[]]]})]],
)
def test_check_output_never_raises(output: Any) -> None:
    meta = make_case(ground_truth=GT).metadata["bfcl"]
    for kind in ("simple", "multiple", "parallel", "irrelevance", "relevance"):
        result = check_output({**meta, "kind": kind}, output, FIXED)
        assert result.valid in (True, False)


def test_cases_sharing_a_function_keep_their_own_answers() -> None:
    # each case's answers are read once and kept per metadata object: judging two cases with
    # the same function but different acceptable values, alternately, must not mix them up
    ten = make_case(ground_truth=GT)
    eleven = make_case(ground_truth=[{"geo.area": {"base": [11], "height": [5.0]}}])
    call = trace(("geo_area", {"base": 10, "height": 5.0}))
    for _ in range(2):
        assert verdict(ten, call).verdict == "PASS"
        assert verdict(eleven, call).verdict == "FAIL"
    # the same answers in a fresh metadata dict (equal, not identical) judge alike
    assert check_output(dict(ten.metadata["bfcl"]), [("geo.area", {"base": 10})]).valid is False
    assert check_output(dict(ten.metadata["bfcl"]), [("geo.area", {"base": 10, "height": 5})]).valid


@pytest.mark.parametrize("rules", [BFCL1, BFCL2], ids=["bfcl@1", "bfcl@2"])
def test_batch_body_is_the_judgment_dump(rules: Any) -> None:
    """bfcl-ast declares plain-JSON results, so the batch path stores its body without a
    pydantic round-trip; that body must be judge()'s dump, byte for byte, key and hash too."""
    from rejudge.judge import judge_body

    from rejudge.model import PreparedJudgment

    odd = make_case(ground_truth=GT)
    odd = odd.model_copy(
        update={"metadata": {"bfcl": {**odd.metadata["bfcl"], "category": ("x", 1)}}}
    )
    cases = [
        make_case(ground_truth=GT),
        make_case("parallel", GT * 2),
        make_case("irrelevance", None),
        odd,
    ]
    traces = [
        trace(),
        trace(("geo_area", {"base": 10, "height": 5.0})),
        trace(("geo_area", {"base": 10.0, "height": "5", "unit": "mm", "zz": [1]}), ("other", {})),
        trace(("nope", None)),
        trace(("geo.area", {"base": 10, "height": 5}), later=[("other", {})]),
    ]
    for the_case in cases:
        for t in traces:
            expected = judge(t, the_case, REGISTRY, "bfcl-ast", rules)
            body = judge_body(t, the_case, REGISTRY, "bfcl-ast", rules)
            assert body == expected.model_dump(mode="json")
            prepared = PreparedJudgment.from_body(body)
            assert prepared == PreparedJudgment.of(expected)
            assert (prepared.key, prepared.hash) == (expected.key, expected.hash)
    assert judge(traces[1], odd, REGISTRY, "bfcl-ast", rules).details["bfcl_category"] == str(
        ("x", 1)
    )
