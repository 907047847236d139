"""The plain twin of a service's coroutine (rejudge/services/_blocking.py)."""

from __future__ import annotations

import inspect

import pytest

from rejudge.services import record_suite, record_suite_async, replay_run, replay_run_async
from rejudge.services._blocking import blocking


@pytest.mark.parametrize(
    ("plain", "coroutine"),
    [(record_suite, record_suite_async), (replay_run, replay_run_async)],
)
def test_the_twin_shows_the_coroutines_signature(plain: object, coroutine: object) -> None:
    # help() and inspect.signature read what a user calls it with, not (*args, **kwargs)
    assert inspect.signature(plain) == inspect.signature(coroutine)  # type: ignore[arg-type]
    assert not inspect.iscoroutinefunction(plain)


def test_the_twin_runs_the_coroutine_to_its_end() -> None:
    async def add(a: int, *, b: int = 2) -> int:
        return a + b

    plain = blocking(add, "add")
    assert plain.__name__ == "add"
    assert plain(1, b=5) == 6
    assert inspect.signature(plain) == inspect.signature(add)
    assert list(inspect.signature(plain).parameters) == ["a", "b"]
