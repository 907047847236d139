"""The BFCL AST checker: one call against one possible answer (:class:`_Answer`), and a whole
output against a case's possible answers (:func:`check_output`), listing every error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _taxonomy as tx
from ._outcome import FAITHFUL, BfclError, BfclFixes, BfclOutcome
from ._params import AnswerParam
from ._values import Equal, python_equal, strict_equal

__all__ = ["check_output"]


# --------------------------------------------------------------------------- one call


_WRONG_NAME = "simple_function_checker:wrong_func_name"


class _Answer:
    """One possible-answer entry of a case, read once: the expected function, its acceptable
    values, its signature and the per-parameter checks (each built on first use)."""

    __slots__ = ("index", "name", "wire", "acceptable", "functions", "language", "_sig", "_params")

    def __init__(
        self, index: int, answer: dict[str, Any], functions: dict[str, Any], language: str
    ) -> None:
        (name, acceptable), *_ = answer.items()
        self.index = index
        self.name: str = name
        self.wire = name.replace(".", "_") if "." in name else name
        self.acceptable: dict[str, Any] = acceptable if isinstance(acceptable, dict) else {}
        self.functions = functions
        self.language = language
        # (signature, its properties, its required list, the parameters an answer cannot
        # leave out); None until a call names the function
        self._sig: tuple[Any, dict[str, Any], list[Any], list[str]] | None = None
        self._params: dict[str, AnswerParam] = {}

    def signature(self) -> tuple[Any, dict[str, Any], list[Any], list[str]]:
        sig = self._sig
        if sig is None:
            found = self.functions.get(self.name)
            if isinstance(found, dict):
                props = found.get("properties") or {}
                required = found.get("required") or []
            else:
                props, required = {}, []
            mandatory = [
                p
                for p, options in self.acceptable.items()
                if not (isinstance(options, list) and "" in options)
            ]
            sig = self._sig = (found, props, required, mandatory)
        return sig

    def param(self, param: str, psig: dict[str, Any]) -> AnswerParam:
        plan = self._params.get(param)
        if plan is None:
            plan = self._params[param] = AnswerParam(
                param, psig, self.acceptable[param], self.language
            )
        return plan

    def passes(self, call: tuple[str, dict[str, Any]], fixes: BfclFixes, eq: Equal) -> bool:
        """``not self.check(call, ...)``, stopping at the first error: pairing parallel calls
        needs only whether each pair matches; errors are listed for the pairs reported."""
        name, args = call
        if name != self.name and name != self.wire:
            return False
        sig, props, required, mandatory = self.signature()
        if not isinstance(sig, dict):
            return False
        for param in required:
            if param not in args:
                return False
        acceptable = self.acceptable
        params = self._params
        for param, value in args.items():
            if param not in props or param not in acceptable:
                return False
            plan = params.get(param) or self.param(param, props[param])
            if type(value) is plan.quick_type and value in plan.quick:
                continue
            if plan.check(value, fixes, eq) is not None:
                return False
        for param in mandatory:
            if param not in args:
                return False
        return True

    def check(
        self, call: tuple[str, dict[str, Any]], call_index: int, fixes: BfclFixes, eq: Equal
    ) -> list[BfclError]:
        """Every error of one call against this answer, in bfcl-eval's order."""
        name, args = call
        expected_name = self.name
        answer_index = self.index
        if name != expected_name and name != self.wire:
            return [
                BfclError(
                    _WRONG_NAME,
                    tx.TOOL_WRONG,
                    lambda: f"expected function {expected_name!r}, got {name!r}",
                    answer_index,
                    call_index,
                )
            ]
        sig, props, required, mandatory = self.signature()
        if not isinstance(sig, dict):
            return [
                BfclError(
                    "bfcl_error:unknown_function",
                    tx.RULE_ERROR,
                    f"no signature for {expected_name!r} in the case",
                    answer_index,
                    call_index,
                )
            ]
        errors: list[BfclError] = []
        missing_required = [p for p in required if p not in args]
        for param in missing_required:
            errors.append(
                BfclError(
                    "simple_function_checker:missing_required",
                    tx.PARAM_MISSING,
                    f"missing required parameter {param!r}",
                    answer_index,
                    call_index,
                    param,
                )
            )
        acceptable = self.acceptable
        params = self._params
        for param, value in args.items():
            if param not in props or param not in acceptable:
                errors.append(
                    BfclError(
                        "simple_function_checker:unexpected_param",
                        tx.PARAM_UNEXPECTED,
                        f"unexpected parameter {param!r}",
                        answer_index,
                        call_index,
                        param,
                    )
                )
                continue
            plan = params.get(param) or self.param(param, props[param])
            if type(value) is plan.quick_type and value in plan.quick:
                continue
            found = plan.check(value, fixes, eq)
            if found is not None:
                errors.append(
                    BfclError(found[0], found[1], found[2], answer_index, call_index, param)
                )
        for param in mandatory:
            if param in args or param in missing_required:
                continue
            errors.append(
                BfclError(
                    "simple_function_checker:missing_optional",
                    tx.PARAM_MISSING,
                    f"parameter {param!r} not given and not optional",
                    answer_index,
                    call_index,
                    param,
                )
            )
        return errors


