"""Statistics every surface shows: defined once, so the CLI, the demo and the dashboard print the
same interval for the same counts."""

from __future__ import annotations

import math

__all__ = ["wilson_interval"]


def wilson_interval(passed: int, scored: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """95% Wilson score interval of ``passed / scored`` (``(0, 1)`` when nothing was scored;
    sound at 0 and at ``scored``, unlike p ± 2 se)."""
    if scored <= 0:
        return (0.0, 1.0)
    p = passed / scored
    denom = 1 + z * z / scored
    centre = (p + z * z / (2 * scored)) / denom
    half = z * math.sqrt(p * (1 - p) / scored + z * z / (4 * scored * scored)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
