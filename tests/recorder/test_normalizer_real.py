"""Every real cassette in /work/shared/real-cassettes normalizes to the calls it really holds.

The expected names, arguments, results and round counts below were read from the files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rejudge.recorder import NORMALIZER_VERSION, normalize_exchanges, read_cassette

from rejudge.model import Trace

REAL = Path("/work/shared/real-cassettes")
# (id, name, arguments, result, ok) per round; rounds without calls are []
Expected = list[list[tuple[Any, str, dict[str, Any], Any, bool | None]]]

CASES: dict[str, tuple[Expected, str | None]] = {
    "pydantic-ai/test_compatible_api_with_tool_calls_without_id.yaml": (
        # Gemini's OpenAI-compatible endpoint sends id "": the result is found through the echo
        [[(None, "get_current_time", {}, "Noon", True)], []],
        "The current time is Noon.",
    ),
    "pydantic-ai/test_multiple_agent_tool_calls.yaml": (
        # Gemini native generateContent, then the history handed to gpt-4o-mini
        [
            [(None, "get_capital", {"country": "France"}, "Paris", True)],
            [],
            [
                (
                    "call_SkEQ3ZGSJC8m6AvaIGNuuKdm",
                    "get_capital",
                    {"country": "England"},
                    "London",
                    True,
                )
            ],
            [],
        ],
        "The capital of England is London.",
    ),
    "pydantic-ai/test_multiple_parallel_tool_calls.yaml": (
        [
            [
                (
                    "toolu_0167cfEnoQaPviGdVXA95zcu",
                    "retrieve_entity_info",
                    {"name": "Alice"},
                    "alice is bob's wife",
                    True,
                ),
                (
                    "toolu_01EEe2V5HD1Ac4rKiUR4HD2T",
                    "retrieve_entity_info",
                    {"name": "Bob"},
                    "bob is alice's husband",
                    True,
                ),
                (
                    "toolu_01XFyAjstT3966qvRynZyVPo",
                    "retrieve_entity_info",
                    {"name": "Charlie"},
                    "charlie is alice's son",
                    True,
                ),
                (
                    "toolu_013mnQZbgtK2oe3Mo3XKJsx3",
                    "retrieve_entity_info",
                    {"name": "Daisy"},
                    "daisy is bob's daughter and charlie's younger sister",
                    True,
                ),
            ],
            [],
        ],
        None,
    ),
    "pydantic-ai/test_tool_choice_matrix_auto-anthropic.yaml": (
        [
            [
                (
                    "toolu_01WN4AuToBnJyXNQXwQBBebj",
                    "get_weather",
                    {"city": "Paris"},
                    "Sunny, 22C in Paris",
                    True,
                )
            ],
            [],
        ],
        None,
    ),
    "pydantic-ai/test_tool_choice_matrix_auto-openai.yaml": (
        [
            [
                (
                    "call_aDdJTteHrpMdhdkEkyxjxEHH",
                    "get_weather",
                    {"city": "Paris"},
                    "Sunny, 22C in Paris",
                    True,
                )
            ],
            [],
        ],
        None,
    ),
    "pydantic-ai/test_tool_choice_matrix_auto-openai_responses.yaml": (
        [
            [
                (
                    "call_E4xGYcmG4CvUzTabsGjXo6ba",
                    "get_weather",
                    {"city": "Paris"},
                    "Sunny, 22C in Paris",
                    True,
                )
            ],
            [],
        ],
        "Currently it's sunny in Paris with a temperature of 22°C.",
    ),
    "pydantic-ai/test_tool_choice_matrix_required-openai.yaml": (
        # the cassette ends after the call: no result was ever sent
        [[("call_injwxidE5XUzmiKVfOH3rxf2", "get_weather", {"city": "Paris"}, None, None)]],
        None,
    ),
    "simonw-llm/test_responses_tool_use.yaml": (
        # gzip body stored as !!binary, Responses API
        [
            [
                (
                    "call_nJmCK7SJe3ajdYYplIbH0KgL",
                    "multiply",
                    {"a": 1231, "b": 2331},
                    "2869461",
                    True,
                )
            ],
            [],
        ],
        "1231 * 2331 = 2,869,461",
    ),
    "simonw-llm/test_tool_use_basic.yaml": (
        # streamed chat completions, arguments split across deltas
        [
            [
                (
                    "call_1EYWDzueHEp8OsB8jJSEp7WB",
                    "multiply",
                    {"a": 1231, "b": 2331},
                    "2869461",
                    True,
                )
            ],
            [],
        ],
        "The result of \\( 1231 \\times 2331 \\) is \\( 2,869,461 \\).",
    ),
    "simonw-llm/test_tool_use_chain_of_two_calls.yaml": (
        # gzip !!binary, a chain: the second call uses the first one's result
        [
            [
                (
                    "call_TTY8UFNo7rNCaOBUNtlRSvMG",
                    "lookup_population",
                    {"country": "Crumpet"},
                    "123124",
                    True,
                )
            ],
            [
                (
                    "call_aq9UyiSFkzX6W8Ydc33DoI9Y",
                    "can_have_dragons",
                    {"population": 123124},
                    "true",
                    True,
                )
            ],
            [],
        ],
        "YES",
    ),
    "simonw-llm/test_tools_streaming_variant_a.yaml": (
        # kimi-k2 via OpenRouter: id "0", name repeated in every delta, no finish reason
        [[("0", "llm_version", {}, "0.fixed-version", True)], []],
        "The current version of *llm* is **0.fixed-version**.",
    ),
}


def test_every_real_cassette_is_covered() -> None:
    files = {str(p.relative_to(REAL)) for p in REAL.glob("*/*.yaml")}
    assert files == set(CASES)


def _trace(rel: str) -> Trace:
    return normalize_exchanges(read_cassette(REAL / rel).exchanges, case_id=Path(rel).stem)


@pytest.mark.parametrize("rel", sorted(CASES))
def test_real_cassette_normalizes(rel: str) -> None:
    expected, final_text = CASES[rel]
    trace = _trace(rel)
    assert trace.status == "completed" and trace.error is None
    assert trace.normalizer_version == NORMALIZER_VERSION
    assert len(trace.rounds) == len(expected)
    got = [[(c.id, c.name, c.arguments, c.result, c.ok) for c in r.calls] for r in trace.rounds]
    assert got == expected
    assert all(c.parse_error is None for c in trace.calls)
    if final_text is not None:
        assert trace.final_text == final_text
    assert trace.final_text == trace.rounds[-1].text
    assert trace.usage.get("input_tokens", 0) > 0 and trace.usage.get("output_tokens", 0) > 0


@pytest.mark.parametrize("rel", sorted(CASES))
def test_real_cassette_hash_is_stable(rel: str) -> None:
    assert _trace(rel).hash == _trace(rel).hash


def test_usage_is_summed_over_rounds() -> None:
    trace = _trace("simonw-llm/test_tool_use_chain_of_two_calls.yaml")
    # 92+118+146 prompt tokens, 17+18+3 completion tokens as recorded
    assert trace.usage == {"input_tokens": 356, "output_tokens": 38, "total_tokens": 394}


def test_parallel_anthropic_turn_keeps_its_text() -> None:
    trace = _trace("pydantic-ai/test_multiple_parallel_tool_calls.yaml")
    assert trace.rounds[0].finish_reason == "tool_use"
    assert trace.rounds[0].text is not None and trace.rounds[0].text.startswith("I'll help you")
    assert trace.rounds[1].finish_reason == "end_turn"
