"""τ-bench's airline world is faithful: every call recorded in the 200 GPT-4o trajectories,
re-executed in order on a fresh state, gives back its recorded result byte for byte; the ground
truth of every task executes and leaves the database τ-bench itself hashed; and comparing final
states reproduces τ-bench's reward on every task rewarded by the database.

The world is built once for the module and every trajectory replayed once (the ``replayed``
fixture); each test reads what it needs from that.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from rejudge.suites.worlds.tau_airline import DATA_DIR, AirlineWorld, load_data
from rejudge.suites.worlds.tau_airline._world import SIGNATURES

from rejudge.errors import InvalidInputError
from rejudge.importers import SHIPPED_TAU_BENCH
from rejudge.model import WorldState, content_hash
from rejudge.registry import REGISTRY

TRAJECTORIES = SHIPPED_TAU_BENCH / "gpt-4o-airline.json"
TOOLS = SHIPPED_TAU_BENCH / "tools.json"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "real-runs" / "tau-bench-airline"
# the content hash of the shipped data: a changed byte is a new world version
DATA_HASH = "sha256:965721fe7e042dbd5d24ef54116b577bf6f91a2db9aa4ecd8d3f00f2967bbfbf"


# ---------------------------------------------------------------------- the recordings


def recorded_calls(entry: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(tool, arguments JSON, recorded result)`` of every call of a trajectory, in order. A
    tool message answers the oldest open call with its id (GPT-4o reuses ids across rounds)."""
    open_calls: list[dict[str, Any]] = []
    calls = []
    for message in entry["traj"]:
        if message["role"] == "assistant":
            open_calls.extend(message.get("tool_calls") or [])
        elif message["role"] == "tool":
            call = next(c for c in open_calls if c["id"] == message["tool_call_id"])
            open_calls.remove(call)
            assert call["function"]["name"] == message["name"]
            calls.append((message["name"], call["function"]["arguments"], message["content"]))
    assert not open_calls, "a call without its result"
    return calls


def hit_step_cap(entry: dict[str, Any]) -> bool:
    # τ-bench stops an episode at its step cap without rewarding it: no reward_info, reward 0
    return entry["info"].get("reward_info") is None


@pytest.fixture(scope="module")
def world() -> AirlineWorld:
    built = REGISTRY.get("world", "tau-bench-airline")
    assert isinstance(built, AirlineWorld)
    return built


