"""Cassettes: the one reader and writer of the files evidence lives in.

rejudge writes vcrpy's format (version 1: ``interactions`` of ``request{method,uri,body,headers}``
/ ``response{status{code,message},headers,body{string}}``), scrubbed before anything touches the
disk, with decoded bodies and rejudge's own facts under a top-level ``rejudge`` key (vcrpy ignores
it). It reads every layout real files use:

- vcrpy YAML (bodies as ``body: {string: ...}`` or a bare ``body: '...'``), including bodies
  stored as ``!!binary`` and still compressed (gzip, deflate; brotli when the ``brotli`` package
  is installed) and old vcrpy's ``!!python/unicode`` tags; vcrpy JSON (same structure);
- pydantic-ai's serializer, which writes decoded JSON bodies as ``parsed_body``;
- old vcrpy's httpx stubs, whose responses are ``{status_code, headers, content}``;
- Ruby VCR / betamax (``http_interactions``, ``base64_string`` bodies, and Ruby's ``!binary``
  tag, which Psych writes for any body holding a non-ASCII byte);
- langchain's serializer, which writes two parallel top-level lists, ``requests`` and
  ``responses`` (``requests[i]`` answered by ``responses[i]``; URIs and headers often
  ``**REDACTED**``, bodies ``!!binary``), so the wire format is found from the bodies;
- any of these gzipped whole (``.yaml.gz``, ``.json.gz``).

A file that cannot be read raises :class:`CassetteError`: one line naming the file and the fault.
The tape that records and replays exchanges is :mod:`rejudge.recorder._tape`.
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
import os
import re
import tempfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from rejudge.recorder.wire import looks_like_event_stream, strict_loads

from rejudge.errors import RejudgeError
from rejudge.model import hash_bytes

__all__ = [
    "scrubbed_cassette_bytes",
    "CASSETTE_FORMAT",
    "CASSETTE_SUFFIXES",
    "SECRET_REQUEST_HEADERS",
    "SECRET_RESPONSE_HEADERS",
    "REDACTED",
    "CassetteError",
    "CassetteFile",
    "Exchange",
    "scrub_headers",
    "scrub_text",
    "scrub_value",
    "is_secret_name",
    "scrub_body",
    "scrub_interaction",
    "serialize_cassette",
    "write_cassette",
    "write_atomic",
    "read_cassette",
    "parse_cassette",
    "exchanges_from_interactions",
    "decode_body",
    "cassette_path",
    "cassette_stem",
    "is_cassette_file",
]

# version of rejudge's layout inside the vcrpy file (the "rejudge" block and how bodies are kept)
CASSETTE_FORMAT = 1
VCR_FORMAT_VERSION = 1
REDACTED = "REDACTED"
CASSETTE_SUFFIXES = (".yaml", ".yml", ".json")
_GZIP_MAGIC = b"\x1f\x8b"

SECRET_REQUEST_HEADERS = frozenset(
    {
        "authorization",
        "x-api-key",
        "api-key",
        "cookie",
        "openai-organization",
        "openai-project",
        "proxy-authorization",
        "x-goog-api-key",
    }
)
SECRET_RESPONSE_HEADERS = frozenset({"set-cookie", "openai-organization", "openai-project"})
# provider keys that may leak into bodies (echoed errors, user prompts): sk-..., sk-ant-...
_KEY_PATTERN = re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}")


class CassetteError(RejudgeError):
    """A cassette file that cannot be read or written; ``path`` names it (None for text)."""

    def __init__(self, message: str, *, path: Path | str | None = None) -> None:
        super().__init__(message, file=str(path) if path is not None else None)
        self.path = Path(path) if path is not None else None


# --------------------------------------------------------------------------- scrubbing


def scrub_text(text: str) -> str:
    # every key the pattern finds contains "sk-": a substring test (memchr-fast) spares the
    # regex scan, which crawls through long request bodies at ~15 MB/s because of its \b
    if "sk-" not in text:
        return text
    return _KEY_PATTERN.sub(REDACTED, text)


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a header, attribute or key name names a credential: its last dotted part, any
    case, ``_`` read as ``-`` (``http.request.header.x_api_key``, ``api_key``, ``Set-Cookie``).
    Names repeat across the spans and lines an importer reads: each is judged once."""
    last = name.rsplit(".", 1)[-1].lower().replace("_", "-")
    return last in SECRET_REQUEST_HEADERS or last in ("api-key", "apikey", "set-cookie")


