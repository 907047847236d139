"""Tables a person can read at any terminal width: identifiers whole, evidence printed literally.

Every table the CLI prints goes through :class:`FitTable`, which decides its layout when Rich
renders it, from the width it is given:

- an **identifier** column (a run name, case id, model, hash prefix, evaluation id, file) and a
  column of short values (counts, verdicts) never wraps: it gets ``no_wrap`` and a minimum width
  of its longest value, so no name is cut to ``smollm2-…`` or broken across lines;
- the other, **descriptive** columns wrap (``overflow="fold"``) in the room left, and are left
  out, last first, when even a narrow one does not fit; the caption says which;
- when the identifiers alone are wider than the terminal, each row is printed as its first
  value followed by one ``column: value`` line per field instead, so still nothing is cut.

Cells are :class:`rich.text.Text`, never markup: a model named ``m[x]`` or a case id holding
``[bold]`` prints as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

__all__ = ["IDENTIFIER_COLUMNS", "FitTable", "cell"]

#: column headings whose values are identifiers: printed whole or not at all
IDENTIFIER_COLUMNS = frozenset(
    {
        "run",
        "run a",
        "run b",
        "case",
        "model",
        "hash",
        "id",
        "evaluation",
        "eval",
        "suite",
        "rule set",
        "tool",
        "file",
        "code",
        "category",
        "dimension",
        "tier",
        "setting",
        "name",
    }
)
# a column whose every value is at most this long (counts, verdicts, short flags) is kept whole
_SHORT = 12
# the narrowest a descriptive column may wrap to before it is left out instead
_MIN_DESCRIPTIVE = 12
# a table's frame: one border, and per column two padding spaces and one separator
_FRAME = 1


def cell(value: Any) -> Text:
    """A table cell: the value's text as written (``None`` is empty), never Rich markup."""
    if isinstance(value, Text):
        return value
    return Text("" if value is None else str(value))


def _width(text: Text) -> int:
    return max((len(line) for line in text.plain.splitlines()), default=0)


@dataclass
class FitTable:
    """A titled table of ``rows`` under ``columns`` that lays itself out at render time."""

    title: str | None
    columns: list[str]
    rows: list[list[Text]] = field(default_factory=list)
    identifiers: frozenset[str] = IDENTIFIER_COLUMNS

    @classmethod
    def of(
        cls, title: str | None, columns: Iterable[str], rows: Iterable[Iterable[Any]]
    ) -> FitTable:
        return cls(title, list(columns), [[cell(v) for v in row] for row in rows])

    def _whole(self, index: int) -> bool:
        name = self.columns[index]
        if name.lower() in self.identifiers:
            return True
        return all(_width(row[index]) <= _SHORT for row in self.rows if index < len(row))

    def _needed(self, index: int) -> int:
        values = [_width(row[index]) for row in self.rows if index < len(row)]
        return max([len(self.columns[index]), *values])

    def layout(self, width: int) -> tuple[list[int], list[str]] | None:
        """The columns to show (by index) and the descriptive ones left out, or ``None`` when
        the whole columns alone do not fit ``width``."""
        shown = list(range(len(self.columns)))
        whole = [i for i in shown if self._whole(i)]
        descriptive = [i for i in shown if i not in whole]

        def total(indices: list[int]) -> int:
            inner = sum(
                self._needed(i) if i in whole else min(self._needed(i), _MIN_DESCRIPTIVE)
                for i in indices
            )
            return inner + 3 * len(indices) + _FRAME

        dropped: list[str] = []
        while total(shown) > width and descriptive:
            last = descriptive.pop()
            shown.remove(last)
            dropped.append(self.columns[last])
        if total(shown) > width:
            return None
        return shown, list(reversed(dropped))

    def _table(self, shown: list[int], dropped: list[str]) -> Table:
        caption = f"(left out at this width: {', '.join(dropped)})" if dropped else None
        # a title and headers are literal like the cells: they carry names from the data (a
        # model, a rule set's ref), which rich would otherwise read as markup
        title = Text(self.title, style="table.title") if self.title else None
        out = Table(title=title, caption=caption, show_lines=False)
        for i in shown:
            header = Text(self.columns[i], style="table.header")
            if self._whole(i):
                out.add_column(header, no_wrap=True, min_width=self._needed(i))
            else:
                out.add_column(header, overflow="fold", min_width=_MIN_DESCRIPTIVE)
        for row in self.rows:
            out.add_row(*[row[i] if i < len(row) else Text("") for i in shown])
        return out

    def _records(self) -> Iterable[Text]:
        # too narrow for any table: a row is its first value, then one indented line per field,
        # so only a value wider than the terminal itself could ever wrap
        if self.title:
            yield Text(self.title, style="italic")
        for row in self.rows:
            for i, value in enumerate(row):
                if i == 0:
                    yield Text(value.plain, style="bold")
                elif value.plain:
                    yield Text.assemble(("  " + self.columns[i] + ": ", "dim"), value)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        layout = self.layout(options.max_width)
        if layout is None:
            yield from self._records()
        else:
            yield self._table(*layout)
