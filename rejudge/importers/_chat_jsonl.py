"""Importer ``chat-jsonl``: one conversation per line in OpenAI chat-messages form.

The format fine-tuning and many eval tools share: each line is ``{"messages": [...]}`` (with an
optional ``tools`` list of function schemas) or a bare message list. Assistant messages carry
``tool_calls`` whose ``function.arguments`` is a JSON string; ``tool`` messages answer a call by
``tool_call_id``. Each line becomes a trace of an ad-hoc case named ``line-N`` (N counts from 1),
derived by the shared :func:`~rejudge.importers._conversation.conversation_trace`, so the same
conversation gives the same trace as it would from spans. A line that is not a conversation is
left out with a problem naming the line; a file with no conversation is refused in one line.
Secrets never pass: values under a secret header's name are dropped and provider keys in any
text redacted, as the otel importer does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.importers._adhoc import (
    AdhocFile,
    AdhocImportResult,
    FileStream,
    adhoc_case,
    file_importer,
    hash_file,
)
from rejudge.importers._contract import Importer
from rejudge.importers._conversation import conversation_trace
from rejudge.importers._otel_messages import Message, message_of
from rejudge.importers._sniff import Detection, Sniff
from rejudge.model import ToolSpec, Trace
from rejudge.recorder import scrub_value

__all__ = [
    "CHAT_JSONL_SOURCE",
    "ChatFile",
    "ChatImportResult",
    "ChatLine",
    "import_chat_jsonl",
    "iter_chat",
    "read_chat",
]

CHAT_JSONL_SOURCE = "chat-jsonl"
#: a line past this is refused: it is parsed whole, and a file is read a line at a time
LINE_LIMIT = 128 * 1024 * 1024
CHAT_NORMALIZER_VERSION = "chat-jsonl/2"  # 2: tool answers and empty texts read as a cassette's
CHAT_FILE = AdhocFile("chat JSONL file", "chat", CHAT_JSONL_SOURCE, "conversations of")


@dataclass
class ChatLine:
    """One conversation read: its case id, trace, instruction, offered tools, anomalies."""

    case_id: str
    trace: Trace
    instruction: str | None
    tools: list[ToolSpec]
    anomalies: list[str] = field(default_factory=list)


@dataclass
class ChatFile:
    lines: list[ChatLine]
    problems: list[str]
    file_hash: str


def _tools_of(raw: Any) -> list[ToolSpec]:
    specs: list[ToolSpec] = []
    for tool in raw if isinstance(raw, list) else []:
        found = tool.get("function", tool) if isinstance(tool, dict) else None
        if not isinstance(found, dict) or not isinstance(found.get("name"), str):
            continue
        parameters = found.get("parameters")
        description = str(found.get("description") or "")
        if isinstance(parameters, dict):
            specs.append(
                ToolSpec(name=found["name"], description=description, parameters=parameters)
            )
        else:
            specs.append(ToolSpec(name=found["name"], description=description))
    return specs


def _messages(record: Any) -> tuple[list[Any], Any] | None:
    """The raw message list and tools of a line (None: the line is no conversation)."""
    if isinstance(record, dict) and isinstance(record.get("messages"), list):
        return record["messages"], record.get("tools")
    if isinstance(record, list):
        return record, None
    return None


def _read_line(number: int, text: str, problems: list[str]) -> ChatLine | None:
    """One line as a conversation, or None with a problem naming the line."""
    where = f"line {number}"
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as exc:
        problems.append(f"{where}: not JSON ({str(exc).splitlines()[0][:80]}); left out")
        return None
    found = _messages(scrub_value(record, drop_secret_names=True))
    if found is None:
        problems.append(f"{where}: neither {{'messages': [...]}} nor a message list; left out")
        return None
    raw_messages, raw_tools = found
    messages: list[Message] = []
    anomalies: list[str] = []
    for n, raw in enumerate(raw_messages):
        message = message_of(raw)
        if message is None or not message.role:
            anomalies.append(f"{where}: message {n}: not a message with a role; left out")
            continue
        messages.append(message)
    if not messages:
        problems.append(f"{where}: no messages; left out")
        return None
    case_id = f"line-{number}"
    read = conversation_trace(case_id, messages, normalizer_version=CHAT_NORMALIZER_VERSION)
    anomalies += [f"{where}: {p}" for p in read.problems]
    tools = {t.name: t for t in _tools_of(raw_tools)}
    for call in read.trace.calls:
        tools.setdefault(call.name, ToolSpec(name=call.name))
    return ChatLine(case_id, read.trace, read.instruction, list(tools.values()), anomalies)


def iter_chat(
    path: str | Path,
    problems: list[str],
    *,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[ChatLine, int]]:
    """A chat JSONL file's conversations as they are read, a line at a time (memory holds one
    line), each with its line's bytes; what is left out goes to ``problems``. A line over
    :data:`LINE_LIMIT` bytes is refused (it would be parsed whole)."""
    source = CHAT_FILE.checked(path)
    read = 0
    with source.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if progress is not None:
                progress(len(raw))
            if len(raw) > LINE_LIMIT:
                raise InvalidInputError(
                    f"{source}: line {number} holds {len(raw) // (1024 * 1024)} MiB; a chat "
                    f"JSONL line over {LINE_LIMIT // (1024 * 1024)} MiB is refused (it is "
                    "parsed whole): one conversation per line",
                    file=str(source),
                )
            text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
            if not text.strip():
                continue
            line = _read_line(number, text, problems)
            if line is not None:
                read += 1
                yield line, len(raw)
    if not read:
        shown = f": {problems[0]}" if problems else ""
        raise InvalidInputError(f"{source}: no conversation in the file{shown}", file=str(source))


def read_chat(path: str | Path) -> ChatFile:
    """Read a chat JSONL file whole (what replay re-derives a run from; an import streams,
    :func:`iter_chat`)."""
    source = Path(path)
    problems: list[str] = []
    lines = [line for line, _size in iter_chat(source, problems)]
    return ChatFile(lines, problems, hash_file(source))


# --------------------------------------------------------------------------- the import


class ChatImportResult(AdhocImportResult):
    """What importing a chat JSONL file stored (a trace per conversation)."""


def import_chat_jsonl(
    path: str | Path,
    store: Any,
    *,
    run_name: str | None = None,
    suite_name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ChatImportResult:
    """Import a chat JSONL file as one run, streamed a line at a time and stored a batch per
    transaction; the run is visible once all of it is stored (a killed import, run again,
    resumes). ``progress`` is called with bytes: the file's size as it is read, then again as
    its traces are stored."""
    from rejudge.services import StagedItem

    found = FileStream()

    def items(source: Path) -> Iterator[StagedItem]:
        for line, size in iter_chat(source, found.problems, progress=progress):
            found.count(line.trace)
            instruction = line.instruction or "(the conversation holds no user message)"
            case = adhoc_case(line.case_id, instruction, {"imported_from": source.name})
            yield StagedItem(case, line.trace, line.tools, size, line.anomalies)

    stored = CHAT_FILE.store(
        store, path, found, items, run_name=run_name, suite_name=suite_name, progress=progress
    )
    return ChatImportResult.of(store, stored, found)


# --------------------------------------------------------------------------- detect, replay


def _is_message_list(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value)
    )


def _detect(sniff: Sniff) -> Detection:
    """The first line is ``{"messages": [...]}`` of role-bearing messages, or such a list."""
    if sniff.is_dir:
        return Detection.refuse("a folder, not a chat JSONL file")
    first = sniff.first_json_line()
    if isinstance(first, dict) and _is_message_list(first.get("messages")):
        return Detection.accept(0.8, "chat JSONL (a {messages: [...]} conversation per line)")
    if _is_message_list(first):
        return Detection.accept(0.75, "chat JSONL (a message list per line)")
    return Detection.refuse("its first line is no chat conversation ({messages: [...]})")


def _rederive(path: Path) -> tuple[str, list[Trace]]:
    read = read_chat(path)
    return read.file_hash, [line.trace for line in read.lines]


#: the chat JSONL importer (options: ``run_name``, ``suite_name``)
CHAT_JSONL: Importer[ChatImportResult] = file_importer(
    "chat-jsonl",
    summary="OpenAI chat-messages JSONL (fine-tuning form) as one run, a trace per line",
    accepts="a JSONL file of {messages: [...]} conversations or message lists",
    detect=_detect,
    imports=import_chat_jsonl,
    source_tag=CHAT_JSONL_SOURCE,
    kind="chat JSONL file",
    rederive=_rederive,
    streams=True,
)
