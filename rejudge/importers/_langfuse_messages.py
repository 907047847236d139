"""A Langfuse observation's ``input`` / ``output`` as messages (pure).

Langfuse stores what the SDK or the OpenTelemetry span handed it, as JSON or as a JSON string
(the v2 observations API and the UI's export return input and output as raw strings), and
renders it as ChatML when it can. The shapes read here are the ones its integrations write:

- OpenAI chat: a message list, ``{"messages": [...], "tools": [...]}``, a ChatCompletion
  (``choices[].message``), one message; content as a string or parts (``{type: text, text}``);
  LangChain's ``additional_kwargs.tool_calls`` and ``tool_calls: [{name, args, id}]``, and its
  serialised messages (``{lc: 1, id: [..., "AIMessage"], kwargs: {...}}``, ``type: human|ai|tool``);
- GenAI semantic conventions: ``{role, parts: [{type: text|tool_call|tool_call_response}]}``;
- Anthropic: content blocks ``text``, ``tool_use`` (id, name, input), ``tool_result``
  (``tool_use_id``);
- Gemini / Vertex: ``contents`` / ``{role, parts: [{text}|{function_call}|{function_response}]}``,
  a response's ``candidates[].content``, ADK's ``{content: {...}, finish_reason}``;
- OpenAI Responses: items ``function_call`` (call_id, name, arguments),
  ``function_call_output`` (call_id, output), ``message`` (content ``output_text``), and a
  response object's ``output`` list;
- Vercel AI SDK: ``{prompt}``, parts ``tool-call`` / ``tool-result`` (``toolCallId``), an output
  list of ``{toolCallId, toolName, input}``;
- a bare string (a prompt sent, a completion answered).

What matches none of them is no message list (None), and the reader says which field.
"""

from __future__ import annotations

import json
from typing import Any

from rejudge.importers._otel_messages import Call, Message, message_of, unwrap_json

__all__ = ["one_answer", "read_messages"]

_ASSISTANT = frozenset({"assistant", "model", "ai", "AIMessage", "AIMessageChunk"})
_ROLES = {
    "human": "user",
    "HumanMessage": "user",
    "ai": "assistant",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "model": "assistant",
    "system": "system",
    "SystemMessage": "system",
    "developer": "system",
    "tool": "tool",
    "ToolMessage": "tool",
    "function": "tool",
}


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _call(raw: dict[str, Any]) -> Call | None:
    """One tool call in any SDK's shape (None: not a call)."""
    function = raw.get("function") if isinstance(raw.get("function"), dict) else None
    name = raw.get("name") or raw.get("toolName") or (function or {}).get("name")
    if not isinstance(name, str) or not name:
        return None
    call_id = raw.get("id") or raw.get("call_id") or raw.get("toolCallId")
    if raw.get("type") == "function_call" and raw.get("call_id"):
        call_id = raw["call_id"]  # Responses: ``id`` is the item's, ``call_id`` the call's
    for key in ("arguments", "input", "args"):
        if key in raw:
            arguments = raw[key]
            break
    else:
        arguments = (function or {}).get("arguments")
    return Call(id=str(call_id) if call_id is not None else None, name=name, arguments=arguments)


def _part_messages(role: str, parts: list[Any], finish: Any) -> list[Message]:
    """A content list of typed parts (OpenAI, Anthropic, Gemini, Vercel, GenAI) as messages:
    texts and calls stay on the one message; each tool result is a tool message of its own."""
    texts: list[str] = []
    calls: list[Call] = []
    results: list[Message] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        gemini_call = part.get("function_call") or part.get("functionCall")
        gemini_answer = part.get("function_response") or part.get("functionResponse")
        if kind in ("text", "input_text", "output_text") or (kind is None and "text" in part):
            texts.append(str(part.get("text") if "text" in part else part.get("content") or ""))
        elif kind in ("tool_use", "tool-call", "tool_call", "function_call"):
            found = _call(part)
            if found is not None:
                calls.append(found)
        elif isinstance(gemini_call, dict):
            found = _call({**gemini_call, "arguments": gemini_call.get("args")})
            if found is not None:
                calls.append(found)
        elif kind in ("tool_result", "tool-result", "tool_call_response", "function_call_output"):
            call_id = part.get("tool_use_id") or part.get("toolCallId") or part.get("call_id")
            call_id = call_id or part.get("id")
            value = next(
                (part[k] for k in ("content", "output", "result", "response") if k in part), None
            )
            if isinstance(value, list):
                value = _part_messages("tool", value, None)[0].text if value else ""
            elif isinstance(value, dict) and value.get("type") in ("text", "json"):
                value = value.get("value")
            results.append(
                Message("tool", _text(value), call_id=str(call_id) if call_id is not None else None)
            )
        elif isinstance(gemini_answer, dict):
            call_id = gemini_answer.get("id")
            results.append(
                Message(
                    "tool",
                    _text(gemini_answer.get("response")),
                    call_id=str(call_id) if call_id is not None else None,
                )
            )
    out = list(results)
    if texts or calls or not results:
        finish_reason = str(finish) if finish is not None else None
        text = "".join(texts) if texts else None
        out.append(Message(role, text, calls, finish_reason=finish_reason))
    return out


