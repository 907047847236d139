"""Dashboard page render times at 1,000 and 100,000 judgments, as a ratio between the two.

Builds two SQLite stores through the Store API (tests/dashboard/factory.py: one suite, run-a
judged under two rule sets, run-b under one; 10 repetitions per case), then renders every page
with Streamlit's AppTest: *cold* (st.cache_data and st.cache_resource cleared first, so every SQL
aggregate runs and the review page reads its rows) and *warm* (straight after, from the cache).
Then the review page's two clicks, server side: a label (written to the store, so the queue is
rebuilt) and Next. Prints Markdown tables; the ratio column is 100k / 1k. Stores are kept under
--workdir and reused when present.

    python bench/dashboard_pages.py [--workdir /tmp/rejudge-dashboard-bench] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.dashboard.factory import build_store  # noqa: E402

APP = ROOT / "dashboard" / "app.py"
PAGES = [
    "overview",
    "compare",
    "rule_impact",
    "trace_viewer",
    "side_by_side",
    "pass_k",
    "review",
    "live",
    "trends",
]
SIZES = {"1k": 34, "100k": 3334}  # cases; x 10 repetitions x 3 evaluations = judgments
REPEAT = 10


def _store(workdir: Path, label: str, cases: int) -> dict[str, Any]:
    db = workdir / f"dashboard-{label}.db"
    meta = workdir / f"dashboard-{label}.json"
    if db.exists() and meta.exists():
        return json.loads(meta.read_text())
    db.unlink(missing_ok=True)
    started = time.perf_counter()
    built = build_store(f"sqlite:///{db}", cases=cases, repeat=REPEAT, seed=11)
    info = {
        "url": built.url,
        "runs": built.runs,
        "evaluations": built.evaluations,
        "judgments": built.judgments,
        "traces": built.traces,
        "build_s": round(time.perf_counter() - started, 1),
    }
    meta.write_text(json.dumps(info))
    return info


def _first_flip(info: dict[str, Any]) -> tuple[str, int]:
    from rejudge.store import Store

    from rejudge.services import compare_evaluations

    store = Store.open(info["url"], migrate=False)
    try:
        ev = info["evaluations"]
        flip = compare_evaluations(store, ev["a1"], ev["a2"]).flips[0]
    finally:
        store.close()
    return flip.case, flip.repetition


def _query(info: dict[str, Any], page: str) -> dict[str, str]:
    ev, runs = info["evaluations"], info["runs"]
    if page == "side_by_side":
        case, rep = _first_flip(info)
        return {"a": str(ev["a1"]), "b": str(ev["a2"]), "case": case, "rep": str(rep)}
    return {
        "review": {"ev": str(ev["a1"]), "reviewer": "bench"},
        "compare": {"a": str(ev["a1"]), "b": str(ev["a2"])},
        "rule_impact": {"run": str(runs["run-a"]), "ra": str(ev["a1"]), "rb": str(ev["a2"])},
        "trace_viewer": {"run": str(runs["run-a"])},
        "pass_k": {"ev": str(ev["a1"])},
        "live": {"run": str(runs["run-a"])},
    }.get(page, {})


def _timed(at: AppTest) -> tuple[float, float]:
    """Run ``at`` once: (wall seconds, process CPU seconds). The app runs in this process (its
    script thread, SQLite included), so CPU time is its own work, which a loaded machine
    stretches far less than the wall clock."""
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    return time.perf_counter() - wall, time.process_time() - cpu


def _review_clicks(info: dict[str, Any]) -> tuple[float, float, float, float]:
    """Server-side time of one label click and one Next on the review page (warm: the page was
    rendered once; the label is written to the store, so the bench store gains a review)."""
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["db_url"] = info["url"]
    for key, value in _query(info, "review").items():
        at.query_params[key] = value
    at.run()
    at.switch_page("views/review.py")
    st.cache_data.clear()
    st.cache_resource.clear()
    at.run()
    if at.exception:
        raise RuntimeError(f"review: {[e.value for e in at.exception]}")
    at.button(key="rv_unclear").click()
    label, label_cpu = _timed(at)
    at.button(key="rv_next").click()
    step, step_cpu = _timed(at)
    if at.exception:
        raise RuntimeError(f"review clicks: {[e.value for e in at.exception]}")
    return label, step, label_cpu, step_cpu


def _render(info: dict[str, Any], page: str) -> tuple[float, float, float]:
    at = AppTest.from_file(str(APP), default_timeout=300)
    at.session_state["db_url"] = info["url"]
    for key, value in _query(info, page).items():
        at.query_params[key] = value
    at.run()  # the navigation shell (overview), so the switch below is a page change
    at.switch_page(f"views/{page}.py")
    # cold: neither cached data nor the review page's cached rows (a resource) are left
    st.cache_data.clear()
    st.cache_resource.clear()
    cold, cold_cpu = _timed(at)
    if at.exception:
        raise RuntimeError(f"{page}: {[e.value for e in at.exception]}")
    warm, _cpu = _timed(at)
    return cold, warm, cold_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default="/tmp/rejudge-dashboard-bench")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    stores = {label: _store(workdir, label, cases) for label, cases in SIZES.items()}
    for label, info in stores.items():
        print(
            f"store {label}: {info['judgments']} judgments, {info['traces']} traces "
            f"(built in {info['build_s']} s)",
            file=sys.stderr,
        )
    results: dict[str, dict[str, tuple[float, float, float]]] = {}
    for page in PAGES:
        results[page] = {}
        for label, info in stores.items():
            runs = [_render(info, page) for _ in range(args.repeat)]
            results[page][label] = (
                statistics.median(r[0] for r in runs),
                statistics.median(r[1] for r in runs),
                statistics.median(r[2] for r in runs),
            )
    print(
        "| page | cold 1k (s) | cold 100k (s) | ratio 100k/1k | warm 1k (s) | warm 100k (s) "
        "| cold CPU 1k (s) | cold CPU 100k (s) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for page, by in results.items():
        c1, w1, p1 = by["1k"]
        c2, w2, p2 = by["100k"]
        print(
            f"| {page} | {c1:.3f} | {c2:.3f} | {c2 / c1:.1f}x | {w1:.3f} | {w2:.3f} "
            f"| {p1:.3f} | {p2:.3f} |"
        )
    clicks = {
        label: [_review_clicks(info) for _ in range(args.repeat)] for label, info in stores.items()
    }
    print()
    print("| review action | 1k (s) | 100k (s) | ratio 100k/1k | CPU 1k (s) | CPU 100k (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    for i, action in enumerate(("label click", "Next")):
        one = statistics.median(c[i] for c in clicks["1k"])
        big = statistics.median(c[i] for c in clicks["100k"])
        one_cpu = statistics.median(c[i + 2] for c in clicks["1k"])
        big_cpu = statistics.median(c[i + 2] for c in clicks["100k"])
        print(
            f"| {action} | {one:.3f} | {big:.3f} | {big / one:.1f}x "
            f"| {one_cpu:.3f} | {big_cpu:.3f} |"
        )
    (workdir / "dashboard_pages.json").write_text(
        json.dumps({"pages": results, "review_clicks": clicks}, indent=2)
    )


if __name__ == "__main__":
    main()
