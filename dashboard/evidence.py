"""Showing evidence (a trace's rounds, tool results, raw exchanges) safely and readably.

Everything here comes from outside: the model's text, tool results, an imported cassette's
instructions. None of it is ever rendered as Markdown, HTML or LaTeX: values are escaped into
``<pre>`` blocks and tables (:mod:`rejudge.dashboard.evidence_html`, drawn with ``st.html``), or
go through :func:`md_escape` when they must sit in a Markdown label (badges, expander titles).
A result is shown by what it holds: a JSON structure as JSON (a string that parses as an object
or array too), anything else as text.

The trace viewer, the review page and the side-by-side page all draw rounds with
:func:`render_rounds`, so a trace reads the same everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from typing import Any

import streamlit as st
from rejudge.dashboard.common import NO_CALL_BADGE, md_escape, tool_badge
from rejudge.dashboard.evidence_html import (
    json_html,
    markdown_block_html,
    table_html,
    text_html,
)

from rejudge.model import Block
from rejudge.services import CassetteView, ExchangeView

__all__ = [
    "structured",
    "show_value",
    "show_text",
    "show_table",
    "round_kind",
    "render_round",
    "render_ending",
    "render_rounds",
    "user_turns",
    "render_exchanges",
    "round_blocks",
    "ANSWER_BADGE",
    "REPLY_BADGE",
    "SERVER_TOOL_BADGE",
]

ANSWER_BADGE = ":blue-badge[answer]"
REPLY_BADGE = ":blue-badge[reply to the user]"
SERVER_TOOL_BADGE = ":violet-badge[provider tool]"
# a raw body is shown in a scrolling box this tall, never as a page-long block
RAW_HEIGHT_PX = 360


def structured(value: Any) -> Any | None:
    """``value`` as a JSON structure (dict or list) when it is one or a string holding one;
    None when it is plain text, a number or absent (``st.json`` takes structures only)."""
    if isinstance(value, dict | list):
        return value
    if isinstance(value, str):
        head = value.lstrip()[:1]
        if head in ("{", "["):
            try:
                parsed = json.loads(value)
            except ValueError:
                return None
            return parsed if isinstance(parsed, dict | list) else None
    return None


def show_text(value: str, *, height: int | None = None) -> None:
    """Untrusted text, verbatim (no Markdown): wrapped, in a box like a code box."""
    st.html(text_html(value, height=height))


def show_message(value: str) -> None:
    """A message (the model's text, a user's turn) with its Markdown rendered, inert: a tag,
    link or image in it stays text (:func:`.evidence_html.markdown_block_html`)."""
    st.html(markdown_block_html(value))


def show_table(rows: Sequence[dict[str, Any]]) -> None:
    """A small static table of evidence (a judgment's call diff), every cell escaped."""
    st.html(table_html(rows))


def _jsonable(value: Any) -> Any:
    # what a decoded body may hold that JSON cannot (a binary event stream's bytes, say)
    if isinstance(value, bytes | bytearray):
        return value.decode("utf-8", errors="replace")
    return repr(value)


def show_value(value: Any, *, expanded: bool = True) -> None:
    """A tool result, argument set or body: JSON when it is a structure, text otherwise."""
    shape = structured(value)
    if shape is not None:
        try:
            json.dumps(shape)
        except (TypeError, ValueError):
            shape = json.loads(json.dumps(shape, default=_jsonable))
        st.html(json_html(shape, expanded=expanded))
    elif value is None:
        st.caption("(none)")
    elif isinstance(value, str):
        show_text(value if value else "(empty string)")
    elif isinstance(value, bytes | bytearray):
        show_text(_jsonable(value) or "(empty body)")
    else:
        show_text(json.dumps(value, ensure_ascii=False, default=_jsonable))


def round_kind(body: dict[str, Any], position: int) -> str:
    """``calls``, ``answer`` (the trace's normal final reply: a completed trace's last round, a
    text and no call), ``reply`` (a text and no call that a user message follows: in a
    conversation, the model answering the user, nothing missing) or ``no_call`` (a round
    without a call that is none of these)."""
    rounds = body.get("rounds") or []
    rnd = rounds[position]
    if rnd.get("calls"):
        return "calls"
    last = position == len(rounds) - 1
    if last and body.get("status", "completed") == "completed" and not body.get("error"):
        return "answer"
    index = int(rnd.get("index", position))
    answered = {int(t.get("before_round", -1)) for t in body.get("user_turns") or []}
    if rnd.get("text") and index + 1 in answered:
        return "reply"
    return "no_call"


def _badges(kind: str, rnd: dict[str, Any]) -> str:
    calls = rnd.get("calls") or []
    parts = [
        tool_badge(c.get("name", "?"), c.get("ok"), c.get("parse_error") is not None) for c in calls
    ]
    parts += [
        f"{SERVER_TOOL_BADGE} {md_escape(str(s.get('name', '?')))}"
        for s in rnd.get("server_tools") or []
    ]
    if kind == "answer":
        parts.append(ANSWER_BADGE)
    elif kind == "reply":
        parts.append(REPLY_BADGE)
    elif kind == "no_call" and not rnd.get("server_tools"):
        parts.append(NO_CALL_BADGE)
    if rnd.get("alternatives"):
        parts.append(f":gray-badge[n>1: {len(rnd['alternatives'])} other choice(s)]")
    return " ".join(parts)


def user_turns(body: dict[str, Any], before: int) -> None:
    for turn in sorted(body.get("user_turns") or [], key=lambda t: t.get("position", 0)):
        if int(turn.get("before_round", -1)) == before:
            with st.container(border=True):
                st.markdown(f"**User** (message #{int(turn.get('position', 0))})")
                show_message(str(turn.get("text", "")))


def _call(call: dict[str, Any], highlighted: Collection[str]) -> None:
    name = md_escape(str(call.get("name", "?")))
    marks = f" · differs: {md_escape(', '.join(sorted(highlighted)))}" if highlighted else ""
    st.markdown(f"**{name}**{marks}")
    if call.get("parse_error"):
        st.error(f"arguments did not parse: {md_escape(str(call['parse_error']))}")
        show_text(call.get("arguments_raw") or "")
    else:
        arguments = call.get("arguments") or {}
        if highlighted:
            for key in sorted(highlighted):
                st.markdown(f":orange-background[{md_escape(key)}]")
                show_value(arguments.get(key, "(absent)"))
            rest = {k: v for k, v in arguments.items() if k not in highlighted}
            if rest:
                show_value(rest)
        else:
            show_value(arguments)
    if call.get("error"):
        st.warning(md_escape(str(call["error"])))
    if call.get("result") is not None or call.get("ok") is not None:
        st.caption("result")
        show_value(call.get("result"))


def _ordered(blocks: Sequence[Block]) -> None:
    """A response's blocks in the order the provider sent them, each under its label."""
    for block in blocks:
        if block.kind in ("text", "thinking"):
            st.caption(md_escape(block.label))
            show_text(str(block.value) or "(empty)")
        else:
            st.caption(md_escape(block.label))
            show_value(block.value, expanded=block.kind != "server_result")


def render_round(
    body: dict[str, Any],
    position: int,
    *,
    round_time: Callable[[int], str] | None = None,
    highlight: Callable[[int, int], Collection[str]] | None = None,
    blocks: Callable[[int], Sequence[Block] | None] | None = None,
) -> None:
    """Round ``position`` of a trace as a card, the user's turns before it in place.

    ``highlight(round_position, call_position)`` names the arguments of that call to mark (the
    side-by-side page marks those that differ from the other trace). ``blocks(position)`` gives
    the response's content blocks in their recorded order (read from the cassette): the trace
    keeps the text joined and the provider's tool uses apart, so where the order matters (a
    provider-side tool, reasoning) the card shows them from there."""
    rnd = (body.get("rounds") or [])[position]
    user_turns(body, int(rnd.get("index", position)))
    kind = round_kind(body, position)
    with st.container(border=True):
        # counted from 0, as `rejudge traces` and the judge's reasons ("call #0") count
        number = int(rnd.get("index", position))
        timing = round_time(position) if round_time else ""
        st.markdown(f"**Round {number}**{timing} &nbsp; {_badges(kind, rnd)}")
        ordered = blocks(position) if blocks else None
        if ordered and any(
            b.kind in ("server_input", "server_result", "thinking") for b in ordered
        ):
            st.caption(
                "The response's blocks in the order the provider sent them (from the cassette)"
            )
            _ordered(ordered)
            if rnd.get("calls"):
                st.caption("The client's calls, with their results")
        else:
            _text_and_server_tools(rnd, kind)
        for call_position, call in enumerate(rnd.get("calls") or []):
            _call(call, highlight(position, call_position) if highlight else ())
        alternatives = rnd.get("alternatives") or []
        if alternatives:
            with st.expander(f"{len(alternatives)} other choice(s) of this response (n>1)"):
                st.caption("Kept but never followed: the client continued with choice 0.")
                for alt in alternatives:
                    calls = ", ".join(c.get("name", "?") for c in alt.get("calls") or [])
                    st.markdown(
                        md_escape(
                            f"choice {alt.get('choice')}: {calls or 'no call'} "
                            f"(finish: {alt.get('finish_reason') or '—'})"
                        )
                    )
                    if alt.get("calls"):
                        show_value(
                            [
                                {"name": c.get("name"), "arguments": c.get("arguments")}
                                for c in alt["calls"]
                            ],
                            expanded=False,
                        )
                    if alt.get("text"):
                        show_message(str(alt["text"]))


def _text_and_server_tools(rnd: dict[str, Any], kind: str) -> None:
    """What the trace records of a response besides its calls: its text (every text block
    joined) and the provider's tool uses, each labelled; their order is not in the trace."""
    servers = rnd.get("server_tools") or []
    if rnd.get("text"):
        if kind == "answer":
            st.caption("final answer")
        elif servers:
            st.caption(
                "text: the response's text blocks joined (the trace does not keep their order "
                "among the provider's tool blocks; the cassette does)"
            )
        show_message(str(rnd["text"]))
    for server in servers:
        st.markdown(
            f"{SERVER_TOOL_BADGE} **{md_escape(str(server.get('name', '?')))}** "
            f"({md_escape(str(server.get('kind', '')))}; run by the provider, "
            "not one of the client's calls)"
        )
        st.caption("server tool input")
        show_value(server.get("input"), expanded=False)
        if server.get("result") is not None:
            st.caption("server tool result")
            show_value(server.get("result"), expanded=False)


def render_ending(body: dict[str, Any]) -> None:
    """What follows the last round: user turns nothing answered, a final text kept apart."""
    rounds = body.get("rounds") or []
    user_turns(body, len(rounds))
    final = body.get("final_text")
    if final and not (rounds and rounds[-1].get("text") == final):
        st.markdown(f"**Final answer** &nbsp; {ANSWER_BADGE}")
        show_message(str(final))


def render_rounds(
    body: dict[str, Any],
    *,
    round_time: Callable[[int], str] | None = None,
    highlight: Callable[[int, int], Collection[str]] | None = None,
    blocks: Callable[[int], Sequence[Block] | None] | None = None,
) -> None:
    """A trace's rounds as cards, with the user's turns in place between them."""
    for position in range(len(body.get("rounds") or [])):
        render_round(body, position, round_time=round_time, highlight=highlight, blocks=blocks)
    render_ending(body)


def _exchange(view: ExchangeView, key: str) -> None:
    response, request, headers, raw = st.tabs(["Response", "Request", "Headers", "Raw"])
    with response:
        for note in view.notes:
            st.warning(md_escape(note))
        if view.streamed:
            st.caption("Streamed response, reassembled from its events (the Raw tab has them).")
        show_value(view.response)
    with request:
        if view.tool_names:
            st.caption(
                md_escape(f"{len(view.tool_names)} tool schema(s): {', '.join(view.tool_names)}")
            )
        show_value(view.request)
        if view.tools is not None and st.toggle(
            "Show the tool schemas", key=f"{key}_tools_{view.index}"
        ):
            show_value(view.tools, expanded=False)
    with headers:
        st.caption(f"wire format: {view.wire_format}")
        left, right = st.columns(2)
        left.markdown("**Request headers**")
        with left:
            show_value(view.request_headers, expanded=False)
        right.markdown("**Response headers**")
        with right:
            show_value(view.response_headers, expanded=False)
    with raw:
        st.caption("Response body as recorded (decoded)")
        show_text(view.raw_response or "(empty)", height=RAW_HEIGHT_PX)
        st.caption("Request body as recorded (decoded)")
        show_text(view.raw_request or "(empty)", height=RAW_HEIGHT_PX)


def render_exchanges(view: CassetteView | None, *, key: str = "ex") -> None:
    if view is None:
        st.caption("This trace has no cassette (e.g. an imported result).")
    elif view.error:
        st.warning(md_escape(view.error))
    else:
        st.caption(f"{len(view.exchanges)} exchange(s) from {md_escape(str(view.path))}")
        for ex in view.exchanges:
            with st.expander(md_escape(ex.title)):
                _exchange(ex, key)


def round_blocks(view: CassetteView | None) -> Callable[[int], Sequence[Block] | None]:
    """Round position -> its response's blocks in recorded order: the cassette's model
    exchanges (those whose response has a known shape) taken in order, one per round. The
    blocks are the exchanges service's (read by the wire formats' reader), never parsed here."""
    found: list[list[Block]] = []
    if view is not None and not view.error:
        found = [ex.blocks for ex in view.exchanges if ex.blocks is not None]

    def lookup(position: int) -> Sequence[Block] | None:
        return found[position] if position < len(found) else None

    return lookup
