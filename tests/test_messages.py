"""Library messages are in library terms: no CLI flag or command in the text of an error the
library raises (the CLI adds the flag from the error's ``field``; see tests/cli/test_error_flags.py).

The scan reads every string literal of the library's source (everything but the CLI, the pytest
plugin and the dashboard), docstrings aside, so a message built in a variable before its raise is
read too, not only the literals inside ``raise`` statements.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ("store", "judge", "suites", "recorder", "migrations", "rejudge")
# shells, like the CLI: their options are theirs to name
SHELLS = ("rejudge/cli/", "rejudge/pytest_plugin.py", "rejudge/_settings.py")
# a CLI flag (--name), a rejudge command in backquotes, or one of the CLI's environment variables
CLI_TERMS = re.compile(r"(?<![\w-])--[a-z]|`rejudge |\brejudge serve-local\b|\bREJUDGE_[A-Z]")
# another program's command line: pip's flags and a server's argv are not ours
OTHER_PROGRAMS = re.compile(r"\bpip install\b|^--[a-z][\w-]*$")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _cli_terms_in(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return [
        f"{_shown(path)}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and CLI_TERMS.search(node.value)
        and not OTHER_PROGRAMS.search(node.value)
    ]


def _raise_literals(path: Path) -> list[str]:
    """The literals of ``raise`` statements that name a CLI flag or command (a narrower scan
    than :func:`_cli_terms_in`, kept so the failure says which raise)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            for sub in ast.walk(node.exc):
                if (
                    isinstance(sub, ast.Constant)
                    and isinstance(sub.value, str)
                    and CLI_TERMS.search(sub.value)
                ):
                    out.append(f"{_shown(path)}:{sub.lineno}: {sub.value!r}")
    return out


def _library_files() -> list[Path]:
    files = []
    for top in LIBRARY:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith(SHELLS):
                files.append(path)
    return files


def test_the_scan_sees_the_library() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _library_files()}
    assert {"store/_store.py", "judge/_baseline.py", "rejudge/services/_judging.py"} <= names
    assert not any(n.startswith("rejudge/cli/") or n.startswith("dashboard/") for n in names)


def test_no_raise_in_the_library_names_a_cli_flag_or_command() -> None:
    found = [hit for path in _library_files() for hit in _raise_literals(path)]
    assert not found, "library errors naming CLI flags or commands:\n" + "\n".join(found)


def test_no_library_string_names_a_cli_flag_or_command() -> None:
    found = [hit for path in _library_files() for hit in _cli_terms_in(path)]
    assert not found, "library strings naming CLI flags or commands:\n" + "\n".join(found)


def test_the_scan_catches_what_it_is_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(x):\n"
        "    message = f'bad {x}; pass --tier T'\n"
        "    if x:\n"
        "        raise ValueError(message)\n"
        "    raise ValueError(f'{x}: see `rejudge runs`')\n"
        "PIP = 'pip install --no-deps bfcl-eval'\n"
        "ARGV = ['--port', '1']\n",
        encoding="utf-8",
    )
    assert [h.split(": ", 1)[1] for h in _raise_literals(sample)] == ["': see `rejudge runs`'"]
    assert len(_cli_terms_in(sample)) == 2  # the message variable and the raise; not pip, argv
