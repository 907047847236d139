"""τ-bench's airline world (``tau-bench-airline``, data version ``7362a17``).

The initial database is τ-bench's own, shipped in ``data/`` byte for byte (MIT, see
``data/README.md``); the 14 tools are written here from their schemas, the results recorded in
τ-bench's published GPT-4o trajectories and what τ-bench documents of their behaviour. The proof
of faithfulness is tests/suites/test_tau_airline_world.py: re-executing all 1,164 recorded calls
gives back every recorded result byte for byte.

Importing this module registers the world's factory; the data is read on the first lookup
(``REGISTRY.get("world", "tau-bench-airline")``), once per process.
"""

from __future__ import annotations

from functools import cache

from rejudge.model import world_key
from rejudge.registry import REGISTRY

from ._data import DATA_DIR, NAME, VERSION, load_data
from ._world import AirlineWorld

__all__ = ["DATA_DIR", "NAME", "VERSION", "AirlineWorld", "build", "load_data"]


@cache
def build() -> AirlineWorld:
    """The world on the shipped data (what the registry's factory builds, once: both of its
    names share it)."""
    return AirlineWorld(load_data())


# the latest version under the bare name, every version under its key (rejudge.model.world_key)
REGISTRY.register_factory("world", NAME, build)
REGISTRY.register_factory("world", world_key(NAME, VERSION), build)
