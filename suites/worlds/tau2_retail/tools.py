"""τ²-bench's retail tools, written here from what its recorded runs show them doing.

Nothing of τ²'s code is copied: each behaviour below was read off the recorded calls and results
of ``runs/toolorchestra_retail.json`` (873 calls, gpt-4.1-mini, τ² at ade3949) and the retail
policy (the shared folder ``real-runs/tau2-bench/``), and the re-execution test holds each one to
the recordings byte for byte. What the recordings show, and so what the tools do:

- a result is the record as JSON (``json.dumps`` with its default separators, keys in the
  database's order); a found user id is the bare id; a transfer is ``Transfer successful``;
- an order always shows seven optional fields after ``payment_history`` (``cancel_reason`` ...
  ``return_payment_method_id``), null until a write sets them: the world keeps orders in that
  form (:func:`~.records.order_form`), so a state compares as τ²'s database hash does;
- a refusal is ``Error: <reason>`` and changes nothing (the world rolls the call back);
- price differences: an exchange records its difference rounded to cents, a modification
  appends the unrounded difference to the payment history (``113.71000000000004`` is recorded);
- a modification of several items gives each replaced item its new id but the price and options
  of the call's *last* new item (two recorded calls show it, and a later ``get_order_details``
  reads it back): τ²'s own behaviour, kept, because its database check runs the same code on
  both sides.

Paths no recording reaches (a gift card balance too low, a bad cancel reason ...) are written
from the policy's rules, with messages in the recorded style.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from rejudge.suites.worlds._tau2 import _Refused
from rejudge.suites.worlds.tau2_retail import reads, writes

from rejudge.model import CallResult, WorldState

__all__ = ["READ_TOOLS", "TERMINAL_TOOLS", "TOOLS", "TOOLS_REVISION_2", "run"]

#: the tool that ends the conversation (changes nothing; τ²'s DB check is unaffected by it)
TERMINAL_TOOLS = frozenset({"transfer_to_human_agents"})
#: every tool, by name (in name order): the functions :mod:`.reads` and :mod:`.writes` export
TOOLS: dict[str, Callable[..., str]] = dict(
    sorted((name, getattr(module, name)) for module in (reads, writes) for name in module.__all__)
)
#: tools that only read the database, or have no side effect at all: those of :mod:`.reads`
#: but the terminal one
READ_TOOLS = frozenset(reads.__all__) - TERMINAL_TOOLS


#: revision 2 (world version ``8d005b0-2``): what revision 1 got wrong against τ²'s own tools
#: (its code at 8d005b0, run as an oracle: see README.md) — an exchange for the same variant
#: is accepted; a cancellation refunds every entry of the payment history, as τ²'s does; a
#: return to another method, a gift card too low and a payment change are refused in τ²'s
#: words and order of checks
_REVISED = (
    "cancel_pending_order",
    "exchange_delivered_order_items",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "return_delivered_order_items",
)
TOOLS_REVISION_2: dict[str, Callable[..., str]] = {
    **TOOLS,
    **{name: partial(TOOLS[name], revision=2) for name in _REVISED},
}


def run(
    state: WorldState,
    name: str,
    arguments: dict[str, Any],
    tools: dict[str, Callable[..., str]] = TOOLS,
) -> CallResult:
    """Run one tool; a refusal is a failed result in τ²'s wording (the world rolls it back)."""
    if "revision" in arguments:  # the world's own switch, never an argument a model can set
        raise TypeError(f"{name}() got an unexpected keyword argument 'revision'")
    kwargs = {("state_" if k == "state" else k): v for k, v in arguments.items()}
    try:
        return CallResult(True, tools[name](state, **kwargs))
    except _Refused as exc:
        return CallResult(False, f"Error: {exc}")