def _role(raw: dict[str, Any]) -> str:
    role = raw.get("role")
    if not isinstance(role, str) or not role:
        role = raw.get("type") if isinstance(raw.get("type"), str) else ""
    return _ROLES.get(str(role), str(role))


def _item_messages(raw: Any) -> list[Message] | None:
    """One item of a message list as messages (None: it is no message)."""
    if not isinstance(raw, dict):  # a bare string in a list is no message (agno's reprs)
        return None
    if raw.get("lc") == 1 and isinstance(raw.get("kwargs"), dict):  # LangChain serialised
        ids = raw.get("id")
        kind = ids[-1] if isinstance(ids, list) and ids else ""
        return _item_messages({"type": _ROLES.get(str(kind), "user"), **raw["kwargs"]})
    kind = raw.get("type")
    if kind == "function_call":
        found = _call(raw)
        return [Message("assistant", calls=[found] if found else [])]
    if kind == "function_call_output":
        call_id = raw.get("call_id")
        return [
            Message("tool", _text(raw.get("output")), call_id=str(call_id) if call_id else None)
        ]
    if "parts" in raw and isinstance(raw["parts"], list) and not _genai_parts(raw["parts"]):
        return _part_messages(_role(raw), raw["parts"], raw.get("finish_reason"))
    if "role" not in raw and "type" not in raw and "message" not in raw and "parts" not in raw:
        return None
    role = _role(raw)
    content = raw.get("content")
    if isinstance(content, list) and content and all(isinstance(p, dict) for p in content):
        messages = _part_messages(role, content, raw.get("finish_reason"))
        for part in messages:
            if part.role == role:
                part.calls += _extra_calls(raw)
                if role == "tool" and part.call_id is None and raw.get("tool_call_id"):
                    part.call_id = str(raw["tool_call_id"])
        return messages
    listed = raw.get("tool_calls")
    langchain = (
        isinstance(listed, list)
        and bool(listed)
        and all(isinstance(c, dict) and "args" in c for c in listed)
    )
    # LangChain's calls ({name, args, id}) are read by _extra_calls, not as OpenAI's
    message = message_of({**raw, "role": role, **({"tool_calls": None} if langchain else {})})
    if message is None:
        return None
    message.calls += _extra_calls(raw)
    if role == "assistant" and not message.calls and isinstance(content, str):
        # koog writes an assistant's calls as the JSON text of OpenAI's tool_calls list
        listed = unwrap_json(content, 1)
        if isinstance(listed, list) and listed and all(_is_openai_call(c) for c in listed):
            message.calls = [c for c in (_call(i) for i in listed) if c is not None]
            message.text = None
    if role == "tool" and message.text is None and content is not None:
        message.text = _text(content)
    return [message]


def _genai_parts(parts: list[Any]) -> bool:
    return any(
        isinstance(p, dict) and p.get("type") in ("text", "tool_call", "tool_call_response")
        for p in parts
    )


def _is_openai_call(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("function"), dict)


def _extra_calls(raw: dict[str, Any]) -> list[Call]:
    """LangChain's calls: ``additional_kwargs.tool_calls`` (OpenAI's shape) when the message
    has no ``tool_calls`` of its own, or ``tool_calls: [{name, args, id}]``."""
    calls = raw.get("tool_calls")
    if isinstance(calls, list) and calls:
        if all(isinstance(c, dict) and "args" in c for c in calls):
            return [c for c in (_call(i) for i in calls) if c is not None]
        return []  # read by message_of
    extra = raw.get("additional_kwargs")
    listed = extra.get("tool_calls") if isinstance(extra, dict) else None
    if isinstance(listed, list):
        return [c for c in (_call(i) for i in listed if isinstance(i, dict)) if c is not None]
    return []


