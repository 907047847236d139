"""τ²-bench results documents: converted to the same cases, traces and rewards as τ-bench files.

No τ²-bench result file could be brought here, so the document below is written by hand after
the published data model (sierra-research/tau2-bench, src/tau2/data_model/simulation.py
``Results``/``SimulationRun``, tasks.py ``Task``/``Action``/``EvaluationCriteria``, message.py
``ToolCall``/``ToolMessage``): field names and nesting as those models serialize them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from rejudge.store import Store

from rejudge.errors import InvalidInputError
from rejudge.importers import parse_tau_bench
from rejudge.services import import_tau_bench, run_external_verdicts


def _sim(task_id: str, trial: int, reward: float, *, bad_card: bool) -> dict[str, Any]:
    card = "credit_card_0000" if bad_card else "credit_card_4421486"
    return {
        "id": f"sim-{task_id}-{trial}",
        "task_id": task_id,
        "trial": trial,
        "start_time": "2025-06-01T10:00:00",
        "end_time": "2025-06-01T10:01:00",
        "duration": 60.0,
        "termination_reason": "user_stop",
        "reward_info": {"reward": reward, "reward_basis": ["DB", "COMMUNICATE"]},
        "messages": [
            {"role": "system", "content": "# Airline policy", "turn_idx": 0},
            {"role": "assistant", "content": "Hi! How can I help you today?", "turn_idx": 1},
            {
                "role": "user",
                "content": "Cancel my reservation EHGLP3, I'm mia_li_3668.",
                "turn_idx": 2,
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "name": "get_reservation_details",
                        "arguments": {"reservation_id": "EHGLP3"},
                        "requestor": "assistant",
                    }
                ],
                "turn_idx": 3,
            },
            {
                "role": "tool",
                "id": "c1",
                "content": '{"reservation_id": "EHGLP3"}',
                "requestor": "assistant",
                "error": False,
                "turn_idx": 4,
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c2",
                        "name": "cancel_reservation",
                        "arguments": {"reservation_id": "EHGLP3", "refund_to": card},
                        "requestor": "assistant",
                    }
                ],
                "turn_idx": 5,
            },
            {
                "role": "tool",
                "id": "c2",
                "content": "Error: unknown payment method" if bad_card else "ok",
                "requestor": "assistant",
                "error": bad_card,
                "turn_idx": 6,
            },
            {
                "role": "user",
                "content": None,
                "tool_calls": [
                    {"id": "u1", "name": "check_status_bar", "arguments": {}, "requestor": "user"}
                ],
                "turn_idx": 7,
            },
            {
                "role": "tool",
                "id": "u1",
                "content": "4G",
                "requestor": "user",
                "error": False,
                "turn_idx": 8,
            },
            {
                "role": "assistant",
                "content": "Done: your refund of 1,000 dollars is on its way.",
                "turn_idx": 9,
            },
        ],
    }


def _document() -> dict[str, Any]:
    return {
        "timestamp": "2025-06-01T10:00:00",
        "info": {
            "git_commit": "abc",
            "num_trials": 2,
            "max_steps": 100,
            "max_errors": 10,
            "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"},
            "agent_info": {"implementation": "llm_agent", "llm": "claude-3-7-sonnet"},
            "environment_info": {"domain_name": "airline", "policy": "..."},
        },
        "tasks": [
            {
                "id": "0",
                "user_scenario": {
                    "persona": None,
                    "instructions": {
                        "domain": "airline",
                        "reason_for_call": "You want to cancel reservation EHGLP3.",
                        "known_info": "You are mia_li_3668.",
                        "unknown_info": None,
                        "task_instructions": "Insist on the refund to your card.",
                    },
                },
                "evaluation_criteria": {
                    "actions": [
                        {
                            "action_id": "0_a",
                            "requestor": "assistant",
                            "name": "cancel_reservation",
                            "arguments": {"reservation_id": "EHGLP3", "reason": "other"},
                            "compare_args": ["reservation_id"],
                        },
                        {
                            "action_id": "0_u",
                            "requestor": "user",
                            "name": "check_status_bar",
                            "arguments": {},
                        },
                    ],
                    "communicate_info": ["1000"],
                    "reward_basis": ["DB", "COMMUNICATE"],
                },
            }
        ],
        "simulations": [
            _sim("0", 0, 1.0, bad_card=False),
            _sim("0", 1, 0.0, bad_card=True),
        ],
    }


def test_a_results_document_is_the_same_cases_and_traces() -> None:
    parsed = parse_tau_bench(_document(), source="tau2.json")
    assert parsed.source_name == "tau2-bench" and parsed.model == "claude-3-7-sonnet"
    (case,) = parsed.cases
    assert case.instruction.startswith("Reason for call: You want to cancel reservation EHGLP3.")
    assert "Task instructions: Insist on the refund to your card." in case.instruction
    # the user's own action is not the agent's; only the compared argument is golden
    assert [(g.tool, g.params) for g in case.golden.calls] == [
        ("cancel_reservation", {"reservation_id": "EHGLP3"})
    ]
    assert case.required_outputs == ["1000"]
    first, second = parsed.traces
    assert [c.name for c in first.calls] == ["get_reservation_details", "cancel_reservation"]
    assert [t.text for t in first.user_turns] == ["Cancel my reservation EHGLP3, I'm mia_li_3668."]
    assert first.final_text == "Done: your refund of 1,000 dollars is on its way."
    assert second.calls[-1].ok is False and second.calls[-1].error.startswith("Error")
    assert [(v.repetition, v.value) for v in parsed.verdicts] == [(0, 1.0), (1, 0.0)]
    assert parsed.registry_inferred
    assert "check_status_bar" not in parsed.registry.tool_names()


def test_bad_documents_name_each_problem() -> None:
    doc = _document()
    doc["tasks"].append(
        copy.deepcopy(doc["tasks"][0]) | {"id": "1", "evaluation_criteria": {"actions": None}}
    )
    doc["simulations"].append(_sim("1", 0, 1.0, bad_card=False))
    voice = _sim("0", 2, 1.0, bad_card=False)
    voice["messages"], voice["ticks"] = None, [{"tick_id": 0}]
    doc["simulations"].append(voice)
    doc["simulations"].append(_sim("0", 1, 1.0, bad_card=False))
    doc["simulations"][0]["reward_info"] = None
    with pytest.raises(InvalidInputError) as info:
        parse_tau_bench(doc, source="tau2.json")
    message = str(info.value)
    assert "task 1: the task has no evaluation_criteria.actions list" in message
    assert "ticks (a full-duplex voice run)" in message
    assert "trial 1 of task 0 appears twice" in message
    assert "the reward None is not a number from 0 to 1" in message


def test_the_import_stores_tau2_verdicts(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "claude-airline.json"
    path.write_text(json.dumps(_document()))
    result = import_tau_bench(path, store, run_name="tau2")
    assert (result.cases, result.inserted, result.verdicts) == (1, 2, 2)
    run = store.runs.get_run("tau2")
    assert run.model == "claude-3-7-sonnet" and run.provider == "tau2-bench"
    assert [v.verdict.source for v in run_external_verdicts(store, "tau2")] == ["tau2-bench"] * 2
    with pytest.raises(InvalidInputError, match="dir layout"):
        import_tau_bench(tmp_path, store)
