"""τ²-bench's airline world: its database at τ² commit 8d005b0 and tools written here.

Registers the world ``tau2-airline`` (version ``8d005b0``) with :data:`rejudge.registry.REGISTRY`
on import; the database (7.0 MB, shipped byte for byte in ``data/db.json``, MIT, see
``README.md`` and ``data/LICENSE``) is read on the first lookup, once per process, and refused
when its bytes are not that version's (:data:`DB_SHA256`).
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from rejudge.suites.worlds._tau2 import Tau2World
from rejudge.suites.worlds.tau2_airline.records import reservation_form
from rejudge.suites.worlds.tau2_airline.tools import READ_TOOLS, TERMINAL_TOOLS, TOOLS, run

from rejudge.errors import InvalidInputError
from rejudge.model import CallResult, WorldData, WorldState, world_key
from rejudge.registry import REGISTRY

__all__ = [
    "DATA_FILE",
    "DB_SHA256",
    "NAME",
    "READ_TOOLS",
    "TERMINAL_TOOLS",
    "VERSION",
    "Tau2AirlineWorld",
    "load_data",
    "world",
]

NAME = "tau2-airline"
#: the τ² commit whose ``data/tau2/domains/airline/db.json`` ships here (the same blob from
#: τ²'s first release through every commit the shared runs name)
VERSION = "8d005b0"
#: sha256 of that file: the data of this version and no other
DB_SHA256 = "1af9fea6e03ca7ca15a22bb3fcaf3e351393e3fc9070b6777947da8996f7531b"
DATA_FILE = Path(__file__).parent / "data" / "db.json"


def load_data(path: Path = DATA_FILE) -> WorldData:
    """The database as world data: tables ``flights``, ``users``, ``reservations`` keyed as in
    the file, every reservation in τ²'s model form (:func:`~.records.reservation_form`).

    A file of another version (other bytes) is refused: the world's tools and its version
    name describe this data, and a registry made with it is keyed by its hash."""
    try:
        raw_bytes = path.read_bytes()
    except FileNotFoundError:
        raise InvalidInputError(
            f"world {NAME}: its data {path} is missing; reinstall rejudge", file=str(path)
        ) from None
    except OSError as exc:
        raise InvalidInputError(
            f"world {NAME}: {path} cannot be read ({exc})", file=str(path)
        ) from None
    digest = hashlib.sha256(raw_bytes).hexdigest()
    if digest != DB_SHA256:
        raise InvalidInputError(
            f"world {NAME} {VERSION}: {path} is not τ²'s airline database at {VERSION} (sha256 "
            f"{digest[:12]}…, expected {DB_SHA256[:12]}…); data of another version is another "
            "world version, never loaded under this one",
            file=str(path),
        )
    raw: dict[str, Any] = json.loads(raw_bytes)
    tables = {
        "flights": raw["flights"],
        "users": raw["users"],
        "reservations": {k: reservation_form(r) for k, r in raw["reservations"].items()},
    }
    return WorldData.of(NAME, VERSION, tables)


_TOOL_NAMES = frozenset(TOOLS)


class Tau2AirlineWorld(Tau2World):
    name = NAME
    version = VERSION
    terminal_tools = TERMINAL_TOOLS

    def tool_names(self) -> frozenset[str]:
        return _TOOL_NAMES

    def run(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        return run(state, name, arguments)

    def failure(self, name: str, exc: Exception) -> CallResult:
        # τ² words any exception a tool raises as "Error: " and the exception's text
        return CallResult(False, f"Error: {exc}")


@cache
def world() -> Tau2AirlineWorld:
    """The world, built once per process."""
    return Tau2AirlineWorld(load_data())


# the latest version under the bare name, every version under its key (rejudge.model.world_key)
REGISTRY.register_factory("world", NAME, world)
REGISTRY.register_factory("world", world_key(NAME, VERSION), world)
