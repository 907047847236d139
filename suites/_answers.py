"""What a read-only case's answer must say, taken from the world's data.

A case whose golden calls change nothing gives the ``state`` tier nothing to observe: the
final states of an agent that called nothing and of one that called everything are equal. What
a user checks on such a case is the answer: the email on file, the stock left, the sequence
fetched. :func:`answer_outputs` executes the case's golden calls on a fresh state of its world
and takes, per tool, the values the answer must state (a case's ``required_outputs``, looked for
in the agent's replies as τ-bench does: case-insensitive, thousands separators ignored).

Rules per tool (the value a person asking would look for in the reply):

- retail: ``check_stock`` "out of stock" or the quantity left; ``get_order`` its status;
  ``get_return_policy`` the window in days; ``get_product`` the material asked about;
  ``get_user`` the email; ``list_orders`` the order ids;
- genome: gene ids found, the sequence or protein returned (a translation's stop ``*`` left
  out), the GC percent, ORF starts, the top similarity hit, chromosome names and lengths, the
  current view's coordinates, tab and pending-action ids.

A value the instruction already holds (in any phrasing of the case's scenario) is left out: an
agent can echo it without looking anything up. The rules read the last golden call's tool (over every golden call of that tool: "compare the GC
content of two genes" states both), so a chain's intermediate lookups are not asked for. A case
none of these fits keeps no output (it stays SKIP under the state tier, judged by the others).

``python -m rejudge.suites._answers`` rewrites each built-in suite's version-2 case file
(``cases.v2.jsonl``) from version 1; tests/suites/test_suite_versions.py checks the shipped files
are what it writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rejudge.model import Case, ToolRegistry, World

__all__ = ["ANSWER_RULES", "VERSION_2", "answer_outputs", "with_answers", "write_version_2"]


def _stock(r: Any) -> list[str]:
    return ["out of stock"] if not r.get("in_stock") else [str(r["quantity"])]


def _protein(r: Any) -> list[str]:
    protein = str(r.get("protein") or "").rstrip("*")
    return [protein] if protein else []


def _top_hit(r: Any) -> list[str]:
    hits = r.get("hits") or []
    return [str(hits[0]["gene_id"])] if hits else []


#: tool -> the values of one result the answer must state
ANSWER_RULES: dict[str, Callable[[Any], list[str]]] = {
    # retail
    "check_stock": _stock,
    "get_order": lambda r: [str(r["status"])],
    "get_return_policy": lambda r: [str(r["return_window_days"])],
    "get_product": lambda r: (
        [str(r["attributes"]["material"])] if "material" in (r.get("attributes") or {}) else []
    ),
    "get_user": lambda r: [str(r["email"])],
    "list_orders": lambda r: [str(o["order_id"]) for o in r.get("orders") or []],
    # genome
    "search_genes": lambda r: [str(g["id"]) for g in r.get("genes") or []],
    "get_gene_details": lambda r: [str(r["product"])],
    "list_chromosomes": lambda r: [
        v for c in r.get("chromosomes") or [] for v in (str(c["name"]), str(c["length"]))
    ],
    "get_sequence": lambda r: [str(r["sequence"])],
    "get_gene_sequence": lambda r: [str(r["sequence"])],
    "reverse_complement": lambda r: [str(r["sequence"])],
    "translate_sequence": _protein,
    "translate_dna": _protein,
    "calculate_gc_content": lambda r: [str(r["gc_percent"])],
    "find_orfs": lambda r: [str(o["start"]) for o in r.get("orfs") or []],
    "blast_search": _top_hit,
    "similarity_search": _top_hit,
    "get_current_view": lambda r: [str(r["chromosome"]), str(r["start"]), str(r["end"])],
    "list_tabs": lambda r: [str(t["tab_id"]) for t in r.get("tabs") or []],
    "list_pending_actions": lambda r: [str(a["action_id"]) for a in r.get("actions") or []],
}

#: retail scenarios whose answer no value of the world states: whether a gift card may be
#: returned is a yes or no in the agent's words; a request made and withdrawn leaves the world
#: as it was and the reply need name nothing. They keep no output (the state tier SKIPs them)
_NO_VALUE_SCENARIOS = frozenset({"d3-giftcard-policy-lookup", "d4-address-abort"})
#: a case that asks for other fields of a result than its tool's rule names
_CASE_RULES: dict[str, Callable[[Any], list[str]]] = {
    # "strand, coordinates and synonyms" of a gene
    "gs-search-006": lambda r: (
        [str(r["strand"]), str(r["start"]), str(r["end"])] + [str(s) for s in r["synonyms"]]
    ),
}


def answer_outputs(case: Case, world: World, terminal: frozenset[str] = frozenset()) -> list[str]:
    """The values the answer to ``case`` must state: its last golden tool's results, executed
    on a fresh state of ``world`` (empty when no rule fits or a call fails)."""
    calls = [g for g in case.golden.calls if g.tool not in terminal]
    if not calls or case.scenario in _NO_VALUE_SCENARIOS:
        return []
    last = calls[-1].tool
    rule = _CASE_RULES.get(case.id) or ANSWER_RULES.get(last)
    if rule is None:
        return []
    state = world.case_state(case.metadata)
    outputs: list[str] = []
    for golden in calls:
        for _ in range(golden.count):
            result = world.execute(state, golden.tool, dict(golden.params))
            if not result.ok:
                return []  # a case the world cannot answer asks for nothing
            if golden.tool == last:
                outputs.extend(v for v in rule(result.content) if v not in outputs)
    return outputs


def with_answers(
    cases: list[Case], registry: ToolRegistry, observable: Callable[[Case], bool]
) -> list[Case]:
    """``cases`` with the answers' values as required outputs on every case that has nothing
    else to observe (``observable`` false) and none yet; every other case as it is, so its hash
    does not move."""
    from rejudge.judge.tiers import world_of

    if registry.world is None:
        return list(cases)
    # the world in the version the registry names, as the state tier finds it
    world = world_of(registry)
    terminal = frozenset(registry.terminal_tools) | world.terminal_tools
    # what the user already said: a value any phrasing of the same scenario holds ("has it
    # shipped yet?", "BLAST gene SGA_0070") is one an agent can echo without looking anything
    # up, so it is no evidence of the answer and is not required
    asked: dict[str, str] = {}
    for case in cases:
        key = case.scenario or case.id
        asked[key] = asked.get(key, "") + " " + _said(case.instruction)
    out = []
    for case in cases:
        if case.required_outputs or case.negative or observable(case):
            out.append(case)
            continue
        heard = asked[case.scenario or case.id]
        outputs = [v for v in answer_outputs(case, world, terminal) if _said(v) not in heard]
        out.append(case.model_copy(update={"required_outputs": outputs}) if outputs else case)
    return out


def _said(text: str) -> str:
    # how a required output is looked for in a reply (judge.tiers.missing_outputs)
    return text.lower().replace(",", "")


#: the built-in suites that ship a version 2 with answers, and its description
VERSION_2 = {
    "retail": "Version 2: as version 1, plus what the answer must say on every read-only case "
    "(the values it asks for, taken from the world's data), so the state tier judges those "
    "cases by their answer instead of skipping them.",
    "genome-simple": "Version 2: as version 1, plus what the answer must say on every read-only "
    "case (gene ids, sequences, proteins, GC percents... taken from the world's data).",
    "genome-complex": "Version 2: as version 1, plus what the answer must say on every "
    "read-only chain (the last step's values, taken from the world's data).",
}


def write_version_2(name: str) -> Path:
    """Write ``cases.v2.jsonl`` of a built-in suite from its version 1, and name it in the
    manifest's ``versions``; returns the case file."""
    from rejudge.judge.tiers import get_tier
    from rejudge.suites._case_format import (
        MANIFEST_NAME,
        SuiteVersion,
        dump_cases,
        load_manifest,
        load_suite,
    )

    source = load_suite(name)
    assert source.path is not None
    state = get_tier("state")
    cases = with_answers(
        list(source.cases), source.registry, lambda c: state.applies(c, source.registry)
    )
    target = source.path / "cases.v2.jsonl"
    target.write_text(dump_cases(cases), encoding="utf-8")
    manifest = load_manifest(source.path)
    entry = SuiteVersion(version=2, cases_file=target.name, description=VERSION_2[name])
    versions = [v for v in manifest.versions if v.version != 2] + [entry]
    data = json.loads((source.path / MANIFEST_NAME).read_text(encoding="utf-8"))
    data["versions"] = [v.model_dump(mode="json") for v in versions]
    (source.path / MANIFEST_NAME).write_text(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return target


if __name__ == "__main__":
    for suite_name in VERSION_2:
        print(write_version_2(suite_name))
