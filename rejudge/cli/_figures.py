"""Rates and counts as the terminal writes them: a rate never without its count.

"(38/33)" for PASS/FAIL reads as a fraction and "100%" alone hides whether it is 1 of 1 or 200
of 200 (issue 39), so every renderer writes a rate as ``48.6% (35 of 72)`` and a PASS/FAIL
pair as ``35 PASS, 37 FAIL``.
"""

from __future__ import annotations

from rejudge.model import PassHatK, VerdictCounts

__all__ = ["pct", "rate", "verdict_rate", "pass_fail", "of", "pass_hat_k"]


def pct(value: float | None) -> str:
    """A share as a percentage to one place, ``n/a`` when there is none."""
    return "n/a" if value is None else f"{100 * value:.1f}%"


def of(part: int, whole: int) -> str:
    """``35 of 72``: a count out of its whole, never ``35/72``."""
    return f"{part} of {whole}"


def rate(part: int, whole: int) -> str:
    """``48.6% (35 of 72)``; ``n/a (0 of 0)`` when there is nothing to divide by."""
    return f"{pct(part / whole if whole else None)} ({of(part, whole)})"


def verdict_rate(counts: VerdictCounts) -> str:
    """Accuracy with its count: PASS of PASS + FAIL (SKIP and AGENT_ERROR are never in the
    denominator)."""
    return rate(counts.PASS, counts.PASS + counts.FAIL)


def pass_fail(counts: VerdictCounts) -> str:
    """``35 PASS, 37 FAIL``, with SKIP and AGENT_ERROR only when there are any."""
    parts = [f"{counts.PASS} PASS", f"{counts.FAIL} FAIL"]
    parts += [
        f"{n} {kind}"
        for kind, n in (("SKIP", counts.SKIP), ("AGENT_ERROR", counts.AGENT_ERROR))
        if n
    ]
    return ", ".join(parts)


def pass_hat_k(hat: PassHatK, sep: str = ": ", join: str = "  ") -> str:
    """``k=1: 42.0%  k=2: 27.3% (over 50 cases)``: pass^k is a mean over cases, not a count's
    rate, so its count is the cases it is over (those with at least k scored repetitions),
    given once when every k has the same and beside each k when not. Bare only for a
    pass^k read back from JSON, which holds no counts."""
    shown = {k: f"k={k}{sep}{pct(v)}" for k, v in hat.values.items()}
    counts = {hat.cases[k] for k in shown if k in hat.cases}
    if len(hat.cases) < len(shown) or not counts:
        return join.join(shown.values())
    if len(counts) == 1:
        return join.join(shown.values()) + f" (over {_cases(counts.pop())})"
    return join.join(f"{text} ({_cases(hat.cases[k])})" for k, text in shown.items())


def _cases(n: int) -> str:
    return f"{n} case{'' if n == 1 else 's'}"
