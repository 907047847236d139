"""The lazy faces and the names each declares: ``python .ci/faces.py [--check]``.

A face (a package ``__init__`` that ends ``__getattr__, __dir__ = lazy_exports(__name__...)``)
declares its names once, in its ``if TYPE_CHECKING:`` block: a type checker reads the real
types there, and ``rejudge._lazy`` reads where each name lives from the same block on first use.
This prints each face and how many names it declares; ``--check`` fails (exit 1, naming the
face and the line) when a block imports a name without re-exporting it (``from M import name``
instead of ``from M import name as name``: under ``mypy --strict`` another module could not
import it from the face), declares nothing, or when ``rejudge._lazy``'s line reading of the
block differs from what ``ast`` reads in it (a type checker reads it as Python does).
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from typecheck import installed_modules  # noqa: E402

MARKER = "__getattr__, __dir__ = lazy_exports(__name__"


def faces() -> dict[str, Path]:
    """Every lazy face of the installed package: dotted name -> file."""
    return {
        name: Path(path)
        for name, path in installed_modules().items()
        if MARKER in Path(path).read_text(encoding="utf-8")
    }


def exports(face: str) -> dict[str, str]:
    """The face's names as ``rejudge._lazy`` reads them: name -> defining module."""
    from rejudge._lazy import face_exports

    __import__(face)
    return dict(face_exports(face))


def _parsed(blocks: list[ast.If]) -> dict[str, str]:
    """What ``ast`` reads in the blocks: name -> module (a star, every name of ``__all__``)."""
    found: dict[str, str] = {}
    for node in (node for block in blocks for node in block.body):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.name == "*":
                    names = importlib.import_module(node.module).__all__
                    found.update(dict.fromkeys(names, node.module))
                else:
                    found[alias.asname or alias.name] = node.module
    return found


def _problems(face: str, path: Path) -> list[str]:
    from rejudge._lazy import declared_names

    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    ]
    if not blocks:
        return [f"{path}: no `if TYPE_CHECKING:` block declares the face's names"]
    if declared_names(source, face) != _parsed(blocks):
        return [f"{path}: rejudge._lazy reads its TYPE_CHECKING block otherwise than ast"]
    return [
        f"{path}:{node.lineno}: `from {node.module} import {alias.name}` does not re-export "
        f"it (write `{alias.name} as {alias.name}`)"
        for block in blocks
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name != "*" and alias.asname != alias.name
    ]


def main(argv: list[str]) -> int:
    found = faces()
    if "--check" in argv:
        problems = [problem for face, path in found.items() for problem in _problems(face, path)]
        print("\n".join(problems) or f"{len(found)} faces, each name declared once")
        return 1 if problems else 0
    for face in sorted(found):
        print(f"{face}: {len(exports(face))} names")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
