"""Suite generators: suites made by a seeded program instead of written by hand.

``funcbench`` (seed 003, DESIGN §8) generates FuncBenchGen dependency-graph tasks.
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

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
