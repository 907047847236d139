"""What the ``state`` tier requires of a case: the parts of an external benchmark's reward.

τ-bench changed its reward between versions (tau_bench/envs/base.py, ``calculate_reward``):
up to 7362a17, a task with required outputs was rewarded by them alone and any other task by
its final database; from the merge of 718ffa1 on (59a200c), every task needs its database and
its outputs. A rule set says which it follows (``settings.reward``: ``outputs-else-db`` or
``db-and-outputs``, the default). τ²-bench declares the parts per task instead
(``evaluation_criteria.reward_basis``, default ``["DB", "COMMUNICATE"]``); the importer keeps a
basis that is not the default in the case's ``metadata["reward_basis"]`` (with each gold
action's ``compare_args`` under ``metadata["compare_args"]`` when ``ACTION`` is part of it), and
a case that declares one is judged by it, whatever the rule set says.

The parts and what the tier does with each:

- ``DB``: the final states of the trace's calls and of the golden calls must be equal;
- ``COMMUNICATE``: every required output must be in a reply (τ-bench's ``outputs``);
- ``ACTION``: every golden call must have been made, by name and compared arguments, in any
  order (τ²'s action check: ``compare_args`` names the compared arguments, all when absent);
- ``NL_ASSERTION`` (a model judges them) and ``ENV_ASSERTION`` (τ²'s environment checks): this
  tier cannot check them, so it never PASSes such a case: it FAILs on a part it checks, and
  otherwise SKIPs saying which part it left to another judge.

Pure: a function of the case and the rule set's settings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rejudge.model import Case

__all__ = [
    "REWARD_PARTS",
    "DEFAULT_REWARD_BASIS",
    "UNCHECKED_PARTS",
    "StateChecks",
    "state_checks",
    "reward_basis_of",
    "action_matches",
    "compare_args_of",
]

#: τ²-bench's reward types (src/tau2/data_model/tasks.py ``RewardType``)
REWARD_PARTS = ("DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE")
#: τ²'s default basis, and the one τ-bench's later reward amounts to
DEFAULT_REWARD_BASIS = ("DB", "COMMUNICATE")
#: parts the state tier cannot check, and who can
UNCHECKED_PARTS = {
    "NL_ASSERTION": "its NL assertions, which a model judges (the model-graded tier)",
    "ENV_ASSERTION": "its environment assertions, which this tier does not run",
}


@dataclass(frozen=True)
class StateChecks:
    """What the state tier checks of one case, and why (``basis``: where it comes from)."""

    db: bool
    outputs: bool
    actions: bool
    #: parts of the reward this tier cannot check (see :data:`UNCHECKED_PARTS`)
    unchecked: tuple[str, ...]
    basis: str

    @property
    def default(self) -> bool:
        """Whether this is what the tier has always checked (the database and the outputs)."""
        return self.db and not self.actions and not self.unchecked and self.basis == _DEFAULT


_DEFAULT = "reward db-and-outputs"


def reward_basis_of(case: Case) -> tuple[str, ...] | None:
    """The reward basis the case declares (τ²'s, when not the default), or None."""
    raw = case.metadata.get("reward_basis") if case.metadata else None
    if raw is None:
        return None
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise ValueError(f"case {case.id}: metadata.reward_basis must be a list, not {raw!r}")
    unknown = [p for p in raw if p not in REWARD_PARTS]
    if unknown:
        raise ValueError(
            f"case {case.id}: unknown reward basis part(s) {unknown}; "
            f"known: {', '.join(REWARD_PARTS)}"
        )
    return tuple(str(p) for p in raw)


def state_checks(case: Case, reward: str) -> StateChecks:
    """What the state tier requires of ``case`` under the rule set's ``reward`` setting."""
    basis = reward_basis_of(case)
    wants_outputs = bool(case.required_outputs)
    if basis is not None:
        return StateChecks(
            db="DB" in basis,
            outputs="COMMUNICATE" in basis and wants_outputs,
            actions="ACTION" in basis,
            unchecked=tuple(p for p in basis if p in UNCHECKED_PARTS),
            basis="the case's reward basis " + "+".join(basis),
        )
    if reward == "outputs-else-db" and wants_outputs:
        return StateChecks(False, True, False, (), "reward outputs-else-db")
    if reward == "outputs-else-db":
        return StateChecks(True, False, False, (), "reward outputs-else-db")
    if reward != "db-and-outputs":
        raise ValueError(f"unknown reward setting {reward!r}")
    return StateChecks(True, wants_outputs, False, (), _DEFAULT)


def action_matches(
    golden_tool: str,
    golden_params: Mapping[str, Any],
    compare_args: Sequence[str] | None,
    name: str,
    arguments: Mapping[str, Any],
) -> bool:
    """Whether a call counts as the golden action, as τ² compares them: the same tool, and the
    compared arguments equal (``compare_args``; None compares the call's own arguments, so an
    argument the golden action has and the call lacks is not compared)."""
    if name != golden_tool:
        return False
    keys = set(arguments) if compare_args is None else set(compare_args)
    if not keys:
        return True
    mine = {k: v for k, v in arguments.items() if k in keys}
    theirs = {k: v for k, v in golden_params.items() if k in keys}
    return mine == theirs


def compare_args_of(case: Case) -> list[list[str] | None]:
    """Per golden call, the arguments τ² compares (``metadata["compare_args"]``); None (all the
    call's own arguments) where the case names none."""
    calls = case.golden.calls
    raw = case.metadata.get("compare_args") if case.metadata else None
    if raw is None:
        return [None] * len(calls)
    if not isinstance(raw, list) or len(raw) != len(calls):
        raise ValueError(
            f"case {case.id}: metadata.compare_args must list one entry per golden call "
            f"({len(calls)})"
        )
    return [None if c is None else [str(k) for k in c] for c in raw]
