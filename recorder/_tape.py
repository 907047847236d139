"""The tape: how the built-in recorder captures a trace's HTTP exchanges, and how replay serves
them back, matched on method, path and the JSON body with volatile fields ignored (never on
headers).

The recorder owns its httpx client, so it records through its own transport (:class:`TapeTransport`)
into vcrpy-shaped interactions (``request{method,uri,body,headers}`` /
``response{status{code,message},headers,body{string}}``), scrubbed as they arrive; the file format
itself lives in :mod:`rejudge.recorder._cassettes`. vcrpy, used by ``capture``, gets the same
matching through :func:`vcr_body_matcher` and the same scrubbing through the ``vcr_before_*`` hooks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
from rejudge.recorder._cassettes import (
    SECRET_REQUEST_HEADERS,
    SECRET_RESPONSE_HEADERS,
    scrub_body,
    scrub_interaction,
)
from rejudge.recorder._http import RecorderError

__all__ = [
    "ReplayMissError",
    "Tape",
    "TapeTransport",
    "TAPE_EXTENSION",
    "match_view",
    "differing_fields",
    "requests_match",
    "vcr_body_matcher",
    "vcr_before_record_request",
    "vcr_before_record_response",
]

TAPE_EXTENSION = "rejudge.tape"
# top-level request fields that change between runs without changing the conversation
VOLATILE_TOP_LEVEL = frozenset({"stream_options", "user", "metadata", "store", "service_tier"})
# fields anywhere in a request body that carry per-run identifiers
VOLATILE_ANYWHERE = frozenset({"tool_call_id", "tool_use_id"})


class ReplayMissError(RecorderError):
    """Replay met a request that no recorded interaction answers."""

    def __init__(self, message: str, *, field: str | None = None, index: int | None = None):
        super().__init__(message)
        self.field = field
        self.index = index


def _header_lists(
    headers: httpx.Headers, drop: frozenset[str] = frozenset()
) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, value in headers.multi_items():
        key = name.lower()
        if key in drop:
            continue
        out.setdefault(key, []).append(value)
    return out


def _text(data: bytes) -> str | bytes:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


# headers that describe the transfer, not the content, once the body is stored decoded
_TRANSFER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


@dataclass
class Tape:
    """The exchanges of one trace: recorded as they happen, or served back in replay.

    In replay, each request gets the first not-yet-played interaction that matches it; a miss
    raises :class:`ReplayMissError` naming the nearest recorded request and the field that differs.
    """

    interactions: list[dict[str, Any]] = field(default_factory=list)
    replay: bool = False
    source: str | None = None
    played: list[bool] = field(default_factory=list)
    # replay: the recording ended in a network failure (no response was ever recorded for it)
    replay_network_failure: bool = False

    @classmethod
    def for_replay(cls, interactions: list[dict[str, Any]], source: str | None = None) -> Tape:
        return cls(list(interactions), True, source, [False] * len(interactions))

    async def handle(
        self, request: httpx.Request, inner: httpx.AsyncBaseTransport | None
    ) -> httpx.Response:
        body = await request.aread()
        if self.replay:
            return self._serve(request, body)
        if inner is None:
            raise RecorderError("no network transport to record through")
        response = await inner.handle_async_request(request)
        raw = httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=response.stream,
            extensions=response.extensions,
            request=request,
        )
        parts: list[bytes] = []
        try:
            async for chunk in raw.aiter_bytes():  # decoded (gzip/br/deflate undone)
                parts.append(chunk)
        except (httpx.TransportError, httpx.DecodingError):
            # the connection dropped mid-body: keep what arrived; the parser sees it truncated
            pass
        finally:
            await raw.aclose()
        content = b"".join(parts)
        reason = response.extensions.get("reason_phrase", b"")
        message = reason.decode("ascii", "replace") if isinstance(reason, bytes) else str(reason)
        headers = _header_lists(response.headers, _TRANSFER_HEADERS)
        interaction = {
            "request": {
                "method": request.method,
                "uri": str(request.url),
                "body": _text(body),
                "headers": _header_lists(request.headers),
            },
            "response": {
                "status": {"code": response.status_code, "message": message},
                "headers": headers,
                "body": {"string": _text(content)},
            },
        }
        # scrub at capture time: a secret never even reaches the in-memory tape
        self.interactions.append(scrub_interaction(interaction))
        return httpx.Response(
            response.status_code,
            headers=[(k, v) for k, vs in headers.items() for v in vs],
            content=content,
            request=request,
        )

    def _serve(self, request: httpx.Request, body: bytes) -> httpx.Response:
        wanted = {"method": request.method, "uri": str(request.url), "body": body}
        best: tuple[int, int, list[str]] | None = None
        for index, interaction in enumerate(self.interactions):
            if self.played[index]:
                continue
            diff = differing_fields(wanted, interaction["request"])
            if not diff:
                self.played[index] = True
                return _response_from(interaction["response"], request)
            if best is None or len(diff) < best[1]:
                best = (index, len(diff), diff)
        where = f" in {self.source}" if self.source else ""
        if best is None and self.replay_network_failure:
            # what the recording met here was a dead connection or a timeout: meet it again
            raise httpx.ConnectError("network failure replayed from the cassette", request=request)
        if best is None:
            raise ReplayMissError(
                f"replay miss{where}: request #{sum(self.played) + 1} ({request.method} "
                f"{request.url.path}) has no recorded interaction left "
                f"({len(self.interactions)} recorded, all played)",
                index=None,
            )
        index, _, diff = best
        raise ReplayMissError(
            f"replay miss{where}: request ({request.method} {request.url.path}) matches no "
            f"recorded interaction; nearest is interaction #{index + 1}, differing in "
            f"{', '.join(diff[:5])}",
            field=diff[0],
            index=index,
        )


def _response_from(recorded: dict[str, Any], request: httpx.Request) -> httpx.Response:
    status = recorded.get("status") or {}
    body = (recorded.get("body") or {}).get("string")
    if body is None:
        content = b""
    elif isinstance(body, bytes):
        content = body
    else:
        content = str(body).encode("utf-8")
    headers = [
        (k, v)
        for k, vs in (recorded.get("headers") or {}).items()
        if k.lower() not in _TRANSFER_HEADERS
        for v in (vs if isinstance(vs, list) else [vs])
    ]
    return httpx.Response(
        int(status.get("code", 200)), headers=headers, content=content, request=request
    )


class TapeTransport(httpx.AsyncBaseTransport):
    """An httpx transport that hands each request to the :class:`Tape` in its extensions.

    One client serves every concurrent trace: ``request.extensions["rejudge.tape"]`` routes each
    exchange to its own trace's tape. Without a tape the request goes straight to ``inner``; with
    ``inner=None`` (replay) the network is blocked outright.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        tape = request.extensions.get(TAPE_EXTENSION)
        if isinstance(tape, Tape):
            return await tape.handle(request, self.inner)
        if self.inner is None:
            raise RecorderError(
                f"network is blocked during replay: {request.method} {request.url} was not recorded"
            )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        if self.inner is not None:
            await self.inner.aclose()


