"""A judgment as the review queue takes it: the few fields that decide whether it is queued and
why (verdict, anomalies, case order), and the ones a reviewer is shown. The store reads these
(``store.reviews.queue_rows``) and the judge queues them (``rejudge.judge.queue_items``): at
100,000 judgments the queue reads 19,000 rows, so it reads no input hash, no body and no column
that nothing shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["QueueRow"]


class QueueRow(NamedTuple):
    """One judgment of an evaluation that review may queue (a FAIL, a judgment with anomalies,
    a sampled PASS), in the fields the queue and its CSV use."""

    judgment_id: int
    judgment_key: str
    trace_id: int
    case: str
    repetition: int
    verdict: str
    taxonomy: Sequence[str]
    partial_score: float | None
    anomalies: Sequence[str]
