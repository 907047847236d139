"""One way to declare a built-in (issue 40 item 3): its line in ``rejudge.registry.BUILTINS``.

Every built-in of every kind is registered, when its module is imported, by the module its line
names, and nothing else registers a built-in: a fresh process that imports every declared module
(as listing every kind does) records each registration with the module whose top level made it,
and the records equal the table, both ways. ``declare`` is the table's alone, so no package keeps
a second table of its own (as tiers and domains once did).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from rejudge.registry import BUILTINS
from tests.test_architecture import _called_name, _modules

_RECORD = r"""
import json, sys
from rejudge.registry import BUILTINS, REGISTRY, Registry

REGISTRY.load_plugins = lambda: None  # built-ins only: a plugin's names are its own
seen = set()


def module_level():
    # the module whose top level is running: the registration's author, whichever register_*
    # helper it called
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back
    return frame.f_globals["__name__"] if frame is not None else None


def recording(original):
    def record(self, kind, name, *args, **kwargs):
        seen.add((kind, name, module_level()))
        return original(self, kind, name, *args, **kwargs)

    return record


Registry.register = recording(Registry.register)
Registry.register_factory = recording(Registry.register_factory)
for module in sys.argv[1:]:
    __import__(module)
for kind in BUILTINS:
    REGISTRY.names(kind)
print(json.dumps(sorted(seen)))
"""

Line = tuple[str, str, str]  # kind, name, module


def _registrations(*extra_modules: str, path: Path | None = None) -> set[Line]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _RECORD, *extra_modules],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return {(kind, name, module) for kind, name, module in json.loads(done.stdout)}


def _declared() -> set[Line]:
    return {
        (kind, name, module) for kind, table in BUILTINS.items() for name, module in table.items()
    }


def _mismatch(seen: set[Line]) -> dict[str, list[Line]]:
    return {
        "registered at import, no BUILTINS line": sorted(seen - _declared()),
        "a BUILTINS line its module does not register": sorted(_declared() - seen),
    }


def test_every_builtin_is_registered_by_the_module_its_line_names_and_no_other() -> None:
    assert _mismatch(_registrations()) == {
        "registered at import, no BUILTINS line": [],
        "a BUILTINS line its module does not register": [],
    }


def test_the_check_catches_a_builtin_registered_without_its_line(tmp_path: Path) -> None:
    (tmp_path / "rejudge_stray_builtins.py").write_text(
        "from rejudge.registry import REGISTRY\n"
        "from rejudge.judge.tiers._calls import GOLDEN\n"
        "REGISTRY.register('tier', 'golden', GOLDEN, replace=True)\n"
        "REGISTRY.register_factory('world', 'stray', lambda: None)\n",
        encoding="utf-8",
    )
    mismatch = _mismatch(_registrations("rejudge_stray_builtins", path=tmp_path))
    assert mismatch["registered at import, no BUILTINS line"] == [
        ("tier", "golden", "rejudge_stray_builtins"),
        ("world", "stray", "rejudge_stray_builtins"),
    ]


def _declare_calls(path: Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _called_name(node) == "declare"
    ]


def test_only_the_registry_declares_a_builtin() -> None:
    declaring = {module for module, path in _modules() if _declare_calls(path)}
    assert declaring == {"rejudge.registry"}


def test_the_declare_check_catches_a_second_table(tmp_path: Path) -> None:
    module = tmp_path / "elsewhere.py"
    module.write_text(
        "from rejudge.registry import REGISTRY\n"
        "for name, module in {'x': 'y'}.items():\n"
        "    REGISTRY.declare('tier', name, module)\n",
        encoding="utf-8",
    )
    assert _declare_calls(module) == [3]
