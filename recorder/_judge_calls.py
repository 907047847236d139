"""The model judge's exchanges as cassettes: one request and its reply per sample, recorded
through the recorder's own transport (scrubbed as it arrives, written atomically) and replayed
by a lookup.

A judge cassette's path is computed from what was asked, never searched for::

    <cassettes>/<run>/judge/<rubric hash>/<prompt hash>__<judge label>__s<k>.json

(vcrpy's JSON serializer: replay reads one per sample, and JSON reads about 10x faster than
YAML)

so replay is one file read per sample, and a cassette recorded under another rubric (another
directory) is never even opened for this one. The file's ``rejudge`` block names the rubric,
prompt and judge hashes, and the recorded request must match the request that would be sent
now (method, path and JSON body, as replay matches any exchange): both are checked before a
reply is used.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from rejudge.recorder._cassettes import (
    CassetteError,
    Exchange,
    exchanges_from_interactions,
    parse_cassette_parts,
    write_cassette,
)
from rejudge.recorder._http import ProviderCallError, RecorderError, RetryPolicy, send_with_retries
from rejudge.recorder._tape import TAPE_EXTENSION, Tape, TapeTransport, differing_fields
from rejudge.recorder.providers import (
    Conversation,
    OpenAIChatProvider,
    Provider,
    RequestOptions,
    SystemMessage,
    UserMessage,
    get_provider,
)

from rejudge.model import JudgeModel

__all__ = [
    "JUDGE_CASSETTE_FORMAT",
    "JUDGE_DIR",
    "JudgeEndpoint",
    "JudgeJob",
    "JudgeMissError",
    "JudgeServerError",
    "RecordedReply",
    "judge_cassette_name",
    "judge_cassette_path",
    "judge_rubric_dir",
    "judge_run_dir",
    "judge_request_body",
    "record_judge_jobs",
    "replay_judge_sample",
]

#: 1: one sample's exchange(s), the last one the answer; meta: kind, rubric, hashes, sample
JUDGE_CASSETTE_FORMAT = 1
JUDGE_DIR = "judge"


class JudgeMissError(RecorderError):
    """No recorded judge exchange answers this request (or the one found was recorded for
    other inputs); the message says which."""


class JudgeServerError(RecorderError):
    """The judge server could not be reached or gave up answering (after retries)."""


@dataclass(frozen=True)
class RecordedReply:
    """One sample's reply as recorded: the judge's text (None when the body held none), and
    the cassette it came from, relative to the cassette root."""

    text: str | None
    cassette: str


@dataclass(frozen=True)
class JudgeEndpoint:
    """Where live judge calls go (never part of a judgment's key)."""

    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 120.0
    retry: RetryPolicy = RetryPolicy()


@dataclass(frozen=True)
class JudgeJob:
    """One sample to fetch: the request body and the cassette it is recorded in.

    ``path`` is text, not a :class:`~pathlib.Path`: pathlib interns every part of a path it
    parses (``sys.intern``), and a run has one cassette name a trace, so a Path a trace churned
    the interpreter's table of interned strings, which is rebuilt (megabytes, the size of
    everything interned in the process) whenever enough names have come and gone, i.e. in
    the middle of some later judging (bench/README.md, "Re-judging a recorded model-graded
    evaluation")."""

    path: str
    body: dict[str, Any]
    meta: dict[str, Any]
    label: str
    #: ``path`` relative to the cassette root, as a judgment names its cassette (the root's
    #: part made once per run: a Path a trace, even of the folder alone, interned its parts
    #: afresh whenever the last Path holding them had gone)
    cassette: str = ""


def _hex(hash_text: str, n: int) -> str:
    return hash_text.split(":", 1)[-1][:n]


def judge_run_dir(root: Path | str, run: str) -> Path:
    """The folder of a run's judge cassettes (one folder a rubric below it)."""
    return Path(root) / re.sub(r"[^A-Za-z0-9._-]", "_", run) / JUDGE_DIR


def judge_rubric_dir(root: Path | str, run: str, rubric_hash: str) -> Path:
    """The folder of a run's judge cassettes under one rubric."""
    return judge_run_dir(root, run) / _hex(rubric_hash, 16)


def judge_cassette_name(prompt_hash: str, judge: JudgeModel, sample: int) -> str:
    """One sample's cassette file name in its rubric's folder."""
    return f"{_hex(prompt_hash, 24)}__{judge.label}__s{sample}.json"


def judge_cassette_path(
    root: Path | str, run: str, rubric_hash: str, prompt_hash: str, judge: JudgeModel, sample: int
) -> Path:
    return judge_rubric_dir(root, run, rubric_hash) / judge_cassette_name(
        prompt_hash, judge, sample
    )


def judge_request_body(
    provider: Provider,
    judge: JudgeModel,
    system: str,
    user: str,
    reply_schema: dict[str, Any],
    sample: int,
) -> tuple[str, dict[str, Any]]:
    """(path below the base URL, JSON body) of one sample's request. Samples differ by seed
    (``seed + k``), so each is its own exchange; an OpenAI-compatible server is asked to
    constrain its reply to the schema (llama-server turns it into a grammar)."""
    messages: list[SystemMessage | UserMessage] = [SystemMessage(system)] if system else []
    messages.append(UserMessage(user))
    options = RequestOptions(
        model=judge.model,
        temperature=judge.temperature,
        seed=None if judge.seed is None else judge.seed + sample,
        max_tokens=judge.max_tokens,
        tool_choice=None,
    )
    wire = provider.build(Conversation(list(messages)), [], options)
    body = dict(wire.body)
    if judge.constrained and isinstance(provider, OpenAIChatProvider):
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "judgment", "strict": True, "schema": reply_schema},
        }
    return wire.path, body


