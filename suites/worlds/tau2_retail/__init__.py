"""τ²-bench's retail world: its database at τ² commit 8d005b0 and tools written here.

Registers the world ``tau2-retail`` with :data:`rejudge.registry.REGISTRY` on import, in two
versions on the same data: ``8d005b0`` (the tools as first written from the recordings) and
``8d005b0-2`` (the latest, under the bare name too: what ``8d005b0`` got wrong against τ²'s own
tools corrected, see ``README.md``); a registry made with ``8d005b0`` is judged under it, so
its judgments keep their keys. The database (2.8 MB, shipped byte for byte in ``data/db.json``,
MIT, see ``README.md`` and ``data/LICENSE``) is read on the first lookup, once per process, and
shared by both versions.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from rejudge.suites.worlds._tau2 import Tau2World
from rejudge.suites.worlds.tau2_retail.records import order_form
from rejudge.suites.worlds.tau2_retail.schemas import TOOL_SCHEMAS
from rejudge.suites.worlds.tau2_retail.tools import (
    READ_TOOLS,
    TERMINAL_TOOLS,
    TOOLS,
    TOOLS_REVISION_2,
    run,
)

from rejudge.errors import InvalidInputError
from rejudge.model import CallResult, WorldData, WorldState, world_key
from rejudge.registry import REGISTRY

__all__ = [
    "DATA_FILE",
    "NAME",
    "READ_TOOLS",
    "TERMINAL_TOOLS",
    "TOOL_SCHEMAS",
    "VERSION",
    "VERSION_2",
    "Tau2RetailWorld",
    "Tau2RetailWorld2",
    "load_data",
    "world",
    "world_8d005b0",
]

NAME = "tau2-retail"
#: the τ² commit whose ``data/tau2/domains/retail/db.json`` ships here
VERSION = "8d005b0"
#: the same data, the tools' second revision (the version a new import names)
VERSION_2 = "8d005b0-2"
DATA_FILE = Path(__file__).parent / "data" / "db.json"


def load_data(path: Path = DATA_FILE) -> WorldData:
    """The database as world data: tables ``users``, ``orders``, ``products`` keyed as in the
    file; every order in τ²'s model form (:func:`~.records.order_form`)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInputError(
            f"world {NAME}: its data {path} is missing", file=str(path)
        ) from None
    except (OSError, ValueError) as exc:
        raise InvalidInputError(
            f"world {NAME}: {path} is not JSON ({exc})", file=str(path)
        ) from None
    if not isinstance(raw, dict) or not {"users", "orders", "products"} <= set(raw):
        raise InvalidInputError(
            f"world {NAME}: {path} lacks the users, orders or products table", file=str(path)
        )
    tables = {
        "users": raw["users"],
        "orders": {key: order_form(order) for key, order in raw["orders"].items()},
        "products": raw["products"],
    }
    return WorldData.of(NAME, VERSION, tables)


_TOOL_NAMES = frozenset(TOOLS)


class Tau2RetailWorld(Tau2World):
    name = NAME
    version = VERSION
    terminal_tools = TERMINAL_TOOLS
    tools: dict[str, Any] = TOOLS

    def tool_names(self) -> frozenset[str]:
        return _TOOL_NAMES

    def run(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        return run(state, name, arguments, self.tools)


class Tau2RetailWorld2(Tau2RetailWorld):
    """Revision 2 of the tools (same data): τ²'s exchange of an item for the same variant, and
    τ²'s words for a refused return or payment change (see ``README.md``). τ² keeps no stock
    (a variant is available or not, and no write changes that), so neither revision does."""

    version = VERSION_2
    tools = TOOLS_REVISION_2


@cache
def world_8d005b0() -> Tau2RetailWorld:
    """Version ``8d005b0`` (revision 1), built once per process."""
    return Tau2RetailWorld(load_data())


@cache
def world() -> Tau2RetailWorld:
    """The latest version (``8d005b0-2``), built once per process."""
    data = world_8d005b0().data  # the same tables, read once: only the version differs
    return Tau2RetailWorld2(WorldData(NAME, VERSION_2, data.tables, data.hash))


# the latest version under the bare name, every version under its key (rejudge.model.world_key)
REGISTRY.register_factory("world", NAME, world)
REGISTRY.register_factory("world", world_key(NAME, VERSION), world_8d005b0)
REGISTRY.register_factory("world", world_key(NAME, VERSION_2), world)
