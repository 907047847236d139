"""A trace's timeline (:class:`rejudge.model.Timeline`) as static, escaped HTML: the Trace
viewer's timeline section and every trace of the static report (``rejudge report --html``).

One list item per step, in order: a user message, a round (the model's text as inert Markdown,
its latency and tokens, each call with its arguments, its diff against the golden call and its
result), the error that stopped the trace. Long texts and results are folded (``<details>``,
open on a click, no script); a call whose arguments differ from golden shows the differing
paths in a table.

Evidence is never markup: texts and values go through :func:`html.escape` (or
:func:`rejudge.dashboard.markdown_html.markdown_html`, which writes no link or image), and
nothing here writes an ``<a>``, a ``<script>``, a ``src`` or an event attribute.

Styles: one table (:data:`CSS`, class -> declarations). Inside Streamlit (``st.html``) each
element carries its declarations inline (``inline=True``: a fragment styles itself); a static
page writes the table once as a stylesheet (:func:`timeline_css`) and the elements carry only
their class, which keeps a 200-trace report a third smaller. Classes ``rj-timeline``,
``rj-step``, ``rj-call`` and ``rj-argdiff`` are what the tests read back.

Pure (no Streamlit).
"""

from __future__ import annotations

import html
import json
from typing import Any

from rejudge.dashboard.markdown_html import markdown_html

from rejudge.model import StepFacts, Timeline, TimelineCall, TimelineStep

__all__ = ["timeline_html", "timeline_summary", "timeline_css", "CSS", "FOLD_CHARS", "FOLD_LINES"]

#: a text longer than this many characters, or lines, is folded under its first line
FOLD_CHARS = 600
FOLD_LINES = 10

_BOX = (
    "margin:0 0 0.4rem 0;padding:0.5rem 0.8rem;border-radius:0.5rem;"
    "background:rgba(151,166,195,0.15);font-family:'Source Code Pro',monospace;"
    "font-size:0.82rem;line-height:1.4;white-space:pre-wrap;overflow-wrap:anywhere"
)
_STEP = (
    "margin:0 0 0.5rem 0;padding:0.4rem 0.7rem;border-left:3px solid #7d8597;"
    "border-radius:0 0.4rem 0.4rem 0;background:rgba(151,166,195,0.07)"
)
_CELL = (
    "border:1px solid rgba(151,166,195,0.35);padding:0.15rem 0.4rem;text-align:left;"
    "vertical-align:top;white-space:pre-wrap;overflow-wrap:anywhere"
)
#: every class the timeline writes, and its declarations
CSS: dict[str, str] = {
    "rj-timeline": "margin:0.2rem 0",
    "rj-steps": "list-style:none;margin:0;padding:0",
    "rj-step": _STEP,
    "rj-step-round": "",  # a round is drawn as any step
    "rj-step-user": _STEP.replace("#7d8597", "#0068c9"),
    "rj-step-error": _STEP.replace("#7d8597", "#c1121f"),
    "rj-meta": "font-size:0.8rem;opacity:0.75;margin-bottom:0.25rem",
    "rj-call": "margin:0.35rem 0 0.35rem 0.6rem;padding-left:0.6rem;border-left:1px dashed #97a6c3",
    "rj-sum": "cursor:pointer;font-size:0.85rem;opacity:0.85",
    "rj-md": "overflow-wrap:break-word;font-size:0.95rem",
    "rj-text": _BOX,
    "rj-json": _BOX,
    "rj-argdiff": "border-collapse:collapse;font-size:0.8rem;margin:0.25rem 0",
    "rj-cell": _CELL,
    "rj-same": _CELL + ";color:#0f7a36",
    "rj-changed": _CELL + ";color:#c1121f",
    "rj-missing": _CELL + ";color:#c1121f",
    "rj-extra": _CELL + ";color:#b35c00",
    "rj-reasons": "margin:0.2rem 0 0.4rem 0",
}


def timeline_css() -> str:
    """:data:`CSS` as a stylesheet, for a page that renders with ``inline=False``. A step
    carries two classes (``rj-step rj-step-user``): the second's rule comes later and wins."""
    return "".join(f".{name}{{{rules}}}" for name, rules in CSS.items())


