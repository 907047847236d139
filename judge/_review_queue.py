"""The review queue, pure: which judgments of an evaluation people review, why, in what order,
and the CSV a reviewer fills in.

Every FAIL, every anomaly-flagged judgment and a seeded sample of PASSes (false passes hide
there), each once, as :class:`QueueItem` (the store reads :class:`rejudge.model.QueueRow`; the
services attach each item's labels). docs/calibration.md has the long form.
"""

from __future__ import annotations

import csv
import io
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import NamedTuple

from rejudge.judge._calibration import REVIEW_CSV_COLUMNS

from rejudge.model import QueueRow

__all__ = [
    "QueueItem",
    "build_queue",
    "sample_positions",
    "queue_items",
    "queue_csv",
]

#: an item nobody has labelled (shared: an item is never changed, only replaced)
_NO_LABELS: Mapping[str, str] = {}
#: the order of the queue's parts, by an item's first reason
_RANK = {"FAIL": 0, "anomaly": 1, "sampled PASS": 2}


class QueueItem(NamedTuple):
    """One judgment in the review queue: the fields a reviewer is shown and the CSV exports,
    why it is queued (``reasons``, in the order FAIL, anomaly, sampled PASS), and whether anyone
    has labelled it (``labels``: each reviewer's latest label).

    A named tuple, not a dataclass: at 100,000 judgments the queue holds 19,000 of them, built
    in half a dataclass's time."""

    judgment_id: int
    judgment_key: str
    trace_id: int
    case: str
    repetition: int
    verdict: str
    taxonomy: tuple[str, ...]
    partial_score: float | None
    reasons: tuple[str, ...]
    reviewed: bool = False
    labels: Mapping[str, str] = _NO_LABELS


def build_queue(
    rows: Iterable[QueueRow],
    reviewed: Iterable[int] = (),
    *,
    sample_passes: int = 0,
    seed: int = 0,
) -> list[QueueItem]:
    """The review queue: every FAIL, every anomaly-flagged judgment, and a seeded random sample
    of ``sample_passes`` PASSes (to catch false passes), in that order, each once.

    An item is ``reviewed`` when its judgment is in ``reviewed``. The PASS sample depends only
    on the rows and the seed, not on what is already reviewed, so progress through it is
    stable.
    """
    ordered = _in_case_order(rows)
    queued = {r.judgment_id for r in ordered if r.verdict == "FAIL" or r.anomalies}
    passes = [r.judgment_id for r in ordered if r.verdict == "PASS" and r.judgment_id not in queued]
    sampled = [passes[i] for i in sample_positions(len(passes), sample_passes, seed)]
    return queue_items(ordered, sampled, reviewed)


def _in_case_order(rows: Iterable[QueueRow]) -> list[QueueRow]:
    return sorted(rows, key=lambda r: (r.case, r.repetition))


def sample_positions(passes: int, sample_passes: int, seed: int) -> list[int]:
    """Which of ``passes`` PASSes (:func:`build_queue`'s candidates, in case order) the seeded
    sample of ``sample_passes`` takes, as positions: the draw depends on their number alone, so
    a caller that read only the candidates' keys reads the few rows drawn, not all of them."""
    if sample_passes <= 0 or passes <= 0:
        return []
    return random.Random(seed).sample(range(passes), min(sample_passes, passes))


def queue_items(
    rows: Iterable[QueueRow], sampled: Sequence[int], reviewed: Iterable[int] = ()
) -> list[QueueItem]:
    """:func:`build_queue`'s items from the rows that can be queued (FAILs, rows with anomalies,
    the sampled PASSes; any other row is left out) and the judgment ids the PASS sample drew,
    in the order drawn."""
    ordered = _in_case_order(rows)
    done = {int(j) for j in reviewed}
    reasons: dict[int, list[str]] = defaultdict(list)
    for row in ordered:
        if row.verdict == "FAIL":
            reasons[row.judgment_id].append("FAIL")
        if row.anomalies:
            reasons[row.judgment_id].append("anomaly: " + ", ".join(row.anomalies))
    for jid in sampled:
        reasons[int(jid)].append("sampled PASS")
    ranked = []
    for position, row in enumerate(ordered):
        first = reasons.get(row.judgment_id)
        if first:
            ranked.append((_RANK[first[0].split(":")[0]], position, row))
    ranked.sort(key=itemgetter(0, 1))
    # equal reasons as one tuple: thousands of items say ("FAIL",), and a kept queue pickles it
    # once
    shared: dict[tuple[str, ...], tuple[str, ...]] = {}
    seen: set[int] = set()
    out = []
    for _rank, _position, row in ranked:
        jid = row.judgment_id
        if jid in seen:  # the same judgment linked twice: list it once
            continue
        seen.add(jid)
        why = tuple(reasons[jid])
        out.append(
            QueueItem(
                jid,
                row.judgment_key,
                row.trace_id,
                row.case,
                row.repetition,
                row.verdict,
                tuple(row.taxonomy),
                row.partial_score,
                shared.setdefault(why, why),
                jid in done,
            )
        )
    return out


def queue_csv(items: Iterable[QueueItem], evaluation_id: int) -> str:
    """The review CSV (header + one row per queue item, label/reviewer/note left blank)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(REVIEW_CSV_COLUMNS)
    for item in items:
        score = item.partial_score
        writer.writerow(
            [
                item.judgment_key,
                evaluation_id,
                item.case,
                item.repetition,
                item.verdict,
                " ".join(item.taxonomy),
                "" if score is None else repr(float(score)),
                "",
                "",
                "",
                "; ".join(item.reasons),
            ]
        )
    return buffer.getvalue()
