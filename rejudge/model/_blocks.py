"""One content block of a model response, in the order the provider sent it.

A trace keeps a round's text, its client calls and its provider-side tool uses as separate
lists; the order of the blocks between them is in the raw response only. The wire formats'
reader (:func:`rejudge.recorder.wire.content_blocks`) reads it from there, and the dashboard
shows the blocks as it gets them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Block"]


class Block(NamedTuple):
    # text, thinking, call (the client's tool call), server_input, server_result, other
    kind: str
    label: str
    value: Any