@pytest.fixture(scope="module")
def entries() -> list[dict[str, Any]]:
    return json.loads(TRAJECTORIES.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def replayed(world: AirlineWorld, entries: list) -> list[tuple[dict, list, list, WorldState]]:
    """Every trajectory replayed on its own fresh state: (entry, calls, results, final state)."""
    out = []
    for entry in entries:
        state = world.new_state()
        calls = recorded_calls(entry)
        results = [world.execute(state, name, json.loads(args)) for name, args, _ in calls]
        out.append((entry, calls, results, state))
    return out


def ground_truth(world: AirlineWorld, entry: dict[str, Any]) -> WorldState:
    state = world.new_state()
    for action in entry["info"]["task"]["actions"]:
        if action["name"] not in world.terminal_tools:  # τ-bench skips them too
            result = world.execute(state, action["name"], action["kwargs"])
            assert result.ok, (entry["task_id"], action, result.content)
    return state


# ---------------------------------------------------------------------- faithfulness


def test_every_recorded_call_gives_back_its_recorded_result(replayed: list) -> None:
    total, mismatches = 0, []
    for index, (entry, calls, results, _) in enumerate(replayed):
        for i, ((name, args, expected), got) in enumerate(zip(calls, results, strict=True)):
            total += 1
            if got.content != expected:
                mismatches.append(
                    f"trajectory {index} (task {entry['task_id']}, trial {entry['trial']}) call "
                    f"{i} {name}({args})\n  expected {expected[:300]}\n  actual   "
                    f"{str(got.content)[:300]}"
                )
    assert total == 1164
    assert not mismatches, f"{len(mismatches)}/{total} differ:\n" + "\n".join(mismatches[:5])


def test_a_failed_call_is_an_error_and_every_error_is_a_failed_call(replayed: list) -> None:
    for _, calls, results, _ in replayed:
        for (_, _, expected), got in zip(calls, results, strict=True):
            assert got.ok is not expected.startswith("Error:")


def test_the_base_data_is_unchanged_after_all_200(world: AirlineWorld, replayed: list) -> None:
    assert world.data.hash == DATA_HASH
    assert content_hash(world.data.tables) == DATA_HASH


def test_the_shipped_data_is_tau_bench_s_byte_for_byte() -> None:
    if not SHARED.is_dir():
        pytest.skip("the shared τ-bench copy is not on this machine")
    for name in ("flights.json", "reservations.json", "users.json", "LICENSE"):
        assert (DATA_DIR / name).read_bytes() == (SHARED / "data-7362a17" / name).read_bytes()


# ---------------------------------------------------------------------- the ground truth


class TauHash:
    """τ-bench's data hash (sha256 of ``str()`` of the data with every object as a tuple of
    its sorted items and every list as a tuple), computed on a state by reusing each unchanged
    record's text: the oracle for the final states, as τ-bench recorded ``gt_data_hash``."""

    def __init__(self, world: AirlineWorld) -> None:
        self.tables = sorted(world.data.tables)
        self.base = {
            table: {key: self._item(key, rec) for key, rec in world.data.tables[table].items()}
            for table in self.tables
        }

    @classmethod
    def _hashable(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return tuple(sorted((k, cls._hashable(v)) for k, v in value.items()))
        if isinstance(value, list):
            return tuple(cls._hashable(v) for v in value)
        return value

    def _item(self, key: str, record: Any) -> str:
        return repr((key, self._hashable(record)))

    def __call__(self, state: WorldState) -> str:
        changes = state.changes()
        parts = []
        for table in self.tables:
            changed = changes.get(table, {})
            items = [
                self._item(key, state.get(table, key)) if key in changed else self.base[table][key]
                for key in sorted(state.keys(table))
            ]
            parts.append(f"({table!r}, ({', '.join(items)}))")
        return hashlib.sha256(f"({', '.join(parts)})".encode()).hexdigest()


def test_every_ground_truth_leaves_the_database_tau_bench_hashed(
    world: AirlineWorld, entries: list
) -> None:
    tau_hash, checked = TauHash(world), {}
    for entry in entries:
        reward_info = entry["info"].get("reward_info") or {}
        recorded = reward_info.get("info", {}).get("gt_data_hash")
        if recorded is None or entry["task_id"] in checked:
            continue  # tasks rewarded on outputs record no hash; one trial per task suffices
        checked[entry["task_id"]] = tau_hash(ground_truth(world, entry)) == recorded
    assert len(checked) == 46 and all(checked.values()), sorted(
        t for t, ok in checked.items() if not ok
    )


def test_every_ground_truth_executes(world: AirlineWorld, entries: list) -> None:
    tasks = {entry["task_id"]: entry for entry in entries}
    assert len(tasks) == 50
    for entry in tasks.values():
        ground_truth(world, entry)  # asserts every action succeeds


def test_final_states_reproduce_tau_bench_s_reward(
    world: AirlineWorld, replayed: list, capsys: pytest.CaptureFixture[str]
) -> None:
    truth: dict[int, str] = {}
    agree, compared, hash_alone = 0, 0, 0
    for entry, _, _, state in replayed:
        if entry["info"]["task"]["outputs"]:
            continue  # rewarded on the replies, not on the database
        task = entry["task_id"]
        if task not in truth:
            truth[task] = ground_truth(world, entry).state_hash()
        same = state.state_hash() == truth[task]
        compared += 1
        hash_alone += same == (entry["reward"] == 1)
        agree += (same and not hit_step_cap(entry)) == (entry["reward"] == 1)
    with capsys.disabled():
        print(f"\nreward reproduced on {agree}/{compared} (state hash alone: {hash_alone})")
    assert compared == 184 and agree == compared


# ---------------------------------------------------------------------- tools and arguments


def test_the_signatures_restate_tau_bench_s_schemas() -> None:
    for tool in json.loads(TOOLS.read_text(encoding="utf-8")):
        function = tool["function"]
        params = function["parameters"]
        signature = SIGNATURES[function["name"]]
        assert sorted(params["required"]) == sorted(params["properties"]) == sorted(signature)
        for name, schema in params["properties"].items():
            kind = signature[name]
            if isinstance(kind, tuple):
                items = schema["items"]
                assert schema["type"] == kind[0] == "array"
                assert sorted(items["required"]) == sorted(kind[1])
                assert {f: s["type"] for f, s in items["properties"].items()} == kind[1]
            else:
                assert schema["type"] == kind
    assert len(SIGNATURES) == 14


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("get_user_details", {}, "Error: missing argument 'user_id' for get_user_details"),
        (
            "get_user_details",
            {"user_id": "mia_li_3668", "x": 1},
            "Error: unexpected argument 'x' for get_user_details",
        ),
        ("send_certificate", {"user_id": "mia_li_3668", "amount": "100"}, "must be a number"),
        ("send_certificate", {"user_id": "mia_li_3668", "amount": True}, "must be a number"),
        ("cancel_reservation", ["4WQ150"], "Error: arguments must be an object"),
        (
            "update_reservation_passengers",
            {"reservation_id": "4WQ150", "passengers": [{}]},
            "is missing",
        ),
        ("fly_me_to_the_moon", {}, "Error: unknown tool 'fly_me_to_the_moon'"),
        ("get_user_details", {"user_id": "nobody"}, "Error: user not found"),
        ("cancel_reservation", {"reservation_id": "NOPE00"}, "Error: reservation not found"),
        ("calculate", {"expression": "__import__('os')"}, "Error: invalid characters"),
        ("calculate", {"expression": "1 / 0"}, "Error: division by zero"),
        ("calculate", {"expression": "(1 +"}, "Error: invalid expression"),
    ],
)
def test_bad_calls_fail_with_a_clear_error_and_change_nothing(
    world: AirlineWorld, name: str, arguments: Any, error: str
) -> None:
    state = world.new_state()
    result = world.execute(state, name, arguments)
    assert not result.ok and result.content.startswith("Error: ") and error in result.content
    assert state.changes() == {}


