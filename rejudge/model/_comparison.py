"""What makes two evaluations comparable, and why a case's verdict flipped: each rule once.

:func:`rejudge.judge.compare` asks these questions once, over judgment rows, for ``rejudge
compare``, ``baseline check`` and the dashboard's pages alike (which show its result), so the
CLI and the dashboard can never disagree about a comparison.

- **Flip causes**: the judgment inputs that differ, in the order a reviewer reads them: trace
  changed, case changed (the case or its golden), rules changed, tier changed, registry changed,
  engine changed, and for the model-graded tier rubric changed, judge model changed, judge
  parameters changed. An input counts only when both judgments know it (a row read without its
  hashes names no cause rather than a false one).
- **Comparability**: two evaluations measure the same thing unless their case sets differ, a
  case's content differs, their tool registries differ, or their harness modes differ
  (oracle-assisted and production-parity results are never pooled). Different traces (two
  models), rules or tiers are what a comparison is for: differences, not reasons to refuse.
- **Kind**: what A and B differ in, read from the judgments' key parameters
  (:data:`KEY_PARAMETERS`): the *evidence* (other traces: another model, run or repetition),
  the *judge* (the same traces under another tier, rule set, world, rubric or judge model),
  both (*mixed*), or neither (*same*). Only an evidence comparison may call a side better; a
  judge comparison says which judge is stricter and how far the two agree
  (:class:`JudgeAgreement`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from rejudge.model._agreement import AgreementTable

__all__ = [
    "KeyParameter",
    "KEY_PARAMETERS",
    "ComparisonKind",
    "COMPARISON_KINDS",
    "COMPARISON_FORMAT_VERSION",
    "SIGNIFICANCE_LEVEL",
    "JudgeAgreement",
    "FLIP_CAUSES",
    "JUDGE_FLIP_CAUSES",
    "FLIP_DIRECTIONS",
    "UNKNOWN_CAUSE",
    "flip_causes",
    "flip_cause",
    "comparability_reasons",
    "Flip",
]

#: ``rejudge compare --json``'s format: 2 adds ``format_version``, ``kind``, ``differs``,
#: ``flips_by_cause``, ``verdict`` and ``judges``, and gives ``mcnemar_p`` only when the evidence
#: alone differs (null otherwise: a significance test of "improvement" between two judges, or
#: across two changes at once, answers no question). Version 1 had no ``format_version`` key.
COMPARISON_FORMAT_VERSION = 2

#: the level at which an evidence comparison's McNemar test may call a side better or worse
SIGNIFICANCE_LEVEL = 0.05

#: what two evaluations differ in (see the module docstring)
ComparisonKind = Literal["evidence", "judge", "mixed", "same"]
COMPARISON_KINDS: tuple[ComparisonKind, ...] = ("evidence", "judge", "mixed", "same")


class KeyParameter(NamedTuple):
    """One parameter of a judgment's key: the judgment row's field that holds it, which side of
    a comparison it belongs to, and the flip cause it names when A and B differ in it.

    ``side`` is ``evidence`` (what the agent did), ``judge`` (what judged it) or ``case`` (what
    was asked and the golden: a case that differs makes A and B not comparable, whatever else
    differs).
    """

    field: str
    side: Literal["evidence", "judge", "case"]
    cause: str


#: Every judgment-key parameter a comparison reads, in the order causes are listed. A new
#: parameter is one line here (as the model-graded tier's rubric, judge model and parameters
#: are): the flip causes, the comparison's kind, the dashboard's cause filter and
#: ``baseline check``'s "judge changed" all follow. A row that lacks the field (an older
#: judgment, another tier) names no cause for it rather than a false one.
KEY_PARAMETERS: tuple[KeyParameter, ...] = (
    KeyParameter("trace_hash", "evidence", "trace changed"),
    KeyParameter("case_hash", "case", "case changed"),
    KeyParameter("rule_set_hash", "judge", "rules changed"),
    KeyParameter("tier", "judge", "tier changed"),
    # the registry carries the world's name, version and data hash: on the same traces, another
    # registry is another judge (a world version); across traces it is another environment
    KeyParameter("registry_hash", "judge", "registry changed"),
    KeyParameter("engine_version", "judge", "engine changed"),
    # the model-graded tier's judge: its rubric, judge model and parameters (judgment details)
    KeyParameter("rubric_hash", "judge", "rubric changed"),
    KeyParameter("judge_model", "judge", "judge model changed"),
    KeyParameter("judge_params", "judge", "judge parameters changed"),
)
_MODEL_JUDGE = ("rubric_hash", "judge_model", "judge_params")

#: (judgment field, the cause it names when it differs), in the order causes are listed
FLIP_CAUSES: tuple[tuple[str, str], ...] = tuple((p.field, p.cause) for p in KEY_PARAMETERS)
#: the model-graded tier's judge (read from its judgments' details by the compare service)
JUDGE_FLIP_CAUSES: tuple[tuple[str, str], ...] = tuple(
    (p.field, p.cause) for p in KEY_PARAMETERS if p.field in _MODEL_JUDGE
)
#: the directions a flip may take, as views filter them ("other": to or from SKIP/AGENT_ERROR)
FLIP_DIRECTIONS: tuple[str, ...] = ("PASS→FAIL", "FAIL→PASS", "other")
#: the cause of a flip whose judgments share every known input
UNKNOWN_CAUSE = "unknown"


def flip_causes(
    a: Mapping[str, Any] | None,
    b: Mapping[str, Any] | None,
    order: Sequence[tuple[str, str]] = FLIP_CAUSES,
) -> list[str]:
    """Every input that differs between two judgments (known on both sides), in ``order``
    (:data:`FLIP_CAUSES` unless a caller names its own)."""
    if not a or not b:
        return []
    out = []
    for name, label in order:
        va, vb = a.get(name), b.get(name)
        if va is not None and vb is not None and va != vb:
            out.append(label)
    return out


def flip_cause(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> str | None:
    """The first cause of :func:`flip_causes`; None when one side is missing or no known input
    differs."""
    causes = flip_causes(a, b)
    return causes[0] if causes else None


def comparability_reasons(
    *,
    only_a: int,
    only_b: int,
    changed_cases: int,
    registries_differ: bool,
    harness_a: str | None,
    harness_b: str | None,
) -> list[str]:
    """Why A and B do not measure the same thing; empty when they do."""
    reasons: list[str] = []
    if only_a or only_b:
        reasons.append(f"case sets differ: {only_a} only in A, {only_b} only in B")
    if changed_cases:
        reasons.append(f"{changed_cases} case(s) differ in content (golden or case changed)")
    if registries_differ:
        reasons.append("tool registries differ")
    if harness_a and harness_b and harness_a != harness_b:
        reasons.append(
            f"harness modes differ ({harness_a} vs {harness_b}); results are never pooled"
        )
    return reasons


@dataclass(frozen=True)
class Flip:
    """One (case, repetition) whose verdict differs between A and B, with why.

    :func:`rejudge.judge.compare` builds it from two judgment rows (:meth:`between`, through
    :func:`flip_causes`); the CLI and the dashboard show it. The extra columns a view shows
    (the case's dimension and category, partial scores, trace ids) are optional and not part of
    the JSON, which is ``rejudge compare --json``'s flip.
    """

    case: str
    repetition: int
    from_verdict: str | None
    to_verdict: str | None
    cause: str
    causes: list[str] = field(default_factory=list)
    taxonomy_from: list[str] = field(default_factory=list)
    taxonomy_to: list[str] = field(default_factory=list)
    # what the dashboard shows beside a flip (not in the JSON)
    dimension: str | None = None
    category: str | None = None
    partial_from: float | None = None
    partial_to: float | None = None
    trace_from: int | None = None
    trace_to: int | None = None

    @classmethod
    def between(
        cls,
        case: str,
        repetition: int,
        a: Mapping[str, Any],
        b: Mapping[str, Any],
        order: Sequence[tuple[str, str]] = FLIP_CAUSES,
        **extra: Any,
    ) -> Flip:
        """The flip of two judgments (rows with ``verdict``, ``taxonomy`` and input hashes)."""
        causes = flip_causes(a, b, order)
        return cls(
            case=case,
            repetition=repetition,
            from_verdict=a.get("verdict"),
            to_verdict=b.get("verdict"),
            cause=causes[0] if causes else UNKNOWN_CAUSE,
            causes=causes,
            taxonomy_from=list(a.get("taxonomy") or []),
            taxonomy_to=list(b.get("taxonomy") or []),
            **extra,
        )

    def to_json(self) -> dict[str, Any]:
        """``rejudge compare --json``'s flip."""
        return {
            "case": self.case,
            "repetition": self.repetition,
            "from": self.from_verdict,
            "to": self.to_verdict,
            "cause": self.cause,
            "causes": list(self.causes),
            "taxonomy_from": list(self.taxonomy_from),
            "taxonomy_to": list(self.taxonomy_to),
        }


@dataclass(frozen=True)
class JudgeAgreement:
    """Two judges on the same traces: who is stricter, and how far they agree.

    The 2x2 table counts the (case, repetition) pairs both judges scored (PASS or FAIL; a SKIP
    or AGENT_ERROR on either side is ``not_scored``): rows A's verdict, columns B's.
    ``a_stricter`` counts A FAIL where B PASS, ``b_stricter`` the reverse. Cohen's kappa is
    agreement beyond what the two judges' own pass rates give by chance. No significance test:
    two judges of the same evidence disagree by definition, not by chance.
    """

    pass_pass: int
    pass_fail: int
    fail_pass: int
    fail_fail: int
    not_scored: int

    @property
    def a_stricter(self) -> int:
        return self.fail_pass

    @property
    def b_stricter(self) -> int:
        return self.pass_fail

    @property
    def table(self) -> AgreementTable:
        """The same counts as the agreement table every other 2x2 here is (B in the columns),
        so total, agreement and kappa are computed one way."""
        return AgreementTable(self.pass_pass, self.pass_fail, self.fail_pass, self.fail_fail)

    @property
    def total(self) -> int:
        return self.table.total

    @property
    def agreement(self) -> float | None:
        return self.table.agreement

    @property
    def kappa(self) -> float | None:
        return self.table.kappa

    @property
    def stricter(self) -> str | None:
        """ "A" or "B", the judge that fails more of what the other passes; None on a tie."""
        if self.a_stricter == self.b_stricter:
            return None
        return "A" if self.a_stricter > self.b_stricter else "B"

    def sentence(self) -> str:
        """The plain-words reading: "A is stricter on N cases, B on M"."""
        return (
            f"A is stricter on {self.a_stricter} case(s), B on {self.b_stricter} "
            f"(of {self.total} both scored)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "a_stricter": self.a_stricter,
            "b_stricter": self.b_stricter,
            "stricter": self.stricter,
            "table": {
                "pass_pass": self.pass_pass,
                "pass_fail": self.pass_fail,
                "fail_pass": self.fail_pass,
                "fail_fail": self.fail_fail,
                "total": self.total,
            },
            "agreement": self.agreement,
            "kappa": self.kappa,
            "not_scored": self.not_scored,
        }
