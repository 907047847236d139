"""Baselines: a report locked to its inputs, and the regression check CI runs against it.

``lock_baseline`` binds a report (from :func:`judge.report.build_report`, with its ``cases``) to
every input hash the caller passes (suite, registry, rule set, tier, engine version, harness
mode, model, ...) and to the sha256 of the report's canonical JSON.

``check_baseline`` compares a current report with a locked one. It refuses (raises
:class:`BaselineMismatchError`) when an input differs, unless ``allow_mismatch``; a regression
is any PASS->FAIL flip (``fail_on_flip``) or an accuracy drop larger than ``max_accuracy_drop``
(absolute, e.g. 0.02 for two points).

An input that is a judge parameter of the judgments' keys (``side == "judge"`` in
:data:`rejudge.model.KEY_PARAMETERS`: tier, rule set, registry/world, engine, and whatever the
table adds) is a *judge change*, refused as "judge changed": the baseline gates a model, and
another judge's verdicts say nothing of a better or worse model (a laxer judge would pass
everything). Allowed anyway, the result names the judge change (``judge_changed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.model import KEY_PARAMETERS, content_hash

__all__ = [
    "BaselineMismatchError",
    "judge_changes",
    "report_hash",
    "lock_baseline",
    "verify_baseline",
    "check_baseline",
]


class BaselineMismatchError(InvalidInputError):
    """The evaluation's inputs differ from the baseline's."""


def report_hash(report: Mapping[str, Any]) -> str:
    """sha256 of the report's canonical JSON (sorted keys, no whitespace)."""
    return content_hash(dict(report))


def lock_baseline(
    name: str, report: Mapping[str, Any], inputs: Mapping[str, Any]
) -> dict[str, Any]:
    if not name:
        raise InvalidInputError("a baseline needs a name", field="name")
    report = dict(report)
    return {
        "name": name,
        "inputs": dict(sorted(inputs.items())),
        "report": report,
        "report_sha256": report_hash(report),
    }


def verify_baseline(baseline: Mapping[str, Any]) -> bool:
    """True when the stored report still hashes to the locked digest."""
    return report_hash(baseline.get("report", {})) == baseline.get("report_sha256")


def judge_changes(mismatches: list[dict[str, Any]]) -> list[str]:
    """The judge parameters among mismatched inputs, as their causes (``tier changed``, ...), in
    :data:`~rejudge.model.KEY_PARAMETERS` order."""
    names = {m["input"] for m in mismatches}
    return [p.cause for p in KEY_PARAMETERS if p.side == "judge" and p.field in names]


def _counts(report: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """(PASS, scored) of a report, the two counts its accuracy is a rate of; None where the
    report does not hold them."""
    counts = report.get("verdict_counts")
    passed = counts.get("PASS") if isinstance(counts, Mapping) else None
    return passed, report.get("scored_count")


def check_baseline(
    baseline: Mapping[str, Any],
    report: Mapping[str, Any],
    inputs: Mapping[str, Any],
    *,
    fail_on_flip: bool = True,
    max_accuracy_drop: float = 0.0,
    allow_mismatch: bool = False,
) -> dict[str, Any]:
    if not verify_baseline(baseline):
        raise BaselineMismatchError(
            f"baseline {baseline.get('name')!r} does not match its own sha256; it was altered "
            "after locking: lock it again"
        )
    locked_inputs = dict(baseline.get("inputs", {}))
    mismatches = [
        {"input": key, "baseline": locked_inputs[key], "current": inputs.get(key)}
        for key in sorted(locked_inputs)
        if key in inputs and inputs.get(key) != locked_inputs[key]
    ]
    judge_changed = judge_changes(mismatches)
    if mismatches and not allow_mismatch:
        names = ", ".join(m["input"] for m in mismatches)
        if judge_changed:
            raise BaselineMismatchError(
                f"judge changed from baseline {baseline.get('name')!r} "
                f"({', '.join(judge_changed)}; inputs {names}): another judge's verdicts say "
                "nothing of a better or worse model (a laxer judge is not a better model); judge "
                "the evaluation as the baseline was, lock a new baseline, or allow the mismatch",
                field="allow_mismatch",
            )
        raise BaselineMismatchError(
            f"evaluation inputs differ from baseline {baseline.get('name')!r} ({names}); "
            "allow the mismatch to compare anyway, or lock a new baseline",
            field="allow_mismatch",
        )
    old = {(c["case"], c.get("repetition", 0)): c for c in baseline["report"].get("cases", [])}
    new = {(c["case"], c.get("repetition", 0)): c for c in report.get("cases", [])}
    flips = [
        {
            "case": k[0],
            "repetition": k[1],
            "from": "PASS",
            "to": "FAIL",
            "taxonomy": list(new[k].get("taxonomy") or []),
        }
        for k in sorted(set(old) & set(new), key=lambda k: (str(k[0]), k[1]))
        if old[k].get("verdict") == "PASS" and new[k].get("verdict") == "FAIL"
    ]
    missing = sorted(set(old) - set(new), key=lambda k: (str(k[0]), k[1]))
    acc_old = baseline["report"].get("accuracy")
    acc_new = report.get("accuracy")
    drop = round(acc_old - acc_new, 6) if acc_old is not None and acc_new is not None else None
    passed_old, scored_old = _counts(baseline["report"])
    passed_new, scored_new = _counts(report)
    reasons = []
    if fail_on_flip and flips:
        reasons.append(f"{len(flips)} PASS->FAIL flip(s)")
    if drop is not None and drop > max_accuracy_drop + 1e-12:
        reasons.append(f"accuracy dropped by {drop:.4f} (allowed {max_accuracy_drop:.4f})")
    if acc_old is not None and acc_new is None:
        reasons.append("no scored cases in the current evaluation")
    return {
        "baseline": baseline.get("name"),
        "regression": bool(reasons),
        "reasons": reasons,
        "accuracy_baseline": acc_old,
        "accuracy_current": acc_new,
        "accuracy_drop": drop,
        # each accuracy's count beside it (issue 39: a rate never without its count)
        "passed_baseline": passed_old,
        "scored_baseline": scored_old,
        "passed_current": passed_new,
        "scored_current": scored_new,
        "flips": flips,
        "missing_cases": [{"case": c, "repetition": r} for c, r in missing],
        "input_mismatches": mismatches,
        "judge_changed": judge_changed,
    }
