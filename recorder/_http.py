"""HTTP plumbing for the recorder: bounded retries with backoff, a shared rate limit, errors.

Everything here is deterministic given its inputs: the backoff has no jitter (a replay must send
the same requests in the same order), and the clock and sleep are injectable so tests run fast.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from rejudge.errors import RejudgeError

__all__ = [
    "RecorderError",
    "ProviderCallError",
    "RetryPolicy",
    "RateLimiter",
    "parse_retry_after",
    "send_with_retries",
    "RETRYABLE_STATUS",
]

Sleep = Callable[[float], Awaitable[None]]

# 408 request timeout, 409 (Anthropic uses it for transient lock conflicts), 429, 5xx
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529})


class RecorderError(RejudgeError):
    """Root of the recorder's own errors."""


class ProviderCallError(RecorderError):
    """A model call that could not produce a usable response.

    ``kind`` is the :class:`rejudge.model.TraceError` kind it becomes: provider_error, timeout,
    retries_exhausted, truncated_stream, connection_error.
    """

    def __init__(self, kind: str, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status_code = status_code


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` extra attempts after the first; delay ``base * 2**attempt`` capped.

    A ``Retry-After`` header wins over the computed delay (capped at ``max_retry_after_s``).
    """

    max_retries: int = 3
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return max(0.0, min(retry_after, self.max_retry_after_s))
        return min(self.base_delay_s * (2.0**attempt), self.max_delay_s)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else time.time()
    return max(0.0, when.timestamp() - current)


def _retry_after_from(response: httpx.Response) -> float | None:
    # OpenAI also sends retry-after-ms
    ms = response.headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(response.headers.get("retry-after"))


class RateLimiter:
    """Requests per minute shared by every concurrent trace of a run.

    Requests are spaced evenly (``60 / rpm`` seconds apart): simple, fair, and it never bursts
    past a provider's quota at the start of a run.
    """

    def __init__(
        self,
        rpm: int | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if rpm is not None and rpm <= 0:
            raise RecorderError(f"rpm must be a positive number of requests per minute, got {rpm}")
        self.rpm = rpm
        self._interval = 60.0 / rpm if rpm else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()
        self._clock = clock
        self._sleep = sleep

    async def acquire(self) -> None:
        if not self._interval:
            return
        async with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self._interval
        wait = slot - now
        if wait > 0:
            await self._sleep(wait)


async def send_with_retries(
    client: httpx.AsyncClient,
    build: Callable[[], httpx.Request],
    *,
    policy: RetryPolicy,
    limiter: RateLimiter | None = None,
    sleep: Sleep = asyncio.sleep,
    stream: bool = False,
) -> httpx.Response:
    """Send a request built fresh per attempt; retry 429/5xx/connection errors with backoff.

    Returns the first non-retryable response (success or a 4xx the caller turns into a
    provider error); raises :class:`ProviderCallError` when retries run out.
    """
    attempts = policy.max_retries + 1
    last_error: ProviderCallError | None = None
    for attempt in range(attempts):
        if limiter is not None:
            await limiter.acquire()
        request = build()
        try:
            response = await client.send(request, stream=stream)
            if not stream:
                await response.aread()
        except httpx.TimeoutException as exc:
            last_error = ProviderCallError(
                "timeout",
                f"request timed out ({type(exc).__name__}) after {attempt + 1} attempt(s)",
            )
            retry_after = None
        except httpx.TransportError as exc:
            last_error = ProviderCallError(
                "connection_error",
                f"connection failed ({type(exc).__name__}: {exc}) after {attempt + 1} attempt(s)",
            )
            retry_after = None
        else:
            if response.status_code not in RETRYABLE_STATUS:
                return response
            if stream:
                await response.aread()
            retry_after = _retry_after_from(response)
            await response.aclose()
            snippet = response.text[:200].replace("\n", " ")
            last_error = ProviderCallError(
                "provider_error",
                f"HTTP {response.status_code} after {attempt + 1} attempt(s): {snippet}",
                status_code=response.status_code,
            )
        if attempt + 1 < attempts:
            await sleep(policy.delay(attempt, retry_after))
    assert last_error is not None
    kind = "timeout" if last_error.kind == "timeout" else "retries_exhausted"
    raise ProviderCallError(
        kind,
        f"gave up after {attempts} attempt(s): {last_error.message}",
        status_code=last_error.status_code,
    )


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat()
