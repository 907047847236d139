"""Which two evaluations Compare opens on when the address names none: the newest evaluation
and the newest earlier one it can be compared with (no Streamlit here).

Candidates are tried newest first, those that share B's suite, registry and harness mode first
(what comparability asks), and each is checked with the comparison's own rule (the caller's
``is_comparable``), a handful at most, so a store of thousands of evaluations opens at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rejudge.store import EvaluationSummary

__all__ = ["default_pair"]

TRIES = 8


def default_pair(
    rows: Sequence[EvaluationSummary], is_comparable: Callable[[int, int], bool]
) -> tuple[int, int] | None:
    """(A, B) evaluation ids, B the newer; None when no pair among the tried is comparable."""
    newest = sorted(rows, key=lambda r: r.id, reverse=True)
    tries = 0
    for b in newest:
        earlier = [r for r in newest if r.id < b.id]
        alike = [
            r
            for r in earlier
            if (r.suite_hash, r.registry_hash, r.harness_mode)
            == (b.suite_hash, b.registry_hash, b.harness_mode)
        ]
        for a in alike:
            tries += 1
            if is_comparable(a.id, b.id):
                return a.id, b.id
            if tries >= TRIES:
                return None
    return None
