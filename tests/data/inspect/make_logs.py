"""Writes the Inspect AI logs in this folder with inspect-ai itself (see README.md).

    pip install inspect-ai==0.3.285
    python tests/data/inspect/make_logs.py tests/data/inspect

A three-sample task with two tools, run against Inspect's own mock model (``mockllm/model``,
scripted outputs, no network): a single tool call, a conversation with a second user turn, and
a call whose tool raises (Inspect records the error on the tool message). ``includes()`` scores
each sample; the samples' metadata name the calls expected of them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, TaskState, generate, solver, use_tools
from inspect_ai.tool import ToolError, tool

NOTES = {"n1": "buy milk", "n2": "call Ada"}


@tool
def get_note():
    async def execute(note_id: str) -> str:
        """Read one note.

        Args:
            note_id: The note's id, e.g. n1.
        """
        if note_id not in NOTES:
            raise ToolError(f"no note {note_id}")
        return NOTES[note_id]

    return execute


@tool
def add_note():
    async def execute(text: str) -> str:
        """Add a note.

        Args:
            text: What the note says.
        """
        return "n3"

    return execute


@solver
def follow_up():
    """When the sample asks for one, a second user turn after the first answer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        again = state.metadata.get("follow_up")
        if again:
            state.messages.append(ChatMessageUser(content=again))
            state = await generate(state)
        return state

    return solve


def outputs():
    for output in _scripted():
        # usage given, so the mock model counts no tokens (that would fetch an encoding)
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        yield output


def _scripted():
    m = "mockllm/model"
    # sample 1: one read
    yield ModelOutput.for_tool_call(m, "get_note", {"note_id": "n1"})
    yield ModelOutput.from_content(m, "Note n1 says: buy milk.")
    # sample 2: a read, then (second user turn) an add
    yield ModelOutput.for_tool_call(m, "get_note", {"note_id": "n2"})
    yield ModelOutput.from_content(m, "Note n2 says: call Ada.")
    yield ModelOutput.for_tool_call(m, "add_note", {"text": "pay rent"})
    yield ModelOutput.from_content(m, "Added it as n3.")
    # sample 3: a read of a note that does not exist
    yield ModelOutput.for_tool_call(m, "get_note", {"note_id": "n9"})
    yield ModelOutput.from_content(m, "There is no such note.")


def task() -> Task:
    return Task(
        name="notes",
        dataset=[
            Sample(
                id="read-n1",
                input="What does note n1 say?",
                target="buy milk",
                metadata={"expected_calls": [{"tool": "get_note", "arguments": {"note_id": "n1"}}]},
            ),
            Sample(
                id="read-then-add",
                input="What does note n2 say?",
                target="n3",
                metadata={
                    "follow_up": "Now add a note saying pay rent.",
                    "expected_calls": [
                        {"tool": "get_note", "arguments": {"note_id": "n2"}},
                        {"tool": "add_note", "arguments": {"text": "pay rent"}},
                    ],
                },
            ),
            Sample(id="missing", input="What does note n9 say?", target="buy milk"),
        ],
        solver=[use_tools([get_note(), add_note()]), generate(), follow_up()],
        scorer=includes(),
    )


def main(out: Path) -> None:
    logs = out / "_logs"
    for fmt, name in (("eval", "notes.eval"), ("json", "notes.json")):
        model = get_model("mockllm/model", custom_outputs=outputs())
        (log,) = eval(task(), model=model, log_dir=str(logs), log_format=fmt, max_samples=1,
                      display="none")  # fmt: skip
        shutil.copy(log.location, out / name)
    shutil.rmtree(logs)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
