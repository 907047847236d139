"""What a span says under the GenAI and OpenInference conventions (pure).

One span's flat attributes (and events) become a :class:`SpanFacts`: its kind (a model call,
a tool execution, an agent, or other), the messages it was sent and answered with, the model,
provider and token counts, or the tool, call id, arguments and result. Conventions read:

- GenAI, current: ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (JSON strings of
  ``{role, parts: [{type: text|tool_call|tool_call_response, ...}]}``, or OpenAI-style
  ``{role, content, tool_calls}``), ``gen_ai.operation.name`` (``chat``, ``execute_tool``,
  ``invoke_agent``), ``gen_ai.tool.name`` / ``gen_ai.tool.call.id`` /
  ``gen_ai.tool.call.arguments`` / ``gen_ai.tool.call.result``, ``gen_ai.usage.*``;
- GenAI, older: indexed ``gen_ai.prompt.N.role|content|tool_call_id|tool_calls.M.*`` and
  ``gen_ai.completion.N.*`` (OpenLLMetry), ``gen_ai.prompt`` / ``gen_ai.completion`` as one
  JSON string, and the events ``gen_ai.{system,user,assistant,tool}.message`` and
  ``gen_ai.choice``;
- OpenInference: ``openinference.span.kind``, ``llm.input_messages.N.message.role|content|
  contents.K.message_content.text|tool_call_id|tool_calls.M.tool_call.{id,function.name,
  function.arguments}``, ``llm.output_messages...``, ``llm.model_name``, ``llm.provider``,
  ``llm.token_count.*``, ``tool.name``, ``tool.parameters``, ``input.value`` /
  ``output.value``.

Values arrive as exporters wrote them: JSON inside strings (sometimes twice) is unwrapped;
a value cut short or missing is reported as a problem naming the field, never guessed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Call", "Message", "SpanFacts", "facts_of", "message_of", "unwrap_json"]

LLM_OPERATIONS = frozenset(
    {"chat", "text_completion", "generate_content", "completion", "call_llm", "responses"}
)
AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent", "agent"})
_TRUNCATED = ("...", "…", "[truncated]", "<truncated>")
_JSON_OPENERS = ("{", "[", '"')


@dataclass
class Call:
    id: str | None
    name: str
    arguments: Any  # as sent: an object, or the text when it is not JSON


@dataclass
class Message:
    role: str
    text: str | None = None
    calls: list[Call] = field(default_factory=list)
    call_id: str | None = None  # a tool message: the call it answers
    finish_reason: str | None = None


@dataclass
class SpanFacts:
    kind: str  # llm | tool | agent | other
    inputs: list[Message] | None = None  # None: the span carries no input messages
    outputs: list[Message] | None = None
    model: str | None = None
    provider: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_arguments: Any = None
    tool_result: Any = None
    # the tools a model call offered: (name, description, JSON schema of the parameters)
    tools: list[tuple[str, str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "field: what is wrong"


def unwrap_json(value: Any, depth: int = 3) -> Any:
    """A JSON object, list or string inside a string, unwrapped up to ``depth`` times
    (exporters serialise a value, and some serialise the serialised value again)."""
    for _ in range(depth):
        if not isinstance(value, str):
            return value
        head = value[:1]
        if head in _JSON_OPENERS and not value[-1].isspace():
            # nothing to strip (most values): parsed as they are, not copied first
            try:
                value = json.loads(value)
            except ValueError:
                return value
            continue
        if head not in _JSON_OPENERS and not head.isspace():
            return value  # empty, or text that is no JSON value of these
        text = value.strip()
        if not text or text[0] not in '{["':
            return value
        try:
            value = json.loads(text)
        except ValueError:
            return value
    return value


def _looks_truncated(text: str) -> bool:
    return text.rstrip().endswith(_TRUNCATED)


def _is_parts(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(p, dict) and ("text" in p or "type" in p) for p in value)
    )


def _text_of(content: Any) -> str | None:
    if isinstance(content, str):
        # a content-parts list sent as a string is read as parts; any other text (a tool's
        # JSON result included) stays the text it is
        parsed = unwrap_json(content, 1)
        if not _is_parts(parsed):
            return content
        content = parsed
    if content is None:
        return None
    if isinstance(content, list):
        texts = [_text_of(part) for part in content]
        joined = "".join(t for t in texts if t)
        return joined or None
    if isinstance(content, dict):
        for key in ("text", "content", "value"):
            if isinstance(content.get(key), str):
                return str(content[key])
        return json.dumps(content, ensure_ascii=False)
    return str(content)


# --------------------------------------------------------------------------- message shapes


def _call_of(raw: Mapping[str, Any]) -> Call:
    found = raw.get("function")
    function: dict[str, Any] = found if isinstance(found, dict) else {}
    name = raw.get("name") or function.get("name") or raw.get("tool.name") or ""
    arguments = raw.get("arguments", function.get("arguments", raw.get("tool.args")))
    return Call(
        id=str(raw["id"]) if raw.get("id") is not None else None,
        name=str(name),
        arguments=arguments,
    )


def _converse_blocks(content: Any, message: Message) -> bool:
    """Content in the Bedrock Converse shape (Strands writes it): ``[{"text"}, {"toolUse":
    {toolUseId, name, input}}, {"toolResult": {toolUseId, content: [{"text"}]}}]``, read into
    ``message``; False when the content is not that shape."""
    blocks = unwrap_json(content, 1) if isinstance(content, str) else content
    if not isinstance(blocks, list) or not any(
        isinstance(b, dict) and ("toolUse" in b or "toolResult" in b) for b in blocks
    ):
        return False
    texts = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        use, result = block.get("toolUse"), block.get("toolResult")
        if isinstance(use, dict):
            ident = use.get("toolUseId")
            message.calls.append(
                Call(
                    id=str(ident) if ident is not None else None,
                    name=str(use.get("name") or ""),
                    arguments=use.get("input"),
                )
            )
        elif isinstance(result, dict):  # a message answers one call: the first result's
            if message.call_id is None and result.get("toolUseId") is not None:
                message.call_id = str(result["toolUseId"])
                message.text = _text_of(result.get("content"))
        elif "text" in block:
            texts.append(str(block["text"]))
    if texts and message.text is None:
        message.text = "".join(texts)
    return True


def message_of(raw: Any) -> Message | None:
    """One message in any of the JSON shapes the conventions and SDKs use."""
    if not isinstance(raw, dict):
        return None
    role = str(raw.get("role") or "")
    message = Message(role=role, finish_reason=raw.get("finish_reason"))
    parts = raw.get("parts")
    if isinstance(parts, list):  # GenAI: typed parts
        texts = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                texts.append(str(part.get("content") or ""))
            elif kind == "tool_call":
                message.calls.append(_call_of(part))
            elif kind == "tool_call_response":
                message.call_id = str(part["id"]) if part.get("id") is not None else None
                response = part.get("response", part.get("result"))
                message.text = response if isinstance(response, str) else json.dumps(response)
        if texts:
            message.text = "".join(texts)
        return message
    content = raw.get("content")
    if content is None and isinstance(raw.get("message"), str | list):
        content = raw["message"]  # Strands' gen_ai.choice: the message's content, as JSON text
    if _converse_blocks(content, message):
        return message
    message.text = _text_of(content)
    calls = raw.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:  # a malformed value is no call
        if isinstance(call, dict):
            message.calls.append(_call_of(call))
    if raw.get("tool_call_id") is not None:
        message.call_id = str(raw["tool_call_id"])
    if isinstance(raw.get("message"), dict):  # a gen_ai.choice body
        inner = message_of({"role": "assistant", **raw["message"]})
        if inner is not None:
            inner.finish_reason = raw.get("finish_reason")
            return inner
    return message


def _messages_of(value: Any, where: str, problems: list[str]) -> list[Message] | None:
    value = unwrap_json(value)
    if isinstance(value, dict):
        for key in ("messages", "choices"):
            if isinstance(value.get(key), list):
                value = value[key]
                break
        else:
            value = [value] if ("role" in value or "parts" in value) else value
    if isinstance(value, list):
        found = [m for m in (message_of(item) for item in value) if m is not None]
        return found
    if isinstance(value, str):
        if _looks_truncated(value) or value.lstrip()[:1] in "[{":
            problems.append(f"{where}: cut short or not JSON")
            return None
        return None
    return None


_INDEXED = re.compile(r"^(?P<base>.+?)\.(?P<n>\d+)\.(?P<rest>.+)$")


def _indexed(attributes: Mapping[str, Any], prefix: str) -> dict[int, dict[str, Any]]:
    """``prefix.N.rest`` attributes grouped by N: {N: {rest: value}}."""
    out: dict[int, dict[str, Any]] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if key.startswith(start):
            head, _, rest = key[len(start) :].partition(".")
            if head.isdigit() and rest:
                out.setdefault(int(head), {})[rest] = value
    return out


def _indexed_messages(attributes: Mapping[str, Any], prefix: str, inner: str) -> list[Message]:
    """Indexed messages (``prefix.N.<inner>role`` ...), OpenInference's and the older
    GenAI's shapes alike (``inner`` is ``message.`` for OpenInference, empty for GenAI)."""
    out = []
    for _n, fields in sorted(_indexed(attributes, prefix).items()):
        get = {k[len(inner) :]: v for k, v in fields.items() if k.startswith(inner)}
        message = Message(role=str(get.get("role") or ""))
        texts = [
            str(v)
            for k, v in sorted(get.items())
            if (k.startswith("contents.") and k.endswith("message_content.text"))
            or (k.startswith("content.") and k.endswith(".text"))  # Strands: content.K.text
        ]
        content = get.get("content", get.get("text"))
        message.text = "".join(texts) if texts else _text_of(content)
        message.call_id = get.get("tool_call_id")
        message.finish_reason = get.get("finish_reason")
        calls = _indexed(get, "tool_calls")
        for _m, call in sorted(calls.items()):
            call_fields = {k.removeprefix("tool_call."): v for k, v in call.items()}
            message.calls.append(
                Call(
                    id=call_fields.get("id"),
                    name=str(call_fields.get("function.name") or call_fields.get("name") or ""),
                    arguments=call_fields.get("function.arguments", call_fields.get("arguments")),
                )
            )
        out.append(message)
    return out


