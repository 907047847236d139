"""A rubric applied to one trace: the prompt the judge is sent, and what its reply says.

Pure: :func:`render_prompt` turns (rubric, trace, case) into the judge's system and user
messages and the reply schema for this case; its hash is part of the judgment's key, so a
trace, case or rubric that renders differently is judged again. :func:`read_reply` reads a
reply against that schema: a reply the schema rejects is *invalid* (never a FAIL), with the
reason kept.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from jsonschema import validators as _validators

from rejudge.model import Case, Rubric, ToolRegistry, Trace, content_hash

from ._rubrics import _VARIABLE

__all__ = [
    "RenderedPrompt",
    "ReplyReading",
    "render_prompt",
    "read_reply",
    "render_transcript",
    "cut_text",
]

#: a tool result longer than this is shortened in the transcript (the rest is rarely read by a
#: judge and would crowd the budget out); the cut is marked where it happens
_RESULT_CHARS = 800


@dataclass(frozen=True)
class RenderedPrompt:
    system: str
    user: str
    #: the rubric's reply schema for this case (per-assertion rubrics fix the item count)
    reply_schema: dict[str, Any]
    #: None when the transcript fit; else what was cut (``original_chars``, ``kept_chars``,
    #: ``keep``)
    cut: dict[str, Any] | None = None

    @cached_property
    def hash(self) -> str:
        return content_hash(
            {"system": self.system, "user": self.user, "reply_schema": self.reply_schema}
        )


@dataclass(frozen=True)
class ReplyReading:
    """What one reply says. ``valid`` False: the schema (or the scale) rejects it, ``problem``
    says why and no verdict is read from it."""

    valid: bool
    passed: bool | None = None
    score: float | None = None
    justification: str | None = None
    assertions: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None


# --------------------------------------------------------------------------- transcripts


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except ValueError:
        return repr(value)


def _short(text: str, limit: int = _RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} [... {len(text) - limit} characters of this result cut]"


def _call_lines(trace: Trace, round_index: int) -> list[str]:
    out = []
    for call in trace.rounds[round_index].calls:
        args = call.arguments_raw or _json(call.arguments or {})
        out.append(f"ASSISTANT called {call.name}({args})")
        if call.error:
            out.append(f"TOOL ERROR: {_short(call.error)}")
        elif call.result is not None:
            out.append(f"TOOL RESULT: {_short(_json(call.result))}")
    return out


def _final_reply(trace: Trace) -> str:
    if trace.final_text:
        return trace.final_text
    for rnd in reversed(trace.rounds):
        if rnd.text and not rnd.calls:
            return rnd.text
    return "(the assistant gave no final reply)"


def _state_changes(trace: Trace, case: Case, registry: ToolRegistry | None) -> list[str]:
    """What the agent's calls changed in the case's world, re-executed on a fresh copy."""
    if registry is None or registry.world is None:
        return ["(no world: nothing to show)"]
    from rejudge.model import diff_states

    from .tiers._state import world_of

    world = world_of(registry)
    before = world.case_state(case.metadata)
    after = world.case_state(case.metadata)
    terminal = set(registry.terminal_tools) | set(world.terminal_tools)
    known = set(world.tool_names())
    for call in trace.calls:
        if call.name in terminal or call.arguments is None or call.name not in known:
            continue
        world.execute(after, call.name, dict(call.arguments))
    differences = diff_states(before, after, world.ledger_tables)
    if not differences:
        return ["(the agent's calls changed nothing)"]
    return [d.describe() for d in differences]


def render_transcript(
    trace: Trace, case: Case, view: str, registry: ToolRegistry | None = None
) -> str:
    """What of the trace the judge sees under ``view`` (see :data:`rejudge.model.RUBRIC_VIEWS`)."""
    if view == "final_reply":
        return f"ASSISTANT (final reply): {_final_reply(trace)}"
    if view == "calls":
        calls = [line for i in range(len(trace.rounds)) for line in _call_lines(trace, i)]
        return "\n".join(calls) or "(the assistant made no tool call)"
    if view == "state_diff":
        changes = [f"- {c}" for c in _state_changes(trace, case, registry)]
        final = f"ASSISTANT (final reply): {_final_reply(trace)}"
        return "\n".join(["Changes the assistant's calls made:", *changes, final])
    turns: dict[int, list[str]] = {}
    for turn in trace.user_turns:
        turns.setdefault(turn.before_round, []).append(turn.text)
    # the instruction opens the conversation unless the trace's own turns hold its first message
    opens = bool(trace.user_turns) and min(t.position for t in trace.user_turns) == 0
    lines: list[str] = [] if opens else [f"USER: {case.instruction}"]
    for index, rnd in enumerate(trace.rounds):
        lines += [f"USER: {text}" for text in turns.get(index, [])]
        if rnd.text:
            lines.append(f"ASSISTANT: {rnd.text}")
        lines += _call_lines(trace, index)
    lines += [f"USER: {text}" for text in turns.get(len(trace.rounds), [])]
    if trace.final_text and not any(r.text == trace.final_text for r in trace.rounds):
        lines.append(f"ASSISTANT: {trace.final_text}")
    return "\n".join(lines)


def cut_text(text: str, max_chars: int, keep: str) -> tuple[str, dict[str, Any] | None]:
    """``text`` within ``max_chars``, cut as ``keep`` says, with the cut marked in the text and
    described (None when nothing was cut)."""
    if len(text) <= max_chars:
        return text, None
    cut = len(text) - max_chars
    mark = f"\n[... {cut} characters of the conversation cut here ...]\n"
    if keep == "head":
        kept = text[:max_chars] + mark
    elif keep == "tail":
        kept = mark + text[-max_chars:]
    else:
        head = max_chars // 2
        kept = text[:head] + mark + text[len(text) - (max_chars - head) :]
    return kept, {"original_chars": len(text), "kept_chars": max_chars, "keep": keep}


# --------------------------------------------------------------------------- prompts


def _schema_for(rubric: Rubric, case: Case) -> dict[str, Any]:
    schema = rubric.reply_schema
    if rubric.inputs != "nl_assertions":
        return schema
    # one item per assertion: the judge can neither skip one nor add one
    n = len(case.nl_assertions)
    out = copy.deepcopy(schema)
    prop = out.get("properties", {}).get("assertions")
    if isinstance(prop, dict):
        prop["minItems"] = n
        prop["maxItems"] = n
    return out


def render_prompt(
    rubric: Rubric, trace: Trace, case: Case, registry: ToolRegistry | None = None
) -> RenderedPrompt:
    """The prompt ``rubric`` sends the judge for this trace of this case."""
    transcript, cut = cut_text(
        render_transcript(trace, case, rubric.view, registry),
        rubric.truncation.max_chars,
        rubric.truncation.keep,
    )
    values = {
        "criteria": rubric.criteria,
        "instruction": case.instruction,
        "transcript": transcript,
        "assertions": "\n".join(f"{i}. {a}" for i, a in enumerate(case.nl_assertions, 1))
        or "(none)",
        "required_outputs": "\n".join(f"- {o}" for o in case.required_outputs) or "(none)",
    }

    def fill(template: str) -> str:
        # one pass: a value that itself holds {{...}} (a trace's text) is never expanded
        return _VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), template)

    return RenderedPrompt(
        system=fill(rubric.system),
        user=fill(rubric.template),
        reply_schema=_schema_for(rubric, case),
        cut=cut,
    )


# --------------------------------------------------------------------------- replies

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_VALIDATORS: dict[str, Any] = {}


def _validator(schema: dict[str, Any]) -> Any:
    key = json.dumps(schema, sort_keys=True)
    hit = _VALIDATORS.get(key)
    if hit is None:
        if len(_VALIDATORS) > 256:
            _VALIDATORS.clear()
        hit = _VALIDATORS[key] = _validators.validator_for(schema)(schema)
    return hit


def read_reply(rubric: Rubric, prompt: RenderedPrompt, text: str | None) -> ReplyReading:
    """Read one judge reply under ``rubric`` (the schema of ``prompt``)."""
    if text is None or not text.strip():
        return ReplyReading(valid=False, problem="the judge sent no text")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:  # a JSON object inside a Markdown code fence is still that object
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except ValueError as exc:
        return ReplyReading(valid=False, problem=f"the reply is not JSON: {exc}")
    errors = sorted(_validator(prompt.reply_schema).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "(reply)"
        return ReplyReading(
            valid=False, problem=f"the reply breaks the rubric's schema at {where}: {first.message}"
        )
    if not isinstance(data, dict):
        return ReplyReading(valid=False, problem="the reply is not a JSON object")
    justification = data.get("justification")
    justification = justification if isinstance(justification, str) else None
    if rubric.inputs == "nl_assertions":
        return _read_assertions(data, prompt)
    if rubric.scale == "graded":
        score = data.get("score")
        if not isinstance(score, (int, float)) or isinstance(score, bool):
            return ReplyReading(valid=False, problem="the reply's score is not a number")
        threshold = rubric.threshold if rubric.threshold is not None else 0.5
        return ReplyReading(
            valid=True,
            passed=float(score) >= threshold,
            score=float(score),
            justification=justification,
        )
    success = data.get("success")
    if not isinstance(success, bool):
        return ReplyReading(valid=False, problem="the reply's success is not true or false")
    return ReplyReading(
        valid=True, passed=success, score=1.0 if success else 0.0, justification=justification
    )


def _read_assertions(data: dict[str, Any], prompt: RenderedPrompt) -> ReplyReading:
    items = data.get("assertions")
    if not isinstance(items, list) or not items:
        return ReplyReading(valid=False, problem="the reply judges no assertion")
    out = []
    for position, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("met"), bool):
            return ReplyReading(
                valid=False, problem=f"assertion {position}: 'met' is not true or false"
            )
        why = item.get("justification")
        out.append(
            {
                "index": position,
                "met": item["met"],
                "justification": why if isinstance(why, str) else None,
            }
        )
    met = sum(1 for a in out if a["met"])
    return ReplyReading(
        valid=True,
        passed=met == len(out),
        score=met / len(out),
        justification=None,
        assertions=out,
    )
