"""Read cassettes of any vcrpy-like flavour into neutral :class:`Exchange` records.

Flavours read:

- vcrpy YAML (``interactions``; bodies as ``body: {string: ...}`` or a bare ``body: '...'``),
  including bodies stored as ``!!binary`` and still compressed (gzip, deflate; brotli when the
  ``brotli`` package is installed), and the old ``!!python/unicode`` tags;
- vcrpy JSON cassettes (same structure, JSON syntax);
- pydantic-ai's serializer, which writes decoded JSON bodies as ``parsed_body``;
- Ruby VCR / betamax (``http_interactions``, ``base64_string`` bodies, ``status: {code}``).

A file that cannot be read raises :class:`CassetteError`, one line naming the file and the fault.
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from rejudge.recorder.wire.common import strict_loads
from rejudge.store.errors import RejudgeError

__all__ = [
    "CassetteError",
    "Exchange",
    "read_cassette",
    "load_cassette_text",
    "exchanges_from_interactions",
    "decode_body",
]


class CassetteError(RejudgeError):
    """A cassette file that cannot be read (names the file and what is wrong)."""


@dataclass(frozen=True)
class Exchange:
    """One recorded HTTP exchange, bodies decoded.

    Bodies are a ``dict``/``list`` when they are JSON, ``str`` otherwise (SSE streams, HTML error
    pages), ``None`` when empty. Header names are lower-cased; values are lists of strings.
    """

    method: str
    url: str
    request_headers: dict[str, list[str]] = field(default_factory=dict)
    request_body: Any = None
    status: int | None = None
    response_headers: dict[str, list[str]] = field(default_factory=dict)
    response_body: Any = None
    index: int = 0

    @property
    def path(self) -> str:
        return urlsplit(self.url).path if "://" in self.url else self.url.split("?", 1)[0]

    def response_header(self, name: str) -> str | None:
        values = self.response_headers.get(name.lower())
        return values[0] if values else None

    def request_header(self, name: str) -> str | None:
        values = self.request_headers.get(name.lower())
        return values[0] if values else None


# --------------------------------------------------------------------------- YAML loading


_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml if built


class _CassetteLoader(_SafeBase):  # type: ignore[valid-type,misc]
    """SafeLoader (libyaml's when available) that also accepts old vcrpy's python string tags."""


def _python_str(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


for _tag in ("tag:yaml.org,2002:python/unicode", "tag:yaml.org,2002:python/str"):
    _CassetteLoader.add_constructor(_tag, _python_str)


def _yaml_error_line(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None:
        return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return f"invalid YAML: {problem}"


def load_cassette_text(text: str, name: str = "<cassette>") -> list[Exchange]:
    """Parse cassette text (YAML or JSON); ``name`` names it in errors."""
    stripped = text.lstrip()
    data: Any
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise CassetteError(f"{name}: invalid JSON: {exc}") from None
        except RecursionError:
            raise CassetteError(f"{name}: JSON nested too deeply to be a cassette") from None
    else:
        try:
            data = yaml.load(text, Loader=_CassetteLoader)  # noqa: S506 - a SafeLoader subclass
        except yaml.YAMLError as exc:
            raise CassetteError(f"{name}: {_yaml_error_line(exc)}") from None
        except RecursionError:
            raise CassetteError(f"{name}: YAML nested too deeply to be a cassette") from None
    return _exchanges(data, name)


def read_cassette(path: str | Path) -> list[Exchange]:
    """Read one cassette file into exchanges, in recorded order."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise CassetteError(f"{p}: no such cassette file") from None
    except OSError as exc:
        raise CassetteError(f"{p}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CassetteError(f"{p}: not UTF-8 text (byte {exc.start}); is it a cassette?") from None
    return load_cassette_text(text, str(p))


# --------------------------------------------------------------------------- structure


def exchanges_from_interactions(
    interactions: list[dict[str, Any]], name: str = "<cassette>"
) -> list[Exchange]:
    """Exchanges from an already-loaded ``interactions`` list (vcrpy's in-memory form)."""
    return _exchanges({"interactions": interactions}, name)


def _exchanges(data: Any, name: str) -> list[Exchange]:
    if isinstance(data, list):
        interactions: Any = data
    elif isinstance(data, dict):
        if "interactions" in data:
            interactions = data["interactions"]
        elif "http_interactions" in data:
            interactions = data["http_interactions"]
        else:
            keys = ", ".join(sorted(str(k) for k in data)[:5]) or "none"
            raise CassetteError(
                f"{name}: not a cassette: no 'interactions' list (top-level keys: {keys})"
            )
    elif data is None:
        raise CassetteError(f"{name}: empty file, not a cassette")
    else:
        raise CassetteError(f"{name}: not a cassette: top level is a {type(data).__name__}")
    if interactions is None:
        return []
    if not isinstance(interactions, list):
        raise CassetteError(
            f"{name}: 'interactions' is a {type(interactions).__name__}, not a list"
        )
    out = []
    for i, item in enumerate(interactions):
        out.append(_exchange(item, i, name))
    return out


def _exchange(item: Any, index: int, name: str) -> Exchange:
    where = f"{name}: interaction {index}"
    if not isinstance(item, dict):
        raise CassetteError(f"{where} is a {type(item).__name__}, not a mapping")
    request = item.get("request")
    response = item.get("response")
    if not isinstance(request, dict):
        raise CassetteError(f"{where} has no request mapping")
    if not isinstance(response, dict):
        raise CassetteError(f"{where} has no response mapping")
    url = request.get("uri", request.get("url"))
    if not isinstance(url, str):
        raise CassetteError(f"{where}: request has no uri")
    method = request.get("method")
    method = method.upper() if isinstance(method, str) else "GET"
    req_headers = _headers(request.get("headers"))
    resp_headers = _headers(response.get("headers"))
    try:
        req_body = _body(request, req_headers)
        resp_body = _body(response, resp_headers)
    except _BodyError as exc:
        raise CassetteError(f"{where}: {exc}") from None
    status = response.get("status")
    code: int | None
    if isinstance(status, dict):
        code = _int_or_none(status.get("code"))
    else:
        code = _int_or_none(status)
    return Exchange(
        method=method,
        url=url,
        request_headers=req_headers,
        request_body=req_body,
        status=code,
        response_headers=resp_headers,
        response_body=resp_body,
        index=index,
    )


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _headers(raw: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if not isinstance(raw, Mapping):
        return out
    for key, value in raw.items():
        values = value if isinstance(value, list) else [value]
        out.setdefault(str(key).lower(), []).extend(str(v) for v in values if v is not None)
    return out


# --------------------------------------------------------------------------- bodies


class _BodyError(ValueError):
    pass


def _body(part: dict[str, Any], headers: dict[str, list[str]]) -> Any:
    if "parsed_body" in part:
        return part["parsed_body"]
    body = part.get("body")
    if isinstance(body, dict):
        if "string" in body:
            body = body["string"]
        elif "base64_string" in body:
            try:
                body = base64.b64decode(str(body["base64_string"]))
            except ValueError as exc:
                raise _BodyError(f"body base64_string does not decode: {exc}") from None
        elif not body:
            body = None
        else:  # already a structured body (some serializers store JSON inline)
            return body
    if body is None:
        return None
    if isinstance(body, (dict, list)):
        return body
    encoding = ",".join(headers.get("content-encoding", [])).lower()
    return decode_body(body, encoding)


def _decompress(data: bytes, encoding: str) -> bytes:
    if data[:2] == b"\x1f\x8b" or "gzip" in encoding:
        if data[:2] != b"\x1f\x8b":
            return data  # header says gzip but vcrpy already decoded it
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise _BodyError(f"gzip body does not decompress: {exc}") from None
    if "br" in [e.strip() for e in encoding.split(",")]:
        try:
            import brotli  # type: ignore[import-not-found]
        except ImportError:
            raise _BodyError(
                "body is brotli-compressed; install the 'brotli' package to read it"
            ) from None
        try:
            return bytes(brotli.decompress(data))
        except Exception as exc:  # brotli raises its own error type
            raise _BodyError(f"brotli body does not decompress: {exc}") from None
    if "deflate" in encoding:
        for wbits in (zlib.MAX_WBITS, -zlib.MAX_WBITS):
            try:
                return zlib.decompress(data, wbits)
            except zlib.error:
                continue
    if "zstd" in encoding:
        raise _BodyError("body is zstd-compressed; rejudge cannot read zstd bodies")
    return data


def decode_body(body: str | bytes, content_encoding: str = "") -> Any:
    """Decode a stored body: decompress, UTF-8 decode, and parse JSON when it is JSON."""
    if isinstance(body, bytes):
        data = _decompress(body, content_encoding)
        text = data.decode("utf-8", errors="replace")
    else:
        text = str(body)
    if text == "":
        return None
    head = text.lstrip()[:1]
    if head in ("{", "["):
        try:
            return strict_loads(text)
        except (ValueError, RecursionError):
            return text  # not JSON (or NaN/Infinity, which no hash accepts): kept as text
    return text