# --------------------------------------------------------------------------- matching


def _json_or_none(body: Any) -> Any:
    if body is None:
        return None
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(body, str):
        return None
    if body == "":
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


def _strip_volatile(value: Any, depth: int = 0) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in VOLATILE_ANYWHERE:
                continue
            if depth == 0 and key in VOLATILE_TOP_LEVEL:
                continue
            # the id of an assistant tool call / tool_use block is minted by the server per run
            if key == "id" and (
                value.get("type") in ("function", "tool_use") or "function" in value
            ):
                continue
            out[key] = _strip_volatile(item, depth + 1)
        return out
    if isinstance(value, list):
        return [_strip_volatile(item, depth + 1) for item in value]
    return value


def match_view(request: dict[str, Any]) -> dict[str, Any]:
    """What matching compares: method, path, and the body with volatile fields dropped."""
    uri = str(request.get("uri", ""))
    body = request.get("body")
    parsed = _json_or_none(body)
    if parsed is not None:
        shown: Any = _strip_volatile(parsed)
    elif isinstance(body, bytes):
        shown = body.decode("utf-8", "replace")
    else:
        shown = body or ""
    return {
        "method": str(request.get("method", "")).upper(),
        "path": urlsplit(uri).path,
        "body": shown,
    }


def _diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append(sub)
            else:
                _diff(a[key], b[key], sub, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            # report the first differing element when one list extends the other
            for i in range(min(len(a), len(b))):
                if a[i] != b[i]:
                    _diff(a[i], b[i], f"{path}[{i}]", out)
                    return
            out.append(f"{path}[{min(len(a), len(b))}]")
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{path}[{i}]", out)
        return
    if (
        a != b
        or type(a) is not type(b)
        and not (
            isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
        )
    ):
        out.append(path or "<value>")


def differing_fields(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Paths where two recorded-style requests differ for matching (``[]``: they match)."""
    va, vb = match_view(a), match_view(b)
    out: list[str] = []
    for key in ("method", "path"):
        if va[key] != vb[key]:
            out.append(key)
    body: list[str] = []
    _diff(va["body"], vb["body"], "", body)
    out.extend(f"body.{p}" if p != "<value>" else "body" for p in body)
    return out


def requests_match(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return not differing_fields(a, b)


def _vcr_as_dict(request: Any) -> dict[str, Any]:
    return {"method": request.method, "uri": request.uri, "body": request.body}


def vcr_body_matcher(r1: Any, r2: Any) -> None:
    """A vcrpy matcher: JSON bodies equal once volatile fields are dropped (raises on a miss)."""
    diff = differing_fields(_vcr_as_dict(r1), _vcr_as_dict(r2))
    body_diff = [d for d in diff if d.startswith("body")]
    if body_diff:
        raise AssertionError(f"request bodies differ in {', '.join(body_diff[:5])}")


def vcr_before_record_request(request: Any) -> Any:
    """vcrpy hook: drop secret request headers and keys in the body before recording."""
    for name in list(request.headers):
        if name.lower() in SECRET_REQUEST_HEADERS:
            del request.headers[name]
    if request.body is not None:
        request.body = scrub_body(request.body)
    return request


def vcr_before_record_response(response: dict[str, Any]) -> dict[str, Any]:
    """vcrpy hook: drop secret response headers and keys in the body before recording."""
    headers = response.get("headers") or {}
    for name in list(headers):
        if name.lower() in SECRET_RESPONSE_HEADERS:
            del headers[name]
    body = response.get("body") or {}
    if "string" in body:
        body["string"] = scrub_body(body["string"])
    return response
