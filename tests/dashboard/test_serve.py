"""The launcher's preload: what the pages import, read from their import statements, is
imported before the server answers; the modules bound to Streamlit's runtime are not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rejudge.dashboard.serve import page_imports


def test_page_imports_reads_the_pages_and_skips_the_dashboards_own_modules() -> None:
    found = list(page_imports())
    modules = {module for module, _names in found}
    assert "pandas" in modules and "streamlit" in modules
    assert not any(m == "rejudge.dashboard" or m.startswith("rejudge.dashboard.") for m in modules)
    assert "__future__" not in modules
    # a function's own import counts (data.evaluation_report imports the service when called)
    assert ("rejudge.services", ("evaluation_report",)) in found


def test_page_imports_of_a_folder(tmp_path: Path) -> None:
    (tmp_path / "views").mkdir()
    (tmp_path / "app.py").write_text(
        "from __future__ import annotations\nimport json\nfrom rejudge.dashboard import data\n"
    )
    (tmp_path / "views" / "page.py").write_text(
        "def f():\n    from rejudge.model import Flip, FLIP_CAUSES\n"
    )
    (tmp_path / "serve.py").write_text("import this_launcher_is_not_a_page\n")
    assert sorted(page_imports(tmp_path)) == [
        ("json", ()),
        ("rejudge.model", ("Flip", "FLIP_CAUSES")),
    ]


def _probe(code: str) -> tuple[dict[str, Any], str]:
    """Run ``code`` in a fresh interpreter: the JSON its last line printed, and its stderr."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_preload_imports_what_the_pages_use_and_not_the_runtime_bound_modules() -> None:
    probe = (
        "import json, sys\n"
        "from rejudge.dashboard.serve import preload\n"
        "failed = preload()\n"
        "print(json.dumps({'failed': failed, 'loaded': sorted(m for m in ["
        "'pandas', 'sqlalchemy', 'rejudge.services._judging', 'rejudge.dashboard.data', "
        "'distributed'] if m in sys.modules), "
        "'digest': sys.modules['rejudge.dashboard.kept'].code_version.cache_info().currsize}))\n"
    )
    result, stderr = _probe(probe)
    assert result["failed"] == []
    # the judge's report service comes in through a lazy facade's name; the runtime-bound
    # data module does not, and neither does what no page imports (Dask)
    assert result["loaded"] == ["pandas", "rejudge.services._judging", "sqlalchemy"]
    # the code digest that keys kept results is computed before the server answers, not by the
    # first page's first read
    assert result["digest"] == 1
    assert "No runtime found" not in stderr


def test_the_launcher_freezes_what_it_preloaded_before_the_server_starts() -> None:
    """What the preload made lives as long as the server: it is moved out of the cyclic
    collector's sight (gc.freeze) before Streamlit's command line runs, so a page's full
    collections do not walk it again (dashboard/serve.py)."""
    probe = (
        "import gc, json, sys\n"
        "import streamlit.web.cli as cli\n"
        "cli.main = lambda: print(json.dumps({'frozen': gc.get_freeze_count(), "
        "'argv': sys.argv}))\n"
        "from rejudge.dashboard import serve\n"
        "sys.argv = ['serve', 'run', 'app.py']\n"
        "serve.main()\n"
    )
    result, _stderr = _probe(probe)
    assert result["argv"] == ["streamlit", "run", "app.py"]
    # Streamlit's, pandas' and SQLAlchemy's modules and classes: well over 50,000 objects
    assert result["frozen"] > 50_000
