"""The copy-on-write world state: reads see the base, writes copy one record, a failed call
changes nothing, and two states compare by what changed, field by field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.model import (
    CallResult,
    World,
    WorldData,
    WorldMismatchError,
    WorldState,
    canonical_json,
    content_hash,
    diff_states,
)


def _data() -> WorldData:
    return WorldData.of(
        "toy",
        "1",
        {
            "users": {"u1": {"name": "Ann", "balance": 10, "tags": ["a"]}},
            "orders": {
                "o1": {"user": "u1", "status": "open"},
                "o2": {"user": "u1", "status": "open"},
            },
        },
    )


class _Toy(World):
    name = "toy"
    version = "1"
    terminal_tools = frozenset({"transfer"})

    def tool_names(self) -> frozenset[str]:
        return frozenset({"close", "pay", "transfer"})

    def call(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        if name == "close":
            state.edit("orders", arguments["order"])["status"] = "closed"
            return CallResult(True, "closed")
        if name == "pay":
            user = state.edit("users", "u1")
            user["balance"] -= arguments["amount"]
            if user["balance"] < 0:  # wrote first, then refused: the write must not stay
                return CallResult(False, "Error: insufficient balance")
            return CallResult(True, json.dumps(user))
        return CallResult(False, f"Error: unknown tool {name}")


def test_a_write_copies_one_record_and_leaves_the_base_untouched() -> None:
    data = _data()
    before = canonical_json(data.tables)
    state = WorldState(data)
    state.edit("orders", "o1")["status"] = "closed"
    assert state.get("orders", "o1")["status"] == "closed"
    assert state.get("orders", "o2") is data.tables["orders"]["o2"]  # not copied
    assert canonical_json(data.tables) == before
    assert state.changes() == {"orders": {"o1": {"user": "u1", "status": "closed"}}}


def test_a_failed_call_changes_nothing_and_a_raising_one_neither() -> None:
    world = _Toy(_data())
    state = world.new_state()
    assert world.execute(state, "pay", {"amount": 4}).ok
    failed = world.execute(state, "pay", {"amount": 40})
    assert failed == CallResult(False, "Error: insufficient balance")
    assert state.get("users", "u1")["balance"] == 6
    raised = world.execute(state, "close", {"order": "nope"})  # KeyError inside the tool
    assert not raised.ok and "KeyError" in raised.content
    assert set(state.changes()) == {"users"}


def test_equal_final_states_hash_alike_and_have_no_difference() -> None:
    world = _Toy(_data())
    a, b = world.new_state(), world.new_state()
    world.execute(a, "close", {"order": "o1"})
    world.execute(b, "close", {"order": "o1"})
    world.execute(b, "pay", {"amount": 0})  # edited, but back to the base value
    assert a.state_hash() == b.state_hash()
    assert diff_states(a, b) == []
    assert a.state_hash() != world.new_state().state_hash()


def test_a_difference_names_the_record_the_field_and_both_values() -> None:
    world = _Toy(_data())
    expected, actual = world.new_state(), world.new_state()
    world.execute(expected, "close", {"order": "o1"})
    world.execute(actual, "close", {"order": "o2"})
    text = [d.describe() for d in diff_states(expected, actual)]
    assert text == [
        'orders/o1: status: expected "closed", actual "open"',
        'orders/o2: status: expected "open", actual "closed"',
    ]


def test_an_int_and_a_float_differ_as_in_taus_hash() -> None:
    data = _data()
    a, b = WorldState(data), WorldState(data)
    a.edit("users", "u1")["balance"] = 10.0
    assert (
        diff_states(WorldState(data), a)[0].describe()
        == "users/u1: balance: expected 10, actual 10.0"
    )
    assert a.state_hash() != b.state_hash()


def test_added_and_deleted_records_show_as_absent() -> None:
    data = _data()
    a, b = WorldState(data), WorldState(data)
    b.put("orders", "o3", {"user": "u1", "status": "open"})
    b.delete("orders", "o2")
    assert b.keys("orders") == ["o1", "o3"]
    described = [d.describe() for d in diff_states(a, b)]
    assert described == [
        'orders/o2: expected {"status":"open","user":"u1"}, actual (absent)',
        'orders/o3: expected (absent), actual {"status":"open","user":"u1"}',
    ]


def test_a_ledger_table_is_kept_but_never_compared() -> None:
    data = _data()
    a, b = WorldState(data), WorldState(data)
    b.put("ledger", "next", {"id": 2})  # bookkeeping only (a withdrawn request's number)
    assert b.get("ledger", "next") == {"id": 2}
    assert diff_states(a, b, frozenset({"ledger"})) == []
    assert a.state_hash(frozenset({"ledger"})) == b.state_hash(frozenset({"ledger"}))
    assert [d.describe() for d in diff_states(a, b)] == [
        'ledger/next: expected (absent), actual {"id":2}'
    ]
    b.edit("orders", "o1")["status"] = "closed"  # an outcome still counts
    assert len(diff_states(a, b, frozenset({"ledger"}))) == 1


def test_a_case_starts_from_the_initial_data_unless_the_world_sets_it_up() -> None:
    world = _Toy(_data())
    state = world.case_state({"setup_calls": [{"tool": "close"}]})
    assert state.changes() == {}


def test_a_registry_of_other_data_is_refused_by_name() -> None:
    world = _Toy(_data())
    other = WorldData.of("toy", "1", {"users": {}})
    with pytest.raises(WorldMismatchError, match="world 'toy': the registry was made with data"):
        world.check(other.ref)
    world.check(world.ref)


_values = st.one_of(st.integers(-5, 5), st.sampled_from(["open", "closed"]), st.none())


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["o1", "o2", "o9"]), st.sampled_from(["put", "edit", "delete"]), _values
        ),
        max_size=8,
    ),
    st.booleans(),
)
def test_the_state_hash_is_the_hash_of_the_whole_data(ops, fail_last) -> None:
    data = _data()
    state = WorldState(data)
    full = json.loads(canonical_json(data.tables))
    for i, (key, op, value) in enumerate(ops):
        last = i == len(ops) - 1
        state.begin()
        if op == "put":
            state.put("orders", key, {"v": value})
            new = {"v": value}
        elif op == "edit" and state.has("orders", key):
            state.edit("orders", key)["status"] = value
            new = {**full["orders"][key], "status": value}
        elif op == "delete":
            state.delete("orders", key)
            new = None
        else:
            state.commit()
            continue
        if last and fail_last:
            state.rollback()
            continue
        state.commit()
        if new is None:
            full["orders"].pop(key, None)
        else:
            full["orders"][key] = new
    assert json.loads(canonical_json(state.snapshot())) == full
    # equal to a state built straight from the final data exactly when the data is equal
    assert (diff_states(WorldState(data), state) == []) == (content_hash(full) == data.hash)