class _Look:
    """How an element names its look: its class, with its declarations inline or not."""

    def __init__(self, inline: bool) -> None:
        self.inline = inline

    def __call__(self, *names: str) -> str:
        cls = f'class="{" ".join(names)}"'
        if not self.inline:
            return cls
        return f'{cls} style="{";".join(CSS[n] for n in names if CSS.get(n))}"'


def _e(value: object) -> str:
    return html.escape(str(value))


def _folded(look: _Look, summary: str, body_html: str) -> str:
    return f"<details><summary {look('rj-sum')}>{_e(summary)}</summary>{body_html}</details>"


def _long(text: str) -> bool:
    return len(text) > FOLD_CHARS or text.count("\n") >= FOLD_LINES


def _first_line(text: str, limit: int = 90) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _pre(look: _Look, kind: str, text: str) -> str:
    return f"<pre {look(kind)}>{_e(text)}</pre>"


def _markdown(look: _Look, text: str) -> str:
    block = f"<div {look('rj-md')}>{markdown_html(text)}</div>"
    if _long(text):
        return _folded(look, f"{_first_line(text)} ({len(text)} characters)", block)
    return block


def _value(look: _Look, value: Any, label: str) -> str:
    """A result or argument set: JSON when it is a structure (folded when large), text
    otherwise (folded when long)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            value = json.loads(value)
        except ValueError:
            pass
    if isinstance(value, dict | list):
        text = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
        block = _pre(look, "rj-json", text)
        if _long(text):
            return _folded(look, f"{label}: {len(text)} characters of JSON", block)
        return block
    shown = "(none)" if value is None else "(empty string)" if value == "" else str(value)
    if _long(shown):
        summary = f"{label}: {_first_line(shown)} ({len(shown)} characters)"
        return _folded(look, summary, _pre(look, "rj-text", shown))
    return _pre(look, "rj-text", shown)


def _facts(facts: StepFacts | None) -> str:
    if facts is None or facts.empty:
        return ""
    parts = []
    if facts.latency_ms is not None:
        ms = facts.latency_ms
        parts.append(f"{ms / 1000:.2f} s" if ms >= 1000 else f"{ms:.0f} ms")
    if facts.input_tokens is not None or facts.output_tokens is not None:
        tin = "—" if facts.input_tokens is None else facts.input_tokens
        tout = "—" if facts.output_tokens is None else facts.output_tokens
        parts.append(f"{tin} tokens in / {tout} out")
    source = f" ({facts.source})" if facts.source else ""
    return " · " + " · ".join(parts) + source


def _compact(value: Any) -> str:
    # strings quoted: "1" is not 1
    return json.dumps(value, ensure_ascii=False, default=repr)


def _diff_table(look: _Look, call: TimelineCall) -> str:
    if call.golden_tool is None:
        return f"<div {look('rj-meta')}>no golden call of this tool to compare with</div>"
    if not call.differs:
        return f"<div {look('rj-meta')}>arguments equal the golden call</div>"
    cell = look("rj-cell")
    rows = "".join(
        f"<tr><td {cell}>{_e(d.path)}</td><td {look('rj-' + d.status)}>{_e(d.status)}</td>"
        f"<td {cell}>{_e(_compact(d.golden) if d.status != 'extra' else '')}</td>"
        f"<td {cell}>{_e(_compact(d.actual) if d.status != 'missing' else '')}</td></tr>"
        for d in call.diff
    )
    head = "".join(f"<th {cell}>{h}</th>" for h in ("path", "", "golden", "actual"))
    return (
        f"<table {look('rj-argdiff')}><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    )


def _call(look: _Look, shown: TimelineCall) -> str:
    call = shown.call
    if call.ok is None and call.result is None and call.error is None:
        outcome = "not executed"
    else:
        outcome = "ok" if call.ok else "failed"
    parts = [f"<div {look('rj-meta')}>call <b>{_e(call.name)}</b> · {outcome}</div>"]
    if call.arguments is None:
        why = f" ({call.parse_error})" if call.parse_error else ""
        parts.append(f"<div {look('rj-meta')}>arguments did not parse{_e(why)}</div>")
        parts.append(_value(look, call.arguments_raw, "arguments as sent"))
    else:
        parts.append(_value(look, call.arguments, "arguments"))
    parts.append(_diff_table(look, shown))
    if call.error:
        parts.append(f"<div {look('rj-meta')}>error</div>" + _value(look, call.error, "error"))
    if call.result is not None:
        said = call.result if isinstance(call.result, str) else _compact(call.result)
        summary = f"result: {_first_line(said, 70)}"
        parts.append(_folded(look, summary, _value(look, call.result, "result")))
    return f"<div {look('rj-call')}>{''.join(parts)}</div>"


def _step(look: _Look, step: TimelineStep) -> str:
    if step.kind == "user":
        meta, body = "user", _markdown(look, step.text or "")
    elif step.kind == "error":
        meta = "trace error" + ("" if step.round is None else f" in round {step.round}")
        body = _pre(look, "rj-text", step.text or "")
    else:
        finish = f" · finish {step.finish_reason}" if step.finish_reason else ""
        meta = f"round {step.round}{_facts(step.facts)}{finish}"
        pieces = [_markdown(look, step.text)] if step.text else []
        pieces += [
            f"<div {look('rj-meta')}>provider tool <b>{_e(name)}</b></div>"
            + _value(look, given, "input")
            for name, given in step.server_tools
        ]
        pieces += [_call(look, c) for c in step.calls]
        body = "".join(pieces) or f"<div {look('rj-meta')}>(no text, no call)</div>"
    return f"<li {look('rj-step', 'rj-step-' + step.kind)}><div {look('rj-meta')}>{_e(meta)}</div>{body}</li>"


def timeline_summary(tl: Timeline) -> str:
    """One line for a folded timeline: case, repetition, verdict and causes, size, time."""
    verdict = f" · {tl.verdict}" if tl.verdict else ""
    causes = f" · {', '.join(tl.causes)}" if tl.causes else ""
    took = "" if tl.latency_s is None else f" · {tl.latency_s:.2f} s"
    size = f"{tl.rounds} round(s), {tl.calls} call(s)"
    return f"{tl.case_id} · r{tl.repetition}{verdict}{causes} · {size}{took}"


def timeline_html(tl: Timeline, *, inline: bool = True, with_instruction: bool = True) -> str:
    """The whole timeline: a line of totals, where per-step figures came from, the judgment's
    reasons (when it has any), the golden calls never made, then the steps, the instruction
    first. ``inline``: every element carries its style (see the module)."""
    look = _Look(inline)
    totals = [f"status {tl.status}", f"{tl.rounds} round(s)", f"{tl.calls} call(s)"]
    if tl.latency_s is not None:
        totals.append(f"{tl.latency_s:.2f} s in all")
    if tl.input_tokens is not None or tl.output_tokens is not None:
        tin = "—" if tl.input_tokens is None else tl.input_tokens
        tout = "—" if tl.output_tokens is None else tl.output_tokens
        totals.append(f"{tin} tokens in / {tout} out")
    parts = [f"<div {look('rj-meta')}>{_e(' · '.join(totals))}</div>"]
    if tl.timing_note:
        parts.append(f"<div {look('rj-meta')}>{_e(tl.timing_note)}</div>")
    if tl.reasons:
        items = "".join(f"<li>{_e(r)}</li>" for r in tl.reasons)
        parts.append(f"<ul {look('rj-reasons')}>{items}</ul>")
    if tl.golden_uncalled:
        uncalled = ", ".join(tl.golden_uncalled)
        parts.append(f"<div {look('rj-meta')}>golden calls never made: {_e(uncalled)}</div>")
    steps = (
        [
            f"<li {look('rj-step', 'rj-step-user')}><div {look('rj-meta')}>instruction</div>"
            f"{_markdown(look, tl.instruction)}</li>"
        ]
        if with_instruction and tl.instruction
        else []
    )
    steps += [_step(look, s) for s in tl.steps]
    return (
        f"<div {look('rj-timeline')}>{''.join(parts)}"
        f"<ol {look('rj-steps')}>{''.join(steps)}</ol></div>"
    )
