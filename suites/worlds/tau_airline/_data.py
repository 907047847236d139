"""Reading τ-bench's airline database: the three shipped JSON files, once per process.

The only I/O of the world. Each file is one JSON object keyed by record id, which is already the
``{key: record}`` shape a :class:`~rejudge.model.WorldData` table wants, so the records are kept
exactly as ``json.load`` gives them: their key order is what the tools' JSON results show, and an
int stays an int (τ-bench's hash, and ours, tell ``100`` from ``100.0``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rejudge.errors import InvalidInputError
from rejudge.model import WorldData

__all__ = ["DATA_DIR", "NAME", "TABLES", "VERSION", "load_data"]

NAME = "tau-bench-airline"
#: the τ-bench commit the data was copied from (see data/README.md)
VERSION = "7362a17"
#: table name -> the field of each record that must equal its key
TABLES = {"users": None, "flights": "flight_number", "reservations": "reservation_id"}
DATA_DIR = Path(__file__).parent / "data"


def _read_table(path: Path, key_field: str | None) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInputError(
            f"{path}: the airline world's data file is missing; reinstall rejudge",
            file=str(path),
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{path}: cannot be read ({exc})", file=str(path)) from None
    try:
        table = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            file=str(path),
        ) from None
    if not isinstance(table, dict):
        raise InvalidInputError(
            f"{path}: expected one JSON object keyed by record id, found {type(table).__name__}",
            file=str(path),
        )
    for key, record in table.items():
        if not isinstance(record, dict):
            raise InvalidInputError(
                f"{path}: record {key!r} is {type(record).__name__}, not an object",
                file=str(path),
            )
        if key_field is not None and record.get(key_field) != key:
            raise InvalidInputError(
                f"{path}: record {key!r} has {key_field} {record.get(key_field)!r}",
                file=str(path),
            )
    return table


def load_data(folder: Path = DATA_DIR) -> WorldData:
    """The airline world's initial data, read from ``folder`` (by default the shipped one)."""
    tables = {name: _read_table(folder / f"{name}.json", key) for name, key in TABLES.items()}
    return WorldData.of(NAME, VERSION, tables)
