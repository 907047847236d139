"""BFCL result files as traces of imported runs, and evaluations back as BFCL score files.

Pure: this parses and builds; storing the runs (:mod:`rejudge.importers._bfcl_results`) and
reading an evaluation to export (:func:`rejudge.services.export_bfcl`) are services.

**Import.** A BFCL result file is JSON Lines, one ``{"id", "result", ...}`` per case; ``result``
is either decoded (a list of ``{function: {param: value}}`` or ``{function: "<JSON arguments>"}``)
or raw (a string of Python call syntax, ``[f(a=1), g(b="x")]``, or of JSON). Each line becomes a
one-round trace of an imported run (``harness_mode="imported"``), one run per BFCL category. An
output that does not decode is kept raw as evidence: a call attempt becomes a call with
``parse_error`` set and the raw text in ``arguments_raw``; plain prose becomes the round's text
with no call. A bad line never stops the import; it is counted and named in the summary.

**Export.** An evaluation becomes BFCL score files: the first line
``{"accuracy", "correct_count", "total_count"}``, then one line per failed case with BFCL's keys
(``id``, ``model_name``, ``test_category``, ``valid``, ``error``, ``error_type``, the decoded model
output and the possible answer), under ``<out>/<model>/<non_live|live>/BFCL_v4_<cat>_score.json``.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from rejudge.errors import InvalidInputError, NotFoundError
from rejudge.importers._bfcl_schema import CATEGORIES
from rejudge.importers._bfcl_suite import build_suite, json_lines
from rejudge.model import Case, Round, ToolCall, Trace, content_hash
from rejudge.suites._case_format import SuiteSource

__all__ = [
    "NORMALIZER_VERSION",
    "CategoryResults",
    "category_of",
    "decode_result",
    "trace_from_result",
    "plan_results",
    "read_results",
    "result_traces",
    "results_hash",
    "score_file_path",
    "score_files",
]

NORMALIZER_VERSION = "bfcl-results/1"
_FILE_RE = re.compile(r"^BFCL_v\d+_(?P<cat>.+?)_(result|score)\.jsonl?$")
_ID_SUFFIX = re.compile(r"_\d+(-\d+)*$")
_CALL_START = re.compile(r"^\s*(```\w*\s*)?\[?\s*[A-Za-z_][\w.]*\s*\(")
_FENCE = re.compile(r"^```\w*\s*|\s*```$")


def category_of(case_id: str, file_name: str | None = None) -> str | None:
    """The BFCL category of a result line, from the file name or else from the case id."""
    if file_name:
        found = _FILE_RE.match(Path(file_name).name)
        if found and found.group("cat") in CATEGORIES:
            return found.group("cat")
    guess = _ID_SUFFIX.sub("", case_id)
    return guess if guess in CATEGORIES else None


# --------------------------------------------------------------------------- decoding


class _Undecodable(Exception):
    pass


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise _Undecodable(f"not a function name: {ast.unparse(node)}")


def _value(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError):
        # a variable or expression: BFCL keeps its source text as a string
        return ast.unparse(node)


def _python_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    body = _FENCE.sub("", text.strip()).strip()
    if not body.startswith("["):
        body = f"[{body}]"
    try:
        tree = ast.parse(body, mode="eval")
    except (SyntaxError, ValueError, RecursionError) as exc:
        raise _Undecodable(f"not Python call syntax: {exc}") from exc
    if not isinstance(tree.body, (ast.List, ast.Tuple)):
        raise _Undecodable("not a list of calls")
    calls: list[tuple[str, dict[str, Any]]] = []
    for node in tree.body.elts:
        if not isinstance(node, ast.Call):
            raise _Undecodable(f"not a call: {ast.unparse(node)[:80]}")
        if node.args:
            raise _Undecodable(f"{_dotted(node.func)} has positional arguments")
        args: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                raise _Undecodable("**kwargs are not arguments")
            args[keyword.arg] = _value(keyword.value)
        calls.append((_dotted(node.func), args))
    return calls


def _decoded_item(item: Any) -> list[ToolCall]:
    """One element of a decoded result list."""
    if isinstance(item, str):
        return decode_result(item)[0]
    if not isinstance(item, dict):
        raise _Undecodable(f"a result item must be an object, got {type(item).__name__}")
    calls: list[ToolCall] = []
    for name, args in item.items():
        raw = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError as exc:
                calls.append(
                    ToolCall(
                        name=str(name),
                        arguments=None,
                        arguments_raw=raw,
                        parse_error=f"arguments are not JSON: {exc.msg}",
                    )
                )
                continue
        if not isinstance(args, dict):
            calls.append(
                ToolCall(
                    name=str(name),
                    arguments=None,
                    arguments_raw=raw,
                    parse_error="arguments are not a JSON object",
                )
            )
            continue
        calls.append(ToolCall(name=str(name), arguments=args, arguments_raw=raw))
    return calls


def decode_result(result: Any) -> tuple[list[ToolCall], str | None]:
    """A BFCL ``result`` as calls and text. Never raises: what does not decode is kept raw."""
    raw = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    try:
        if isinstance(result, list):
            calls: list[ToolCall] = []
            for item in result:
                calls.extend(_decoded_item(item))
            return calls, None
        if isinstance(result, dict):
            return _decoded_item(result), None
        if result is None:
            return [], None
        if not isinstance(result, str):
            raise _Undecodable(f"a result must be a list or a string, got {type(result).__name__}")
        text = result.strip()
        if not text:
            return [], result
        if text[0] in "[{":
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, (list, dict)):
                return decode_result(parsed)
        return [
            ToolCall(name=n, arguments=a, arguments_raw=raw) for n, a in _python_calls(text)
        ], None
    except (_Undecodable, RecursionError) as exc:
        if isinstance(result, str) and not _CALL_START.match(result):
            return [], result  # prose: the model answered without calling
        name = "<undecodable>"
        match = re.match(r"^\s*\[?\s*([A-Za-z_][\w.]*)\s*\(", raw)
        if match:
            name = match.group(1)
        return [
            ToolCall(name=name, arguments=None, arguments_raw=raw, parse_error=str(exc)[:500])
        ], None


def trace_from_result(entry: dict[str, Any], repetition: int = 0) -> Trace:
    """One BFCL result line as a one-round trace."""
    calls, text = decode_result(entry.get("result"))
    usage: dict[str, int] = {}
    for key, target in (
        ("input_token_count", "input_tokens"),
        ("output_token_count", "output_tokens"),
    ):
        value = entry.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            usage[target] = value
    timings: dict[str, Any] = {}
    latency = entry.get("latency")
    if isinstance(latency, (int, float)) and not isinstance(latency, bool):
        timings["latency_s"] = latency
    return Trace(
        case_id=str(entry.get("id")),
        repetition=repetition,
        rounds=[Round(index=0, calls=calls, text=text)],
        final_text=text,
        usage=usage,
        normalizer_version=NORMALIZER_VERSION,
        timings=timings,
    )


# --------------------------------------------------------------------------- import


def _result_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))
    raise NotFoundError(
        f"{path} is neither a BFCL result file nor a folder of them", file=str(path)
    )


def _read_lines(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    good: list[tuple[int, dict[str, Any]]] = []
    bad: list[str] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return [], [f"{path}: cannot read: {exc.strerror}"]
    for number, item, error in json_lines(text):
        if error is not None:
            bad.append(f"{path.name}:{number}: invalid JSON ({error.msg})")
            continue
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            bad.append(f"{path.name}:{number}: not an object with a string id")
            continue
        good.append((number, item))
    return good, bad


Lines = list[tuple[str, int, dict[str, Any]]]


def read_results(root: Path) -> tuple[dict[str, Lines], list[str]]:
    """The result lines under ``root`` by AST category (file name, line number, item), and the
    lines that are no result of one."""
    by_category: dict[str, Lines] = defaultdict(list)
    stray: list[str] = []
    for file in _result_files(root):
        lines, bad = _read_lines(file)
        stray.extend(bad)
        for number, item in lines:
            category = category_of(item["id"], file.name)
            if category is None:
                stray.append(f"{file.name}:{number}: {item['id']!r} is not in an AST category")
                continue
            by_category[category].append((file.name, number, item))
    return dict(by_category), stray


def results_hash(lines: Lines) -> str:
    """The hash of one category's result lines: what its run's traces were derived from."""
    return content_hash([[name, number, item] for name, number, item in lines])


def result_traces(lines: Lines) -> list[Trace]:
    """The traces of one category's result lines, repetitions counted per case id in file
    order, as the import derives them (a line that does not derive is left out)."""
    repetitions: dict[str, int] = defaultdict(int)
    out = []
    for _name, _number, item in lines:
        try:
            trace = trace_from_result(item, repetitions[item["id"]])
        except Exception:  # the import counted it as a bad line and stored no trace
            continue
        repetitions[item["id"]] += 1
        out.append(trace)
    return out


@dataclass
class CategoryResults:
    """One BFCL category's result lines, parsed and checked, ready to store as one run: its
    suite, the traces of the lines that derive, and what was left out."""

    category: str
    suite: SuiteSource
    results_hash: str  # of the category's lines: what the run's traces were derived from
    traces: list[Trace] = field(default_factory=list)
    undecodable: int = 0  # traces with a call that did not decode (kept raw)
    unknown_ids: list[str] = field(default_factory=list)  # "file:line: id" not in the suite
    bad_lines: list[str] = field(default_factory=list)  # lines that are no result, with why


def plan_results(path: Path | str, *, data_dir: Path | str | None = None) -> list[CategoryResults]:
    """The BFCL result file(s) at ``path`` (a file or a folder of them) by AST category, each
    with its suite built from bfcl-eval's data (``data_dir``: another copy of it) and its traces
    derived, repetitions counted per case id in file order. A bad line never stops the plan;
    it is named in the first category's ``bad_lines`` (lines in no category) or its own (lines
    that do not derive). Raises when no line of any AST category is found."""
    root = Path(path)
    by_category, stray = read_results(root)
    if not by_category:
        detail = f" ({stray[0]})" if stray else ""
        raise InvalidInputError(
            f"no BFCL AST result lines found in {root}{detail}; expected JSON Lines of "
            '{"id": "simple_python_0", "result": ...}'
        )
    out: list[CategoryResults] = []
    for category in [c for c in CATEGORIES if c in by_category]:
        source = build_suite(category, data_dir)
        known = {case.id for case in source.cases}
        planned = CategoryResults(category, source, results_hash(by_category[category]))
        repetitions: dict[str, int] = defaultdict(int)
        for file_name, number, item in by_category[category]:
            case_id = item["id"]
            if case_id not in known:
                planned.unknown_ids.append(f"{file_name}:{number}: {case_id}")
                continue
            try:
                trace = trace_from_result(item, repetitions[case_id])
            except Exception as exc:  # never let one line stop an import
                planned.bad_lines.append(f"{file_name}:{number}: {type(exc).__name__}: {exc}")
                continue
            repetitions[case_id] += 1
            planned.traces.append(trace)
            if any(c.parse_error for c in trace.calls):
                planned.undecodable += 1
        planned.bad_lines.extend(stray if not out else [])
        out.append(planned)
    return out


# --------------------------------------------------------------------------- export


def _group(category: str) -> str:
    return "live" if category.startswith("live") else "non_live"


def _decoded(trace: Trace | None) -> Any:
    if trace is None or not trace.rounds:
        return []
    out: list[Any] = []
    for call in trace.rounds[0].calls:
        if call.parse_error is not None:
            return call.arguments_raw
        out.append({call.name: call.arguments})
    return out


class JudgedRow(Protocol):
    """What a BFCL score file reads of an evaluation's row (``rejudge.store.EvaluatedTrace``,
    read with its body): this reader imports nothing of the store."""

    @property
    def trace_id(self) -> int: ...

    @property
    def case_key(self) -> str: ...

    @property
    def repetition(self) -> int: ...

    @property
    def category(self) -> str | None: ...

    @property
    def verdict(self) -> str: ...

    @property
    def taxonomy(self) -> list[str] | None: ...

    @property
    def tier(self) -> str: ...

    @property
    def body(self) -> dict[str, Any] | None: ...


def score_files(
    rows: Iterable[JudgedRow],
    cases: dict[str, Case],
    traces: dict[int, Trace],
    model: str,
    repetition: int = 0,
) -> dict[str, list[dict[str, Any]]]:
    """An evaluation's rows (with their bodies) as BFCL score files: category -> the file's
    lines (the accuracy line, then one line per failure). ``cases`` by id, ``traces`` by stored
    trace id (of ``repetition``).

    BFCL counts every result line in ``total_count``: a PASS is correct, anything else (FAIL,
    AGENT_ERROR) is a failure line; a SKIPped case is left out. One repetition is exported.
    """
    per_category: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row.repetition != repetition or row.verdict == "SKIP":
            continue
        case = cases.get(row.case_key)
        meta = (case.metadata.get("bfcl") if case is not None else None) or {}
        category = meta.get("category") or row.category or "unknown"
        bucket = per_category.setdefault(category, {"correct": 0, "total": 0, "failures": []})
        bucket["total"] += 1
        if row.verdict == "PASS":
            bucket["correct"] += 1
            continue
        body = row.body or {}
        details = body.get("details") or {}
        taxonomy = list(row.taxonomy or [])
        error_type = details.get("bfcl_error_type") or (
            "rejudge:agent_error"
            if row.verdict == "AGENT_ERROR"
            else f"rejudge:{taxonomy[0]}"
            if taxonomy
            else "rejudge:fail"
        )
        bucket["failures"].append(
            {
                "id": row.case_key,
                "model_name": model,
                "test_category": category,
                "valid": False,
                "error": list(body.get("reasons") or []) or taxonomy,
                "error_type": error_type,
                "rejudge_taxonomy": taxonomy,
                "rejudge_tier": row.tier,
                "model_result_decoded": _decoded(traces.get(row.trace_id)),
                "possible_answer": meta.get("ground_truth"),
            }
        )
    out: dict[str, list[dict[str, Any]]] = {}
    for category, bucket in sorted(per_category.items()):
        total = bucket["total"]
        header = {
            "accuracy": bucket["correct"] / total if total else 0.0,
            "correct_count": bucket["correct"],
            "total_count": total,
        }
        out[category] = [header, *bucket["failures"]]
    return out


def score_file_path(out_dir: Path | str, model: str, category: str) -> Path:
    """Where BFCL keeps a category's score file: ``<out>/<model>/<non_live|live>/...``."""
    folder = Path(out_dir) / model.replace("/", "_") / _group(category)
    return folder / f"BFCL_v4_{category}_score.json"