def scrub_headers(headers: dict[str, list[str]], secret: Iterable[str]) -> dict[str, list[str]]:
    # secret headers are dropped, name and all: a cassette never says which credential was used
    names = {name.lower() for name in secret}
    return {
        name: [scrub_text(v) for v in values]
        for name, values in headers.items()
        if name.lower() not in names
    }


def scrub_body(body: Any) -> Any:
    if isinstance(body, str):
        return scrub_text(body)
    if isinstance(body, bytes):
        if b"sk-" not in body:
            return body  # the same bytes a UTF-8 round trip of unchanged text gives back
        try:
            return scrub_text(body.decode("utf-8")).encode("utf-8")
        except UnicodeDecodeError:
            return body
    return body


def scrub_interaction(interaction: dict[str, Any]) -> dict[str, Any]:
    """A copy of a vcrpy interaction with secret headers redacted and keys masked in bodies."""
    request = dict(interaction["request"])
    response = dict(interaction["response"])
    request["headers"] = scrub_headers(request.get("headers") or {}, SECRET_REQUEST_HEADERS)
    request["body"] = scrub_body(request.get("body"))
    request["uri"] = scrub_text(str(request.get("uri", "")))
    response["headers"] = scrub_headers(response.get("headers") or {}, SECRET_RESPONSE_HEADERS)
    body = dict(response.get("body") or {})
    if "string" in body:
        body["string"] = scrub_body(body["string"])
    response["body"] = body
    return {"request": request, "response": response}


# --------------------------------------------------------------------------- exchanges


@dataclass(frozen=True)
class Exchange:
    """One recorded HTTP exchange, bodies decoded, whatever layout the file used.

    Bodies are a ``dict``/``list`` when they are JSON, ``bytes`` for a binary AWS event stream,
    ``str`` otherwise (SSE streams, HTML error pages), ``None`` when empty. Header names are lower-cased; values are lists of strings.
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


@dataclass(frozen=True)
class CassetteFile:
    """A cassette as read: its interactions as the file holds them, the ``rejudge`` block (empty
    for files recorded elsewhere), the file's hash, and the decoded exchanges."""

    path: Path
    interactions: list[dict[str, Any]]
    meta: dict[str, Any]
    sha256: str

    @cached_property
    def exchanges(self) -> list[Exchange]:
        return exchanges_from_interactions(self.interactions, str(self.path))

    @property
    def recorded_by_rejudge(self) -> bool:
        """True when rejudge's own loop recorded it (its outcome block is there)."""
        return isinstance(self.meta.get("outcome"), dict)


def exchanges_from_interactions(
    interactions: list[dict[str, Any]], name: str = "<cassette>"
) -> list[Exchange]:
    """Exchanges from an already-loaded ``interactions`` list (vcrpy's in-memory form)."""
    return [_exchange(item, i, name) for i, item in enumerate(interactions)]