_KNOWN_ROLES = frozenset({"user", "assistant", "system", "tool"})


def _list_messages(items: list[Any]) -> list[Message] | None:
    if items and all(isinstance(i, dict) and "toolCallId" in i and "role" not in i for i in items):
        # Vercel AI SDK's output: the calls the model made
        return [Message("assistant", calls=[c for c in map(_call, items) if c is not None])]
    out: list[Message] = []
    pending: list[Call] = []  # the latest assistant turn's calls not yet answered
    for item in items:
        found = _item_messages(item)
        if found is None:
            return None
        for message in found:
            if message.role not in _KNOWN_ROLES and message.role in {c.name for c in pending}:
                # LangChain.js gives a tool's answer the tool's name as its role
                named = message.role
                message.role = "tool"
                if message.call_id is None:
                    answered = next(c for c in pending if c.name == named)
                    message.call_id = answered.id
            if message.role == "assistant":
                pending = list(message.calls)
            elif message.role == "tool":
                pending = [c for c in pending if c.id is None or c.id != message.call_id]
        out.extend(found)
    return out


def one_answer(messages: list[Message]) -> list[Message]:
    """An output's assistant messages as the one turn they are (koog writes a message per
    call; a streamed answer can come as a message per chunk)."""
    answers = [m for m in messages if m.role in ("assistant", "")]
    if len(answers) < 2:
        return messages
    merged = Message("assistant", finish_reason=answers[-1].finish_reason)
    for message in answers:
        merged.calls += message.calls
        if message.text:
            merged.text = (merged.text or "") + message.text
    return [m for m in messages if m.role not in ("assistant", "")] + [merged]


def read_messages(value: Any, *, output: bool) -> list[Message] | None:
    """``input`` or ``output`` of an observation as messages (None: not a message shape).
    A bare string is the user's prompt (input) or the assistant's answer (output)."""
    found = _read(value, output=output)
    if found is not None and output:
        for message in found:
            message.role = message.role or "assistant"
        return one_answer(found)
    return found


def _read(value: Any, *, output: bool) -> list[Message] | None:
    value = unwrap_json(value)
    if value is None:
        return None
    if isinstance(value, str):
        return [Message("assistant" if output else "user", value)]
    if isinstance(value, list):
        return _list_messages(value)
    if not isinstance(value, dict):
        return None
    for key in ("messages", "contents", "input"):
        if isinstance(value.get(key), list | str) and key in value:
            found = _read(value[key], output=output)
            if found is not None and key == "input" and isinstance(value.get("instructions"), str):
                found.insert(0, Message("system", value["instructions"]))
            return found
    if isinstance(value.get("choices"), list) and value["choices"]:
        return _choice_messages(value["choices"])
    if isinstance(value.get("candidates"), list) and value["candidates"]:
        return _choice_messages(
            [
                {"message": c.get("content"), "finish_reason": c.get("finish_reason")}
                for c in value["candidates"]
                if isinstance(c, dict)
            ]
        )
    if isinstance(value.get("output"), list):  # an OpenAI Responses response: one answer
        found = _list_messages(value["output"])
        return one_answer(found) if found is not None else None
    if isinstance(value.get("content"), dict) and "role" not in value:  # ADK's LlmResponse
        return _choice_messages([{"message": value["content"], **value}])
    if isinstance(value.get("message"), dict):  # one choice
        return _choice_messages([value])
    if isinstance(value.get("prompt"), str):  # Vercel AI SDK
        system = value.get("system")
        prompt = [Message("user", value["prompt"])]
        return ([Message("system", system)] if isinstance(system, str) else []) + prompt
    return _item_messages(value)


def _choice_messages(choices: list[Any]) -> list[Message] | None:
    out: list[Message] = []
    for choice in choices[:1]:  # the first choice is the answer an agent acts on
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            return None
        inner = {"role": "assistant", **choice["message"]}
        found = _item_messages(inner)
        if not found:
            return None
        for message in found:
            if message.role in _ASSISTANT:
                message.role = "assistant"
                reason = choice.get("finish_reason")
                message.finish_reason = str(reason) if reason is not None else None
        out.extend(found)
    return out
