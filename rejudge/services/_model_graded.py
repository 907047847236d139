"""Judging a run under the ``model-graded`` tier: render each trace's prompt (pure, the judge's),
get the judge's replies from their cassettes or record them through the recorder, hand them to
the tier, store the judgments.

Judge record modes (vcrpy's): ``none`` (the default) replays only, in one pass inside one
transaction: a missing cassette is one error naming the case (and counting the others), and the
transaction's rollback leaves nothing stored; ``new_episodes`` calls the judge only for the samples not recorded yet; ``all``
records every sample of the traces it judges again (a judgment already stored under the same
inputs stays a lookup: its key names the rubric, judge and prompt, not the reply).

Each sample's cassette is written as soon as its reply arrives, and each chunk's judgments in
one transaction, so a killed judging keeps what it recorded: the next run replays it and asks
the judge only for the rest. A judge server that is down ends the run with one error naming its
URL; what was recorded and stored before stays.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from rejudge.errors import InvalidInputError
from rejudge.judge import (
    DEFAULT_RULE_SET,
    ENGINE_VERSION,
    JudgeSummary,
    RenderedPrompt,
    ReportBuilder,
    decode_trace,
    judge,
    load_rule_set,
    render_prompt,
)
from rejudge.judge.tiers import MODEL_GRADED, JudgeCall, JudgeReply, ModelGradedTier, get_tier
from rejudge.model import (
    Case,
    JudgeModel,
    Judgment,
    PreparedJudgment,
    ReportSummary,
    Rubric,
    ToolRegistry,
    Trace,
    content_hash,
    judgment_key,
)
from rejudge.recorder import write_atomic
from rejudge.recorder._judge_calls import (
    JUDGE_CASSETTE_FORMAT,
    JudgeEndpoint,
    JudgeJob,
    JudgeServerError,
    judge_cassette_name,
    judge_request_body,
    judge_rubric_dir,
    record_judge_jobs,
    replay_judge_sample,
)
from rejudge.recorder.providers import get_provider
from rejudge.services._judge_calibration import evaluation_judge_calibration
from rejudge.services._judge_steps import JudgeInputs, _chunked, resolve_inputs, settle_chunk
from rejudge.store import Store, StreamedTrace

__all__ = [
    "JUDGE_RECORD_MODES",
    "ModelGradedOptions",
    "judge_item",
    "judge_run_model_graded",
    "rubric_file",
]

JUDGE_RECORD_MODES = ("none", "new_episodes", "all")
RecordMode = Literal["none", "new_episodes", "all"]
Progress = Callable[[int], None]


@dataclass(frozen=True)
class ModelGradedOptions:
    rubric: Rubric
    judge: JudgeModel = field(default_factory=JudgeModel)
    cassettes: Path = Path("cassettes")
    record: RecordMode = "none"
    endpoint: JudgeEndpoint = field(default_factory=JudgeEndpoint)
    concurrency: int = 1
    chunk_size: int = 200


class TraceToJudge(Protocol):
    """What the model-graded planner reads of a stored trace: a streamed row
    (:class:`rejudge.store.StreamedTrace`) or a judgment's own trace, replayed."""

    @property
    def case_key(self) -> str: ...

    @property
    def repetition(self) -> int: ...

    @property
    def hash(self) -> str: ...

    @property
    def body(self) -> str | None: ...


@dataclass
class _Item:
    """One trace of the chunk: what judging it needs."""

    row: TraceToJudge
    trace: Trace
    case: Case
    tier: ModelGradedTier
    jobs: list[JudgeJob]
    key: str


def _needs_judge(tier: ModelGradedTier, trace: Trace, case: Case, registry: ToolRegistry) -> bool:
    # the engine decides these without the tier: no judge call is made for them
    return not case.skip and trace.status != "agent_error" and tier.applies(case, registry)