def _exchange(item: Any, index: int, name: str) -> Exchange:
    where = f"{name}: interaction {index}"
    if not isinstance(item, dict):
        raise CassetteError(f"{where} is a {type(item).__name__}, not a mapping", path=name)
    request = item.get("request")
    response = item.get("response")
    if not isinstance(request, dict):
        raise CassetteError(f"{where} has no request mapping", path=name)
    if not isinstance(response, dict):
        raise CassetteError(f"{where} has no response mapping", path=name)
    url = request.get("uri", request.get("url"))
    if not isinstance(url, str):
        raise CassetteError(f"{where}: request has no uri", path=name)
    method = request.get("method")
    method = method.upper() if isinstance(method, str) else "GET"
    req_headers = _headers(request.get("headers"))
    resp_headers = _headers(response.get("headers"))
    try:
        req_body = _body(request, req_headers)
        resp_body = _body(response, resp_headers)
    except _BodyError as exc:
        raise CassetteError(f"{where}: {exc}", path=name) from None
    # vcrpy: status {code, message}; old vcrpy httpx stubs and some others: a bare status_code
    status = response.get("status", response.get("status_code"))
    code = _int_or_none(status.get("code")) if isinstance(status, dict) else _int_or_none(status)
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
    if "parsed_body" in part:  # pydantic-ai: the JSON already decoded
        return part["parsed_body"]
    # old vcrpy httpx stubs kept the body as "content"
    body = part["body"] if "body" in part else part.get("content")
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
    if isinstance(body, bytes):
        data = _decompress(body, encoding)
        if _binary_stream(data, headers):
            return data  # AWS event stream: lengths and CRCs, which no text decoding keeps
        return decode_body(data)  # already decompressed
    return decode_body(body, encoding)


def _binary_stream(body: bytes, headers: dict[str, list[str]]) -> bool:
    ctype = ",".join(headers.get("content-type", [])).lower()
    return "vnd.amazon.eventstream" in ctype or looks_like_event_stream(body)


def _decompress(data: bytes, encoding: str) -> bytes:
    if data[:2] == _GZIP_MAGIC or "gzip" in encoding:
        if data[:2] != _GZIP_MAGIC:
            return data  # header says gzip but vcrpy already decoded it
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise _BodyError(f"gzip body does not decompress: {exc}") from None
    if "br" in [e.strip() for e in encoding.split(",")]:
        try:
            import brotli
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


# --------------------------------------------------------------------------- reading

_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml if built
try:  # libyaml when present: an order of magnitude faster
    _Dumper: Any = yaml.CSafeDumper
except AttributeError:  # pragma: no cover
    _Dumper = yaml.SafeDumper


class _CassetteLoader(_SafeBase):  # type: ignore[valid-type,misc]
    """SafeLoader (libyaml's when available) that also accepts old vcrpy's python string tags
    and Ruby VCR's ``!binary``."""


