"""Agreement of a run's evaluations with an external verdict stored on its traces: the data of
``rejudge report EVAL --against external`` and of the dashboard's agreement page.

Given an evaluation, every tier the run was judged under takes part: for each tier, the latest
finished evaluation under one rule set, so the tiers are compared on equal rules: the one given
(``--rules``), else the one that follows the external source's reward at the version that gave
its verdicts (τ-bench's reward changed at 59a200c), when the run was judged under it, else the
evaluation's own (the given evaluation for its tier). The view says which and why. The statistics are pure (:mod:`rejudge.judge._agreement`), the result
is the model's :class:`rejudge.model.Agreement`.
"""

from __future__ import annotations

from rejudge.errors import NotFoundError
from rejudge.judge import (
    TIER_DOES_NOT_APPLY,
    external_pass_hat_k,
    matching_rule_set,
    tier_agreement,
)
from rejudge.model import Agreement, RuleSet
from rejudge.store import RunRecord, Store

__all__ = ["evaluation_agreement", "run_agreement"]


#: a source's verdicts on a run: its name, (case, repetition) -> (value, passed), its versions
_External = tuple[str, dict[tuple[str, int], tuple[float, bool]], set[str | None]]


def _external(store: Store, run_id: int, source: str | None) -> _External:
    sources = store.external.external_sources(run_id)
    if not sources:
        raise NotFoundError(
            f"run {run_id} has no external verdict on its traces (import them with the run, "
            "e.g. from a τ-bench file)",
            run=run_id,
            field="source",
        )
    if source is None:
        if len(sources) > 1:
            raise NotFoundError(
                f"run {run_id} has verdicts of several sources ({', '.join(sources)}); name one",
                run=run_id,
                field="source",
            )
        source = next(iter(sources))
    elif source not in sources:
        raise NotFoundError(
            f"run {run_id} has no {source} verdicts (it has {', '.join(sources)})",
            run=run_id,
            field="source",
        )
    verdicts = store.external.external_verdicts(run_id, source)
    return (
        source,
        {(v.case_key, v.repetition): (v.verdict.value, v.verdict.passed) for v in verdicts},
        {v.verdict.version for v in verdicts},
    )


def run_agreement(
    store: Store,
    run: str | int,
    *,
    rule_set_id: int | None = None,
    source: str | None = None,
    prefer: dict[str, int] | None = None,
    rules_reason: str | None = None,
) -> Agreement:
    """Per tier, the run's latest finished evaluation (under ``rule_set_id`` when given; ``prefer``:
    tier -> evaluation id to use for that tier) against the external verdicts of ``source``."""
    record = store.runs.get_run(run)
    return _agreement(
        store,
        record,
        _external(store, record.id, source),
        rule_set_id=rule_set_id,
        prefer=prefer,
        rules_reason=rules_reason,
    )


def _agreement(
    store: Store,
    record: RunRecord,
    read: _External,
    *,
    rule_set_id: int | None,
    prefer: dict[str, int] | None,
    rules_reason: str | None,
) -> Agreement:
    """:func:`run_agreement` on external verdicts already read (``read``: :func:`_external`)."""
    source, external, versions = read
    chosen: dict[str, int] = {}
    for ev in store.evaluations.list_evaluations(record.id):
        if ev.status != "finished" or (rule_set_id is not None and ev.rule_set_id != rule_set_id):
            continue
        chosen[ev.tier] = ev.id  # ascending ids: the latest wins
    chosen.update(prefer or {})
    tiers = []
    for tier, ev_id in sorted(chosen.items()):
        ev = store.evaluations.get_evaluation(ev_id)
        rules = store.rule_sets.get_rule_set(ev.rule_set_id).ref
        rows = (
            {
                "case": r.case_key,
                "repetition": r.repetition,
                "verdict": r.verdict,
                "taxonomy": r.taxonomy or [],
                "reasons": r.paths.get("reasons") or [],
            }
            for r in store.judgments.iter_evaluation_rows(
                ev.id, body_paths={"reasons": ["reasons"]}
            )
        )
        agreement = tier_agreement(rows, external, tier=tier, evaluation=ev.id, rules=rules)
        if agreement.table.total == 0 and not _applies(store, ev.id):
            continue  # a tier that judges no case of this run (every verdict "does not apply")
        tiers.append(agreement)
    passed = sum(1 for _v, p in external.values() if p)
    return Agreement(
        run=record.name,
        source=source,
        traces=len(external),
        external_pass_rate=round(passed / len(external), 6) if external else None,
        external_pass_hat_k=external_pass_hat_k(external),
        tiers=tiers,
        rules=store.rule_sets.get_rule_set(rule_set_id).ref if rule_set_id is not None else None,
        rules_reason=rules_reason,
        external_versions=sorted(versions, key=lambda v: (v is None, v or "")),
        external_passed=passed,
    )


def _applies(store: Store, evaluation_id: int) -> bool:
    """Whether the tier applied to any case of the evaluation (a SKIP "tier does not apply"
    on every row means it did not: such an evaluation has no place in an agreement table)."""
    for row in store.judgments.iter_evaluation_rows(
        evaluation_id, body_paths={"reasons": ["reasons"]}
    ):
        reasons = row.paths.get("reasons") or []
        if row.verdict != "SKIP" or not str(reasons[0] if reasons else "").startswith(
            TIER_DOES_NOT_APPLY
        ):
            return True
    return False


def evaluation_agreement(
    store: Store,
    evaluation_id: int | str,
    *,
    source: str | None = None,
    rules: RuleSet | None = None,
) -> Agreement:
    """The agreement view of ``rejudge report EVAL --against external``: the run's tiers under
    one rule set against the external verdicts. The rule set: ``rules`` when given; else the one
    that follows the source's reward at the version that gave its verdicts
    (:func:`rejudge.judge.matching_rule_set`: τ-bench's 7362a17 or 59a200c) when the run was
    judged under it; else EVAL's own. The result says which and why."""
    ev = store.evaluations.get_evaluation(evaluation_id)
    # read once: the rule set is chosen by the verdicts' versions, then they are compared
    read = _external(store, ev.run_id, source)
    name, _verdicts, versions = read
    by_ref: dict[str, int] = {}
    for other in store.evaluations.list_evaluations(ev.run_id):
        if other.status == "finished":
            by_ref.setdefault(
                store.rule_sets.get_rule_set(other.rule_set_id).ref, other.rule_set_id
            )
    own = store.rule_sets.get_rule_set(ev.rule_set_id).ref
    if rules is not None:
        if rules.ref not in by_ref:
            raise NotFoundError(
                f"run {ev.run_id} has no finished evaluation under {rules.ref}: judge it first "
                f"under the state tier with rule set {rules.ref}",
                run=ev.run_id,
                field="rules",
            )
        chosen, why = rules.ref, "given explicitly"
    else:
        match, why = matching_rule_set(name, versions)
        if match is not None and match in by_ref:
            chosen = match
        elif match is not None:
            chosen = own
            why = (
                f"EVAL's rule set: the run has no evaluation under {match}, the rule set that "
                f"matches ({why}); judge it under rule set {match} to compare like with like"
            )
        else:
            chosen, why = own, f"EVAL's rule set ({why})"
    prefer = {ev.tier: ev.id} if chosen == own else None
    return _agreement(
        store,
        store.runs.get_run(ev.run_id),
        read,
        rule_set_id=by_ref.get(chosen, ev.rule_set_id),
        prefer=prefer,
        rules_reason=why,
    )
