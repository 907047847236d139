"""The judge: pure judging, tiers, rule sets, reports, comparisons, baselines, calibration
statistics and the typed results of the judge's use cases.

The package's public names, imported lazily (``import judge`` loads nothing else; worker
processes and the CLI import only what they use)::

    from rejudge.judge import judge, load_rule_set
    judgment = judge(trace, case, registry, "golden", load_rule_set("standard@2"))

Nothing here reads or writes the store: judging a stored run, re-judging, comparing stored
evaluations and locking baselines are :mod:`rejudge.services`.
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "ENGINE_VERSION": "rejudge.judge.engine",
    "judge": "rejudge.judge.engine",
    "judge_body": "rejudge.judge.engine",
    "Tier": "rejudge.judge.tiers",
    "TierResult": "rejudge.judge.tiers",
    "TierNotFoundError": "rejudge.judge.tiers",
    "get_tier": "rejudge.judge.tiers",
    "register_tier": "rejudge.judge.tiers",
    "tier_names": "rejudge.judge.tiers",
    "RuleSetError": "rejudge.judge.rulesets",
    "RuleSettings": "rejudge.judge.rulesets",
    "DEFAULT_RULE_SET": "rejudge.judge.rulesets",
    "load_rule_set": "rejudge.judge.rulesets",
    "builtin_rule_sets": "rejudge.judge.rulesets",
    "rule_set_from_dict": "rejudge.judge.rulesets",
    "diff_rule_sets": "rejudge.judge.rulesets",
    "register_matcher": "rejudge.judge.matchers",
    "get_matcher": "rejudge.judge.matchers",
    "matcher_names": "rejudge.judge.matchers",
    "register_code": "rejudge.judge.taxonomy",
    "BatchJudge": "rejudge.judge.batch",
    "build_report": "rejudge.judge.report",
    "pass_hat_k": "rejudge.judge.report",
    "mcnemar_exact": "rejudge.judge.compare",
    "compare_rows": "rejudge.judge.compare",
    "BaselineMismatchError": "rejudge.judge.baseline",
    "lock_baseline": "rejudge.judge.baseline",
    "check_baseline": "rejudge.judge.baseline",
    "calibration_figures": "rejudge.judge.calibration",
    "JudgeRunResult": "rejudge.judge.results",
    "JudgeSummary": "rejudge.judge.results",
    "RejudgeResult": "rejudge.judge.results",
    "EvaluationReport": "rejudge.judge.results",
    "Comparison": "rejudge.judge.results",
    "BaselineLock": "rejudge.judge.results",
    "BaselineCheck": "rejudge.judge.results",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
