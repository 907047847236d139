"""Compare's first page of flips (1,000 of them), in-process, on a 100k synthetic store (issue 39).

The store: ``bench/dashboard_browser.py --synthetic 100000 --workdir DIR`` (evaluations 1 and 3
are run-a and run-b, 25,466 flips; 1 and 2 the rule pair). Run it with each checkout's
interpreter, alternated, on one store:

    nice PY bench/compare_first_page.py sqlite:////DIR/synthetic-100000.db [ROUNDS]
"""

from __future__ import annotations

import sys
import time

from rejudge.store import Store

from rejudge.services import comparison_flips


def main() -> None:
    store = Store.open(sys.argv[1], migrate=False)
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    for a, b in ((1, 3), (1, 2)):
        times = []
        for _ in range(rounds):
            started = time.perf_counter()
            page = comparison_flips(store, a, b, limit=1000)
            times.append(time.perf_counter() - started)
        shown = " ".join(f"{t:.2f}" for t in times)
        print(f"{a}->{b}: {len(page)} flips, {shown} s (min {min(times):.2f})")


if __name__ == "__main__":
    main()