def test_calculate_formats_as_the_recordings_do(world: AirlineWorld) -> None:
    state = world.new_state()
    got = {
        e: world.execute(state, "calculate", {"expression": e}).content
        for e in ("152 + 103", "1 / 3", "498 * 1.5", "-(2)")
    }
    assert got == {"152 + 103": "255.0", "1 / 3": "0.33", "498 * 1.5": "747.0", "-(2)": "-2.0"}


def test_a_refused_write_changes_nothing(world: AirlineWorld) -> None:
    state = world.new_state()
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
    result = world.execute(state, "book_reservation", booking)
    assert result.content == "Error: payment amount does not add up, total price is 152, but paid 1"
    assert state.changes() == {}


def test_terminal_tools_and_the_registry(world: AirlineWorld) -> None:
    assert world.terminal_tools == frozenset({"transfer_to_human_agents"})
    assert (world.name, world.version) == ("tau-bench-airline", "7362a17")
    assert REGISTRY.get("world", "tau-bench-airline") is world  # built once


# ---------------------------------------------------------------------- bad data files


@pytest.fixture
def small_data(tmp_path: Path) -> Path:
    for name in ("users", "flights", "reservations"):
        (tmp_path / f"{name}.json").write_text("{}", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("users.json", None, "missing"),
        ("flights.json", "{not json", "not valid JSON (line 1"),
        ("reservations.json", "[]", "expected one JSON object"),
        ("flights.json", '{"HAT001": {"flight_number": "HAT002"}}', "has flight_number 'HAT002'"),
        ("users.json", '{"u": 3}', "record 'u' is int"),
    ],
)
def test_a_bad_data_file_is_one_clear_error_naming_it(
    small_data: Path, file: str, text: str | None, message: str
) -> None:
    path = small_data / file
    path.unlink() if text is None else path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInputError) as caught:
        load_data(small_data)
    assert str(path) in str(caught.value) and message in str(caught.value)
    assert caught.value.file == str(path)
