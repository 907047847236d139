"""τ²-bench's airline world against τ²'s own recordings.

Two proofs on the five shipped airline runs (244 simulations, 2,176 tool calls):

- faithfulness: every recorded call, re-executed in order on a fresh state per simulation,
  gives back the recorded result byte for byte, and fails exactly where the recording does;
- τ²'s reward: the final state of the agent's calls equals the final state of the task's
  ground-truth actions exactly where τ² recorded ``db_match``; the communicate check (each
  ``communicate_info`` item in some assistant text, lowercased, commas removed) matches τ²'s
  ``communicate_checks``; their product is τ²'s reward (every task's basis is DB and
  COMMUNICATE).

The task a simulation ran is the one :func:`ran_tasks` establishes (ToolOrchestra's file names
other tasks in 49 of its 50 simulations).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.suites.worlds.tau2_airline import (
    DATA_FILE,
    DB_SHA256,
    Tau2AirlineWorld,
    load_data,
)
from rejudge.suites.worlds.tau2_airline.tools import TOOLS

from rejudge.errors import InvalidInputError
from rejudge.importers._tau2_tasks import ran_tasks
from rejudge.model import WorldData, WorldMismatchError
from rejudge.registry import REGISTRY
from tests.suites.tau2_replay import agent_calls, communicated, db_match

SHARED_DB = Path("/work/shared/real-runs/tau2-bench/data/airline-db-8d005b0.json")


@pytest.fixture(scope="module")
def world() -> Tau2AirlineWorld:
    return REGISTRY.get("world", "tau2-airline")


def test_the_data_is_tau2s_file_byte_for_byte() -> None:
    assert hashlib.sha256(DATA_FILE.read_bytes()).hexdigest() == DB_SHA256
    if SHARED_DB.exists():
        assert DATA_FILE.read_bytes() == SHARED_DB.read_bytes()


def test_the_world_is_registered_with_its_version_and_terminal_tool(world) -> None:
    assert (world.ref.name, world.ref.version) == ("tau2-airline", "8d005b0")
    assert world.terminal_tools == {"transfer_to_human_agents"}
    assert len(world.tool_names()) == 14 and "get_flight_status" in world.tool_names()
    assert world is REGISTRY.get("world", "tau2-airline")  # built once


def test_every_recorded_call_gives_back_its_recorded_result(world, tau2_airline_runs) -> None:
    counts: dict[str, tuple[int, int]] = {}
    wrong = []
    for name, run in tau2_airline_runs.items():
        total = same = 0
        for sim in run["simulations"]:
            state = world.new_state()
            for call, message in agent_calls(sim):
                total += 1
                got = world.execute(state, call["name"], call["arguments"])
                # ToolOrchestra's file records `error: null`; τ² words every failure "Error: ..."
                failed = message["content"].startswith("Error")
                flag_agrees = message.get("error") is None or message["error"] is failed
                if got.content == message["content"] and got.ok is not failed and flag_agrees:
                    same += 1
                else:
                    wrong.append((name, sim["task_id"], call["name"], call["arguments"]))
        counts[name] = (same, total)
    assert counts == {
        "button_airline_claude-opus-4-6": (435, 435),
        "claude-sonnet-4-5_airline": (371, 371),
        "ironshell_airline_claude-opus-4-6": (357, 357),
        "ironshell_airline_gpt-5.4": (432, 432),
        "toolorchestra_airline": (581, 581),
    }, wrong[:5]
    assert sum(total for _, total in counts.values()) == 2176


def test_taus_database_check_communicate_check_and_reward_are_reproduced(
    world, tau2_airline_runs
) -> None:
    db = comm = reward = sims = 0
    for run in tau2_airline_runs.values():
        tasks = {t["id"]: t for t in run["tasks"]}
        ran, _, problems = ran_tasks(tasks, run["simulations"])
        assert not problems
        for i, sim in enumerate(run["simulations"]):
            sims += 1
            task, info = tasks[ran[i]], sim["reward_info"]
            assert task["evaluation_criteria"]["reward_basis"] == ["DB", "COMMUNICATE"]
            match, diffs = db_match(world, sim, task)
            db += match == info["db_check"]["db_match"]
            assert match or diffs  # a failed check names what differs
            met = communicated(sim, task)
            comm += met == [c["met"] for c in info.get("communicate_checks") or []]
            reward += float(match and all(met)) == info["reward"]
    assert (sims, db, comm, reward) == (244, 244, 244, 244)


def test_a_refused_or_bad_call_changes_nothing_and_never_raises(world) -> None:
    state = world.new_state()
    user = world.data.tables["users"]["mia_li_3668"]
    booking = {
        "user_id": "mia_li_3668",
        "origin": "JFK",
        "destination": "SEA",
        "flight_type": "one_way",
        "cabin": "economy",
        "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
        "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
        "payment_methods": [{"payment_id": "certificate_7504069", "amount": 1}],
        "total_baggages": 0,
        "nonfree_baggages": 0,
        "insurance": "no",
    }
    got = world.execute(state, "book_reservation", booking)
    assert not got.ok and got.content.startswith("Error: Payment amount does not add up")
    assert not world.execute(state, "get_reservation_details", {"reservation_id": "NOPE00"}).ok
    assert not world.execute(state, "book_flight", {}).ok
    assert not world.execute(state, "get_user_details", {"user": "mia_li_3668"}).ok
    assert not world.execute(state, "get_user_details", ["mia_li_3668"]).ok
    assert not world.execute(state, "calculate", {"expression": "2 ** 999999"}).ok
    assert state.changes() == {}
    assert "certificate_7504069" in user["payment_methods"]


def test_every_write_is_what_a_later_read_returns(world) -> None:
    state = world.new_state()
    booked = world.execute(
        state,
        "book_reservation",
        {
            "user_id": "mia_li_3668",
            "origin": "JFK",
            "destination": "SEA",
            "flight_type": "one_way",
            "cabin": "economy",
            "flights": [{"flight_number": "HAT136", "date": "2024-05-20", "price": 1}],
            "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05", "x": 1}],
            "payment_methods": [{"payment_id": "credit_card_4421486", "amount": 152}],
            "total_baggages": 0,
            "nonfree_baggages": 0,
            "insurance": "no",
        },
    )
    assert booked.ok, booked.content
    record = json.loads(booked.content)
    # an extra field sent is dropped, as τ²'s models drop it; the price is the day's
    assert record["passengers"] == [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}]
    assert record["flights"][0]["price"] == 152 and record["status"] is None
    read = world.execute(state, "get_reservation_details", {"reservation_id": "HATHAT"})
    assert read.content == booked.content
    user = json.loads(world.execute(state, "get_user_details", {"user_id": "mia_li_3668"}).content)
    assert user["reservations"][-1] == "HATHAT"
    sent = world.execute(state, "send_certificate", {"user_id": "mia_li_3668", "amount": 50})
    assert sent.content.endswith("with amount 50.")
    user = json.loads(world.execute(state, "get_user_details", {"user_id": "mia_li_3668"}).content)
    assert user["payment_methods"]["certificate_3221322"]["amount"] == 50.0
    cancelled = world.execute(state, "cancel_reservation", {"reservation_id": "HATHAT"})
    assert json.loads(cancelled.content)["payment_history"][-1]["amount"] == -152
    again = world.execute(state, "get_reservation_details", {"reservation_id": "HATHAT"})
    assert json.loads(again.content)["status"] == "cancelled"


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=150, deadline=None)
@given(
    tool=st.sampled_from(sorted(TOOLS) + ["nope"]),
    arguments=st.dictionaries(
        st.sampled_from(["user_id", "reservation_id", "flights", "amount", "date", "x"]), _values
    ),
)
def test_any_call_answers_and_a_failed_one_changes_nothing(world, tool, arguments) -> None:
    state = world.new_state()
    got = world.execute(state, tool, arguments)
    assert isinstance(got.content, str)
    if not got.ok:
        assert got.content.startswith("Error: ")
        assert state.changes() == {}


def test_data_of_another_version_or_a_missing_file_is_refused(tmp_path) -> None:
    with pytest.raises(WorldMismatchError):
        Tau2AirlineWorld(WorldData.of("tau2-airline", "0000000", {}))
    with pytest.raises(InvalidInputError, match="missing"):
        load_data(tmp_path / "db.json")
    other = tmp_path / "db.json"
    other.write_bytes(DATA_FILE.read_bytes().replace(b'"HAT018"', b'"HAT918"', 1))
    with pytest.raises(InvalidInputError, match=r"not τ²'s airline database at 8d005b0") as exc:
        load_data(other)
    assert "\n" not in str(exc.value)
