"""Suite generators: suites made by a seeded program instead of written by hand.

``funcbench`` (seed 003, DESIGN §8) generates FuncBenchGen dependency-graph tasks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use)
    from rejudge.suites.generators._funcbench import GENERATOR_VERSION as GENERATOR_VERSION
    from rejudge.suites.generators._funcbench import MAX_CASES as MAX_CASES
    from rejudge.suites.generators._funcbench import MAX_FUNCTIONS as MAX_FUNCTIONS
    from rejudge.suites.generators._funcbench import MAX_NOISE as MAX_NOISE
    from rejudge.suites.generators._funcbench import REGISTRY_FILE as REGISTRY_FILE
    from rejudge.suites.generators._funcbench import FuncBenchError as FuncBenchError
    from rejudge.suites.generators._funcbench import GeneratedSuite as GeneratedSuite
    from rejudge.suites.generators._funcbench import KnobError as KnobError
    from rejudge.suites.generators._funcbench import Knobs as Knobs
    from rejudge.suites.generators._funcbench import components as components
    from rejudge.suites.generators._funcbench import core_depth as core_depth
    from rejudge.suites.generators._funcbench import default_suite_name as default_suite_name
    from rejudge.suites.generators._funcbench import generate_case as generate_case
    from rejudge.suites.generators._funcbench import generate_suite as generate_suite
    from rejudge.suites.generators._funcbench import load_generated_suite as load_generated_suite
    from rejudge.suites.generators._funcbench import write_generated_suite as write_generated_suite


__getattr__, __dir__ = lazy_exports(__name__)
