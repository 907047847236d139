"""Worlds with state: versioned initial data plus the tools that act on it.

A world's data is tables of records, ``{table: {key: record}}`` of plain JSON (τ-bench's
airline world: ``users``, ``flights``, ``reservations``, 5 MB). It is loaded once per process
and never changed. What one trace does to it lives in a :class:`WorldState`, a copy-on-write
overlay: a read sees the base record, the first change of a record copies that one record, so
a trace costs what it touches, not 5 MB.

A :class:`World` executes a call on a state (:meth:`World.execute`): it never raises for bad
input (an unknown tool, arguments the tool cannot take, a tool's own refusal become a failed
:class:`CallResult`), and a failed call changes nothing (its writes are rolled back), which is
how τ-bench's tools behave. Two states of one world compare by what changed
(:func:`diff_states`), in terms a person can read: which record of which table, which field,
expected vs actual. Values compare as canonical JSON, so an int and a float differ, as they do
in τ-bench's database hash.

Pure: no I/O here (a world's loader reads its files once, outside); the state tier of the judge
looks worlds up by name in :mod:`rejudge.registry`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from rejudge.errors import InvalidInputError
from rejudge.model._hashing import canonical_json, content_hash
from rejudge.model._schemas import WorldRef

__all__ = [
    "CallResult",
    "StateDifference",
    "World",
    "WorldData",
    "WorldMismatchError",
    "WorldState",
    "diff_states",
    "world_key",
]

_ABSENT: Any = object()  # a deleted record (in the overlay), or no record at all
_NO_ENTRY: Any = object()  # the journal's "the overlay had no entry for this key"


def world_key(name: str, version: str) -> str:
    """The registry name of one version of a world: ``name@version`` (``retail@2``). A world
    package registers every version it ships under its key, and its latest under the bare
    name too; a tool registry names the version it was made with (:class:`WorldRef`), so a
    judgment made under an old version is judged again under that version, never the latest."""
    return f"{name}@{version}"


class WorldMismatchError(InvalidInputError):
    """A registry names a world whose loaded data is of another version or hash."""


@dataclass(frozen=True, slots=True)
class CallResult:
    """What one executed call gave back: the content the model saw, and whether it failed."""

    ok: bool
    content: Any


@dataclass(frozen=True)
class WorldData:
    """A world's initial data, with its version and the content hash of the whole of it."""

    name: str
    version: str
    tables: Mapping[str, Mapping[str, Any]]
    hash: str

    @classmethod
    def of(cls, name: str, version: str, tables: Mapping[str, Mapping[str, Any]]) -> WorldData:
        # the hash is taken once per process (0.1 s for 5 MB), never per trace
        return cls(name, version, tables, content_hash(tables))

    @property
    def ref(self) -> WorldRef:
        return WorldRef(name=self.name, version=self.version, data_hash=self.hash)


