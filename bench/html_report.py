"""`rejudge report EVAL --html` and `rejudge compare A B --html` on the shipped τ-bench import
(200 traces), beside `--json` of the same evaluation, in one run.

Builds a fresh SQLite store (import of the GPT-4o airline file, judged under every applicable
tier with standard@2), then for each evaluation times, in this process (median of --repeat):

- ``--json``: :func:`evaluation_report` with its calibration (what ``report --json`` computes);
- ``--html``: :func:`report_page_data` (the same report, every external source's agreement,
  every failing trace's timeline with its cassette read) + :func:`report_page` + the write;

and prints seconds, the html/json ratio, the file's size and the number of timelines; then the
same for ``compare`` of the golden and state evaluations, and the whole CLI once as a
subprocess (``python -m rejudge report EVAL --html FILE``: interpreter start included). The
issue's budget: under 5 s and under 5 MB for 200 traces.

Usage::

    nice python bench/html_report.py [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rejudge.dashboard.compare_html import compare_page  # noqa: E402
from rejudge.dashboard.report_html import report_page  # noqa: E402
from rejudge.judge import load_rule_set  # noqa: E402
from rejudge.judge.tiers import tier_names  # noqa: E402
from rejudge.store import Store  # noqa: E402

from rejudge.services import (  # noqa: E402
    applicable_tiers,
    compare_evaluations,
    compare_page_data,
    evaluation_report,
    judge_run,
    report_page_data,
)
from tests.judge.conftest import tau_store  # noqa: E402


def _median(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _write_report(store: Store, ev: int, path: Path) -> tuple[int, int]:
    data = report_page_data(store, ev)
    text = report_page(data.report, data.timelines, agreements=data.agreements)
    path.write_text(text, encoding="utf-8")
    return path.stat().st_size, len(data.timelines)


def _write_compare(store: Store, a: int, b: int, path: Path) -> tuple[int, int]:
    data = compare_page_data(store, a, b)
    path.write_text(compare_page(data.comparison, data.timelines), encoding="utf-8")
    return path.stat().st_size, len(data.timelines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'tau.db'}"
        store = tau_store(url)
        rules = load_rule_set("standard@2")
        evaluations = {
            tier: judge_run(store, "tau", tier, rules).evaluation_id
            for tier in applicable_tiers(store, "tau", tier_names())
        }
        for tier, ev in evaluations.items():
            json_s, _ = _median(
                lambda ev=ev: evaluation_report(store, ev, with_calibration=True), args.repeat
            )
            path = folder / f"report-{tier}.html"
            html_s, (size, timelines) = _median(
                lambda ev=ev, path=path: _write_report(store, ev, path), args.repeat
            )
            rows.append(
                {
                    "what": f"report {tier}",
                    "json_s": round(json_s, 3),
                    "html_s": round(html_s, 3),
                    "ratio": round(html_s / json_s, 1),
                    "mib": round(size / 2**20, 2),
                    "timelines": timelines,
                }
            )
        a, b = evaluations["golden"], evaluations["state"]
        json_s, _ = _median(lambda: compare_evaluations(store, a, b), args.repeat)
        path = folder / "compare.html"
        html_s, (size, timelines) = _median(lambda: _write_compare(store, a, b, path), args.repeat)
        rows.append(
            {
                "what": "compare golden state",
                "json_s": round(json_s, 3),
                "html_s": round(html_s, 3),
                "ratio": round(html_s / json_s, 1),
                "mib": round(size / 2**20, 2),
                "timelines": timelines,
            }
        )
        store.close()
        worst = max(rows[:-1], key=lambda r: r["timelines"])
        tier = worst["what"].split()[-1]
        cli_file = folder / "cli.html"
        t0 = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "rejudge",
                "--db",
                url,
                "report",
                str(evaluations[tier]),
                "--html",
                str(cli_file),
            ],
            check=True,
            capture_output=True,
        )
        cli_s = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"rows": rows, "cli": {"tier": tier, "s": round(cli_s, 2)}}, indent=2))
        return 0
    print(
        f"{'what':28} {'--json s':>9} {'--html s':>9} {'html/json':>9} {'MiB':>6} {'timelines':>9}"
    )
    for r in rows:
        print(
            f"{r['what']:28} {r['json_s']:>9.3f} {r['html_s']:>9.3f} {r['ratio']:>8.1f}x "
            f"{r['mib']:>6.2f} {r['timelines']:>9}"
        )
    print(f"CLI subprocess, report {tier} --html (interpreter start included): {cli_s:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
