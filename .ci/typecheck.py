"""Run mypy on rejudge as it is installed: ``python .ci/typecheck.py [mypy args...]``.

The build maps the top-level folders into the namespace (``store/`` is ``rejudge.store``,
pyproject's ``[tool.setuptools.package-dir]``), and an editable install does that with an
import hook, which mypy cannot follow (it would see ``rejudge.store`` as missing, so every
store type as ``Any``). So this builds the namespace as a tree of symlinks in a temporary
folder, runs mypy there with the project's configuration, and prints mypy's report with the
repository's own paths. The exit status is mypy's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_view(target: Path) -> dict[str, str]:
    """Lay the ``rejudge`` namespace out under ``target``; returns view path -> repo path
    prefixes (to translate mypy's report back)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_dir: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    mapped = {name.split(".", 1)[1]: folder for name, folder in package_dir.items() if "." in name}
    package = target / "rejudge"
    shutil.rmtree(package, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (ROOT / package_dir["rejudge"]).iterdir():
        if entry.name not in mapped and entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    prefixes = {"rejudge/": f"{package_dir['rejudge']}/"}
    for sub, folder in mapped.items():
        (package / sub).symlink_to(ROOT / folder)
        prefixes[f"rejudge/{sub}/"] = f"{folder}/"
    return prefixes


def main(argv: list[str]) -> int:
    cache = ROOT / ".mypy_cache"
    view = cache / "view"
    prefixes = build_view(view)
    # Files named on the command line are read where they are; modules come from the view.
    args = [str(Path(a).resolve()) if Path(a).suffix == ".py" else a for a in argv]
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache)]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", *config, *args],
        cwd=view,
        env={**os.environ, "MYPYPATH": str(view)},
        capture_output=True,
        text=True,
    )
    # longest prefix first, so rejudge/store/ wins over rejudge/
    ordered = sorted(prefixes.items(), key=lambda p: -len(p[0]))
    for line in proc.stdout.splitlines():
        for view, repo in ordered:
            if line.startswith(view):
                line = repo + line[len(view) :]
                break
        print(line)
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
