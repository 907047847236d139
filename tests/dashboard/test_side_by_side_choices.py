"""The side-by-side page's picker of flipped cases lists them as a person reads them."""

from __future__ import annotations

from rejudge.dashboard.sidebyside import flip_labels, natural_key


def test_numbers_in_case_ids_sort_by_value() -> None:
    """As text, "r10" came before "r2" (and repetition 10 before 2)."""
    flips = [("r10", 0), ("r2", 10), ("r2", 2), ("r1", 0), ("r2", 2), ("case-9b", 0)]
    assert flip_labels(flips) == [
        "case-9b · r0",
        "r1 · r0",
        "r2 · r2",
        "r2 · r10",
        "r10 · r0",
    ]


def test_text_parts_still_sort_as_text_and_ties_are_stable() -> None:
    ids = ["b2", "a10", "a2", "a", "a02", "10", "9", "a2x", "a2b"]
    assert sorted(ids, key=natural_key) == ["9", "10", "a", "a02", "a2", "a2b", "a2x", "a10", "b2"]
