"""A tool call a stream sends in pieces, as the stream readers of Chat Completions, Cohere v2 and
Bedrock Converse assemble it: the id and name as they come, the argument text's fragments in
order, made one :class:`~rejudge.model.ToolCall` at the end."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rejudge.recorder.wire._common import make_call, make_freeform_call

from rejudge.model import ToolCall

# the stream readers' own helper, not a name of the package
__all__: list[str] = []


@dataclass
class PartialCall:
    """A call being assembled: a freeform tool's input text when ``freeform``, else JSON
    arguments (parsed, or kept with their parse error, by :func:`make_call`)."""

    id: Any = None
    name: Any = None
    parts: list[str] = field(default_factory=list)
    freeform: bool = False

    def call(self) -> ToolCall:
        text = "".join(self.parts)
        if self.freeform:
            return make_freeform_call(self.id, self.name, text)
        return make_call(self.id, self.name, text)
