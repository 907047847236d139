"""The case format: the shipped JSON Schema agrees with rejudge.model.Case; loaders and hashes."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from rejudge.suites import (
    NINE_FIELDS,
    SuiteFormatError,
    SuiteManifest,
    SuiteNotFoundError,
    case_schema,
    case_schema_errors,
    case_to_json,
    dump_cases,
    load_case_file,
    load_suite,
    resolve_suite_path,
    suite_schema,
    write_suite,
)

from rejudge.model import Case, Golden, GoldenCall

FULL = Case(
    id="fc-d1-001",
    dimension="D1",
    category="stock",
    instruction="Is P206 in stock?",
    context={"db_fixture": "standard", "notes": "n"},
    golden=Golden(
        calls=[
            GoldenCall(
                tool="check_stock",
                params={"product_id": "P206"},
                param_rules={"product_id": "exact"},
                count=2,
            )
        ],
        order_sensitive=True,
        allowed_extra=["get_product"],
    ),
    negative=False,
    skip=True,
    skip_reason="because",
    call_only=True,
    equivalent_tools={"check_stock": ["get_product"]},
    alternative_keys={"check_stock": {"product_id": ["sku"]}},
    follow_ups={"check_stock": ["get_product"]},
    scenario="s",
    phrasing="canonical",
    metadata={"k": [1, 2]},
)


def test_schema_is_valid_draft_2020_12_and_shipped() -> None:
    jsonschema.Draft202012Validator.check_schema(case_schema())
    jsonschema.Draft202012Validator.check_schema(suite_schema())
    with pytest.raises(SuiteFormatError, match="format_version 9"):
        case_schema(9)


def test_schema_describes_every_case_field() -> None:
    assert set(case_schema()["properties"]) == set(Case.model_fields)
    golden = case_schema()["$defs"]["golden"]["properties"]
    assert set(golden) == set(Golden.model_fields)
    call = case_schema()["$defs"]["golden_call"]["properties"]
    assert set(call) == set(GoldenCall.model_fields)


def test_full_and_minimal_dumps_validate_against_the_schema() -> None:
    assert case_schema_errors(FULL.model_dump(mode="json")) == []
    assert case_schema_errors(case_to_json(FULL)) == []
    minimal = {
        "id": "x",
        "dimension": "D1",
        "category": "c",
        "instruction": "i",
        "golden": {"calls": [], "order_sensitive": False},
    }
    assert case_schema_errors(minimal) == []
    Case.model_validate(minimal)


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(extra=1), "extra"),
        (lambda d: d.update(negative="no"), "negative"),
        (lambda d: d["golden"]["calls"][0].update(count=0), "golden.calls[0].count"),
        (
            lambda d: d["golden"]["calls"][0].update(param_rules={"product_id": "fuzzy"}),
            "golden.calls[0].param_rules.product_id",
        ),
        (lambda d: d["golden"].update(allowed_extra=["a", "a"]), "golden.allowed_extra"),
        (lambda d: d.update(instruction="   "), "instruction"),
        (lambda d: d["golden"].pop("order_sensitive"), "golden.order_sensitive"),
    ],
)
def test_schema_and_model_both_reject(mutate: object, field: str) -> None:
    data = FULL.model_dump(mode="json")
    mutate(data)  # type: ignore[operator]
    assert field in [where for where, _ in case_schema_errors(data)]


def test_case_to_json_keeps_the_nine_fields_and_round_trips() -> None:
    plain = Case(id="a", dimension="D1", category="c", instruction="i", golden=Golden())
    out = case_to_json(plain)
    assert list(out) == list(NINE_FIELDS)
    assert out["golden"]["allowed_extra"] is None
    assert Case.model_validate(case_to_json(FULL)) == FULL
    assert "count" in case_to_json(FULL)["golden"]["calls"][0]


def write(tmp_path: Path, cases: list[Case], **manifest: object) -> Path:
    body = {"name": "tiny", "domain": "retail", "format_version": 1, **manifest}
    return write_suite(tmp_path / "tiny", SuiteManifest.model_validate(body), cases)


def stock_case(i: int, product: str = "P201") -> Case:
    return Case(
        id=f"fc-d1-{i:03d}",
        dimension="D1",
        category="stock",
        instruction=f"stock of {product}? ({i})",
        context={"db_fixture": "standard", "notes": "n"},
        golden=Golden(calls=[GoldenCall(tool="check_stock", params={"product_id": product})]),
    )


def test_write_then_load_suite_and_hash(tmp_path: Path) -> None:
    folder = write(tmp_path, [stock_case(1), stock_case(2)])
    source = load_suite(folder)
    assert [c.id for c in source.cases] == ["fc-d1-001", "fc-d1-002"]
    assert source.lines == {"fc-d1-001": 1, "fc-d1-002": 2}
    assert load_suite(folder / "suite.json").hash == source.hash
    assert load_case_file(folder / "cases.jsonl") == list(source.cases)
    # editing one case makes a new hash; so does reordering
    write(tmp_path / "b", [stock_case(1), stock_case(2, "P202")])
    assert load_suite(tmp_path / "b" / "tiny").hash != source.hash
    write(tmp_path / "c", [stock_case(2), stock_case(1)])
    assert load_suite(tmp_path / "c" / "tiny").hash != source.hash
    # the name is not part of the content hash
    write(tmp_path / "d", [stock_case(1), stock_case(2)], name="renamed")
    assert load_suite(tmp_path / "d" / "tiny").hash == source.hash


def test_load_case_file_names_every_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    good = json.dumps(case_to_json(stock_case(1)))
    path.write_text(f"{good}\n\n{{oops\n{json.dumps({'id': 'z'})}\n", encoding="utf-8")
    with pytest.raises(SuiteFormatError) as info:
        load_case_file(path)
    message = str(info.value)
    assert f"{path}:3: invalid JSON" in message
    assert (
        f"{path}:4: z: dimension" in message
        and f"validate the suite in {path.parent} for the full list" in message
    )
    assert info.value.file == str(path) and info.value.case is None  # line 3 has no id


def test_resolve_and_errors(tmp_path: Path) -> None:
    with pytest.raises(SuiteNotFoundError, match="built-in suites: .*retail"):
        resolve_suite_path("no-such-suite")
    (tmp_path / "x.jsonl").write_text("")
    with pytest.raises(SuiteFormatError, match="give the suite folder"):
        resolve_suite_path(tmp_path / "x.jsonl")
    with pytest.raises(SuiteFormatError, match="has no suite.json"):
        load_suite(tmp_path)
    (tmp_path / "suite.json").write_text(
        json.dumps({"name": "n", "domain": "retail", "format_version": 2})
    )
    with pytest.raises(SuiteFormatError, match="not supported"):
        load_suite(tmp_path)


def test_dump_cases_is_one_line_per_case() -> None:
    text = dump_cases([stock_case(1), FULL])
    assert text.endswith("\n") and text.count("\n") == 2
