"""How the terminal writes a figure beside its count (rejudge/cli/_figures.py)."""

from __future__ import annotations

from rejudge.judge import build_report

from rejudge.cli._figures import pass_hat_k


def _row(case: str, verdict: str, rep: int) -> dict[str, object]:
    return {
        "case": case,
        "repetition": rep,
        "verdict": verdict,
        "dimension": "D1",
        "category": "x",
        "taxonomy": [],
        "partial_score": None,
        "implicated_tools": [],
    }


def test_pass_hat_k_gives_each_k_its_cases_in_words_that_agree_with_the_count() -> None:
    # a: 3 scored repetitions, b: 1 -> k=1 over 2 cases, k=2 and k=3 over one case
    rows = [_row("a", v, i) for i, v in enumerate(["PASS", "PASS", "FAIL"])]
    rows.append(_row("b", "PASS", 0))
    hat = build_report(rows).summary.pass_at_k
    assert hat is not None
    assert pass_hat_k(hat) == "k=1: 83.3% (2 cases)  k=2: 33.3% (1 case)  k=3: 0.0% (1 case)"
    # one case for every k: said once
    one = build_report([_row("a", "PASS", 0), _row("a", "FAIL", 1)]).summary.pass_at_k
    assert one is not None and pass_hat_k(one) == "k=1: 50.0%  k=2: 0.0% (over 1 case)"
