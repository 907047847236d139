"""What a BFCL check finds (:class:`BfclError`, :class:`BfclOutcome`) and the rule-set switches
that correct bfcl-eval's checker (:class:`BfclFixes`: all off in ``bfcl@1``, on in ``bfcl@2``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rejudge.model import RuleSet

__all__ = ["BfclError", "BfclFixes", "BfclOutcome", "FAITHFUL", "FIXED", "fixes_for"]


# --------------------------------------------------------------------------- rule-set switches


@dataclass(frozen=True)
class BfclFixes:
    """Corrections of bfcl-eval's checker; all off in ``bfcl@1``, all on in ``bfcl@2``."""

    # parallel calls: a maximum matching of answers to calls, not bfcl-eval's first-fit greedy
    # pairing (which fails an output whose calls could all be matched in another pairing)
    bipartite_parallel: bool = False
    # an integer is accepted for a float inside lists too, not only at the top level
    int_for_float_in_lists: bool = False
    # booleans are not numbers: True never equals 1 (Python's == says it does)
    bools_are_not_numbers: bool = False
    # irrelevance: a call attempt whose arguments do not parse is still a call (bfcl-eval
    # counts any undecodable output as "no call", so a broken call passes)
    malformed_call_is_a_call: bool = False


FAITHFUL = BfclFixes()
FIXED = BfclFixes(
    bipartite_parallel=True,
    int_for_float_in_lists=True,
    bools_are_not_numbers=True,
    malformed_call_is_a_call=True,
)


def fixes_for(rule_set: RuleSet | None) -> BfclFixes:
    """``bfcl@2`` and later fix bfcl-eval's mistakes; every other rule set judges faithfully."""
    if rule_set is None or rule_set.name != "bfcl":
        return FAITHFUL
    version = rule_set.version
    fixes = _FIXES_OF.get(version)
    if fixes is None:
        try:
            fixes = FIXED if int(str(version).split(".")[0]) >= 2 else FAITHFUL
        except ValueError:
            fixes = FAITHFUL
        if len(_FIXES_OF) < 1000:
            _FIXES_OF[version] = fixes
    return fixes


# bfcl rule-set version -> its fixes (judging reads it once per judgment)
_FIXES_OF: dict[str, BfclFixes] = {}


# --------------------------------------------------------------------------- errors


@dataclass(eq=False, slots=True)
class BfclError:
    type: str  # bfcl-eval's error type, e.g. "value_error:string"
    code: str  # taxonomy code
    text: str | Callable[[], str]  # the message, or a function that formats it when asked
    answer: int | None = None  # index of the possible-answer entry concerned
    call: int | None = None  # index of the model call concerned
    param: str | None = None

    @property
    def message(self) -> str:
        return self.text if isinstance(self.text, str) else self.text()

    @property
    def key(self) -> tuple[Any, ...]:
        return (self.type, self.code, self.answer, self.call, self.param)

    def as_dict(self, message: str | None = None) -> dict[str, Any]:
        """The diff item; ``message`` is this error's message when the caller formatted it."""
        out: dict[str, Any] = {
            "type": self.type,
            "code": self.code,
            "message": self.message if message is None else message,
        }
        if self.answer is not None:
            out["answer"] = self.answer
        if self.call is not None:
            out["call"] = self.call
        if self.param is not None:
            out["param"] = self.param
        return out


@dataclass(slots=True)
class BfclOutcome:
    valid: bool
    errors: list[BfclError] = field(default_factory=list)
    # answer index -> call index for the calls that match
    matched: dict[int, int] = field(default_factory=dict)
    expected: int = 0

    @property
    def error_type(self) -> str | None:
        """The error type bfcl-eval reports (its first error), None when valid."""
        return None if self.valid or not self.errors else self.errors[0].type
