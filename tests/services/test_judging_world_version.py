"""``judge_run(world=...)``: a run judged under another version of its world (retail@2) is
keyed by that version, its suite's own version stays the default, and a bad version is one
error naming ``--world``."""

from __future__ import annotations

from pathlib import Path

import pytest
from rejudge.judge import load_rule_set
from rejudge.store import EvaluatedTrace, Store
from rejudge.suites.domains.retail import retail_registry

from rejudge.errors import InvalidInputError, NotFoundError
from rejudge.model import RunConfig
from rejudge.registry import REGISTRY
from rejudge.services import judge_run
from tests.judge.conftest import call, case, gcall, trace

# an exchange of a delivered item of W443 (P205 for P201), confirmed
CASES = [
    case(
        gcall(
            "request_exchange",
            order_id="W443",
            item_id="P205",
            replacement_item_id="P201",
            reason="broken",
        ),
        gcall("confirm_action", action_id="ACT-0001"),
        id="x",
    )
]


@pytest.fixture()
def store(tmp_path: Path):
    st = Store.open(f"sqlite:///{tmp_path / 'w.db'}")
    suite = st.suites.save_suite(
        name="w", domain="retail", suite_hash="sha256:w", registry=retail_registry(), cases=CASES
    )
    run = st.runs.create_run(name="r1", suite=suite, config=RunConfig(model="m"))
    pks = st.suites.get_case_pks(suite.id)
    # the agent asked for the exchange and never confirmed it (its result as the world gave it)
    asked = call(
        "request_exchange",
        order_id="W443",
        item_id="P205",
        replacement_item_id="P201",
        reason="broken",
    )
    world = REGISTRY.get("world", "retail@1")
    given = world.execute(world.new_state(), asked.name, dict(asked.arguments or {}))
    t = trace(asked.model_copy(update={"result": given.content}), case_id="x")
    st.traces.save_traces([(run.id, pks["x"], t, None, None)])
    yield st
    st.close()


def _judgment(store: Store, evaluation_id: int) -> EvaluatedTrace:
    (row,) = list(store.judgments.iter_evaluation_rows(evaluation_id))
    return row


def test_another_world_version_is_its_own_judgment(store: Store) -> None:
    rules = load_rule_set("standard@2")
    own = judge_run(store, "r1", "state", rules)
    other = judge_run(store, "r1", "state", rules, world="retail@2")
    a, b = _judgment(store, own.evaluation_id), _judgment(store, other.evaluation_id)
    assert a.verdict == b.verdict == "FAIL"
    assert a.registry_hash != b.registry_hash  # keyed by the version judged under
    assert own.summary.taxonomy_counts == other.summary.taxonomy_counts == {"STATE_WRONG": 1}
    # judging again under the suite's own version finds every judgment already made
    again = judge_run(store, "r1", "state", rules)
    assert again.written == 0 and _judgment(store, again.evaluation_id).registry_hash == (
        a.registry_hash
    )


def test_a_bad_world_version_is_one_error_naming_the_option(store: Store) -> None:
    rules = load_rule_set("standard@2")
    with pytest.raises(
        NotFoundError, match=r"^unknown world 'retail@9' \(known: genome, genome@1, "
    ):
        judge_run(store, "r1", "state", rules, world="retail@9")
    with pytest.raises(InvalidInputError, match=r"^world genome@1: run 'r1' is judged"):
        judge_run(store, "r1", "state", rules, world="genome@1")
    with pytest.raises(InvalidInputError, match=r"^a world is named NAME@VERSION"):
        judge_run(store, "r1", "state", rules, world="retail")
