"""One "unknown NAME" error for every kind (issue 40 item 3).

An unknown name of any kind, looked up through the registry or through the kind's own wrapper
(``get_tier``, ``get_wire_format``, ``load_rule_set``, ...), raises the kind's
:class:`~rejudge.errors.NotFoundError` subclass with ``unknown KIND 'NAME' (known: a, b, c)``, the
known names being every declared built-in. Each kind is looked up in a fresh process, first
through the registry (nothing of the kind's package imported yet: the error must not depend on
what a process happened to import, the way an unknown domain once said "known: none"), then
through its wrapper.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rejudge.registry import BUILTINS, KINDS

UNKNOWN = "no-such-name"

# kind -> (the wrapper callers use, imported from its public face; the error class it raises)
WRAPPERS: dict[str, tuple[str, str, str]] = {
    "tier": ("rejudge.judge.tiers", "get_tier", "TierNotFoundError"),
    "wire_format": ("rejudge.recorder.wire", "get_wire_format", "UnknownWireFormatError"),
    "world": ("rejudge.registry", "REGISTRY.get", "NotFoundError"),
    "domain": ("rejudge.suites", "get_domain", "NotFoundError"),
    "rule_set": ("rejudge.judge", "load_rule_set", "NotFoundError"),
    "rubric": ("rejudge.judge", "load_rubric", "NotFoundError"),
    "provider": ("rejudge.recorder.providers", "get_provider", "UnknownProviderError"),
    "importer": ("rejudge.importers", "get_importer", "NotFoundError"),
}

# the CLI names the option an error came from by its field: a rule set is given by --rules
FIELDS = {"rule_set": "rules"}

_LOOKUP = r"""
import importlib, json, sys
from rejudge.errors import NotFoundError
from rejudge.registry import REGISTRY

kind, module, function, name = sys.argv[1:]


def outcome(call):
    try:
        call()
    except NotFoundError as exc:
        return {"class": type(exc).__name__, "message": str(exc), "field": exc.field}
    return {"class": None}


direct = outcome(lambda: REGISTRY.get(kind, name))
found = REGISTRY.find(kind, name)
target = importlib.import_module(module)
for part in function.split("."):
    target = getattr(target, part)
wrapped = outcome(lambda: target(kind, name) if function == "REGISTRY.get" else target(name))
print(json.dumps({"direct": direct, "wrapped": wrapped, "found": found, "plugins": REGISTRY.plugins}))
"""


def test_every_kind_has_a_wrapper_here() -> None:
    assert sorted(WRAPPERS) == sorted(KINDS) == sorted(BUILTINS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_unknown_name_is_the_registrys_one_error(kind: str) -> None:
    module, function, error = WRAPPERS[kind]
    done = subprocess.run(
        [sys.executable, "-c", _LOOKUP, kind, module, function, UNKNOWN],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["plugins"] == [], "a rejudge.plugins entry point is installed in this environment"
    known = sorted(BUILTINS[kind])
    assert known, f"no built-in {KINDS[kind]} is declared"
    expected = {
        "class": error,
        "message": f"unknown {KINDS[kind]} {UNKNOWN!r} (known: {', '.join(known)})",
        "field": FIELDS.get(kind, kind),
    }
    assert seen["direct"] == expected
    assert seen["wrapped"] == expected
    assert seen["found"] is None
