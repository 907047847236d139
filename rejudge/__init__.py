"""rejudge: record LLM tool-calling runs once; re-judge them offline under any tier or rule version.

The public facade. Library names are imported lazily so ``import rejudge`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# imported as before, so `rejudge.errors` is an attribute without importing it (cheap: its own
# names are lazy too)
from rejudge import errors as _errors  # noqa: F401
from rejudge._lazy import lazy_exports

if TYPE_CHECKING:
    # the names this face exports, declared once (read by rejudge._lazy on first use), by theme
    # isort: off
    # the data model (rejudge.model has the rest) and the store that keeps it
    from rejudge.model._hashing import content_hash as content_hash
    from rejudge.model._schemas import Case as Case
    from rejudge.model._schemas import Judgment as Judgment
    from rejudge.model._schemas import RuleSet as RuleSet
    from rejudge.model._schemas import RunConfig as RunConfig
    from rejudge.model._schemas import ToolRegistry as ToolRegistry
    from rejudge.model._schemas import Trace as Trace
    from rejudge.store._store import Store as Store

    # the main entry points: evidence in, judgments out, comparisons and gates (the pure
    # judge itself is rejudge.judge.judge: a root name `judge` would shadow the subpackage)
    from rejudge.importers._cassettes import import_cassettes as import_cassettes
    from rejudge.judge._rulesets import load_rule_set as load_rule_set
    from rejudge.services._baseline import check_evaluation_baseline as check_evaluation_baseline
    from rejudge.services._baseline import lock_evaluation_baseline as lock_evaluation_baseline
    from rejudge.services._capture import capture as capture
    from rejudge.services._compare import compare_evaluations as compare_evaluations
    from rejudge.services._demo import run_demo as run_demo
    from rejudge.services._judging import evaluation_report as evaluation_report
    from rejudge.services._judging import judge_run as judge_run
    from rejudge.services._record import record_suite as record_suite
    from rejudge.services._replay import renormalize_run as renormalize_run
    from rejudge.services._replay import replay_run as replay_run

    # the whole error tree (rejudge/errors.py draws it), so `except rejudge.NotFoundError` works
    from rejudge.errors import *  # noqa: F403
    # isort: on

__version__ = "0.1.0"

__getattr__, __dir__ = lazy_exports(__name__, "__version__")