_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def _event_messages(events: list[Any]) -> tuple[list[Message], list[Message]]:
    inputs: list[Message] = []
    outputs: list[Message] = []
    for event in events:
        attrs = dict(event.attributes)
        body = unwrap_json(attrs.pop("body", None))
        raw = body if isinstance(body, dict) else attrs
        raw = {k.removeprefix("gen_ai.event."): v for k, v in raw.items()}
        if event.name in _EVENT_ROLES:
            message = message_of({"role": _EVENT_ROLES[event.name], **raw})
            if message is not None:
                if message.call_id is None and raw.get("id") is not None:
                    message.call_id = str(raw["id"])
                inputs.append(message)
        elif event.name == "gen_ai.choice":
            message = message_of({"role": "assistant", **raw})
            if message is not None:
                outputs.append(message)
        elif event.name == "gen_ai.content.prompt":
            inputs.extend(_messages_of(attrs.get("gen_ai.prompt"), event.name, []) or [])
        elif event.name == "gen_ai.content.completion":
            outputs.extend(_messages_of(attrs.get("gen_ai.completion"), event.name, []) or [])
    return inputs, outputs


# --------------------------------------------------------------------------- one span


#: the key prefixes the conventions are told apart by (``llm.input_messages.0.message.role``
#: says OpenInference's indexed messages)
_PREFIXES = (
    "gen_ai.input.messages",
    "gen_ai.prompt",
    "llm.input_messages",
    "llm.input_messages.",
    "gen_ai.prompt.",
    "llm.output_messages.",
    "gen_ai.completion.",
)
_LLM_PREFIXES = frozenset(("gen_ai.input.messages", "gen_ai.prompt", "llm.input_messages"))


