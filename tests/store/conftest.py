"""Fixtures of the store tests: a saved suite (registry + cases), a run on it, and a judged run."""

from __future__ import annotations

import pytest
from rejudge.store import RunRecord, Store, SuiteRecord

from rejudge.model import Case, ToolRegistry
from tests.store.store_factories import (
    make_case,
    make_config,
    make_judged,
    make_registry,
    suite_hash,
)


@pytest.fixture
def registry() -> ToolRegistry:
    return make_registry()


@pytest.fixture
def cases() -> list[Case]:
    return [make_case(i) for i in range(6)]


@pytest.fixture
def suite(store: Store, registry: ToolRegistry, cases: list[Case]) -> SuiteRecord:
    return store.suites.save_suite(
        name="retail",
        domain="retail",
        suite_hash=suite_hash(cases, registry),
        registry=registry,
        cases=cases,
        meta={"source": "tests"},
    )


@pytest.fixture
def run(store: Store, suite: SuiteRecord) -> RunRecord:
    return store.runs.create_run(name="run-1", suite=suite, config=make_config())


@pytest.fixture
def case_pks(store: Store, suite: SuiteRecord) -> dict[str, int]:
    """case id -> case row id of the ``suite`` snapshot."""
    return store.suites.get_case_pks(suite.id)


@pytest.fixture
def judged(store: Store) -> dict[str, object]:
    """A run of three traces judged into one evaluation (verdicts PASS, FAIL, FAIL)."""
    return make_judged(store)
