"""The judge: pure judging, tiers, rule sets, batch re-judging, reports, baselines, comparisons.

The package's public names, imported lazily (``import judge`` loads nothing else; worker
processes and the CLI import only what they use)::

    from judge import judge, load_rule_set
    judgment = judge(trace, case, registry, "golden", load_rule_set("standard@2"))
"""

from __future__ import annotations

from rejudge._lazy import lazy_exports

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "ENGINE_VERSION": "judge.engine",
    "judge": "judge.engine",
    "judge_body": "judge.engine",
    "Tier": "judge.tiers",
    "TierResult": "judge.tiers",
    "TierNotFoundError": "judge.tiers",
    "get_tier": "judge.tiers",
    "register_tier": "judge.tiers",
    "tier_names": "judge.tiers",
    "RuleSetError": "judge.rulesets",
    "RuleSettings": "judge.rulesets",
    "DEFAULT_RULE_SET": "judge.rulesets",
    "load_rule_set": "judge.rulesets",
    "builtin_rule_sets": "judge.rulesets",
    "rule_set_from_dict": "judge.rulesets",
    "diff_rule_sets": "judge.rulesets",
    "register_matcher": "judge.matchers",
    "get_matcher": "judge.matchers",
    "matcher_names": "judge.matchers",
    "register_code": "judge.taxonomy",
    "JudgeRunResult": "judge.batch",
    "judge_run": "judge.batch",
    "evaluation_report": "judge.batch",
    "RejudgePlan": "judge.ops",
    "RejudgeResult": "judge.ops",
    "plan_rejudge": "judge.ops",
    "rejudge": "judge.ops",
    "compare_evaluations": "judge.ops",
    "build_report": "judge.report",
    "pass_hat_k": "judge.report",
    "mcnemar_exact": "judge.compare",
    "compare_rows": "judge.compare",
    "BaselineMismatchError": "judge.baseline",
    "lock_baseline": "judge.baseline",
    "check_baseline": "judge.baseline",
    "calibration_summary": "judge.calibration",
    "evaluation_export_rows": "judge.exports",
    "run_export_rows": "judge.exports",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
