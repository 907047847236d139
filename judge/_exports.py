"""Analysis export formats: the columns of one row per case and repetition of an evaluation
(verdict, causes, partial score, review label and every input hash), and of one row per trace of
a run, for ``rejudge export`` (CSV, JSON Lines, Parquet). These column lists are the documented
formats (docs/calibration.md); the rows are read from the store by
:mod:`rejudge.services._export`."""

from __future__ import annotations

__all__ = ["EVALUATION_EXPORT_COLUMNS", "RUN_EXPORT_COLUMNS"]


#: (column, type, meaning) of ``rejudge export EVAL``: one row per case and repetition
EVALUATION_EXPORT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("evaluation", "int", "evaluation id"),
    ("run", "string", "run name"),
    ("suite", "string", "suite name"),
    ("model", "string", "model the run recorded"),
    ("provider", "string", "provider wire format"),
    ("harness_mode", "string", "production-parity or oracle-assisted"),
    ("tier", "string", "tier judged under"),
    ("rules", "string", "rule set NAME@VERSION"),
    ("case", "string", "case id"),
    ("repetition", "int", "repetition (0-based)"),
    ("dimension", "string", "case dimension"),
    ("category", "string", "case category"),
    ("verdict", "string", "PASS, FAIL, SKIP or AGENT_ERROR"),
    ("taxonomy", "list<string>", "failure causes in precedence order (CSV: space-separated)"),
    ("partial_score", "float?", "diagnostic partial score, empty when none"),
    ("anomalies", "list<string>", "anomaly flags (CSV: space-separated)"),
    ("review_label", "string?", "agreed review label, 'disputed', or empty when unreviewed"),
    ("judgment_key", "string", "judgment key (hash of every input below)"),
    ("judgment_hash", "string", "hash of the judgment's content"),
    ("trace_hash", "string", "hash of the normalized trace"),
    ("case_hash", "string", "hash of the case (with its golden calls)"),
    ("registry_hash", "string", "hash of the tool registry"),
    ("rule_set_hash", "string", "hash of the rule set"),
    ("engine_version", "string", "judge engine version"),
    ("suite_hash", "string", "hash of the suite snapshot the run recorded"),
    ("config_hash", "string", "hash of the run configuration"),
    ("prompt_hash", "string?", "hash of the system prompt, empty when none"),
)

#: (column, type, meaning) of ``rejudge export run RUN``: one row per trace
RUN_EXPORT_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("run", "string", "run name"),
    ("model", "string", "model"),
    ("suite", "string", "suite name"),
    ("case", "string", "case id"),
    ("repetition", "int", "repetition (0-based)"),
    ("status", "string", "trace status (completed, agent_error, ...)"),
    ("trace_hash", "string", "hash of the normalized trace"),
    ("rounds", "int", "number of rounds"),
    ("calls", "int", "number of tool calls"),
    ("cassette_path", "string?", "cassette file, named by its root (docs/architecture.md)"),
    ("cassette_hash", "string?", "hash of the cassette file"),
    ("normalizer_version", "string?", "normalizer version that derived the trace"),
    ("trace", "object", "the normalized trace (rounds, calls, results, usage, timings)"),
)