class WorldState:
    """One trace's view of a world: the base data plus the records it changed.

    Tools read with :meth:`get` / :meth:`items` and must not mutate what they read; they change
    a record with :meth:`edit` (a private copy, made on first edit), :meth:`put` or
    :meth:`delete`. :meth:`begin` / :meth:`rollback` undo one call's writes.
    """

    def __init__(self, data: WorldData) -> None:
        self.data = data
        # table -> key -> record, or _ABSENT for a deleted base record
        self._changed: dict[str, dict[str, Any]] = {}
        # (table, key) -> the overlay entry before the open call touched it
        self._journal: dict[tuple[str, str], Any] | None = None

    # ------------------------------------------------------------------ reads

    def get(self, table: str, key: str, default: Any = None) -> Any:
        changed = self._changed.get(table)
        if changed is not None and key in changed:
            value = changed[key]
            return default if value is _ABSENT else value
        return self.data.tables.get(table, {}).get(key, default)

    def has(self, table: str, key: str) -> bool:
        return self.get(table, key, _ABSENT) is not _ABSENT

    def items(self, table: str) -> Iterator[tuple[str, Any]]:
        """Every ``(key, record)`` of ``table``: the base order, then records added."""
        changed = self._changed.get(table, {})
        base = self.data.tables.get(table, {})
        for key, record in base.items():
            if key in changed:
                if changed[key] is not _ABSENT:
                    yield key, changed[key]
            else:
                yield key, record
        for key, record in changed.items():
            if key not in base and record is not _ABSENT:
                yield key, record

    def keys(self, table: str) -> list[str]:
        return [key for key, _ in self.items(table)]

    # ------------------------------------------------------------------ writes

    def _remember(self, table: str, key: str) -> None:
        if self._journal is not None and (table, key) not in self._journal:
            entry = self._changed.get(table, {}).get(key, _NO_ENTRY)
            keep = entry if entry is _NO_ENTRY or entry is _ABSENT else copy.deepcopy(entry)
            self._journal[(table, key)] = keep

    def edit(self, table: str, key: str) -> Any:
        """The record under ``key``, as a copy this state owns: change it in place."""
        changed = self._changed.setdefault(table, {})
        self._remember(table, key)
        if key in changed and changed[key] is not _ABSENT:
            return changed[key]
        base = self.data.tables.get(table, {}).get(key, _ABSENT)
        if base is _ABSENT or key in changed:
            raise KeyError(f"{table}/{key}")
        changed[key] = copy.deepcopy(base)
        return changed[key]

    def put(self, table: str, key: str, record: Any) -> None:
        self._remember(table, key)
        self._changed.setdefault(table, {})[key] = record

    def delete(self, table: str, key: str) -> None:
        self._remember(table, key)
        self._changed.setdefault(table, {})[key] = _ABSENT

    def begin(self) -> None:
        """Start one call: its writes can be undone with :meth:`rollback`."""
        self._journal = {}

    def commit(self) -> None:
        self._journal = None

    def rollback(self) -> None:
        journal, self._journal = self._journal or {}, None
        for (table, key), before in journal.items():
            if before is _NO_ENTRY:
                self._changed.get(table, {}).pop(key, None)
            else:
                self._changed.setdefault(table, {})[key] = before

    # ------------------------------------------------------------------ what changed

    def changes(self, ignore: frozenset[str] = frozenset()) -> dict[str, dict[str, Any]]:
        """``{table: {key: record or None (deleted)}}`` of every record that differs from the
        base (a record edited back to its base value is not a change), keys sorted; the tables
        in ``ignore`` (a world's ledger, :attr:`World.ledger_tables`) left out."""
        out: dict[str, dict[str, Any]] = {}
        for table in sorted(self._changed):
            if table in ignore:
                continue
            base = self.data.tables.get(table, {})
            for key in sorted(self._changed[table]):
                value = self._changed[table][key]
                before = base.get(key, _ABSENT)
                if value is _ABSENT:
                    if before is not _ABSENT:
                        out.setdefault(table, {})[key] = None
                elif before is _ABSENT or canonical_json(value) != canonical_json(before):
                    out.setdefault(table, {})[key] = value
        return out

    def state_hash(
        self,
        ignore: frozenset[str] = frozenset(),
        *,
        changes: dict[str, dict[str, Any]] | None = None,
    ) -> str:
        """The content hash of the final state: the base data's hash and what changed (equal
        for two states exactly when their whole data, ``ignore``'s tables aside, is equal).
        ``changes``: :meth:`changes` with the same ``ignore``, when the caller has it."""
        if changes is None:
            changes = self.changes(ignore)
        return content_hash({"base": self.data.hash, "changes": changes})

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The whole final data (costly: for export and tests, never per trace)."""
        return {table: dict(self.items(table)) for table in self.data.tables}


@dataclass(frozen=True, slots=True)
class StateDifference:
    """One way two final states differ: a record's field (``path``; empty for the whole
    record), what the expected state holds there and what the actual one does (None for
    absent: ``expected_present`` / ``actual_present`` tell absence from a JSON null)."""

    table: str
    key: str
    path: str
    expected: Any
    actual: Any
    expected_present: bool = True
    actual_present: bool = True

    def describe(self) -> str:
        where = f"{self.table}/{self.key}" + (f": {self.path}" if self.path else "")
        exp = canonical_json(self.expected) if self.expected_present else "(absent)"
        act = canonical_json(self.actual) if self.actual_present else "(absent)"
        return f"{where}: expected {_cut(exp)}, actual {_cut(act)}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "key": self.key,
            "path": self.path,
            "expected": self.expected if self.expected_present else None,
            "actual": self.actual if self.actual_present else None,
            "expected_present": self.expected_present,
            "actual_present": self.actual_present,
        }


def _cut(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _field_diffs(
    table: str, key: str, path: str, expected: Any, actual: Any, out: list[StateDifference]
) -> None:
    if canonical_json(expected) == canonical_json(actual):
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for name in sorted({*expected, *actual}):
            sub = f"{path}.{name}" if path else str(name)
            if name not in expected or name not in actual:
                out.append(
                    StateDifference(
                        table,
                        key,
                        sub,
                        expected.get(name),
                        actual.get(name),
                        expected_present=name in expected,
                        actual_present=name in actual,
                    )
                )
            else:
                _field_diffs(table, key, sub, expected[name], actual[name], out)
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            _field_diffs(table, key, f"{path}[{i}]", e, a, out)
        return
    out.append(StateDifference(table, key, path, expected, actual))


def diff_states(
    expected: WorldState,
    actual: WorldState,
    ignore: frozenset[str] = frozenset(),
    *,
    changes: tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]] | None = None,
) -> list[StateDifference]:
    """Every difference between two final states of one world, record by record and field by
    field, ``ignore``'s tables aside; empty exactly when their state hashes (with the same
    ``ignore``) are equal. Costs what the two changed. ``changes``: the two states'
    :meth:`WorldState.changes` (same ``ignore``), when the caller has them."""
    exp, act = (
        changes if changes is not None else (expected.changes(ignore), actual.changes(ignore))
    )
    out: list[StateDifference] = []
    for table in sorted({*exp, *act}):
        e_recs, a_recs = exp.get(table, {}), act.get(table, {})
        for key in sorted({*e_recs, *a_recs}):
            e = e_recs[key] if key in e_recs else expected.get(table, key, _ABSENT)
            a = a_recs[key] if key in a_recs else actual.get(table, key, _ABSENT)
            e_present = e is not _ABSENT and not (key in e_recs and e_recs[key] is None)
            a_present = a is not _ABSENT and not (key in a_recs and a_recs[key] is None)
            if not e_present or not a_present:
                if e_present or a_present:
                    out.append(
                        StateDifference(
                            table,
                            key,
                            "",
                            e if e_present else None,
                            a if a_present else None,
                            expected_present=e_present,
                            actual_present=a_present,
                        )
                    )
                continue
            _field_diffs(table, key, "", e, a, out)
    return out


class World:
    """A world: its data, its tools, and how a call is executed. Subclasses set ``name``,
    ``version``, ``terminal_tools`` and implement :meth:`call`; :meth:`load` reads the data
    (once: the registry keeps the world it builds)."""

    name: ClassVar[str] = ""
    version: ClassVar[str] = ""
    #: tools that end the conversation: executing them changes nothing
    terminal_tools: ClassVar[frozenset[str]] = frozenset()
    #: tables the world keeps only so that its tools answer as they always did (the next id to
    #: hand out, requests already resolved): bookkeeping, not an outcome, so a comparison of
    #: final states leaves them out (two traces that end alike but numbered a withdrawn request
    #: differently are in the same state)
    ledger_tables: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, data: WorldData) -> None:
        if data.name != self.name or data.version != self.version:
            raise WorldMismatchError(
                f"world {self.name!r} {self.version} was given data of {data.name!r} {data.version}"
            )
        self.data = data

    @property
    def ref(self) -> WorldRef:
        return self.data.ref

    def tool_names(self) -> frozenset[str]:
        raise NotImplementedError

    def new_state(self) -> WorldState:
        return WorldState(self.data)

    def case_state(self, metadata: Mapping[str, Any] | None = None) -> WorldState:
        """A fresh state as a case starts: the initial data, plus what the case's metadata says
        was done before the conversation (the genome world's ``setup_calls`` open tabs). A
        world that knows no such setup ignores the metadata."""
        return self.new_state()

    def call(self, state: WorldState, name: str, arguments: dict[str, Any]) -> CallResult:
        """Run one tool on ``state``. May raise for a bug; :meth:`execute` is the safe entry."""
        raise NotImplementedError

    def execute(self, state: WorldState, name: str, arguments: Any) -> CallResult:
        """Run one call; a failed call (or one that raised) changes nothing."""
        state.begin()
        try:
            result = self.call(state, name, arguments)
        except Exception as exc:  # noqa: BLE001 - a world never crashes a judging
            state.rollback()
            return self.failure(name, exc)
        if result.ok:
            state.commit()
        else:
            state.rollback()
        return result

    def failure(self, name: str, exc: Exception) -> CallResult:
        """What a call that raised gives back (a world may word it as its source does)."""
        return CallResult(False, f"Error: {type(exc).__name__}: {exc}")

    def check(self, ref: WorldRef) -> None:
        """Refuse a registry made against other data than this world's."""
        if ref.version != self.version or ref.data_hash != self.data.hash:
            raise WorldMismatchError(
                f"world {self.name!r}: the registry was made with data version {ref.version} "
                f"({ref.data_hash[:19]}), but the world loaded is version {self.version} "
                f"({self.data.hash[:19]}); re-import with this world, or install the rejudge "
                "that shipped that data"
            )
