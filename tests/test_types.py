"""Types that hold: through the lazy facades a type checker sees the real types of the public
entry points (each facade's ``if TYPE_CHECKING:`` imports). These run the real mypy through
``.ci/typecheck.py``, as ``.ci/run`` does when it checks the whole package with ``--strict``
(``-p rejudge``; that check lives in .ci/run, not here: it takes a minute and a half)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TYPECHECK = ROOT / ".ci" / "typecheck.py"

# Each assert_type fails mypy when the facade hands the checker Any (or a wrong type).
SNIPPET = """
from typing import Any, assert_type

import rejudge
import rejudge.judge
import rejudge.model
import rejudge.services
import rejudge.store
from rejudge.model._agreement import Agreement, AgreementTable, TierAgreement
from rejudge.model._results import (
    BaselineCheck,
    BaselineLock,
    Comparison,
    EvaluationReport,
    JudgeRunResult,
)
from rejudge.model._world import World
from rejudge.importers._contract import Importer
from rejudge.judge.tiers._base import Tier
from rejudge.recorder.providers._base import Provider
from rejudge.registry import REGISTRY, Registry
from rejudge.services._demo_result import (
    DemoEvaluation,
    DemoHeadline,
    DemoResult,
    DemoRun,
    DemoSkipped,
    DemoSuite,
    DemoTierComparison,
    ModelVsModel,
    PassRate,
    Tau2PairedRewards,
    Tau2Run,
)
from rejudge.importers._cassettes import ImportResult
from rejudge.store._store import Store
from rejudge.model._schemas import Case, Judgment, RuleSet, Trace


def check(
    store: rejudge.Store,
    trace: rejudge.Trace,
    case: rejudge.Case,
    registry: rejudge.ToolRegistry,
) -> None:
    assert_type(store, Store)
    assert_type(trace, Trace)
    assert_type(case, Case)
    rules = rejudge.load_rule_set("standard@2")
    assert_type(rules, RuleSet)
    judgment = rejudge.judge.judge(trace, case, registry, "golden", rules)
    assert_type(judgment, Judgment)
    assert_type(rejudge.judge_run(store, "run", "golden", rules), JudgeRunResult)
    assert_type(rejudge.model.World, type[World])
    # the registry is typed; what a kind holds is the plugin's own (a tier, a wire format...)
    assert_type(REGISTRY, Registry)
    assert_type(REGISTRY.names("tier"), list[str])
    assert_type(REGISTRY.get("tier", "golden"), Tier)
    assert_type(REGISTRY.get("world", "retail"), World)
    assert_type(REGISTRY.find("provider", "openai"), Provider | None)
    assert_type(REGISTRY.get("importer", "otel"), Importer[Any])


def check_root_and_services(store: rejudge.Store, rules: rejudge.RuleSet) -> None:
    # each entry point through both facades: the root (rejudge) and rejudge.services
    for judge_run in (rejudge.judge_run, rejudge.services.judge_run):
        assert_type(judge_run(store, "run", "golden", rules), JudgeRunResult)
    for report in (rejudge.evaluation_report, rejudge.services.evaluation_report):
        assert_type(report(store, 1), EvaluationReport)
    for compare in (rejudge.compare_evaluations, rejudge.services.compare_evaluations):
        assert_type(compare(store, 1, 2), Comparison)
    for import_cassettes in (rejudge.import_cassettes, rejudge.services.import_cassettes):
        assert_type(import_cassettes("cassettes/run", store), ImportResult)
    for lock in (rejudge.lock_evaluation_baseline, rejudge.services.lock_evaluation_baseline):
        assert_type(lock(store, 1, name="main"), BaselineLock)
    for check in (rejudge.check_evaluation_baseline, rejudge.services.check_evaluation_baseline):
        assert_type(check(store, 1, "main"), BaselineCheck)
    for run_demo in (rejudge.run_demo, rejudge.services.run_demo):
        assert_type(run_demo(store), DemoResult)
    assert_type(rejudge.services.open_store("sqlite://"), Store)


def check_agreement(store: rejudge.Store) -> None:
    # the agreement is the model's type, computed by the judge, returned by the services
    for agreement in (
        rejudge.services.evaluation_agreement(store, 1),
        rejudge.services.run_agreement(store, "run"),
    ):
        assert_type(agreement, Agreement)
        assert_type(agreement.tier("golden"), TierAgreement | None)
        assert_type(agreement.tiers[0].table, AgreementTable)
    assert_type(rejudge.judge.tier_agreement([], {}, tier="golden"), TierAgreement)
    assert_type(rejudge.model.cohens_kappa(1, 0, 0, 1), float | None)
    assert_type(rejudge.model.Agreement, type[Agreement])


