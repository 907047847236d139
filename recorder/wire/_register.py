"""How a wire format joins the one extension registry (kind ``wire_format``).

Each built-in format's module calls :func:`register_wire_format` at its bottom and has its line in
``rejudge.registry.BUILTINS["wire_format"]`` (whose order is detection order); a plugin's format
registers the same way. This module is what every format module imports to register, so it
imports none of them.
"""

from __future__ import annotations

from typing import Any

from rejudge.recorder.wire._common import WIRE_UNKNOWN
from rejudge.recorder.wire._format import WireFormat

from rejudge.errors import NotFoundError
from rejudge.registry import REGISTRY

__all__ = ["UnknownWireFormatError", "register_wire_format"]


class UnknownWireFormatError(NotFoundError):
    """No wire format of that name is registered (``field`` is ``"wire_format"``)."""


def _check_wire_format(name: str, wire_format: Any) -> None:
    if name == WIRE_UNKNOWN or getattr(wire_format, "name", None) != name:
        raise ValueError(
            f"a wire format needs a name other than {WIRE_UNKNOWN!r}, and is registered under it"
        )


REGISTRY.configure("wire_format", error=UnknownWireFormatError, check=_check_wire_format)


def register_wire_format(wire_format: WireFormat, *, replace: bool = False) -> None:
    """Add a format under its ``name``; registering another object under a taken name needs
    ``replace=True``. Built-in formats come first in detection, in their table's order; the
    others after them, in registration order."""
    name = wire_format.name
    if name == WIRE_UNKNOWN or not isinstance(name, str) or not name:
        raise ValueError(f"a wire format needs a name other than {WIRE_UNKNOWN!r}")
    REGISTRY.register("wire_format", name, wire_format, replace=replace)
