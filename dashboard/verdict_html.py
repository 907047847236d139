"""The head of a trace: its verdict, its causes and the judge's reasons, and for a state
verdict what was compared and the final-state diff, as static escaped HTML.

Why a head: the question people bring to a trace is "why did this case fail?", and the answer
sat below every round of the conversation (about 11,500 px down a 14,560-px page, issue 39).
The head is drawn first, above the folded evidence.

A state verdict is only explained by what it compared: the state tier re-executes the trace's
calls in its world and compares the final state with the one the golden calls leave, so the
head says which world, how many calls, whether the two state hashes are equal, and lists the
fields that differ (table, record, path, expected, actual). A PASS says the hashes are equal;
that is its explanation.

Every string from a judgment (reasons quote the model's arguments, paths and values come from
the world's records) goes through :func:`html.escape`; nothing here writes a link. Pure (no
Streamlit): the trace viewer hands the result to ``st.html``. The markup uses the classes
``rj-verdict``, ``rj-causes``, ``rj-reasons``, ``rj-compared`` and ``rj-state-diff``, which
the tests read back.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rejudge.dashboard.evidence_html import cell_text, table_html

__all__ = ["VerdictHead", "StateChange", "verdict_head", "verdict_head_html"]

#: reasons shown in the head; the rest are counted ("and 4 more") and shown in full below
HEAD_REASONS = 6
#: state differences listed in the head
HEAD_CHANGES = 12

_TONE = {
    "PASS": "color:#0f7a36;background:rgba(33,195,84,0.15)",
    "FAIL": "color:#c1121f;background:rgba(255,43,43,0.12)",
}
_OTHER = "color:inherit;background:rgba(151,166,195,0.25)"
_BADGE = "font-size:1.6rem;font-weight:600;padding:0.1rem 0.7rem;border-radius:0.5rem"
_BOX = (
    "border:1px solid rgba(151,166,195,0.45);border-radius:0.5rem;padding:0.6rem 0.9rem;"
    "margin-bottom:0.5rem;overflow-wrap:break-word"
)
_LINE = "margin:0.35rem 0;font-size:0.95rem"
_LIST = "margin:0.25rem 0 0.25rem 1.2rem;padding:0;font-size:0.9rem;white-space:pre-wrap"


@dataclass(frozen=True)
class StateChange:
    """One field the final states disagree on."""

    table: str
    key: str
    path: str
    expected: str
    actual: str


@dataclass(frozen=True)
class VerdictHead:
    verdict: str
    tier: str
    causes: tuple[str, ...]
    reasons: tuple[str, ...]
    #: for a state verdict: what was compared, in one sentence (None for other tiers)
    compared: str | None
    changes: tuple[StateChange, ...]


def _state_changes(diff: Sequence[Any]) -> tuple[StateChange, ...]:
    out = []
    for entry in diff:
        if not isinstance(entry, Mapping) or entry.get("kind") != "state":
            continue
        out.append(
            StateChange(
                table=str(entry.get("table", "")),
                key=str(entry.get("key", "")),
                path=str(entry.get("path") or "(whole record)"),
                expected=cell_text(entry.get("expected"))
                if entry.get("expected_present", True)
                else "(absent)",
                actual=cell_text(entry.get("actual"))
                if entry.get("actual_present", True)
                else "(absent)",
            )
        )
    return tuple(out)


def _compared(details: Mapping[str, Any]) -> str | None:
    """What a state judgment compared, from its details (None when it compared nothing: a SKIP
    or an agent error never reached the world)."""
    expected = details.get("state_hash_expected")
    actual = details.get("state_hash_actual")
    if not expected or not actual:
        return None
    calls = details.get("re_executed_calls")
    world = details.get("world") or "its world"
    differences = details.get("state_differences")
    if expected == actual:
        outcome = f"the two are equal (state hash {str(actual)[:19]}…)"
    else:
        outcome = f"they differ in {differences} field(s)" if differences else "they differ"
    return (
        f"Compared: the final state after re-executing the trace's {calls} call(s) in "
        f"{world} with the final state the golden calls leave; {outcome}."
    )


def verdict_head(
    judgment: Mapping[str, Any], *, verdict_shown: str | None = None, tier: str = ""
) -> VerdictHead:
    """The head of a judgment body (as the store holds it); ``verdict_shown`` overrides the
    verdict's wording (``not scorable``)."""
    details = judgment.get("details")
    state = tier == "state" or judgment.get("tier") == "state"
    return VerdictHead(
        verdict=verdict_shown or str(judgment.get("verdict", "?")),
        tier=tier or str(judgment.get("tier", "")),
        causes=tuple(str(c) for c in judgment.get("taxonomy") or []),
        reasons=tuple(str(r) for r in judgment.get("reasons") or []),
        compared=_compared(details) if state and isinstance(details, Mapping) else None,
        changes=_state_changes(judgment.get("diff") or []) if state else (),
    )


def verdict_head_html(head: VerdictHead, *, title: str = "") -> str:
    """The head as one block: the verdict (coloured), its causes, the first reasons, and for a
    state verdict the comparison and the first differing fields."""
    tone = _TONE.get(head.verdict, _OTHER)
    causes = ", ".join(head.causes) or "none named"
    parts = [
        f'<div style="{_LINE}"><span class="rj-verdict" style="{_BADGE};{tone}">'
        f"{html.escape(head.verdict)}</span>"
        + (f" &nbsp;{html.escape(title)}" if title else "")
        + "</div>",
        f'<div class="rj-causes" style="{_LINE}"><b>Causes:</b> {html.escape(causes)}</div>',
    ]
    if head.reasons:
        shown = head.reasons[:HEAD_REASONS]
        items = "".join(f"<li>{html.escape(r)}</li>" for r in shown)
        more = len(head.reasons) - len(shown)
        if more:
            items += f"<li>and {more} more (Judgment, below)</li>"
        parts.append(f'<ul class="rj-reasons" style="{_LIST}">{items}</ul>')
    if head.compared:
        parts.append(f'<div class="rj-compared" style="{_LINE}">{html.escape(head.compared)}</div>')
    if head.changes:
        rows = [
            {
                "record": f"{c.table}/{c.key}",
                "field": c.path,
                "expected (golden)": c.expected,
                "actual": c.actual,
            }
            for c in head.changes[:HEAD_CHANGES]
        ]
        more = len(head.changes) - len(rows)
        note = f"<div style='{_LINE}'>and {more} more field(s)</div>" if more else ""
        parts.append(f'<div class="rj-state-diff">{table_html(rows)}{note}</div>')
    return f'<div class="rj-head" style="{_BOX}">{"".join(parts)}</div>'