def _prefixes(attributes: Mapping[str, Any]) -> set[str]:
    """Which of :data:`_PREFIXES` some key starts with, found in one pass over the keys (a span
    has dozens of keys and is asked about several prefixes: one pass, not one per prefix)."""
    found: set[str] = set()
    for key in attributes:
        if key.startswith(_PREFIXES):
            found.update(p for p in _PREFIXES if key.startswith(p))
    return found


def _kind(attributes: Mapping[str, Any], prefixes: set[str]) -> str:
    operation = str(attributes.get("gen_ai.operation.name") or "").lower()
    openinference = str(attributes.get("openinference.span.kind") or "").upper()
    if operation == "execute_tool" or openinference == "TOOL":
        return "tool"
    if operation in LLM_OPERATIONS or openinference == "LLM":
        return "llm"
    if operation in AGENT_OPERATIONS or openinference == "AGENT":
        return "agent"
    if not _LLM_PREFIXES.isdisjoint(prefixes):
        return "llm"
    if "tool.name" in attributes or "gen_ai.tool.name" in attributes:
        return "tool"
    return "other"


def _output_messages(value: Any, where: str, problems: list[str]) -> list[Message] | None:
    """Output messages, or the shapes an output takes when it is not a message list (a bare
    text, ``{"text", "finish_reason"}``, any-agent's ``[{"tool.name", "tool.args"}]``)."""
    unwrapped = unwrap_json(value)
    if isinstance(unwrapped, dict) and isinstance(unwrapped.get("text"), str):
        return [
            Message("assistant", unwrapped["text"], finish_reason=unwrapped.get("finish_reason"))
        ]
    if (
        isinstance(unwrapped, list)
        and unwrapped
        and all(isinstance(i, dict) and "tool.name" in i for i in unwrapped)
    ):
        return [Message("assistant", calls=[_call_of(i) for i in unwrapped])]
    if isinstance(unwrapped, str) and unwrapped.lstrip()[:1] not in "[{":
        if _looks_truncated(unwrapped):
            problems.append(f"{where}: cut short")
        return [Message("assistant", unwrapped)]
    is_messages = isinstance(unwrapped, list) and all(
        isinstance(i, dict) and ("role" in i or "parts" in i or "message" in i) for i in unwrapped
    )
    if isinstance(unwrapped, dict) and not (
        {"role", "parts", "messages", "choices", "message"} & set(unwrapped)
    ):
        is_messages = False
    elif isinstance(unwrapped, dict):
        is_messages = True
    if not is_messages and isinstance(value, str) and unwrapped is not value:
        # a structured answer (a JSON object or list that is no message): its text as sent
        return [Message("assistant", value)]
    found = _messages_of(unwrapped, where, problems)
    for message in found or []:
        message.role = message.role or "assistant"
    return found


