"""Suite versions (issue 36 item 1): retail, genome-simple and genome-complex ship a version 2
whose read-only cases say what the answer must state, taken from the world's data.

Version 1 stays as it was (its hash and its cases); version 2 is another suite (``NAME@2``),
and only the cases that gained outputs changed hash, so a verdict that moved says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rejudge.judge import judge, load_rule_set
from rejudge.judge.tiers import get_tier
from rejudge.suites import (
    SuiteNotFoundError,
    dump_cases,
    load_suite,
    selftest_suite,
    validate_suite,
)
from rejudge.suites._answers import VERSION_2, with_answers
from rejudge.suites._case_format import split_version

from rejudge.model import Trace, canonical_json
from rejudge.registry import REGISTRY

SUITES = sorted(VERSION_2)
#: version 1's hashes as released (a change to version 1 fails here)
V1_HASHES = {
    "retail": "sha256:af822182e7e88",
    "genome-simple": "sha256:f1a05cf1312b4",
    "genome-complex": "sha256:6d0b08ad9a3f8",
}


@pytest.mark.parametrize("name", SUITES)
def test_version_1_is_as_released_and_version_2_is_another_suite(name: str) -> None:
    v1, v2 = load_suite(name), load_suite(f"{name}@2")
    assert v1.hash.startswith(V1_HASHES[name]) and load_suite(f"{name}@1").hash == v1.hash
    assert (v1.name, v2.name) == (name, f"{name}@2") and v2.hash != v1.hash
    assert [c.id for c in v1.cases] == [c.id for c in v2.cases]
    assert validate_suite(f"{name}@2") == [] and validate_suite(name) == []


@pytest.mark.parametrize("name", SUITES)
def test_the_shipped_version_2_is_what_the_world_s_data_gives(name: str) -> None:
    v1, v2 = load_suite(name), load_suite(f"{name}@2")
    state = get_tier("state")
    rebuilt = with_answers(list(v1.cases), v1.registry, lambda c: state.applies(c, v1.registry))
    assert v2.cases_path is not None
    assert v2.cases_path.read_text(encoding="utf-8") == dump_cases(rebuilt)


@pytest.mark.parametrize("name", SUITES)
def test_only_read_only_cases_changed_and_their_outputs_come_from_the_world(name: str) -> None:
    v1, v2 = load_suite(name), load_suite(f"{name}@2")
    assert v1.registry.world is not None
    world: Any = REGISTRY.get("world", v1.registry.world.name)
    state = get_tier("state")
    changed = 0
    for old, new in zip(v1.cases, v2.cases, strict=True):
        if old.hash == new.hash:
            continue
        changed += 1
        # the only difference: the outputs a read-only case gained
        assert old.model_copy(update={"required_outputs": new.required_outputs}) == new
        assert not old.required_outputs and new.required_outputs
        assert not state.applies(old, v1.registry) and state.applies(new, v2.registry)
        at = world.case_state(new.metadata)
        said = " ".join(
            canonical_json(world.execute(at, g.tool, dict(g.params)).content)
            for g in new.golden.calls
        ).lower()
        for out in new.required_outputs:
            # a value of the world's answer ("out of stock" says its in_stock false)
            literal = out.lower() in said
            assert literal or (out == "out of stock" and '"in_stock":false' in said), (new.id, out)
            assert out.lower() not in new.instruction.lower(), (new.id, out)  # not an echo
    assert changed >= 6  # genome-complex: 6 of its 9 read-only chains, the others 18+


@pytest.mark.parametrize("name", SUITES)
def test_every_golden_sequence_passes_version_2_where_the_state_tier_applies(name: str) -> None:
    rules = load_rule_set("standard@2")

    def state_only(trace: Trace, case: Any, registry: Any) -> dict[str, str]:
        j = judge(trace, case, registry, "state", rules)
        if j.verdict == "SKIP":
            return {}
        return {"state": j.verdict if j.verdict == "PASS" else f"{j.verdict} {j.reasons}"}

    report = selftest_suite(load_suite(f"{name}@2"), judge_fn=state_only)
    assert report.ok, [r.problems for r in report.failures][:3]
    judged = [r for r in report.cases if r.verdicts]
    # version 2 judges more cases by state than version 1 (read-only ones by their answer)
    assert len(judged) > sum(
        1 for c in load_suite(name).cases if get_tier("state").applies(c, load_suite(name).registry)
    )


def test_an_unknown_version_names_the_versions_there_are(tmp_path: Path) -> None:
    with pytest.raises(SuiteNotFoundError, match=r"no version 7 \(versions: 1, 2\)"):
        load_suite("retail@7")
    assert split_version("retail@2") == ("retail", 2)
    assert split_version("retail") == ("retail", None)
    problems = validate_suite("retail@7")
    assert [p.field for p in problems] == ["versions"]


def test_a_version_is_stored_as_a_suite_of_its_own(store: Any) -> None:
    from rejudge.services import snapshot_suite

    first, second = snapshot_suite(store, "retail"), snapshot_suite(store, "retail@2")
    assert (first.name, second.name) == ("retail", "retail@2")
    assert first.hash == load_suite("retail").hash and second.hash == load_suite("retail@2").hash


def test_a_loaded_version_is_validated_alone(tmp_path: Path) -> None:
    """A loaded suite is validated by its own case file: a broken later version is that
    version's problem (and its folder's), not version 1's, so version 1 still snapshots."""
    import shutil

    folder = tmp_path / "retail-copy"
    shutil.copytree(load_suite("retail").path or ".", folder)
    (folder / "cases.v2.jsonl").write_text("{not json\n", encoding="utf-8")
    everything = validate_suite(folder)
    assert everything and {Path(p.file).name for p in everything} == {"cases.v2.jsonl"}
    assert validate_suite(load_suite(folder)) == []
