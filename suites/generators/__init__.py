"""Suite generators: suites made by a seeded program instead of written by hand.

``funcbench`` (seed 003, DESIGN §8) generates FuncBenchGen dependency-graph tasks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the entry points a type checker sees for real (the rest resolve through the lazy table
    # as Any)
    from rejudge.suites.generators._funcbench import GeneratedSuite as GeneratedSuite
    from rejudge.suites.generators._funcbench import Knobs as Knobs
    from rejudge.suites.generators._funcbench import generate_suite as generate_suite
    from rejudge.suites.generators._funcbench import (
        write_generated_suite as write_generated_suite,
    )

# public name -> the private module that defines it (each module's __all__;
# tests/test_public_api.py keeps this table complete)
_EXPORTS: dict[str, str] = {
    "FuncBenchError": "rejudge.suites.generators._funcbench",
    "GENERATOR_VERSION": "rejudge.suites.generators._funcbench",
    "GeneratedSuite": "rejudge.suites.generators._funcbench",
    "KnobError": "rejudge.suites.generators._funcbench",
    "Knobs": "rejudge.suites.generators._funcbench",
    "MAX_CASES": "rejudge.suites.generators._funcbench",
    "MAX_FUNCTIONS": "rejudge.suites.generators._funcbench",
    "MAX_NOISE": "rejudge.suites.generators._funcbench",
    "REGISTRY_FILE": "rejudge.suites.generators._funcbench",
    "components": "rejudge.suites.generators._funcbench",
    "core_depth": "rejudge.suites.generators._funcbench",
    "default_suite_name": "rejudge.suites.generators._funcbench",
    "generate_case": "rejudge.suites.generators._funcbench",
    "generate_suite": "rejudge.suites.generators._funcbench",
    "load_generated_suite": "rejudge.suites.generators._funcbench",
    "write_generated_suite": "rejudge.suites.generators._funcbench",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
