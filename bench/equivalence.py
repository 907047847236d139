"""The equivalence corpus: every judgment of the bench store under the call-matching tiers, as one
digest, so two checkouts can be shown to judge byte for byte alike.

Usage (from the repository root of each checkout, with that checkout's interpreter):

    python bench/equivalence.py --traces 10000            # 10,000 traces x 5 tiers = 50,000
    python bench/equivalence.py --traces 10000 --workload trials --dump /tmp/a.jsonl

It builds the ``bench/judge_rejudge.py`` store of ``--workload`` (the same seed, so the same
traces in every checkout), judges it under each tier of ``CALL_TIERS`` with ``standard@2`` (1
worker, then the same again with ``--workers``), and writes one line per evaluation row: case,
repetition, the judgment's key, hash, verdict, partial score, taxonomy and its whole canonical
body as read back from the store; then each evaluation's summary. The sha256 of those lines is printed: equal
digests mean equal judgments, links, bodies and summaries.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from judge_rejudge import RULES, build  # noqa: E402
from rejudge.judge import load_rule_set  # noqa: E402
from rejudge.store import Store  # noqa: E402

from rejudge.model import canonical_json  # noqa: E402
from rejudge.services import judge_run  # noqa: E402

# The tiers that match calls (no world, no model): kept here since judge_rejudge.py measures one
# tier at a time (ec3b801 dropped its list, which left this script failing on import).
CALL_TIERS = ("contract", "execution", "completion", "completion-contract", "golden")


def lines(store: Store, workers: int) -> list[str]:
    rules = load_rule_set(RULES)
    out = []
    for tier in CALL_TIERS:
        result = judge_run(store, "bench", tier, rules, workers=workers)
        for r in store.judgments.iter_evaluation_rows(result.evaluation_id, with_body=True):
            out.append(
                canonical_json(
                    [
                        tier,
                        r.case_key,
                        r.repetition,
                        r.judgment_key,
                        r.judgment_hash,
                        r.verdict,
                        r.partial_score,
                        r.taxonomy,
                        canonical_json(r.body),
                    ]
                )
            )
        # a typed ReportSummary since the typed faces; its JSON is what --json prints
        summary = result.summary
        as_json = summary.to_json() if hasattr(summary, "to_json") else summary
        out.append(canonical_json([tier, "summary", as_json]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--workload", choices=("distinct", "trials"), default="distinct")
    parser.add_argument("--reps", type=int, default=10, help="repetitions per case (trials)")
    parser.add_argument("--dump", type=Path, help="also write the lines here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        digests = {}
        for workers in sorted({1, args.workers}):
            path = Path(tmp) / f"store-{workers}.db"
            build(path, args.traces, args.workload, args.reps)
            store = Store.open(f"sqlite:///{path}")
            try:
                text = "\n".join(lines(store, workers)) + "\n"
            finally:
                store.close()
            digests[workers] = hashlib.sha256(text.encode("utf-8")).hexdigest()
            rows = text.count("\n") - len(CALL_TIERS)
            if args.dump is not None and workers == 1:
                args.dump.write_text(text, encoding="utf-8")
    same = len(set(digests.values())) == 1
    print(
        json.dumps(
            {"traces": args.traces, "judgments": rows, "sha256": digests, "workers_agree": same}
        )
    )


if __name__ == "__main__":
    main()
