"""A trace as a timeline: what the user said, what the model answered round by round, the calls
it made and what they returned, each model step with its latency and tokens where the evidence
holds them (DESIGN §11's view of one trace; issue 39 item 2).

These are view models, not stored: :func:`rejudge.judge.build_timeline` builds one from a
:class:`~rejudge.model.Trace`, its :class:`~rejudge.model.Case` and the per-step facts the
evidence gives (:class:`StepFacts`, read from the cassette by the services); the dashboard's
Trace viewer and the static HTML report draw the same object, so a trace reads the same in both.
Every text here is evidence (untrusted): a renderer escapes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rejudge.model._schemas import ToolCall

__all__ = [
    "ArgumentDiff",
    "DiffStatus",
    "StepFacts",
    "StepKind",
    "Timeline",
    "TimelineCall",
    "TimelineStep",
]

#: ``same`` (golden and actual agree), ``changed`` (both hold the path, with other values),
#: ``missing`` (golden holds it, the call does not), ``extra`` (the call holds it, golden does
#: not say: not necessarily wrong, a golden call may name only the parameters that matter)
DiffStatus = Literal["same", "changed", "missing", "extra"]
#: ``user`` (a user message), ``round`` (one model response: text and calls), ``error`` (why
#: the trace stopped abnormally)
StepKind = Literal["user", "round", "error"]


@dataclass(frozen=True, slots=True)
class StepFacts:
    """What the evidence says one model step cost: wall or server time in milliseconds and
    tokens in and out (None: the evidence does not say), and where the figure came from
    (``source``: e.g. ``llama.cpp timings``, ``openai-processing-ms``, ``otel span``)."""

    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    source: str | None = None

    @property
    def empty(self) -> bool:
        return self.latency_ms is None and self.input_tokens is None and self.output_tokens is None


@dataclass(frozen=True, slots=True)
class ArgumentDiff:
    """One path of a call's arguments against its golden call (``order.items[0].sku``)."""

    path: str
    status: DiffStatus
    golden: Any = None
    actual: Any = None


@dataclass(frozen=True, slots=True)
class TimelineCall:
    """One call of a round: the trace's call as it is (its ``arguments`` None when they did not
    parse: ``arguments_raw`` and ``parse_error`` then say what came), and its structural diff
    against the golden call it lines up with (``golden_tool`` None: the case has no golden call
    of this tool left to compare with)."""

    call: ToolCall
    golden_tool: str | None = None
    diff: tuple[ArgumentDiff, ...] = ()

    @property
    def differs(self) -> bool:
        """True when some path is not the same as the golden call's."""
        return any(d.status != "same" for d in self.diff)


@dataclass(frozen=True, slots=True)
class TimelineStep:
    """One step, in the order it happened. A ``round`` carries the model's ``text``, its
    ``finish_reason``, its ``calls``, the provider-side tools it used (``server_tools``: name
    and input) and its ``facts``; a ``user`` step only ``text``; an ``error`` step ``text``
    (the error's kind and message)."""

    kind: StepKind
    round: int | None = None
    text: str | None = None
    finish_reason: str | None = None
    calls: tuple[TimelineCall, ...] = ()
    server_tools: tuple[tuple[str, Any], ...] = ()
    facts: StepFacts | None = None


@dataclass(frozen=True, slots=True)
class Timeline:
    """A trace in order. ``latency_s`` and the token totals are the trace's own (its timings
    and usage); ``timing_note`` says where per-step figures came from or why there are none;
    ``golden_uncalled`` names the golden calls no call lined up with."""

    case_id: str
    repetition: int
    status: str
    instruction: str
    steps: tuple[TimelineStep, ...]
    latency_s: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    timing_note: str | None = None
    golden_uncalled: tuple[str, ...] = ()
    # a judgment's verdict and causes, when the timeline is shown under an evaluation
    verdict: str | None = None
    causes: tuple[str, ...] = ()
    reasons: tuple[str, ...] = field(default=())

    @property
    def rounds(self) -> int:
        return sum(1 for s in self.steps if s.kind == "round")

    @property
    def calls(self) -> int:
        return sum(len(s.calls) for s in self.steps)
