"""The first run of a dashboard page in-process, on one store, as a fresh server meets it.

Renders each page with Streamlit's AppTest as the browser bench opens it (no query parameters:
the page's defaults), after clearing ``st.cache_data`` and ``st.cache_resource``: *cold* with
an empty folder for kept results (:mod:`rejudge.dashboard.kept`: nothing computed before),
*kept* with the folder the cold run filled (a second server start on the unchanged store).
Prints wall and process CPU seconds per page (medians); ``--profile PAGE`` prints the cold
run's cProfile instead (top functions by cumulative time).

    python bench/dashboard_cold.py sqlite:////tmp/big39/synthetic-100000.db
        [--pages compare,side_by_side,review] [--repeat 3] [--profile review]

Run it with each checkout's interpreter in turn (the app is the interpreter's checkout's).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _app() -> Path:
    """The app of the interpreter's own checkout (so one script measures a before and an
    after checkout, each with its venv)."""
    import rejudge.dashboard

    return Path(str(rejudge.dashboard.__file__)).parent / "app.py"


def _profile_script_thread(profiler: cProfile.Profile) -> None:
    """Profile the page's script, which Streamlit runs in a thread of its own."""
    from streamlit.runtime.scriptrunner import script_runner

    run_script = script_runner.ScriptRunner._run_script

    def profiled(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        profiler.enable()
        try:
            return run_script(self, *args, **kwargs)
        finally:
            profiler.disable()
            script_runner.ScriptRunner._run_script = run_script  # type: ignore[method-assign]

    script_runner.ScriptRunner._run_script = profiled  # type: ignore[method-assign]


def _run(url: str, page: str, profile: bool = False) -> tuple[float, float]:
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(_app()), default_timeout=300)
    at.session_state["db_url"] = url
    at.run()  # the navigation shell (overview), so the switch below is a page change
    at.switch_page(f"views/{page}.py")
    st.cache_data.clear()
    st.cache_resource.clear()
    profiler = cProfile.Profile() if profile else None
    if profiler is not None:
        _profile_script_thread(profiler)
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    took = time.perf_counter() - wall, time.process_time() - cpu
    if at.exception:
        raise RuntimeError(f"{page}: {[e.value for e in at.exception]}")
    if profiler is not None:
        order = os.environ.get("PROFILE_SORT", "cumulative")
        pstats.Stats(profiler).sort_stats(order).print_stats(45)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--pages", default="compare,side_by_side,review")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile")
    args = parser.parse_args()
    if args.profile:
        os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="rejudge-cold-")
        tempfile.tempdir = None
        _run(args.url, args.profile, profile=True)
        return
    print("| page | cold wall (s) | cold CPU (s) | kept wall (s) | kept CPU (s) |")
    print("|---|---:|---:|---:|---:|")
    for page in args.pages.split(","):
        cold, kept = [], []
        for _ in range(args.repeat):
            # a fresh, empty folder for kept results (tempfile reads TMPDIR again)
            os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="rejudge-cold-")
            tempfile.tempdir = None
            cold.append(_run(args.url, page))
            kept.append(_run(args.url, page))

        def med(values: list[tuple[float, float]], i: int) -> str:
            return f"{statistics.median(v[i] for v in values):.2f}"

        print(
            f"| {page} | {med(cold, 0)} | {med(cold, 1)} | {med(kept, 0)} | {med(kept, 1)} |",
            flush=True,
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