class _Planner:
    """Renders prompts and names the cassettes of a run's traces under one rubric and judge."""

    def __init__(self, inputs: JudgeInputs, options: ModelGradedOptions) -> None:
        self.inputs = inputs
        self.options = options
        self.rubric, self.judge = options.rubric, options.judge
        self.provider = get_provider(self.judge.provider)
        base = get_tier(MODEL_GRADED)
        assert isinstance(base, ModelGradedTier)
        self.base = base
        self.case_hashes = {k: c.hash for k, c in inputs.cases.items()}
        self.registry_hash = inputs.registry.hash
        self.rule_set_hash = inputs.rule_set.hash
        self.unbound = self.base.bind(self.rubric, self.judge, None)
        # text: a trace's cassette path is this folder and its name joined, never parsed by
        # pathlib, which interns every part (see JudgeJob)
        rubric_dir = judge_rubric_dir(options.cassettes, inputs.run.name, self.rubric.hash)
        self.rubric_dir = str(rubric_dir)
        # as str(path.relative_to(root)) named a judgment's cassette
        self.relative_dir = str(rubric_dir.relative_to(options.cassettes))
        # what every cassette's rejudge block says of the judging (its own fields added per job)
        self.meta: dict[str, Any] = {
            "format": JUDGE_CASSETTE_FORMAT,
            "rubric": self.rubric.ref,
            "rubric_hash": self.rubric.hash,
            "judge_hash": self.judge.hash,
            "judge": self.judge.model_dump(mode="json"),
        }

    def prompt_of(self, trace: Trace, case: Case) -> RenderedPrompt | None:
        """The prompt of a trace the judge is asked about (None: the engine decides it without
        the judge: a skipped case, an agent error, a case the rubric does not apply to)."""
        registry = self.inputs.registry
        if not _needs_judge(self.unbound, trace, case, registry):
            return None
        return render_prompt(self.rubric, trace, case, registry)

    def path(self, prompt: RenderedPrompt, sample: int) -> str:
        # str(judge_cassette_path(...)), the rubric's folder computed once per run
        return os.path.join(self.rubric_dir, judge_cassette_name(prompt.hash, self.judge, sample))

    def labels(self, row: TraceToJudge) -> Iterator[tuple[str, str]]:
        """(label, cassette path) of every sample of a row: what record mode none checks."""
        trace = decode_trace(_body(row))
        prompt = self.prompt_of(trace, self.inputs.cases[row.case_key])
        if prompt is None:
            return
        for sample in range(self.judge.samples):
            yield _label(row, sample), self.path(prompt, sample)

    def item(self, row: TraceToJudge) -> _Item:
        trace = decode_trace(_body(row))
        case = self.inputs.cases[row.case_key]
        prompt = self.prompt_of(trace, case)
        jobs: list[JudgeJob] = []
        tier = self.unbound
        if prompt is not None:
            tier = self.base.bind(self.rubric, self.judge, JudgeCall(prompt, ()))
            for sample in range(self.judge.samples):
                path, body = judge_request_body(
                    self.provider,
                    self.judge,
                    prompt.system,
                    prompt.user,
                    prompt.reply_schema,
                    sample,
                )
                meta = {
                    **self.meta,
                    "prompt_hash": prompt.hash,
                    "sample": sample,
                    "path": path,
                    "case": row.case_key,
                    "repetition": row.repetition,
                }
                name = judge_cassette_name(prompt.hash, self.judge, sample)
                jobs.append(
                    JudgeJob(
                        os.path.join(self.rubric_dir, name),
                        body,
                        meta,
                        _label(row, sample),
                        os.path.join(self.relative_dir, name),
                    )
                )
        key = judgment_key(
            row.hash,
            self.case_hashes[row.case_key],
            self.registry_hash,
            MODEL_GRADED,
            self.rule_set_hash,
            ENGINE_VERSION,
            tier.judge_hash,
        )
        return _Item(row, trace, case, tier, jobs, key)


def _body(row: TraceToJudge) -> str:
    assert row.body is not None  # streamed with its body
    return row.body


def _label(row: TraceToJudge, sample: int) -> str:
    return f"case {row.case_key!r} (repetition {row.repetition}, sample {sample})"


def _rows(store: Store, inputs: JudgeInputs, page_size: int) -> Iterator[StreamedTrace]:
    # pages of a chunk's size: bodies of more rows than are judged at once are never held
    for row in store.traces.iter_trace_rows(inputs.run.id, page_size=page_size):
        if row.case_key in inputs.cases:
            yield row


def _missing_error(label: str, rubric: Rubric, more: int) -> InvalidInputError:
    tail = f" (and {more} more sample(s))" if more else ""
    return InvalidInputError(
        f"no recorded judge exchange for {label} under rubric {rubric.ref}{tail}: replay only "
        "(record mode none) stores nothing; record the missing exchanges with record mode "
        "new_episodes",
        field="judge_record",
    )


def _missing_in(
    planner: _Planner, items: list[_Item], rest: Iterator[list[StreamedTrace]]
) -> InvalidInputError | None:
    """Record mode ``none``: the error naming the first sample of ``items`` whose cassette is
    missing and counting every other missing one (the rest of the run's rows are planned again
    to count them: only on this failing path), or None when all of ``items``' exist."""
    missing = [job.label for item in items for job in item.jobs if not os.path.isfile(job.path)]
    if not missing:
        return None
    for chunk in rest:
        for row in chunk:
            missing.extend(label for label, path in planner.labels(row) if not os.path.isfile(path))
    return _missing_error(missing[0], planner.rubric, len(missing) - 1)


def judge_item(planner: _Planner, item: _Item) -> Judgment:
    """Judge one planned trace from its recorded judge exchanges (a missing one is an error)."""
    options = planner.options
    replies = []
    for job in item.jobs:
        reply = replay_judge_sample(job, options.judge.provider)
        if reply is None:
            raise _missing_error(job.label, options.rubric, 0)
        replies.append(JudgeReply(job.meta["sample"], reply.text, reply.cassette))
    tier = item.tier.with_replies(tuple(replies)) if item.jobs else item.tier
    inputs = planner.inputs
    return judge(
        item.trace,
        item.case,
        inputs.registry,
        tier,
        inputs.rule_set,
        trace_hash=item.row.hash,
        case_hash=planner.case_hashes[item.row.case_key],
        registry_hash=planner.registry_hash,
        rule_set_hash=planner.rule_set_hash,
    )


