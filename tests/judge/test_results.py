"""Typed results: their JSON is their fields in order, the same dicts the pure functions build
(compare_rows, check_baseline, build_report), and the baseline a lock stores hashes its report
as before (the canonical report is the flat summary + cases + calibration dict)."""

from __future__ import annotations

from rejudge.judge import (
    BaselineCheck,
    Comparison,
    EvaluationReport,
    build_report,
    compare_rows,
    load_rule_set,
    report_hash,
)

from rejudge.services import (
    calibration_summary,
    check_evaluation_baseline,
    compare_evaluations,
    evaluation_meta,
    evaluation_report,
    evaluation_rows,
    judge_run,
    lock_evaluation_baseline,
)

from .test_batch import store  # noqa: F401  (the fixture)


def test_comparison_json_is_compare_rows_plus_the_two_sides(store) -> None:  # noqa: F811
    a = judge_run(store, "r1", "golden", load_rule_set("standard@1")).evaluation_id
    b = judge_run(store, "r1", "golden", load_rule_set("standard@2")).evaluation_id
    result = compare_evaluations(store, a, b)
    assert isinstance(result, Comparison)
    meta_a, meta_b = evaluation_meta(store, a).to_json(), evaluation_meta(store, b).to_json()
    expected = compare_rows(
        evaluation_rows(store, a), evaluation_rows(store, b), meta_a=meta_a, meta_b=meta_b
    )
    expected |= {"meta_a": meta_a, "meta_b": meta_b}
    assert list(result.to_json().items()) == list(expected.items())  # same keys, same order
    # each side's keys as they were when evaluation_meta returned this dict itself
    assert list(meta_a) == [
        *("id", "tier", "rules", "rule_set_hash", "engine_version", "inputs_hash", "status"),
        *("run", "run_id", "model", "suite_hash", "registry_hash", "harness_mode"),
    ]
    assert (meta_a["id"], meta_a["run"], meta_a["rules"]) == (a, "r1", "standard@1")


def test_an_evaluation_whose_run_is_gone_has_no_run_keys() -> None:
    """Left out, not null: a comparison's JSON is as before the meta was typed."""
    from rejudge.services import EvaluationMeta

    meta = EvaluationMeta(
        id=3,
        tier="golden",
        rules="standard@2",
        rule_set_hash="h",
        engine_version="1",
        inputs_hash=None,
        status="done",
    )
    assert meta.to_json() == {
        "id": 3,
        "tier": "golden",
        "rules": "standard@2",
        "rule_set_hash": "h",
        "engine_version": "1",
        "inputs_hash": None,
        "status": "done",
    }


def test_report_json_and_the_locked_hash(store) -> None:  # noqa: F811
    ev = judge_run(store, "r1", "golden", load_rule_set("standard@2")).evaluation_id
    report = evaluation_report(store, ev)
    assert isinstance(report, EvaluationReport)
    assert list(report.to_json()) == ["evaluation", "run", "tier", "rules", "summary", "cases"]
    full = evaluation_report(store, ev, with_calibration=True).to_json()
    calibration = calibration_summary(store, ev).to_json()
    assert list(full)[-1] == "calibration" and full["calibration"] == calibration
    rows = evaluation_rows(store, ev)
    run = store.runs.get_run("r1")
    built = build_report(
        rows,
        harness_mode=run.harness_mode,
        harness_assistance=run.config.harness_assistance.model_dump(),
    ).to_json()
    assert report.flat() == built

    locked = lock_evaluation_baseline(store, ev, "main")
    canonical = {**built, "calibration": calibration_summary(store, ev).to_json()}
    assert locked.report_sha256 == report_hash(canonical)
    assert store.baselines.get_baseline("main").report_hash == report_hash(canonical)

    check = check_evaluation_baseline(store, ev, "main")
    assert isinstance(check, BaselineCheck) and check.regression is False
    assert list(check.to_json())[-2:] == ["evaluation", "baseline_evaluation"]