# --------------------------------------------------------------------------- whole outputs


def _count_error(prefix: str, n_expected: int, n_calls: int) -> BfclError:
    code = tx.TOOL_MISSING if n_calls < n_expected else tx.TOOL_UNEXPECTED
    return BfclError(
        f"{prefix}:wrong_count",
        code,
        f"wrong number of functions: expected {n_expected}, got {n_calls}",
    )


def _greedy(ok: Callable[[int, int], bool], n_exp: int, n_calls: int) -> dict[int, int]:
    """bfcl-eval's pairing: each answer in turn takes the first free call that matches it.

    bfcl-eval stops at the first answer that finds no call (its verdict: not every answer
    paired); this goes on past such answers and returns every pair it made, for the errors.
    """
    matched: dict[int, int] = {}
    used: set[int] = set()
    for i in range(n_exp):
        for j in range(n_calls):
            if j not in used and ok(i, j):
                matched[i] = j
                used.add(j)
                break
    return matched


def _bipartite(ok: Callable[[int, int], bool], n_exp: int, n_calls: int) -> dict[int, int]:
    call_owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in range(n_calls):
            if j not in seen and ok(i, j):
                seen.add(j)
                if j not in call_owner or augment(call_owner[j], seen):
                    call_owner[j] = i
                    return True
        return False

    for i in range(n_exp):
        augment(i, set())
    return {i: j for j, i in call_owner.items()}


class _Case:
    """A case's ``metadata["bfcl"]`` read once: kind, language and the possible answers' checks.

    Kept per metadata object (cases are frozen, their metadata is never changed), so every
    output judged against a case reuses its answers' standardized values and type dispatch."""

    __slots__ = ("meta", "kind", "language", "functions", "answers", "_offered")

    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta  # held, so the object's id cannot be reused while cached
        self.kind = meta.get("kind", "simple")
        self.language = meta.get("language", "python")
        self.functions: Any = meta.get("functions") or {}
        self.answers = [
            _Answer(i, a, self.functions, self.language)
            for i, a in enumerate(
                a for a in meta.get("ground_truth") or [] if isinstance(a, dict) and a
            )
        ]
        self._offered: frozenset[str] | None = None

    def offered(self, name: str) -> bool:
        """Whether ``name`` is an offered function (original or wire spelling)."""
        offered = self._offered
        if offered is None:
            offered = self._offered = frozenset(
                w for f in self.functions for w in ((f, f.replace(".", "_")) if "." in f else (f,))
            )
        return name in offered


# id(metadata) -> its reading; it keeps the metadata alive, so it is bounded: BFCL v4 has
# 3,641 AST cases, so every case of a full result folder stays read; more are read again
_CASES: dict[int, _Case] = {}
_CASES_MAX = 10_000


def _case_of(meta: dict[str, Any]) -> _Case:
    hit = _CASES.get(id(meta))
    if hit is not None and hit.meta is meta:
        return hit
    if len(_CASES) >= _CASES_MAX:
        _CASES.clear()
    plan = _CASES[id(meta)] = _Case(meta)
    return plan


_PREFIX = {
    "simple": "simple_function_checker",
    "multiple": "multiple_function_checker",
    "parallel": "parallel_function_checker_no_order",
}


