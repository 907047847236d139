"""Reading a trace's cassette for display: the raw HTTP exchanges, pretty-printed.

The file is read by rejudge's one cassette reader, so the page shows every layout the importer
reads (vcrpy YAML/JSON, gzip ``!!binary`` bodies, ``parsed_body``, old httpx-stub responses,
Ruby VCR, ``.yaml.gz``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rejudge.recorder import CassetteError, Exchange, read_cassette

__all__ = ["CassetteView", "load_exchanges"]

_MAX_BYTES = 20 * 1024 * 1024


class CassetteView:
    def __init__(self, path: Path, exchanges: list[dict[str, Any]], error: str | None = None):
        self.path = path
        self.exchanges = exchanges
        self.error = error


def _shown(body: Any) -> str:
    """A decoded body as text: JSON indented, anything else as it is."""
    if body is None:
        return ""
    if not isinstance(body, str):
        return json.dumps(body, indent=2, ensure_ascii=False)
    return body


def _row(exchange: Exchange) -> dict[str, Any]:
    return {
        "method": exchange.method,
        "uri": exchange.url,
        "request_headers": exchange.request_headers,
        "request_body": _shown(exchange.request_body),
        "status": exchange.status,
        "response_headers": exchange.response_headers,
        "response_body": _shown(exchange.response_body),
    }


def load_exchanges(root: Path | None, relative: str | None) -> CassetteView | None:
    """The exchanges of ``root/relative`` (None when the trace has no cassette).

    Problems (missing file, a path leaving the cassette folder, a file that is no cassette)
    come back as an ``error`` to show, never as an exception.
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
    except OSError as exc:
        return CassetteView(
            path,
            [],
            f"cannot read cassette {path}: {exc.strerror or exc} "
            "(start the dashboard with the --cassettes folder the run was recorded into)",
        )
    try:
        cassette = read_cassette(path)
    except CassetteError as exc:
        return CassetteView(path, [], str(exc))
    return CassetteView(path, [_row(e) for e in cassette.exchanges])
