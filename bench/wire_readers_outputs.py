"""Every wire format's readers on generated and recorded bodies, one line per call: what two
checkouts' readers give, to compare after a change that should change nothing.

    # from /tmp (not a checkout's root: each python must import its own rejudge)
    nice python bench/wire_readers_outputs.py inputs.jsonl --generate 8000    # once
    nice A/.venv/bin/python A/bench/wire_readers_outputs.py inputs.jsonl --cassettes A/cassettes --out a.txt
    nice B/.venv/bin/python B/bench/wire_readers_outputs.py inputs.jsonl --cassettes B/cassettes --out b.txt
    cmp a.txt b.txt

``--generate`` writes hypothesis's bodies (derandomized): requests and responses in every
format's words (messages, contents, chat_history, input items; tool_calls, content blocks,
toolUse, functionCall parts; usage objects), with values of every JSON type where a reader
expects one. Each line of the output is ``<body> <format> <reader> <repr of the result>``, or
``RAISES <exception type>`` (a reader must never raise).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

KEYS = [
    *(
        "messages",
        "role",
        "content",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "id",
    ),
    *(
        "input",
        "type",
        "toolUse",
        "toolUseId",
        "toolResult",
        "parts",
        "functionCall",
        "args",
    ),
    *("contents", "chat_history", "tool_results", "parameters", "usage", "tokens"),
    *(
        "billed_units",
        "inputTokens",
        "outputTokens",
        "totalTokens",
        "cacheReadInputTokens",
    ),
    *(
        "cacheWriteInputTokens",
        "promptTokenCount",
        "candidatesTokenCount",
        "totalTokenCount",
    ),
    *(
        "prompt_eval_count",
        "eval_count",
        "meta",
        "message",
        "choices",
        "text",
        "is_error",
    ),
    *("tool_call_id", "tool_name", "output", "call_id", "custom", "tools", "json"),
    *(
        "functionResponse",
        "response",
        "done",
        "input_tokens",
        "output_tokens",
        "prompt_tokens",
    ),
    *("completion_tokens", "finish_reason", "stop_reason", "candidates", "call"),
]
WORDS = [
    *(
        "user",
        "assistant",
        "tool",
        "function",
        "CHATBOT",
        "USER",
        "TOOL",
        "model",
        "system",
    ),
    *(
        "text",
        "tool_use",
        "tool_result",
        "function_call",
        "function_call_output",
        "custom",
    ),
    *(
        "custom_tool_call",
        "custom_tool_call_output",
        "server_tool_use",
        "",
        "x",
        "f",
        "g",
    ),
    *("c1", '{"a": 1}', "not json", "end_turn", "tool_calls"),
]
ROLES = ["user", "assistant", "tool", "function", "CHATBOT", "TOOL", "USER", "model"]


def _strategy() -> Any:
    from hypothesis import strategies as st

    def obj(required: dict[str, Any], **optional: Any) -> Any:
        return st.fixed_dictionaries(required, optional=optional)

    scalar = (
        st.none()
        | st.booleans()
        | st.integers(-3, 40)
        | st.sampled_from(WORDS)
        | st.floats(allow_nan=False, allow_infinity=False, width=16)
    )
    value = st.recursive(
        scalar,
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
        ),
        max_leaves=30,
    )
    small = (
        st.none()
        | st.sampled_from(["f", "g", "", "c1", "c2", '{"a": 1}', "bad"])
        | st.integers(0, 2)
        | st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3), max_size=2)
    )
    role = st.sampled_from(ROLES)
    text_part = obj(
        {"type": st.sampled_from(["text", "image", "input_text"]) | small},
        text=st.sampled_from(["hi", "", "x"]) | small,
    )
    parts = st.lists(text_part, max_size=3)
    fn = obj({}, name=small, arguments=small)
    typed = st.one_of(
        obj(
            {"type": st.sampled_from(["tool_use", "server_tool_use"])},
            id=small,
            name=small,
            input=small,
        ),
        obj(
            {"type": st.just("tool_result")},
            tool_use_id=small,
            content=small | parts,
            is_error=small,
        ),
        obj({"toolUse": obj({}, toolUseId=small, name=small, input=small)}),
        obj(
            {
                "toolResult": obj(
                    {},
                    toolUseId=small,
                    status=small,
                    content=small | st.lists(obj({}, text=small, json=small), max_size=2),
                )
            }
        ),
        obj({"functionCall": obj({}, id=small, name=small, args=small)}),
        obj({"functionResponse": obj({}, id=small, name=small, response=small)}),
        obj(
            {"type": st.sampled_from(["function_call", "custom_tool_call"])},
            call_id=small,
            id=small,
            name=small,
            arguments=small,
            input=small,
        ),
        obj(
            {
                "type": st.sampled_from(
                    [
                        "function_call_output",
                        "custom_tool_call_output",
                        "reasoning",
                        "message",
                    ]
                )
            },
            call_id=small,
            output=small | parts,
            role=role,
            content=small,
        ),
        obj(
            {"type": st.sampled_from(["function", "custom"])},
            id=small,
            function=fn,
            custom=obj({}, name=small, input=small),
        ),
        obj({}, id=small, name=small, parameters=small, args=small, function=fn),
        text_part,
    )
    loose = obj(
        {},
        id=value,
        type=value,
        function=obj({}, name=value, arguments=value),
        name=value,
        input=value,
        parameters=value,
        text=value,
        content=value,
    )
    call = typed | loose
    calls = st.lists(call, max_size=3)

    def anything(*names: str) -> dict[str, Any]:
        """Fields any value may fill."""
        return dict.fromkeys(names, value)

    message = obj(
        {"role": role},
        content=value | calls,
        tool_calls=value | calls,
        parts=calls | value,
        **anything("tool_call_id", "name", "tool_name", "message", "tool_results"),
    )
    request = obj(
        {},
        messages=st.lists(message, max_size=5) | value,
        contents=st.lists(message, max_size=4),
        chat_history=st.lists(message, max_size=4),
        tool_results=value,
        input=st.lists(call, max_size=4) | value,
        **anything("tools", "message", "system"),
    )
    response = obj(
        {},
        message=message | value,
        choices=st.lists(obj({"message": message}, finish_reason=value), max_size=2),
        content=calls | value,
        tool_calls=calls | value,
        done=st.booleans(),
        output=calls | value,
        **anything("usage", "meta", "text", "prompt_eval_count", "eval_count", "candidates"),
        **anything("usageMetadata", "stop_reason", "finish_reason"),
    )
    return request | response | value


def generate(path: Path, examples: int) -> None:
    from hypothesis import HealthCheck, given, settings

    with path.open("w") as out:

        @settings(
            max_examples=examples,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(body=_strategy())
        def write(body: Any) -> None:
            out.write(json.dumps(body) + "\n")

        write()


def _result(read: Callable[..., Any], body: Any) -> str:
    try:
        return repr(read(body))
    except Exception as exc:  # what the comparison records: a reader must not raise
        return f"RAISES {type(exc).__name__}"


def run(inputs: Path, cassettes: Path | None, out_path: Path) -> int:
    from rejudge.recorder._cassettes import read_cassette
    from rejudge.recorder.wire._registry import wire_formats

    bodies = [json.loads(line) for line in inputs.read_text().splitlines()]
    for path in sorted(cassettes.rglob("*")) if cassettes else []:
        if path.suffix not in (".yaml", ".json") or not path.is_file():
            continue
        try:
            exchanges = read_cassette(path).exchanges
        except Exception:  # not a cassette (a suite's JSON)
            continue
        for ex in exchanges:
            bodies += [ex.request_body, ex.response_body]
    with out_path.open("w") as out:
        for i, body in enumerate(bodies):
            for fmt in wire_formats():
                readers = ["tool_results", "echoed_calls", "tool_specs", "user_texts"]
                readers += ["parse_message"] if isinstance(body, dict) else []
                readers += ["parse_response"]
                readers += ["assemble_stream"] if isinstance(body, str) else []
                for name in readers:
                    out.write(f"{i} {fmt.name} {name} {_result(getattr(fmt, name), body)}\n")
    return len(bodies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", type=Path, help="JSON lines of bodies")
    parser.add_argument("--generate", type=int, metavar="N", help="write N bodies to inputs")
    parser.add_argument("--cassettes", type=Path, help="a cassettes folder: its bodies too")
    parser.add_argument("--out", type=Path, help="where to write the readers' results")
    args = parser.parse_args()
    if args.generate:
        generate(args.inputs, args.generate)
    if args.out:
        print(run(args.inputs, args.cassettes, args.out), "bodies")


if __name__ == "__main__":
    main()
