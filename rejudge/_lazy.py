"""Lazy re-exports for the package faces ``rejudge``, ``rejudge.judge``, ``rejudge.store``, ...
(PEP 562): ``from rejudge.judge import judge`` imports ``rejudge.judge._engine`` on first use, so
importing a package stays cheap (worker processes, the CLI).

A face declares its names once, in its ``if TYPE_CHECKING:`` block (``from M import name as
name``, or ``from M import *`` for a module whose ``__all__`` is cheap to read): a type checker
reads that block for the real types, and this module reads the same block the
first time a name is looked up, for where each name lives. The block never runs, so importing a
face imports nothing; the reading happens once per face.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["declared_names", "face_exports", "lazy_exports"]


@functools.cache
def face_exports(package: str) -> dict[str, str]:
    """The names ``package``'s ``if TYPE_CHECKING:`` block declares: public name -> the module
    defining it (for ``from M import *``, every name of ``M.__all__``), in the block's order."""
    path = sys.modules[package].__file__
    if path is None:
        raise ImportError(f"{package}: no source to read its TYPE_CHECKING block from")
    with open(path, encoding="utf-8") as file:
        return declared_names(file.read(), package)


def declared_names(source: str, package: str) -> dict[str, str]:
    """:func:`face_exports` of one face's source. Read line by line, not with ``ast``: importing
    ``ast`` costs more than ten times the read (13 ms against 0.3 ms for the largest face);
    .ci/faces.py --check holds this reading equal to ``ast``'s for every face."""
    table: dict[str, str] = {}
    lines = iter(source.splitlines())
    for line in lines:
        if line == "if TYPE_CHECKING:":
            break
    statement = ""
    for line in lines:
        if line and not line[0].isspace():
            break  # the block ends at the first line back at the left margin
        statement += line.split("#", 1)[0].strip() + " "
        if statement.count("(") > statement.count(")"):
            continue  # a parenthesized import goes on
        words = statement.replace("(", " ").replace(")", " ").replace(",", " , ").split()
        statement = ""
        if not words:
            continue
        if len(words) < 4 or words[0] != "from" or words[2] != "import":
            raise ImportError(f"{package}: its TYPE_CHECKING block has more than `from` imports")
        module, names = words[1], " ".join(words[3:]).split(",")
        for alias in filter(None, (name.split() for name in names)):
            if alias == ["*"]:
                table.update(dict.fromkeys(importlib.import_module(module).__all__, module))
            else:
                table[alias[-1]] = module
    return table


def lazy_exports(package: str, *eager: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, which re-exports the names of its
    ``TYPE_CHECKING`` block (:func:`face_exports`); a resolved name is kept in the package's
    namespace. Its ``__all__`` is ``eager`` (names the face defines itself) and those names,
    made on first use unless the face writes its own."""

    def __getattr__(name: str) -> Any:
        exports = face_exports(package)
        if name == "__all__":
            value: Any = [*eager, *sorted(exports)]
        elif name in exports:
            value = getattr(importlib.import_module(exports[name]), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *face_exports(package)})

    return __getattr__, __dir__