def _reply_text(provider: Provider, exchange_body: Any) -> str | None:
    import json

    data = exchange_body
    raw = json.dumps(data).encode("utf-8") if not isinstance(data, (bytes, str)) else data
    turn = provider.parse(raw if isinstance(raw, bytes) else raw.encode("utf-8"), stream=False)
    return turn.text


@dataclass(frozen=True)
class _JudgeCassette:
    """What a judge replay reads of its cassette (a CassetteFile but for its Path)."""

    interactions: list[dict[str, Any]]
    meta: dict[str, Any]
    exchanges: list[Exchange]


def _read_judge_cassette(path: str) -> _JudgeCassette | None:
    """:func:`read_cassette` of a judge cassette, None when it does not exist. No Path is made
    of it (see :class:`JudgeJob`); the errors are read_cassette's, word for word."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        if not os.path.exists(path):
            return None
        problem = f"{path}: cannot read: {exc.strerror or exc}"
        raise JudgeMissError(f"judge cassette {path} cannot be read: {problem}") from None
    try:
        interactions, meta, _sha256 = parse_cassette_parts(data, path)
        exchanges = exchanges_from_interactions(interactions, path)
    except CassetteError as exc:
        raise JudgeMissError(f"judge cassette {path} cannot be read: {exc}") from None
    return _JudgeCassette(interactions, meta, exchanges)


def replay_judge_sample(job: JudgeJob, provider_name: str) -> RecordedReply | None:
    """The recorded reply of ``job``, or None when its cassette does not exist. A cassette that
    exists but was recorded for other inputs, or answers another request, is a
    :class:`JudgeMissError` (it is never used)."""
    cassette = _read_judge_cassette(job.path)
    if cassette is None:
        return None
    for key in ("rubric_hash", "prompt_hash", "judge_hash", "sample"):
        if cassette.meta.get(key) != job.meta[key]:
            raise JudgeMissError(
                f"judge cassette {job.path} was recorded for another {key.replace('_', ' ')} "
                f"({cassette.meta.get(key)!r}, wanted {job.meta[key]!r}): it is not replayed"
            )
    if not cassette.exchanges:
        raise JudgeMissError(f"judge cassette {job.path} holds no exchange")
    answer = cassette.interactions[-1]
    # the base URL is where a server listened, not part of what was asked: the recorded URI's
    # path must end with the endpoint's path, and the method and JSON body must match (the
    # bytes sent are the bytes recorded, so equal text matches without a field-by-field diff)
    request = answer["request"]
    recorded_uri = str(request.get("uri", ""))
    sent = _dumps(job.body)
    diff: list[str] = []
    if request.get("body") != sent or str(request.get("method", "")).upper() != "POST":
        diff = differing_fields({"method": "POST", "uri": recorded_uri, "body": sent}, request)
    if not urlsplit(recorded_uri).path.endswith(str(job.meta["path"])):
        diff.insert(0, "path")
    if diff:
        raise JudgeMissError(
            f"judge cassette {job.path} answers another request (differs in "
            f"{', '.join(diff[:5])}): it is not replayed"
        )
    exchange = cassette.exchanges[-1]
    if exchange.status is None or not 200 <= exchange.status < 300:
        return RecordedReply(text=None, cassette=job.cassette)
    return RecordedReply(
        _reply_text(get_provider(provider_name), exchange.response_body), job.cassette
    )


def _dumps(body: dict[str, Any]) -> str:
    import json

    return json.dumps(body, ensure_ascii=False)


async def _record_all(
    jobs: Sequence[JudgeJob],
    provider: Provider,
    endpoint: JudgeEndpoint,
    path_part: str,
    concurrency: int,
    done: Callable[[JudgeJob], None],
) -> None:
    url = provider.url(endpoint.base_url, path_part)
    headers = {"content-type": "application/json", **provider.auth_headers(endpoint.api_key)}
    transport = TapeTransport(httpx.AsyncHTTPTransport())
    async with httpx.AsyncClient(transport=transport, timeout=endpoint.timeout_s) as client:
        queue: asyncio.Queue[JudgeJob] = asyncio.Queue()
        for job in jobs:
            queue.put_nowait(job)

        async def one(job: JudgeJob) -> None:
            tape = Tape()

            def build() -> httpx.Request:
                return client.build_request(
                    "POST",
                    url,
                    content=_dumps(job.body).encode("utf-8"),
                    headers=headers,
                    extensions={TAPE_EXTENSION: tape},
                )

            try:
                await send_with_retries(client, build, policy=endpoint.retry)
            except ProviderCallError as exc:
                if exc.kind in ("connection_error", "timeout") or exc.status_code is None:
                    raise JudgeServerError(
                        f"the judge server at {url} is not answering ({exc.message})"
                    ) from None
                raise JudgeServerError(
                    f"the judge server at {url} gave up: {exc.message}"
                ) from None
            # the sample's exchanges (retried ones first), scrubbed, written whole or not at all
            write_cassette(job.path, tape.interactions, {**job.meta, "kind": "judge"}, as_json=True)
            done(job)

        async def worker() -> None:
            while True:
                try:
                    job = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                await one(job)

        await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(jobs))))))


def record_judge_jobs(
    jobs: Sequence[JudgeJob],
    provider_name: str,
    endpoint: JudgeEndpoint,
    *,
    concurrency: int = 1,
    done: Callable[[JudgeJob], None] = lambda job: None,
) -> None:
    """Send every job's request (``concurrency`` at a time, retried with backoff honouring
    Retry-After) and write each sample's cassette as soon as it is answered: a killed batch
    keeps every sample answered before it. Raises :class:`JudgeServerError` naming the URL."""
    if not jobs:
        return
    provider = get_provider(provider_name)
    path_part = jobs[0].meta["path"]
    asyncio.run(_record_all(jobs, provider, endpoint, path_part, concurrency, done))