def _first(attributes: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if attributes.get(key) not in (None, ""):
            return attributes[key]
    return None


def _usage(attributes: Mapping[str, Any]) -> dict[str, int]:
    pairs = {
        "input_tokens": (
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.prompt_tokens",
            "llm.token_count.prompt",
        ),
        "output_tokens": (
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
            "llm.token_count.completion",
        ),
        # OpenInference counts the total too (the GenAI conventions do not); a cassette keeps
        # the provider's total_tokens
        "total_tokens": ("llm.token_count.total", "gen_ai.usage.total_tokens"),
    }
    usage = {}
    for name, keys in pairs.items():
        value = _first(attributes, *keys)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)  # some exporters write every attribute as a string
        if isinstance(value, int | float) and not isinstance(value, bool):
            usage[name] = int(value)
    return usage


def _llm_facts(
    facts: SpanFacts, attributes: Mapping[str, Any], events: list[Any], prefixes: set[str]
) -> None:
    problems = facts.problems
    inputs: list[Message] | None = None
    outputs: list[Message] | None = None
    if "gen_ai.input.messages" in attributes:
        inputs = _messages_of(
            attributes["gen_ai.input.messages"], "gen_ai.input.messages", problems
        )
    elif "llm.input_messages." in prefixes:
        inputs = _indexed_messages(attributes, "llm.input_messages", "message.")
    elif "gen_ai.prompt." in prefixes:
        inputs = _indexed_messages(attributes, "gen_ai.prompt", "")
    elif "gen_ai.prompt" in attributes:
        inputs = _messages_of(attributes["gen_ai.prompt"], "gen_ai.prompt", problems)
    if "gen_ai.output.messages" in attributes:
        outputs = _output_messages(
            attributes["gen_ai.output.messages"], "gen_ai.output.messages", problems
        )
    elif "llm.output_messages." in prefixes:
        outputs = _indexed_messages(attributes, "llm.output_messages", "message.")
        first = min(_indexed(attributes, "llm.output_messages"), default=0)
        if first > 0:  # a streamed answer, a message per chunk, whose first chunks were dropped
            problems.append(f"llm.output_messages: starts at message {first} (cut short)")
    elif "gen_ai.completion." in prefixes:
        outputs = _indexed_messages(attributes, "gen_ai.completion", "")
    elif "gen_ai.completion" in attributes:
        outputs = _output_messages(attributes["gen_ai.completion"], "gen_ai.completion", problems)
    elif "gen_ai.output" in attributes:  # any-agent's own attribute
        outputs = _output_messages(attributes["gen_ai.output"], "gen_ai.output", problems)
    if inputs is None or outputs is None:
        from_events = _event_messages(events)
        if inputs is None and from_events[0]:
            inputs = from_events[0]
        if outputs is None and from_events[1]:
            outputs = from_events[1]
    if inputs is None and "input.value" in attributes:
        inputs = _messages_of(attributes["input.value"], "input.value", problems)
    if outputs is None and "output.value" in attributes:
        outputs = _output_messages(attributes["output.value"], "output.value", problems)
    facts.inputs, facts.outputs = inputs, outputs
    facts.model = _first(
        attributes, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name"
    )
    facts.provider = _first(
        attributes, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"
    )
    facts.usage = _usage(attributes)


