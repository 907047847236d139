"""Shared fixtures of the suites tests: the shipped τ²-bench runs, each read once a session."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from rejudge.importers import SHIPPED_TAU2_BENCH


@functools.cache
def tau2_run(name: str) -> dict[str, Any]:
    """A shipped τ²-bench results document (``suites/importers/data/tau2-bench/<name>.json``)."""
    return json.loads((SHIPPED_TAU2_BENCH / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def tau2_retail_run() -> dict[str, Any]:
    return tau2_run("toolorchestra_retail")


#: the five shipped airline runs (244 simulations, 2,176 recorded tool calls)
TAU2_AIRLINE_RUNS = (
    "button_airline_claude-opus-4-6",
    "claude-sonnet-4-5_airline",
    "ironshell_airline_claude-opus-4-6",
    "ironshell_airline_gpt-5.4",
    "toolorchestra_airline",
)


@pytest.fixture(scope="session")
def tau2_airline_runs() -> dict[str, dict[str, Any]]:
    return {name: tau2_run(name) for name in TAU2_AIRLINE_RUNS}
