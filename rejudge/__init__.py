"""rejudge: record LLM tool-calling runs once; re-judge them offline under any tier or rule version.

The public facade. Library names are imported lazily so ``import rejudge`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rejudge import errors as _errors
from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # what a type checker sees behind the lazy table below (at run time nothing is imported
    # until first use); tests/test_types.py holds the two in step
    from rejudge.importers._cassettes import import_cassettes as import_cassettes
    from rejudge.judge._rulesets import load_rule_set as load_rule_set
    from rejudge.model._hashing import content_hash as content_hash
    from rejudge.model._schemas import Case as Case
    from rejudge.model._schemas import Judgment as Judgment
    from rejudge.model._schemas import RuleSet as RuleSet
    from rejudge.model._schemas import RunConfig as RunConfig
    from rejudge.model._schemas import ToolRegistry as ToolRegistry
    from rejudge.model._schemas import Trace as Trace
    from rejudge.services._baseline import (
        check_evaluation_baseline as check_evaluation_baseline,
    )
    from rejudge.services._baseline import lock_evaluation_baseline as lock_evaluation_baseline
    from rejudge.services._capture import capture as capture
    from rejudge.services._compare import compare_evaluations as compare_evaluations
    from rejudge.services._demo import run_demo as run_demo
    from rejudge.services._judging import evaluation_report as evaluation_report
    from rejudge.services._judging import judge_run as judge_run
    from rejudge.services._record import record_suite as record_suite
    from rejudge.services._replay import renormalize_run as renormalize_run
    from rejudge.services._replay import replay_run as replay_run
    from rejudge.store._store import Store as Store

__version__ = "0.1.0"

# public name -> the module that defines it
_EXPORTS: dict[str, str] = {
    # the data model (rejudge.model has the rest) and the store that keeps it
    "Case": "rejudge.model._schemas",
    "Trace": "rejudge.model._schemas",
    "Judgment": "rejudge.model._schemas",
    "RuleSet": "rejudge.model._schemas",
    "RunConfig": "rejudge.model._schemas",
    "ToolRegistry": "rejudge.model._schemas",
    "content_hash": "rejudge.model._hashing",
    "Store": "rejudge.store._store",
    # the main entry points: evidence in, judgments out, comparisons and gates (the pure
    # judge itself is rejudge.judge.judge: a root name `judge` would shadow the subpackage)
    "capture": "rejudge.services._capture",
    "record_suite": "rejudge.services._record",
    "replay_run": "rejudge.services._replay",
    "renormalize_run": "rejudge.services._replay",
    "import_cassettes": "rejudge.importers._cassettes",
    "load_rule_set": "rejudge.judge._rulesets",
    "judge_run": "rejudge.services._judging",
    "evaluation_report": "rejudge.services._judging",
    "compare_evaluations": "rejudge.services._compare",
    "lock_evaluation_baseline": "rejudge.services._baseline",
    "check_evaluation_baseline": "rejudge.services._baseline",
    "run_demo": "rejudge.services._demo",
}
# the whole error tree (rejudge/errors.py draws it), so `except rejudge.NotFoundError` works;
# importing rejudge.errors is cheap (its own table is lazy too)
_EXPORTS.update(dict.fromkeys([*_errors.__all__, *_errors._EXPORTS], "rejudge.errors"))

__all__ = ["__version__", *_EXPORTS]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
