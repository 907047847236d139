"""Plugins, for real: a package built here, pip-installed into a folder on PYTHONPATH, adds a
tier and a rule set through the ``rejudge.plugins`` entry-point group (found by
importlib.metadata, nothing patched); the real ``rejudge`` command then judges a stored run
with them. A plugin that fails to load is one ``Error:`` line naming it, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from rejudge.store import Store

from rejudge.model import RunConfig, Trace
from rejudge.services._ingest import Evidence, ingest, save_suite_source

PYPROJECT = """\
[build-system]
requires = []
build-backend = "wheel_backend"
backend-path = ["."]

[project]
name = "{name}"
version = "0.1"
"""

# The package's own PEP 517 backend (a wheel is a zip of the module and its dist-info), so pip
# builds it with --no-build-isolation from nothing but the standard library: no setuptools
# download, no `wheel` package, a second instead of twenty.
BACKEND = """
import base64, hashlib, zipfile

NAME, MODULE, ENTRY = {name!r}, {module!r}, {entry!r}
DIST = NAME.replace("-", "_") + "-0.1"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{{path}},sha256={{digest}},{{len(data)}}"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {{
        MODULE + ".py": open(MODULE + ".py", "rb").read(),
        DIST + ".dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: 0.1\\n".encode(),
        DIST + ".dist-info/WHEEL": b"Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        DIST + ".dist-info/entry_points.txt": f"[rejudge.plugins]\\n{{ENTRY}} = {{MODULE}}:register\\n".encode(),
    }}
    record = [_record_line(p, d) for p, d in files.items()] + [DIST + ".dist-info/RECORD,,"]
    files[DIST + ".dist-info/RECORD"] = ("\\n".join(record) + "\\n").encode()
    wheel = DIST + "-py3-none-any.whl"
    with zipfile.ZipFile(f"{{wheel_directory}}/{{wheel}}", "w") as zf:
        for path, data in files.items():
            zf.writestr(path, data)
    return wheel
"""

# a tier that passes a trace whose final text says "done", and a rule set of its own
PLUGIN = """
from dataclasses import dataclass

from rejudge.judge import OUTCOME_WRONG, TierResult, rule_set_from_dict


@dataclass(frozen=True)
class SaidDone:
    name: str = "said-done"
    description: str = "the final text says done"
    partial_family: str = "contract"

    def applies(self, case, registry):
        return True

    def evaluate(self, ctx):
        said = "done" in (ctx.trace.final_text or "")
        return TierResult(codes=[] if said else [OUTCOME_WRONG], partial={})


def register(registry):
    registry.register("tier", "said-done", SaidDone())
    registry.register(
        "rule_set",
        "plugin-rules@1",
        rule_set_from_dict({"name": "plugin-rules", "version": "1", "extends": "standard@2"}),
    )
"""


def _install(tmp_path: Path, name: str, module: str, entry: str, source: str) -> Path:
    """Build and pip-install the package into its own folder (the PYTHONPATH of the commands)."""
    project = tmp_path / f"src-{name}"
    project.mkdir()
    (project / "pyproject.toml").write_text(PYPROJECT.format(name=name), encoding="utf-8")
    backend = BACKEND.format(name=name, module=module, entry=entry)
    (project / "wheel_backend.py").write_text(backend, encoding="utf-8")
    (project / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    target = tmp_path / f"site-{name}"
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run(
        [*pip, "--no-index", "--target", str(target), str(project)],
        check=True,
        capture_output=True,
        text=True,
    )
    assert list(target.glob(f"{name.replace('-', '_')}-0.1.dist-info/entry_points.txt"))
    return target


def _runner(site: Path, db: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    rejudge = Path(sys.executable).with_name("rejudge")
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("REJUDGE_DEBUG", None)

    def run(*args: str, python: str | None = None) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-c", python] if python else [str(rejudge), "--db", db, *args]
        return subprocess.run(argv, capture_output=True, text=True, env=env)

    return run


@pytest.fixture
def stored_run(tmp_path: Path) -> str:
    """A SQLite store with run ``plugged`` of three retail cases: two said done, one not."""
    from rejudge import suites

    db = f"sqlite:///{tmp_path / 'store.db'}"
    suite = suites.load_suite("retail")
    texts = ["all done", "I could not", "done."]
    evidence = [
        Evidence(case.id, Trace(case_id=case.id, final_text=text), None, None)
        for case, text in zip(suite.cases, texts, strict=False)
    ]
    store = Store.open(db)
    try:
        config = RunConfig(model="m", provider="p", harness_mode="imported")
        with store.atomic():  # the one ingest path, in one transaction
            suite_rec = save_suite_source(store, suite)
            run = store.runs.create_run(name="plugged", suite=suite_rec, config=config)
            ingest(store, run, evidence)
    finally:
        store.close()
    return db


@pytest.mark.slow
def test_an_installed_plugin_adds_a_tier_and_a_rule_set(tmp_path: Path, stored_run: str) -> None:
    site = _install(tmp_path, "rejudge-said-done", "rejudge_said_done", "said_done", PLUGIN)
    run = _runner(site, stored_run)

    judged = run("--json", "judge", "plugged", "--tier", "said-done", "--rules", "plugin-rules@1")
    assert judged.returncode == 0, judged.stderr + judged.stdout
    data = json.loads(judged.stdout)
    assert (data["tier"], data["rules"]) == ("said-done", "plugin-rules@1")
    counts = data["summary"]["verdict_counts"]
    assert (counts["PASS"], counts["FAIL"]) == (2, 1)
    assert data["summary"]["taxonomy_counts"] == {"OUTCOME_WRONG": 1}

    # listed with the built-ins, and named as the plugin that added it
    listed = run(
        python="from rejudge.judge.tiers import tier_names; from rejudge.registry import REGISTRY;"
        "print(tier_names()); print(REGISTRY.plugins)"
    )
    names, plugins = listed.stdout.splitlines()
    assert "said-done" in names and "golden" in names and plugins == "['said_done']"
    rules = run("--json", "rules", "list")
    assert "plugin-rules@1" in [r["ref"] for r in json.loads(rules.stdout)]

    # without the plugin on the path the tier is unknown: the test can fail
    bare = _runner(tmp_path / "nothing", stored_run)("judge", "plugged", "--tier", "said-done")
    assert bare.returncode == 1 and "unknown tier 'said-done'" in bare.stdout + bare.stderr


BROKEN = """
import a_module_nobody_has


def register(registry):
    pass
"""


@pytest.mark.slow
def test_a_broken_plugin_is_one_error_line(tmp_path: Path, stored_run: str) -> None:
    site = _install(tmp_path, "rejudge-broken", "rejudge_broken", "broken", BROKEN)
    result = _runner(site, stored_run)("judge", "plugged", "--tier", "no-such-tier")
    assert result.returncode == 1
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: plugin 'broken' (rejudge_broken:register) failed to load: ")
    assert "ModuleNotFoundError" in lines[0] and "Traceback" not in lines[0]