def check_demo_result(store: rejudge.Store) -> None:
    # the demo's result is typed to its leaves, through the services' facade
    result = rejudge.services.run_demo(store)
    assert_type(result.suites, list[DemoSuite])
    assert_type(result.runs, list[DemoRun])
    assert_type(result.skipped, list[DemoSkipped])
    assert_type(result.evaluations, list[DemoEvaluation])
    assert_type(result.reports, list[EvaluationReport])
    assert_type(result.comparisons[0].comparison, Comparison)
    assert_type(result.tier_comparisons, list[DemoTierComparison])
    assert_type(result.headlines, list[DemoHeadline])
    assert_type(result.agreement, Agreement | None)
    assert_type(result.model_vs_model, ModelVsModel | None)
    mvm = rejudge.services.tau2_model_vs_model(store, print)
    assert_type(mvm.runs, list[Tau2Run])
    assert_type(mvm.runs[0].tau2_reward, PassRate)
    assert_type(mvm.runs[0].tau2_reward.ci95, tuple[float, float] | None)
    assert_type(mvm.pair.compare, Comparison)
    assert_type(mvm.pair.tau2_reward, Tau2PairedRewards)
    assert_type(rejudge.services.DemoHeadline, type[DemoHeadline])
"""


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TYPECHECK), *args], capture_output=True, text=True, cwd=ROOT
    )


@pytest.mark.slow
def test_the_public_entry_points_have_real_types(tmp_path: Path) -> None:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    proc = _mypy("--strict", str(snippet))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _faces_tool() -> Any:
    spec = importlib.util.spec_from_file_location("faces", ROOT / ".ci" / "faces.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _revealed(names: list[str], tmp_path: Path, *files: Path) -> dict[str, str]:
    """``face.name`` -> the type mypy reveals for it (one mypy run over all of them)."""
    faces = sorted({name.rsplit(".", 1)[0] for name in names})
    snippet = tmp_path / "reveal_public_names.py"
    lines = [f"import {face}" for face in faces] + [f"reveal_type({n})" for n in names]
    snippet.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = _mypy(str(snippet), *map(str, files))
    pattern = re.compile(r'reveal_public_names\.py:(\d+): note: Revealed type is "(.*)"$')
    by_line = {int(m[1]): m[2] for m in map(pattern.search, proc.stdout.splitlines()) if m}
    return {name: by_line.get(i, "(not revealed)") for i, name in enumerate(names, len(faces) + 1)}


def test_each_face_declares_its_names_once_for_the_type_checker() -> None:
    # each face declares its names once, in its TYPE_CHECKING block, each re-exported
    # (`name as name`), so mypy --strict lets other modules import it from the face
    proc = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "faces.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_no_public_name_resolves_to_any(tmp_path: Path) -> None:
    # every name of every lazy face, as a type checker sees it through the face
    tool = _faces_tool()
    names = [f"{face}.{name}" for face in tool.faces() for name in tool.exports(face)]
    assert len(names) > 900  # all ten faces (1003 names when this was written)
    revealed = _revealed(names, tmp_path)
    hidden = sorted(name for name, seen in revealed.items() if seen in ("Any", "(not revealed)"))
    assert hidden == [], f"{len(hidden)} of {len(names)} public names are Any: {hidden[:20]}"


@pytest.mark.slow
def test_a_facade_that_hides_its_types_fails_the_check(tmp_path: Path) -> None:
    # the check can fail: a face whose names only its runtime __getattr__ knows (as each face's
    # own table did before the TYPE_CHECKING block became its one declaration) is Any to it
    face = tmp_path / "hidden_face"
    face.mkdir()
    (face / "__init__.py").write_text(
        "import importlib\n"
        "def __getattr__(name):\n"
        '    return getattr(importlib.import_module("rejudge.model._statistics"), name)\n',
        encoding="utf-8",
    )
    revealed = _revealed(
        ["hidden_face.wilson_interval", "rejudge.model.wilson_interval"],
        tmp_path,
        face / "__init__.py",
    )
    assert revealed["hidden_face.wilson_interval"] == "Any", revealed
    assert "float" in revealed["rejudge.model.wilson_interval"], revealed


@pytest.mark.slow
def test_the_typed_core_passes_mypy_strict() -> None:
    proc = _mypy(
        "--strict", "-p", "rejudge.model", "-m", "rejudge.registry", "-p", "rejudge.services"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
