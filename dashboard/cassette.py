"""Reading a trace's cassette for display: the raw HTTP exchanges, pretty-printed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

__all__ = ["CassetteView", "load_exchanges"]

_MAX_BYTES = 20 * 1024 * 1024

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


class CassetteView:
    def __init__(self, path: Path, exchanges: list[dict[str, Any]], error: str | None = None):
        self.path = path
        self.exchanges = exchanges
        self.error = error


def _body(value: Any) -> str:
    if isinstance(value, dict):
        if "string" in value:
            value = value["string"]
        elif "parsed_body" in value:
            value = value["parsed_body"]
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if value is None:
        return ""
    if not isinstance(value, str):
        return json.dumps(value, indent=2, ensure_ascii=False)
    try:
        return json.dumps(json.loads(value), indent=2, ensure_ascii=False)
    except ValueError:
        return value


def load_exchanges(root: Path | None, relative: str | None) -> CassetteView | None:
    """The exchanges of ``root/relative`` (None when the trace has no cassette).

    Problems (missing file, a path leaving the cassette folder, invalid YAML) come back as an
    ``error`` to show, never as an exception.
    """
    if not relative:
        return None
    base = (root or Path(".")).resolve()
    path = (base / relative).resolve()
    if base != path and base not in path.parents:
        return CassetteView(path, [], f"cassette path {relative!r} leaves the cassette folder")
    try:
        if path.stat().st_size > _MAX_BYTES:
            return CassetteView(
                path, [], f"cassette {path} is larger than 20 MiB; open it directly"
            )
        parsed = yaml.load(path.read_bytes(), Loader=_Loader)
    except OSError as exc:
        return CassetteView(
            path,
            [],
            f"cannot read cassette {path}: {exc.strerror or exc} "
            "(start the dashboard with the --cassettes folder the run was recorded into)",
        )
    except yaml.YAMLError:
        return CassetteView(path, [], f"cassette {path} is not valid YAML")
    if not isinstance(parsed, dict) or not isinstance(parsed.get("interactions"), list):
        return CassetteView(path, [], f"cassette {path} has no 'interactions' list")
    out = []
    for item in parsed["interactions"]:
        if not isinstance(item, dict):
            continue
        request = item.get("request") or {}
        response = item.get("response") or {}
        status = response.get("status") or {}
        out.append(
            {
                "method": request.get("method", "?"),
                "uri": request.get("uri", "?"),
                "request_headers": request.get("headers") or {},
                "request_body": _body(request.get("body")),
                "status": status.get("code") if isinstance(status, dict) else status,
                "response_headers": response.get("headers") or {},
                "response_body": _body(response.get("body")),
            }
        )
    return CassetteView(path, out)