def rubric_file(root: Path, run: str, rubric_hash: str) -> Path:
    """Where a run's judge cassettes keep the rubric they were recorded under (so a rubric
    from a user's file can be checked by ``replay`` too)."""
    return judge_rubric_dir(root, run, rubric_hash) / "rubric.json"


def judge_run_model_graded(
    store: Store,
    run_ref: str | int,
    options: ModelGradedOptions,
    *,
    progress: Progress | None = None,
    total: Progress | None = None,
) -> JudgeSummary:
    """Judge every stored trace of a run under ``options.rubric`` by ``options.judge`` into a new
    evaluation (see the module docstring for the record modes). ``total`` is told the number
    of traces before the first is judged (a progress bar's length); ``progress`` each chunk's."""
    if options.record not in JUDGE_RECORD_MODES:
        raise InvalidInputError(
            f"judge record mode must be one of {', '.join(JUDGE_RECORD_MODES)}",
            field="judge_record",
        )
    if options.concurrency < 1:
        raise InvalidInputError("judge concurrency must be at least 1", field="judge_concurrency")
    rule_set = load_rule_set(DEFAULT_RULE_SET)
    inputs = resolve_inputs(store, run_ref, MODEL_GRADED, rule_set)
    planner = _Planner(inputs, options)
    if total is not None:
        total(store.traces.count_traces(inputs.run.id))
    if options.record == "none":
        # replay only: every sample's cassette must exist before anything is stored. One pass in
        # one transaction, so each trace is decoded and its prompt rendered once (a first pass
        # that only checked the cassettes did it all twice), and a missing cassette rolls back
        # whatever was written before it, the evaluation too
        with store.atomic():
            evaluation_id, summary, judged, written = _judge_all(store, inputs, planner, progress)
    else:
        evaluation_id, summary, judged, written = _judge_all(store, inputs, planner, progress)
    return JudgeSummary(
        evaluation=evaluation_id,
        run=inputs.run.name,
        tier=MODEL_GRADED,
        rules=options.rubric.ref,
        summary=summary,
        judged=judged,
        written=written,
        # the judge's verdicts are never shown without how far they can be trusted
        judge_calibration=evaluation_judge_calibration(store, evaluation_id),
    )


def _judge_all(
    store: Store, inputs: JudgeInputs, planner: _Planner, progress: Progress | None
) -> tuple[int, ReportSummary, int, int]:
    """Judge every trace into a new evaluation: (its id, summary, traces judged, new
    judgments)."""
    options = planner.options
    evaluation_id = store.evaluations.create_evaluation(
        run_id=inputs.run.id,
        tier=MODEL_GRADED,
        rule_set_id=inputs.rule_set_id,
        engine_version=ENGINE_VERSION,
    )
    builder = ReportBuilder(include_cases=False)
    judged = written = 0
    root = options.cassettes
    # live judging is slow (seconds a request): small chunks move the progress bar and store
    # judgments as they come (a rerun after a kill resumes from both cassettes and judgments)
    size = options.chunk_size
    if options.record != "none":
        size = min(size, max(8, 4 * options.concurrency))
    chunks = _chunked(_rows(store, inputs, size), size)
    for chunk in chunks:
        items = [planner.item(row) for row in chunk]
        if options.record == "none":
            missing = _missing_in(planner, items, chunks)
            if missing is not None:
                raise missing
        known = store.judgments.lookup_judgments([i.key for i in items])
        todo = [i for i in items if i.key not in known]
        if options.record != "none":
            to_record = [
                job
                for item in todo
                for job in item.jobs
                if options.record == "all" or not os.path.isfile(job.path)
            ]
            if to_record:
                target = rubric_file(root, inputs.run.name, options.rubric.hash)
                if not target.exists():
                    # atomically, as the cassettes beside it: a kill mid-write must not leave a
                    # half rubric that replay would then fail to read
                    write_atomic(target, options.rubric.model_dump_json(indent=2).encode())
            try:
                record_judge_jobs(
                    to_record,
                    options.judge.provider,
                    options.endpoint,
                    concurrency=options.concurrency,
                )
            except JudgeServerError as exc:
                raise JudgeServerError(
                    f"{exc}; the {written} judgment(s) and every judge exchange recorded "
                    "before are kept"
                ) from None
        fresh = []
        for item in todo:
            j = judge_item(planner, item)
            prepared = PreparedJudgment.of(j, item.key)
            fresh.append(
                (prepared, list(j.taxonomy), j.details.get("implicated_tools"), list(j.anomalies))
            )
        keys = [i.key for i in items]
        written += settle_chunk(store, evaluation_id, inputs, chunk, keys, known, fresh, builder)
        judged += len(chunk)
        if progress is not None:
            progress(len(chunk))
    summary = builder.report(harness_mode=inputs.run.harness_mode)
    inputs_hash = content_hash([inputs.inputs_hash, options.rubric.hash, options.judge.hash])
    store.evaluations.finish_evaluation(evaluation_id, summary=summary, inputs_hash=inputs_hash)
    return evaluation_id, summary, judged, written
