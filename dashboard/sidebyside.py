"""What the side-by-side page compares: one case under two evaluations, round by round.

Pure (no Streamlit): which arguments of two aligned calls differ and which rule settings differ
(``description`` is a label, not a setting). Why the verdict changed is the judge's comparison's
flip, which the page shows as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rejudge.judge import diff_rule_sets

from rejudge.model import RuleSet

__all__ = [
    "differing_arguments",
    "call_highlights",
    "settings_diff",
    "IGNORED_SETTINGS",
    "pair_link",
    "aligned",
    "natural_key",
    "flip_labels",
]

_ABSENT = object()
# rule-set fields that name or describe the rules without changing a verdict
IGNORED_SETTINGS = ("description",)


def differing_arguments(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> set[str]:
    """Argument names whose values differ between two calls (one side missing counts)."""
    a = a or {}
    b = b or {}
    return {k for k in set(a) | set(b) if a.get(k, _ABSENT) != b.get(k, _ABSENT)}


def _calls(body: Mapping[str, Any], position: int) -> list[Mapping[str, Any]]:
    rounds = body.get("rounds") or []
    return list(rounds[position].get("calls") or []) if position < len(rounds) else []


def call_highlights(
    body: Mapping[str, Any], other: Mapping[str, Any]
) -> dict[tuple[int, int], set[str]]:
    """For each (round, call) of ``body``: the arguments that differ from the call in the same
    place of ``other`` (a call with no counterpart, or another tool, differs in every argument)."""
    out: dict[tuple[int, int], set[str]] = {}
    for position in range(len(body.get("rounds") or [])):
        mine, theirs = _calls(body, position), _calls(other, position)
        for index, call in enumerate(mine):
            twin = theirs[index] if index < len(theirs) else None
            arguments = call.get("arguments") or {}
            if twin is None or twin.get("name") != call.get("name"):
                names = set(arguments)
            else:
                names = differing_arguments(arguments, twin.get("arguments"))
            if names:
                out[(position, index)] = names
    return out


def settings_diff(a: RuleSet, b: RuleSet) -> list[dict[str, Any]]:
    """The rule settings that differ, as ``(setting, A, B)`` rows; labels left out."""
    return [d for d in diff_rule_sets(a, b) if d["path"] not in IGNORED_SETTINGS]


def pair_link(
    a: int, b: int, case: str, repetition: int, repetition_b: int | None = None
) -> dict[str, str]:
    """The side-by-side page's query parameters for one case under evaluations A and B (B's
    repetition another one when ``repetition_b`` says so)."""
    params = {"a": str(a), "b": str(b), "case": case, "rep": str(repetition)}
    if repetition_b is not None and repetition_b != repetition:
        params["rep_b"] = str(repetition_b)
    return params


def aligned(a: Sequence[Any], b: Sequence[Any]) -> list[tuple[Any | None, Any | None]]:
    """Two sequences position by position, the shorter padded with None."""
    n = max(len(a), len(b))
    return [(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(n)]


_DIGITS = re.compile(r"([0-9]+)")


def natural_key(text: str) -> tuple[tuple[str | int, ...], str]:
    """``text``'s place in a list as a person reads it: runs of digits by their value, so "r2"
    comes before "r10" (as text, "1" < "2" put it after); the text breaks ties ("r02", "r2")."""
    # split with a group alternates text and digits, so both sides compare str with str and
    # int with int at every position
    parts = _DIGITS.split(text)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), text


def flip_labels(flips: Iterable[tuple[str, int]]) -> list[str]:
    """The picker's ``case · rN`` labels of (case, repetition) pairs, once each, cases in
    natural order (:func:`natural_key`) and each case's repetitions by number."""
    pairs = sorted(set(flips), key=lambda p: (natural_key(p[0]), p[1]))
    return [f"{case} · r{repetition}" for case, repetition in pairs]