def _python_str(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return str(loader.construct_scalar(node))  # type: ignore[arg-type]


for _tag in ("tag:yaml.org,2002:python/unicode", "tag:yaml.org,2002:python/str"):
    _CassetteLoader.add_constructor(_tag, _python_str)


def _ruby_binary(loader: yaml.SafeLoader, node: yaml.Node) -> bytes:
    # Ruby's Psych writes any string with a non-ASCII byte (a "15°C" in a tool result) as the
    # local tag ``!binary`` over base64, where Python's YAML would write ``!!binary``: the same
    # bytes under another tag, so it decodes the same way
    text = "".join(str(loader.construct_scalar(node)).split())  # type: ignore[arg-type]
    try:
        return base64.b64decode(text, validate=True)
    except ValueError as exc:
        mark = node.start_mark
        raise yaml.constructor.ConstructorError(
            None, None, f"!binary value is not base64 ({exc})", mark
        ) from None


_CassetteLoader.add_constructor("!binary", _ruby_binary)


def _yaml_error_line(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    if mark is not None:
        return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return f"invalid YAML: {problem}"


def _load_document(text: str, name: str) -> Any:
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise CassetteError(f"{name}: invalid JSON: {exc}", path=name) from None
        except RecursionError:
            raise CassetteError(
                f"{name}: JSON nested too deeply to be a cassette", path=name
            ) from None
    try:
        return yaml.load(text, Loader=_CassetteLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise CassetteError(f"{name}: {_yaml_error_line(exc)}", path=name) from None
    except RecursionError:
        raise CassetteError(f"{name}: YAML nested too deeply to be a cassette", path=name) from None


def _interactions(data: Any, name: str) -> list[dict[str, Any]]:
    if isinstance(data, list):
        interactions: Any = data
    elif isinstance(data, dict):
        if "interactions" in data:
            interactions = data["interactions"]
        elif "http_interactions" in data:  # Ruby VCR / betamax
            interactions = data["http_interactions"]
        elif "requests" in data and "responses" in data:  # langchain: two parallel lists
            interactions = _paired(data["requests"], data["responses"], name)
        else:
            keys = ", ".join(sorted(str(k) for k in data)[:5]) or "none"
            raise CassetteError(
                f"{name}: not a cassette: no 'interactions' list (top-level keys: {keys})",
                path=name,
            )
    elif data is None:
        raise CassetteError(f"{name}: empty file, not a cassette", path=name)
    else:
        raise CassetteError(
            f"{name}: not a cassette: top level is a {type(data).__name__}", path=name
        )
    if interactions is None:
        return []
    if not isinstance(interactions, list):
        raise CassetteError(
            f"{name}: 'interactions' is a {type(interactions).__name__}, not a list", path=name
        )
    return interactions


def _paired(requests: Any, responses: Any, name: str) -> list[dict[str, Any]]:
    # langchain's layout keeps requests[i] and responses[i] apart; one list longer than the
    # other leaves an exchange half-recorded, which no pairing can read honestly
    for key, value in (("requests", requests), ("responses", responses)):
        if not isinstance(value, list):
            raise CassetteError(
                f"{name}: '{key}' is a {type(value).__name__}, not a list", path=name
            )
    if len(requests) != len(responses):
        raise CassetteError(
            f"{name}: {len(requests)} requests but {len(responses)} responses", path=name
        )
    return [{"request": q, "response": r} for q, r in zip(requests, responses, strict=True)]


def _document_text(data: bytes, name: str) -> tuple[str, bool]:
    """A cassette file's text (gunzipped when it is gzipped) and whether it was gzipped."""
    raw = data
    zipped = raw[:2] == _GZIP_MAGIC
    if zipped:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, ValueError, zlib.error) as exc:
            raise CassetteError(
                f"{name}: gzipped file does not decompress: {exc}", path=name
            ) from None
    try:
        return raw.decode("utf-8"), zipped
    except UnicodeDecodeError as exc:
        raise CassetteError(
            f"{name}: not UTF-8 text (byte {exc.start}); is it a cassette?", path=name
        ) from None


def parse_cassette(
    data: bytes | str, name: str = "<cassette>", *, scrub: bool = False
) -> CassetteFile:
    """Parse a cassette's bytes or text (any layout above); ``name`` names it in errors.

    ``scrub``: read it as :func:`scrubbed_cassette_bytes` would write it (secret headers
    dropped, keys in strings redacted). The file's ``sha256`` is always the hash of ``data``.
    The interactions and every body are checked here, so a bad file fails when it is read.
    """
    interactions, meta, sha256 = parse_cassette_parts(data, name, scrub=scrub)
    cassette = CassetteFile(Path(name), interactions, meta, sha256)
    _ = cassette.exchanges  # decode now: a bad interaction or body names the file here
    return cassette


def parse_cassette_parts(
    data: bytes | str, name: str = "<cassette>", *, scrub: bool = False
) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    """:func:`parse_cassette` up to the :class:`CassetteFile`: (interactions, ``rejudge``
    block, sha256), with no Path made of ``name`` (a replay that reads one cassette a trace
    must not intern every file name: see rejudge.recorder._judge_calls.JudgeJob)."""
    original = data.encode("utf-8") if isinstance(data, str) else data
    text, _zipped = _document_text(original, name)
    document = _load_document(text, name)
    if scrub:
        document = _scrub_document(document)
    interactions = _interactions(document, name)
    raw_meta = document.get("rejudge") if isinstance(document, dict) else None
    return interactions, raw_meta if isinstance(raw_meta, dict) else {}, hash_bytes(original)


def read_cassette(path: str | Path, *, scrub: bool = False) -> CassetteFile:
    """Read one cassette file (any layout above); errors name the file.

    ``scrub``: read it as :func:`scrubbed_cassette_bytes` would write it (secret headers
    dropped, keys in bodies redacted), so a trace derived again from a user's own file (an
    import that left the file where it was) is the trace derived when it was imported, and
    holds no secret. The file's ``sha256`` stays the hash of the bytes on disk, which is what
    the store names it by.
    """
    source = Path(path)
    try:
        data = source.read_bytes()
    except FileNotFoundError:
        raise CassetteError(f"{source}: no such cassette file", path=source) from None
    except OSError as exc:
        raise CassetteError(f"{source}: cannot read: {exc.strerror or exc}", path=source) from None
    return parse_cassette(data, str(source), scrub=scrub)


# --------------------------------------------------------------------------- writing


def cassette_path(root: Path | str, run: str, case_id: str, repetition: int) -> Path:
    safe_case = re.sub(r"[^A-Za-z0-9._-]", "_", case_id)
    safe_run = re.sub(r"[^A-Za-z0-9._-]", "_", run)
    return Path(root) / safe_run / f"{safe_case}__r{repetition}.yaml"


def is_cassette_file(path: Path) -> bool:
    """A file name a cassette may have: ``*.yaml|yml|json``, optionally gzipped (``.gz``)."""
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return name.endswith(CASSETTE_SUFFIXES)


def cassette_stem(path: Path) -> str:
    """The file name without its cassette suffixes (``a__r1.yaml.gz`` -> ``a__r1``)."""
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return Path(name).stem


def serialize_cassette(
    interactions: list[dict[str, Any]], meta: dict[str, Any], *, as_json: bool = False
) -> bytes:
    """vcrpy's document, scrubbed: YAML (vcrpy's default serializer), or ``as_json`` (its
    ``json`` serializer: read back about 10x faster, for cassettes replay reads by the
    thousand, such as a model judge's)."""
    clean = [scrub_interaction(i) for i in interactions]
    data = {"version": VCR_FORMAT_VERSION, "interactions": clean, "rejudge": meta}
    if as_json:
        return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 16)
    return text.encode("utf-8")


def write_cassette(
    path: Path | str,
    interactions: list[dict[str, Any]],
    meta: dict[str, Any],
    *,
    fsync: bool = False,
    as_json: bool = False,
) -> str:
    """Scrub, write to a temp file beside ``path``, rename over ``path``; returns the file's hash.

    The rename is atomic, so a killed process leaves the old file or the new one, never half of
    one. ``fsync=True`` also survives a power loss (about 5-8 ms more per file on these disks);
    the default matches the store's own setting (SQLite WAL, synchronous=NORMAL).
    """
    data = serialize_cassette(interactions, meta, as_json=as_json)
    write_atomic(path, data, fsync=fsync)
    return hash_bytes(data)


def write_atomic(path: Path | str, data: bytes, *, fsync: bool = False) -> None:
    """Write ``data`` to a temp file beside ``path`` and rename it over ``path`` (making its
    folder): a killed process leaves the old file or the new one, never half of one, and two
    writers of the same bytes race harmlessly. ``fsync`` as in :func:`write_cassette`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


# --------------------------------------------------------------------------- scrubbing a whole file


def scrub_value(value: Any, *, drop_secret_names: bool = False) -> Any:
    """``value`` (a loaded JSON or YAML document, or any part of one) with provider keys
    redacted in every string, also inside compressed or base64 bodies; with
    ``drop_secret_names``, every mapping also loses the keys :func:`is_secret_name` names."""
    # every string anywhere in the document (bodies, parsed bodies, uris, the rejudge block)
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, bytes):
        if value[:2] == _GZIP_MAGIC:
            # a key inside a still-compressed body: keep the body decompressed and scrubbed (the
            # reader takes a gzip-labelled body without gzip magic as already decoded)
            try:
                plain = _decompress(value, "gzip")
            except ValueError:
                return value
            if b"sk-" in plain:
                return scrub_body(plain.decode("utf-8", errors="replace"))
            return value
        return scrub_body(value)
    if isinstance(value, list):
        return [scrub_value(v, drop_secret_names=drop_secret_names) for v in value]
    if isinstance(value, dict):
        out = {
            k: scrub_value(v, drop_secret_names=drop_secret_names)
            for k, v in value.items()
            if not (drop_secret_names and is_secret_name(str(k)))
        }
        if isinstance(value.get("base64_string"), str):  # Ruby VCR / betamax bodies
            try:
                raw = base64.b64decode(value["base64_string"])
            except ValueError:
                return out
            if b"sk-" in raw:
                out["base64_string"] = base64.b64encode(scrub_body(raw)).decode("ascii")
        return out
    return value


def _drop_headers(part: Any, secret: frozenset[str]) -> Any:
    if not isinstance(part, dict) or not isinstance(part.get("headers"), Mapping):
        return part
    headers = {k: v for k, v in part["headers"].items() if str(k).lower() not in secret}
    return {**part, "headers": headers}


def _scrub_interaction_any(item: Any) -> Any:
    # the recorder's scrub_interaction knows vcrpy's layout only; this one every layout the
    # reader accepts (parsed_body, content, base64_string, bare bodies)
    if not isinstance(item, dict):
        return item
    out = dict(item)
    if "request" in out:
        out["request"] = _drop_headers(out["request"], SECRET_REQUEST_HEADERS)
    if "response" in out:
        out["response"] = _drop_headers(out["response"], SECRET_RESPONSE_HEADERS)
    return scrub_value(out)


_PAIRED_SECRETS = {"requests": SECRET_REQUEST_HEADERS, "responses": SECRET_RESPONSE_HEADERS}


def _scrub_document(document: Any) -> Any:
    """A loaded cassette document without secret headers and keys (equal to ``document`` when
    it held none; anything but a cassette's list or mapping comes back as it is)."""
    if isinstance(document, list):
        return [_scrub_interaction_any(i) for i in document]
    if not isinstance(document, dict):
        return document  # not a cassette: the reader says why
    paired = "requests" in document and "responses" in document
    clean: dict[str, Any] = {}
    for key, value in document.items():
        if key in ("interactions", "http_interactions") and isinstance(value, list):
            clean[key] = [_scrub_interaction_any(i) for i in value]
        elif paired and key in _PAIRED_SECRETS and isinstance(value, list):  # langchain's lists
            clean[key] = [scrub_value(_drop_headers(p, _PAIRED_SECRETS[key])) for p in value]
        else:
            clean[key] = scrub_value(value)
    return clean


def scrubbed_cassette_bytes(data: bytes, name: str = "<cassette>") -> bytes:
    """The cassette ``data`` with what a recording never keeps removed: the secret request and
    response headers (dropped, name and all) and provider keys in any string (``REDACTED``).

    A file that holds none of these comes back as the same bytes, so its hash (and every stored
    hash of rejudge's own cassettes, already scrubbed when recorded) is unchanged. Otherwise the
    document is written again in its own kind: JSON stays JSON, YAML YAML, gzipped gzipped.
    Raises :class:`CassetteError` (one line) when the file is not a readable document.
    """
    text, zipped = _document_text(data, name)
    document = _load_document(text, name)
    clean = _scrub_document(document)
    if clean == document:
        return data
    if text.lstrip()[:1] in ("{", "["):
        out = json.dumps(clean, indent=2, ensure_ascii=False).encode("utf-8")
    else:
        dumped = yaml.dump(
            clean, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 16
        )
        out = dumped.encode("utf-8")
    return gzip.compress(out, mtime=0) if zipped else out
