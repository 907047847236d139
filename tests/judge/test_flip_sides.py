"""A flip of two typed sides (the compare service's SQL join) is the flip of their rows."""

from __future__ import annotations

from rejudge.judge import FlipSide, flip_between, flip_of


def test_typed_sides_flip_as_their_rows_do() -> None:
    a = FlipSide("pass", ["x"], "d1", None, 1.0, {"trace_hash": "t", "rule_set_hash": "r1"})
    b = FlipSide("fail", ("y",), None, "c", 0.5, {"trace_hash": "t", "rule_set_hash": "r2"})
    rows = [
        {"verdict": s.verdict, "taxonomy": list(s.taxonomy), "dimension": s.dimension}
        | {"category": s.category, "partial_score": s.partial_score, **s.inputs}
        for s in (a, b)
    ]
    flip = flip_between("case-1", 2, a, b)
    assert flip == flip_of("case-1", 2, *rows)
    assert (flip.from_verdict, flip.to_verdict, flip.causes) == ("pass", "fail", ["rules changed"])
    assert (flip.dimension, flip.category, flip.partial_from, flip.partial_to) == (
        "d1",
        "c",
        1.0,
        0.5,
    )
    assert (flip.taxonomy_from, flip.taxonomy_to) == (["x"], ["y"])
