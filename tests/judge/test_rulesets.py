"""Rule sets: built-ins, user files, extends, validation, diff, and the `rules` commands."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from rejudge.judge import (
    RuleSetError,
    builtin_refs,
    diff_rule_sets,
    judge,
    load_rule_set,
    settings_of,
)

from rejudge.errors import NotFoundError

from .conftest import REGISTRY, call, case, gcall, trace


def test_builtins_are_versioned_and_explicit():
    assert {"standard@1", "standard@2", "bfcl@1", "bfcl@2"} <= set(builtin_refs())
    s1 = load_rule_set("standard@1")
    latest = [r for r in builtin_refs() if r.startswith("standard@")][-1]
    assert load_rule_set("standard").ref == latest  # bare name: its latest version
    assert settings_of(s1).whitelist_for("retail") == [
        "get_user",
        "list_orders",
        "get_return_policy",
    ]
    assert settings_of(s1).whitelist_for("genome") == []
    assert set(s1.settings) >= {"default_param_rule", "whitelist", "partial_weights", "tolerance"}
    assert s1.hash == load_rule_set("standard@1").hash


def test_user_file_extends_and_overrides(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "name: mine\nversion: 3\nextends: standard@1\n"
        "settings:\n  param_rules: {reason: contains}\n  whitelist: {retail: ['@read_only']}\n",
        encoding="utf-8",
    )
    mine = load_rule_set(str(path))
    assert mine.ref == "mine@3"
    s = settings_of(mine)
    assert s.param_rules == {"reason": "contains"}
    assert s.whitelist == {"retail": ["@read_only"]}  # whitelists replace, never merge
    assert s.partial_weights.contract["tools"] == 0.45  # inherited
    c = case(gcall("request_cancel", order_id="W441", reason="mind"), allowed_extra=None)
    t = trace(
        call("check_stock", product_id="P201"),
        call("request_cancel", order_id="W441", reason="my mind"),
    )
    assert judge(t, c, REGISTRY, "golden", mine).verdict == "PASS"
    assert judge(t, c, REGISTRY, "golden", load_rule_set("standard@1")).taxonomy == [
        "TOOL_UNEXPECTED",
        "PARAM_WRONG_VALUE",
    ]
    rows = diff_rule_sets(load_rule_set("standard@1"), mine)
    assert {"path": "settings.param_rules.reason", "a": None, "b": "contains"} in rows


def test_json_file(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps(
            {"name": "j", "version": "1", "settings": {"default_param_rule": "normalized_str"}}
        )
    )
    assert settings_of(load_rule_set(path)).default_param_rule == "normalized_str"


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("name: x\nversion: 1\nsettings: {default_param_rule: fuzzy}\n", "unknown parameter rule"),
        ("name: x\nversion: 1\nsettings: {tolerence: {}}\n", "tolerence"),
        ("name: x\nsettings: {}\n", "version"),
        (
            "name: x\nversion: 1\nsettings:\n  partial_weights: {contract: {tools: 1, arguments: 1, schema: 0}}\n",
            "sum to 1",
        ),
        ("- not a mapping\n", "mapping"),
        ("name: [\n", "not valid YAML"),
    ],
)
def test_bad_files_say_what_is_wrong(tmp_path, content, match):
    path = tmp_path / "bad.yaml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(RuleSetError, match=match):
        load_rule_set(str(path))


def test_unknown_refs():
    with pytest.raises(NotFoundError, match="known: .*standard@1"):
        load_rule_set("standard@99")
    with pytest.raises(NotFoundError):
        load_rule_set("nothing")
    with pytest.raises(RuleSetError, match="does not exist"):
        load_rule_set("missing.yaml")


def test_builtin_diff_is_meaningful():
    paths = {
        r["path"] for r in diff_rule_sets(load_rule_set("standard@1"), load_rule_set("standard@2"))
    }
    assert "settings.free_text_rule" in paths
    assert "settings.tolerance.duplicate_read_only_calls" in paths
    assert diff_rule_sets(load_rule_set("standard@2"), load_rule_set("standard@2")) == []


def _cli():
    import rejudge.cli as root

    root._COMMANDS.setdefault("rules", "rejudge.cli.rules:rules")
    return root.cli


def test_rules_commands(tmp_path):
    runner = CliRunner()
    cli = _cli()
    out = runner.invoke(cli, ["--json", "rules", "list"])
    assert out.exit_code == 0, out.output
    refs = [r["ref"] for r in json.loads(out.output)]
    assert {"standard@1", "standard@2", "bfcl@1", "bfcl@2"} <= set(refs)
    out = runner.invoke(cli, ["--json", "rules", "diff", "standard@1", "standard@2"])
    assert out.exit_code == 0
    assert any(
        d["path"] == "settings.free_text_rule" for d in json.loads(out.output)["differences"]
    )
    out = runner.invoke(cli, ["--json", "rules", "show", "standard@1"])
    assert json.loads(out.output)["hash"] == load_rule_set("standard@1").hash
    out = runner.invoke(cli, ["rules", "show", "nope@1"])
    assert out.exit_code == 1 and out.output.startswith("Error: ")


def test_a_rule_set_registered_by_name_is_loaded_like_a_built_in():
    from rejudge.judge import rule_set_from_dict

    from rejudge.registry import REGISTRY as EXTENSIONS

    mine = [
        rule_set_from_dict({"name": "acme", "version": v, "extends": "standard@2"})
        for v in ("1", "10", "2")
    ]
    try:
        for rule_set in mine:
            EXTENSIONS.register("rule_set", rule_set.ref, rule_set)
        assert load_rule_set("acme@2") is mine[2]
        assert load_rule_set("acme").ref == "acme@10"  # the latest version, not the last string
        assert [r for r in builtin_refs() if r.startswith("acme@")] == [
            "acme@1",
            "acme@2",
            "acme@10",
        ]
        with pytest.raises(ValueError, match="registered as 'acme@3'"):
            EXTENSIONS.register("rule_set", "acme@3", mine[0])
        with pytest.raises(
            ValueError, match=r"^rule set 'acme@5' is not a RuleSet \(build one with rule_set_from"
        ):
            EXTENSIONS.register("rule_set", "acme@5", {"name": "acme", "version": "5"})
        with pytest.raises(ValueError, match="already registered"):
            EXTENSIONS.register("rule_set", "standard@2", mine[0], replace=False)
        with pytest.raises(
            NotFoundError,
            match=r"unknown rule set 'acme@4' \(known: acme@1, acme@10, acme@2, bfcl@1",
        ):
            load_rule_set("acme@4")
    finally:
        for rule_set in mine:
            EXTENSIONS.unregister("rule_set", rule_set.ref)
    assert not [r for r in builtin_refs() if r.startswith("acme@")]
    # the shipped files are registry entries, read once
    assert EXTENSIONS.get("rule_set", "standard@2") is load_rule_set("standard@2")
