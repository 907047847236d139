"""Suite generators: suites made by a seeded program instead of written by hand.

``funcbench`` (seed 003, DESIGN §8) generates FuncBenchGen dependency-graph tasks.
"""

from __future__ import annotations
