"""The Report page's download (pure): every row says which run, model, tier and rules it was
judged under, beside its verdict, causes and the judge's reasons, and reads back as CSV."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from rejudge.dashboard.exports import EXPORT_COLUMNS, export_csv
from rejudge.store import EvaluationSummary

from rejudge.model import ReportRow


def _evaluation() -> EvaluationSummary:
    return EvaluationSummary(
        id=7,
        run_id=3,
        run="tau-bench-gpt-4o-airline",
        suite="airline",
        suite_hash="sha256:s",
        registry_hash="sha256:r",
        model="gpt-4o",
        provider="openai",
        harness_mode="imported",
        tier="state",
        rule_set="tau-bench@2",
        rule_set_id=4,
        rule_set_hash="sha256:h",
        engine_version="1.3.0",
        status="finished",
        created_at=datetime(2026, 12, 6, tzinfo=UTC),
        PASS=1,
        FAIL=1,
        SKIP=0,
        AGENT_ERROR=0,
        avg_partial=0.5,
        judgments=2,
        scored=2,
        accuracy=0.5,
    )


def test_rows_carry_what_they_were_judged_under_and_the_reasons() -> None:
    cases = [
        ReportRow("task-000", 0, "FAIL", ["STATE_WRONG", "OUTPUT_MISSING"], 0.6),
        ReportRow("task-001", 0, "PASS", [], 1.0),
    ]
    reasons = {("task-000", 0): ("final state differs;\nin 2 field(s)", 'said "55"')}
    rows = list(csv.DictReader(io.StringIO(export_csv(_evaluation(), cases, reasons))))
    assert tuple(rows[0]) == EXPORT_COLUMNS
    assert rows[0] == {
        "evaluation": "7",
        "run": "tau-bench-gpt-4o-airline",
        "model": "gpt-4o",
        "suite": "airline",
        "tier": "state",
        "rules": "tau-bench@2",
        "case": "task-000",
        "repetition": "0",
        "verdict": "FAIL",
        "causes": "STATE_WRONG; OUTPUT_MISSING",
        "reasons": 'final state differs; in 2 field(s) | said "55"',
        "partial_score": "0.6",
    }
    assert rows[1]["verdict"] == "PASS" and rows[1]["reasons"] == "" and rows[1]["causes"] == ""
