"""The plain twin of a service's coroutine, for callers without an event loop (the CLI)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

__all__: list[str] = []

P = ParamSpec("P")
T = TypeVar("T")


def blocking(coroutine: Callable[P, Coroutine[Any, Any, T]], name: str) -> Callable[P, T]:
    """``coroutine`` as a function named ``name`` that takes the same arguments and runs it to
    its end in a new event loop (``asyncio.run``): one signature for both, declared once."""

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(coroutine(*args, **kwargs))

    run.__name__ = run.__qualname__ = name
    run.__module__ = coroutine.__module__
    run.__doc__ = f"Synchronous wrapper of :func:`{coroutine.__name__}` (the same arguments)."
    # inspect.signature and help() follow __wrapped__: without it they show (*args, **kwargs)
    # where a type checker, through the ParamSpec, sees the coroutine's parameters
    run.__wrapped__ = coroutine  # type: ignore[attr-defined]
    return run
