"""Each released built-in rule set's verdicts on a fixed corpus are pinned.

An edit to the engine, a matcher or a released rule-set file that changes an old version's
results fails here. Changing behaviour on purpose means a new rule-set version (and, for engine
changes, a new ENGINE_VERSION); write the new version's pins once with

    /work/venv/bin/python -m tests.judge.test_pinned
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from rejudge.judge import builtin_refs, judge, load_rule_set

from .conftest import REGISTRY
from .test_tiers import ROWS

PIN_DIR = Path(__file__).parent / "pinned"
TIERS = ["contract", "execution", "completion", "completion-contract", "golden"]


def corpus():
    seen = set()
    for name, the_case, the_trace, *_ in ROWS:
        key = (the_case.hash, the_trace.hash)
        if key in seen:
            continue
        seen.add(key)
        yield name, the_case, the_trace


def compute(ref: str) -> dict:
    rules = load_rule_set(ref)
    verdicts = {}
    for name, the_case, the_trace in corpus():
        for tier in TIERS:
            j = judge(the_trace, the_case, REGISTRY, tier, rules)
            verdicts[f"{name} | {tier}"] = [j.verdict, *j.taxonomy]
    return {"rule_set": ref, "rule_set_hash": rules.hash, "verdicts": verdicts}


@pytest.mark.parametrize("ref", builtin_refs())
def test_pinned_verdicts(ref):
    path = PIN_DIR / f"{ref}.json"
    assert path.exists(), f"no pins for {ref}: run python -m tests.judge.test_pinned once"
    pinned = json.loads(path.read_text(encoding="utf-8"))
    current = compute(ref)
    assert current["rule_set_hash"] == pinned["rule_set_hash"], (
        f"released rule set {ref} was edited; restore it and add a new version instead"
    )
    changed = {
        k: (pinned["verdicts"].get(k), v)
        for k, v in current["verdicts"].items()
        if pinned["verdicts"].get(k) != v
    }
    assert not changed, f"{ref} verdicts changed (pinned, now): {changed}"


def test_versions_differ_somewhere():
    # the call-matching corpus; bfcl@1 vs bfcl@2 differ on BFCL outputs (tests/judge/test_bfcl_tier.py)
    a, b = compute("standard@1")["verdicts"], compute("standard@2")["verdicts"]
    flips = [k for k in a if a[k] != b[k]]
    assert flips, "two rule-set versions that never disagree are not two versions"


def main(argv: list[str]) -> None:
    PIN_DIR.mkdir(exist_ok=True)
    for ref in argv or builtin_refs():
        path = PIN_DIR / f"{ref}.json"
        if path.exists() and ref not in argv:
            continue  # never rewrite a released version's pins implicitly
        path.write_text(json.dumps(compute(ref), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