def check_output(
    meta: dict[str, Any],
    output: list[tuple[str, dict[str, Any]]] | None,
    fixes: BfclFixes = FAITHFUL,
) -> BfclOutcome:
    """Judge one model output (``None``: undecodable) against a case's ``metadata["bfcl"]``."""
    plan = _case_of(meta)
    kind = plan.kind
    eq: Equal = strict_equal if fixes.bools_are_not_numbers else python_equal
    if output is None:
        if kind == "irrelevance":
            if fixes.malformed_call_is_a_call:
                return BfclOutcome(
                    False,
                    [
                        BfclError(
                            "irrelevance_error:decoder_success",
                            tx.CALL_WHEN_NONE_EXPECTED,
                            "a call was attempted (its arguments do not parse) where none belongs",
                        )
                    ],
                )
            return BfclOutcome(True)
        if kind == "relevance":
            return BfclOutcome(
                False,
                [
                    BfclError(
                        "relevance_error:decoder_failed",
                        tx.ARGUMENTS_UNPARSABLE,
                        "the output does not decode as function calls",
                    )
                ],
            )
        return BfclOutcome(
            False,
            [
                BfclError(
                    "ast_decoder:decoder_failed",
                    tx.ARGUMENTS_UNPARSABLE,
                    "the output does not decode as function calls",
                )
            ],
        )
    if kind == "irrelevance":
        if not output:
            return BfclOutcome(True)
        return BfclOutcome(
            False,
            [
                BfclError(
                    "irrelevance_error:decoder_success",
                    tx.CALL_WHEN_NONE_EXPECTED,
                    f"called {name!r} although no function fits the request",
                    call=j,
                )
                for j, (name, _args) in enumerate(output)
            ],
        )
    if kind == "relevance":
        if output:
            return BfclOutcome(True)
        return BfclOutcome(
            False,
            [
                BfclError(
                    "relevance_error:decoder_failed", tx.TOOL_MISSING, "no function was called"
                )
            ],
        )

    answers = plan.answers
    n_exp, n_calls = len(answers), len(output)
    errors: list[BfclError] = []
    checker = "parallel" if kind in ("parallel", "parallel_multiple") else kind
    prefix = _PREFIX.get(checker, "simple_function_checker")
    count_ok = n_calls == n_exp if checker != "simple" else n_calls == 1
    if not count_ok:
        errors.append(_count_error(prefix, n_exp if checker != "simple" else 1, n_calls))

    matched: dict[int, int]
    if checker == "parallel":
        errors_of: dict[tuple[int, int], list[BfclError]] = {}
        ok_of: dict[tuple[int, int], bool] = {}

        def errs(i: int, j: int) -> list[BfclError]:
            key = (i, j)
            hit = errors_of.get(key)
            if hit is None:
                hit = errors_of[key] = answers[i].check(output[j], j, fixes, eq)
            return hit

        def ok(i: int, j: int) -> bool:
            key = (i, j)
            hit = ok_of.get(key)
            if hit is None:
                hit = ok_of[key] = answers[i].passes(output[j], fixes, eq)
            return hit

        if fixes.bipartite_parallel:
            matched = _bipartite(ok, n_exp, n_calls)
            valid = count_ok and len(matched) == n_exp
        else:
            # bfcl-eval's verdict is whether its pairing (stopping at the first answer left
            # without a call) pairs every answer; the pairing carried on past such answers
            # makes the same choices up to there, so one pass gives the verdict and the
            # pairs the errors are listed for
            matched = _greedy(ok, n_exp, n_calls)
            valid = count_ok and len(matched) == n_exp
        if not valid:
            first_unmatched = next((i for i in range(n_exp) if i not in matched), None)
            if count_ok and first_unmatched is not None:
                errors.append(
                    BfclError(
                        f"{prefix}:cannot_find_match",
                        tx.PARAM_WRONG_VALUE,
                        f"no call matches possible answer {first_unmatched}",
                        answer=first_unmatched,
                    )
                )
            errors.extend(_explain_unmatched(matched, n_exp, n_calls, errs, plan, output))
        return BfclOutcome(valid, _dedupe(errors), matched, n_exp)

    # simple and multiple: the first call is checked against the one answer
    matched = {}
    if n_exp == 0:
        return BfclOutcome(False, errors or [_count_error(prefix, 0, n_calls)], {}, 0)
    if n_calls:
        first = answers[0].check(output[0], 0, fixes, eq)
        if not first:
            matched[0] = 0
        errors.extend(_with_unknown(first, plan, output[0][0]))
        for j in range(1, n_calls):
            errors.append(
                BfclError(
                    "simple_function_checker:unexpected_call",
                    tx.TOOL_UNEXPECTED,
                    f"extra call {output[j][0]!r}",
                    call=j,
                )
            )
    valid = count_ok and not errors
    return BfclOutcome(valid, errors, matched, n_exp)


def _with_unknown(errors: list[BfclError], plan: _Case, name: str) -> list[BfclError]:
    # a call naming another function has that one error and no other (see _Answer.check)
    if errors and errors[0].type == _WRONG_NAME and not plan.offered(name):
        return [
            *errors,
            BfclError(
                "simple_function_checker:wrong_func_name",
                tx.FUNCTION_NOT_FOUND,
                f"{name!r} is not a function this case offers",
                call=errors[0].call,
            ),
        ]
    return errors


def _explain_unmatched(
    matched: dict[int, int],
    n_exp: int,
    n_calls: int,
    errs: Callable[[int, int], list[BfclError]],
    plan: _Case,
    output: list[tuple[str, dict[str, Any]]],
) -> list[BfclError]:
    """For each unmatched answer, the errors of its closest unmatched call (or TOOL_MISSING)."""
    out: list[BfclError] = []
    free = [j for j in range(n_calls) if j not in matched.values()]
    for i in range(n_exp):
        if i in matched:
            continue

        def distance(j: int, i: int = i) -> tuple[int, int, int]:
            found = errs(i, j)
            wrong_name = bool(found) and found[0].type == _WRONG_NAME
            return (1 if wrong_name else 0, len(found), j)

        if free:
            j = min(free, key=distance)
            free.remove(j)
            out.extend(_with_unknown(errs(i, j), plan, output[j][0]))
        else:
            out.append(
                BfclError(
                    "parallel_function_checker_no_order:missing_call",
                    tx.TOOL_MISSING,
                    f"no call for possible answer {i}",
                    answer=i,
                )
            )
    for j in free:
        out.append(
            BfclError(
                "parallel_function_checker_no_order:extra_call",
                tx.TOOL_UNEXPECTED,
                f"extra call {output[j][0]!r}",
                call=j,
            )
        )
    return out


def _dedupe(errors: list[BfclError]) -> list[BfclError]:
    seen: set[tuple[Any, ...]] = set()
    out: list[BfclError] = []
    for e in errors:
        if e.key not in seen:
            seen.add(e.key)
            out.append(e)
    return out