def _tool_facts(facts: SpanFacts, attributes: Mapping[str, Any], events: list[Any]) -> None:
    facts.tool_name = _first(attributes, "gen_ai.tool.name", "tool.name")
    facts.tool_call_id = _first(attributes, "gen_ai.tool.call.id", "tool_call.id", "tool.call_id")
    arguments = _first(
        attributes,
        "gen_ai.tool.call.arguments",
        "tool.parameters",
        "gen_ai.tool.args",
        "input.value",
        "input",
    )
    result_keys = ("gen_ai.tool.call.result", "output.value", "gen_ai.output", "output")
    result = _first(attributes, *result_keys)
    for event in events:  # Strands: the input as a gen_ai.tool.message, the result as a choice
        body = dict(getattr(event, "attributes", {}) or {})
        if event.name == "gen_ai.tool.message" and arguments is None:
            arguments = body.get("content")
        elif event.name == "gen_ai.choice" and result is None:
            answer = message_of({"role": "assistant", **body})
            result = answer.text if answer is not None else None
    facts.tool_arguments = arguments
    if result is None:
        facts.problems.append("gen_ai.tool.call.result: missing (the exporter kept no result)")
    elif isinstance(result, str) and _looks_truncated(result):
        facts.problems.append("gen_ai.tool.call.result: cut short")
    facts.tool_result = result


#: the event the current GenAI conventions may record a call's content on instead of the span
DETAILS_EVENT = "gen_ai.client.inference.operation.details"


def _tool_definitions(attributes: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """The tools a model call offered: ``gen_ai.tool.definitions`` (a JSON list of
    ``{type, name, description, parameters}`` or OpenAI's ``{type, function: {...}}``) or
    OpenInference's ``llm.tools.N.tool.json_schema``: (name, description, parameters)."""
    raw: Any = unwrap_json(attributes.get("gen_ai.tool.definitions"))
    if not isinstance(raw, list):
        raw = [
            unwrap_json(f.get("tool.json_schema"))
            for _n, f in sorted(_indexed(attributes, "llm.tools").items())
        ]
    out = []
    for item in raw:
        if not isinstance(item, dict):
            continue
        function = item.get("function")
        inner: dict[str, Any] = function if isinstance(function, dict) else item
        name = inner.get("name")
        if isinstance(name, str) and name:
            out.append(
                (name, str(inner.get("description") or ""), unwrap_json(inner.get("parameters")))
            )
    return out


def facts_of(attributes: Mapping[str, Any], events: list[Any]) -> SpanFacts:
    """What one span says (its attributes flat, its events as read)."""
    details = [e for e in events if getattr(e, "name", None) == DETAILS_EVENT]
    if details:
        # content recorded on the details event reads as if it were on the span
        attributes = {**{k: v for e in details for k, v in e.attributes.items()}, **attributes}
    prefixes = _prefixes(attributes)
    facts = SpanFacts(kind=_kind(attributes, prefixes))
    if facts.kind == "llm":
        _llm_facts(facts, attributes, events, prefixes)
        facts.tools = _tool_definitions(attributes)
    elif facts.kind == "tool":
        _tool_facts(facts, attributes, events)
    return facts
