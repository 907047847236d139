"""Recorder benchmarks, reported as ratios measured in one run.

1. Overhead per exchange: the full recorder (agent loop + tape capture + normalize + scrubbed
   atomic cassette write + transactional store write) against plain httpx POSTs of the same
   request to the same loopback server. Measured against a zero-latency server (worst case: the
   recorder's fixed costs against almost nothing) and a 50 ms server (a fast real model).
2. Throughput at concurrency 1, 4, 16 against a loopback server that answers after 50 ms, each
   measurement in a fresh process; optionally also with the server's threads inside the
   recorder's process (how this bench measured before) and for the code of another git commit,
   alternating, so "before" and "after" come from the same run.
3. Replay wall time of the 72-case retail suite recorded against a loopback oracle model.
4. Pool: httpcore's connection-pool scans, connections walked and idle-socket probes per
   request at concurrency 16 (counted, so free of the machine's noise).
5. Emit: CPU to re-serialize every shipped cassette, each checked byte-identical to its file.

The loopback servers run in their own process, as a real model does: threads of an in-process
server would take the recorder's GIL and be billed as its CPU.

    python bench/recorder_overhead.py [--exchanges 200] [--cases 128] [--rounds 3]
        [--sections overhead,throughput,replay,pool,emit] [--also-in-process] [--baseline GIT_REF]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
# a child measuring another commit's recorder imports that tree's packages instead
CODE_ROOT = Path(os.environ.get("REJUDGE_BENCH_CODE") or ROOT)
sys.path.insert(0, str(CODE_ROOT))

from rejudge.store import Store  # noqa: E402
from rejudge.suites import SuiteSource  # noqa: E402

from rejudge import suites  # noqa: E402
from rejudge.model import Case, Golden, RunConfig  # noqa: E402
from rejudge.services import (  # noqa: E402
    record_suite_async,
    replay_run,
)

FINAL = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "bench",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # one write per response and no Nagle delay: otherwise every exchange waits ~40 ms for an ACK
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, *args: Any) -> None:
        return

    def do_POST(self) -> None:  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        delay = self.server.delay_s  # type: ignore[attr-defined]
        if delay:
            time.sleep(delay)
        payload = self.server.answer(raw)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # 16 workers connect at once; socketserver's default backlog of 5 drops the other SYNs,
    # which the kernel retries only after a second (real model servers listen with ~2048)
    request_queue_size = 128


class Server:
    def __init__(self, delay_s: float = 0.0, answer: Any = None) -> None:
        self.httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.delay_s = delay_s  # type: ignore[attr-defined]
        self.httpd.answer = answer or (lambda raw: FINAL)  # type: ignore[attr-defined]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextlib.contextmanager
def server_process(delay_s: float, oracle: bool = False) -> Iterator[str]:
    """A loopback model server in a process of its own; yields its base URL."""
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", str(delay_s)]
    if oracle:
        command.append("--oracle")
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        if not url.startswith("http://"):
            raise RuntimeError(f"bench server did not start (said {url!r})")
        yield url
    finally:
        child.terminate()
        child.wait(timeout=10)


def serve(delay_s: float, oracle: bool) -> None:
    """The server process: print the URL, answer until terminated."""
    answer = None
    if oracle:
        RETAIL_BY_INSTRUCTION.update({c.instruction: c for c in suites.load_suite("retail").cases})
        answer = retail_oracle
    server = Server(delay_s, answer)
    print(server.url, flush=True)
    server.httpd.serve_forever(poll_interval=0.05)


def bench_suite(n: int) -> SuiteSource:
    from recorder_bench_domain import REGISTRY  # type: ignore[import-not-found]

    cases = tuple(
        Case(
            id=f"b{i:04d}",
            dimension="D1",
            category="bench",
            instruction=f"task {i}",
            golden=Golden(),
        )
        for i in range(n)
    )
    return SuiteSource(
        name="bench", domain="bench", format_version=1, registry=REGISTRY, cases=cases
    )


def _register_domain() -> None:
    """A one-tool domain so the bench depends on no shipped suite."""
    import types

    from rejudge.suites import ToolResult, register_domain

    from rejudge.model import ToolRegistry, ToolSpec

    registry = ToolRegistry(
        domain="bench", tools=[ToolSpec(name="noop", description="does nothing")]
    )

    class Box:
        def execute(self, name: str, arguments: dict[str, Any]) -> ToolResult:
            return ToolResult(ok=True, result={})

    class Domain:
        name = "bench"

        def registry(self) -> ToolRegistry:
            return registry

        def new_sandbox(self, case_metadata: Any = None) -> Box:
            return Box()

    register_domain("bench", Domain)
    module = types.ModuleType("recorder_bench_domain")
    module.REGISTRY = registry  # type: ignore[attr-defined]
    sys.modules["recorder_bench_domain"] = module


async def plain_httpx(url: str, n: int, body: bytes) -> float:
    async with httpx.AsyncClient() as client:
        await client.post(f"{url}/chat/completions", content=body)  # warm the connection
        started = time.perf_counter()
        for _ in range(n):
            response = await client.post(
                f"{url}/chat/completions",
                content=body,
                headers={"content-type": "application/json"},
            )
            response.json()
        return time.perf_counter() - started


def _request_body(suite: SuiteSource) -> bytes:
    return json.dumps(
        {
            "model": "bench",
            "messages": [{"role": "user", "content": "task 0"}],
            "tools": suite.registry.openai_tools(),
            "tool_choice": "auto",
            "temperature": 0.0,
        }
    ).encode()


async def recorder_run(
    url: str, suite: SuiteSource, concurrency: int, workdir: Path, name: str
) -> tuple[float, float]:
    """Wall and process CPU seconds from the first trace to the last (setup excluded)."""
    store = Store.open(f"sqlite:///{workdir / (name + '.db')}")
    config = RunConfig(model="bench", provider="local", base_url=url, concurrency=concurrency)
    marks: list[tuple[float, float]] = []

    def progress(state: Any) -> None:
        # the first call comes once the run is set up: time the traces, not the setup
        marks.append((time.perf_counter(), time.process_time()))

    summary = await record_suite_async(
        store, suite, config, workdir / "cassettes", run_name=name, progress=progress
    )
    elapsed, cpu = (marks[-1][0] - marks[0][0]), (marks[-1][1] - marks[0][1])
    assert summary.recorded == len(suite.cases), summary.progress
    store.close()
    return elapsed, cpu


def retail_oracle(raw: bytes) -> bytes:
    body = json.loads(raw)
    instruction = next(m["content"] for m in body["messages"] if m["role"] == "user")
    case = RETAIL_BY_INSTRUCTION[instruction]
    calls = [c for c in case.golden.calls for _ in range(c.count)]
    rnd = sum(1 for m in body["messages"] if m["role"] == "assistant")
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if rnd < len(calls) else "Done.",
    }
    if rnd < len(calls):
        message["tool_calls"] = [
            {
                "id": f"call_{rnd}",
                "type": "function",
                "function": {"name": calls[rnd].tool, "arguments": json.dumps(calls[rnd].params)},
            }
        ]
    return json.dumps(
        {
            "id": "x",
            "model": "oracle",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    ).encode()


RETAIL_BY_INSTRUCTION: dict[str, Case] = {}


def _sub_suite(suite: SuiteSource, n: int) -> SuiteSource:
    return SuiteSource(
        name="bench",
        domain="bench",
        format_version=1,
        registry=suite.registry,
        cases=suite.cases[:n],
    )


def overhead(args: argparse.Namespace, suite: SuiteSource, workdir: Path) -> None:
    body = _request_body(suite)
    print(f"# recorder overhead per exchange ({args.exchanges} exchanges, concurrency 1)")
    for delay in (0.0, 0.05):
        n = args.exchanges if delay == 0 else min(args.exchanges, 40)
        sub = _sub_suite(suite, n)
        plain_runs, rec_runs = [], []
        with server_process(delay) as url:
            # alternate the two, several times, and keep the medians: the machine is shared
            for attempt in range(args.rounds):
                plain_runs.append(asyncio.run(plain_httpx(url, n, body)))
                wall, _cpu = asyncio.run(
                    recorder_run(url, sub, 1, workdir, f"overhead-{int(delay * 1000)}-{attempt}")
                )
                rec_runs.append(wall)
        plain, rec = statistics.median(plain_runs), statistics.median(rec_runs)
        print(
            f"server latency {delay * 1000:.0f} ms: plain httpx {plain / n * 1000:.2f} ms/exchange, "
            f"recorder {rec / n * 1000:.2f} ms/exchange, ratio {rec / plain:.2f}x "
            f"(medians of {args.rounds})"
        )


def throughput_child(args: argparse.Namespace) -> None:
    """One throughput measurement in this fresh process; prints wall and CPU as JSON."""
    _register_domain()
    suite = bench_suite(args.cases)
    workdir = Path(tempfile.mkdtemp(prefix="rejudge-bench-"))
    try:
        with contextlib.ExitStack() as stack:
            if args.url == "in-process":
                url = stack.enter_context(Server(0.05)).url
            else:
                url = args.url
            # a few traces first: lazy imports and the first connections are not throughput
            asyncio.run(recorder_run(url, _sub_suite(suite, 8), 4, workdir, "warm"))
            wall, cpu = asyncio.run(recorder_run(url, suite, args.concurrency, workdir, "tp"))
        print(json.dumps({"wall": wall, "cpu": cpu}))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _measure(code_root: Path, url: str, concurrency: int, cases: int) -> tuple[float, float]:
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--throughput-child",
        url,
        "--concurrency",
        str(concurrency),
        "--cases",
        str(cases),
    ]
    env = {**os.environ, "REJUDGE_BENCH_CODE": str(code_root)}
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return cases / result["wall"], result["cpu"] / cases * 1000


def _tree_at(ref: str, workdir: Path) -> Path:
    """The repository's files at ``ref``, extracted (the checkout itself is left alone)."""
    target = workdir / f"tree-{ref.replace('/', '_')}"
    target.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def throughput(args: argparse.Namespace, workdir: Path) -> None:
    print(
        f"\n# throughput against a 50 ms server ({args.cases} one-exchange traces; medians of "
        f"{args.rounds}, each measurement in a fresh process, settings alternating)"
    )
    settings: list[tuple[str, Path, bool]] = [("this tree, server in its own process", ROOT, False)]
    if args.also_in_process:
        settings.append(("this tree, server threads in the recorder's process", ROOT, True))
    if args.baseline:
        tree = _tree_at(args.baseline, workdir)
        settings.append((f"{args.baseline}, server in its own process", tree, False))
    levels = (1, 4, 16)
    results: dict[tuple[int, int], list[tuple[float, float]]] = {}
    with server_process(0.05) as url:
        for _ in range(args.rounds):
            for index, (_label, root, in_process) in enumerate(settings):
                for concurrency in levels:
                    where = "in-process" if in_process else url
                    results.setdefault((index, concurrency), []).append(
                        _measure(root, where, concurrency, args.cases)
                    )
    for index, (label, _root, _in_process) in enumerate(settings):
        print(f"{label}:")
        base = statistics.median(rate for rate, _ in results[(index, 1)])
        for concurrency in levels:
            runs = results[(index, concurrency)]
            rate = statistics.median(r for r, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            spread = ", ".join(f"{r:.0f}" for r, _ in runs)
            print(
                f"  concurrency {concurrency:>2}: {rate:6.1f} traces/s ({rate / base:4.1f}x "
                f"concurrency 1; runs {spread}); process CPU {cpu:.2f} ms/trace"
            )


def replay(workdir: Path) -> None:
    print("\n# replay of the retail suite (72 cases, recorded against a loopback oracle model)")
    retail = suites.load_suite("retail")
    store = Store.open(f"sqlite:///{workdir / 'retail.db'}")
    with server_process(0.0, oracle=True) as url:
        config = RunConfig(model="oracle", provider="local", base_url=url, concurrency=8)
        started = time.perf_counter()
        asyncio.run(
            record_suite_async(store, retail, config, workdir / "cassettes", run_name="retail")
        )
        recorded = time.perf_counter() - started
    started = time.perf_counter()
    report = replay_run(store, "retail", workdir / "cassettes")
    replayed = time.perf_counter() - started
    exchanges = sum(1 for _ in (workdir / "cassettes" / "retail").glob("*.yaml"))
    print(
        f"recorded {exchanges} traces in {recorded:.2f}s; replay (network blocked, hashes "
        f"checked) {replayed:.2f}s, {report.matched}/{report.traces} matched"
    )
    store.close()


def pool(args: argparse.Namespace, workdir: Path) -> None:
    """httpcore pool work per request at 16 in flight, counted by wrapping two of its methods.

    Deterministic where the wall and CPU figures are not: every scan walks the pool's
    connections, and each idle one costs a readability probe of its socket (several syscalls).
    """
    import httpcore._async.connection_pool as pool_module
    import httpcore._async.http11 as http11

    counts = {"scans": 0, "connections": 0, "idle probes": 0}
    scan = pool_module.AsyncConnectionPool._assign_requests_to_connections
    expired = http11.AsyncHTTP11Connection.has_expired

    def counted_scan(self: Any) -> Any:
        counts["scans"] += 1
        counts["connections"] += len(self._connections)
        return scan(self)

    def counted_expired(self: Any) -> bool:
        counts["idle probes"] += self._state == http11.HTTPConnectionState.IDLE
        return expired(self)

    n = args.cases
    with server_process(0.05) as url:
        asyncio.run(recorder_run(url, bench_suite(8), 4, workdir, "pool-warm"))
        pool_module.AsyncConnectionPool._assign_requests_to_connections = counted_scan  # type: ignore[method-assign]
        http11.AsyncHTTP11Connection.has_expired = counted_expired  # type: ignore[method-assign]
        try:
            asyncio.run(recorder_run(url, bench_suite(n), 16, workdir, "pool"))
        finally:
            pool_module.AsyncConnectionPool._assign_requests_to_connections = scan  # type: ignore[method-assign]
            http11.AsyncHTTP11Connection.has_expired = expired  # type: ignore[method-assign]
    per = ", ".join(f"{value / n:.1f} {name}" for name, value in counts.items())
    print(f"\n# connection pool work per request at concurrency 16 ({n} traces): {per}")


def emit() -> None:
    """CPU to re-serialize every shipped cassette; each must come out byte-identical."""
    from rejudge.recorder import read_cassette, serialize_cassette

    files = sorted((ROOT / "cassettes").glob("*/*.yaml"))
    loaded = [read_cassette(path) for path in files]
    started = time.process_time()
    same = sum(serialize_cassette(c.interactions, c.meta) == c.path.read_bytes() for c in loaded)
    cpu = time.process_time() - started
    size = sum(path.stat().st_size for path in files) / max(1, len(files))
    print(
        f"\n# cassette emit: {len(files)} shipped cassettes (mean {size / 1024:.0f} KB), "
        f"{cpu / max(1, len(files)) * 1000:.2f} ms CPU each; {same}/{len(files)} byte-identical"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--exchanges", type=int, default=200)
    parser.add_argument("--cases", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sections", default="overhead,throughput,replay,pool,emit")
    parser.add_argument(
        "--also-in-process",
        action="store_true",
        help="throughput also with the server's threads in the recorder's process",
    )
    parser.add_argument(
        "--baseline", metavar="GIT_REF", help="throughput also for the recorder at this commit"
    )
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--oracle", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--throughput-child", dest="url", help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.oracle)
        return
    if args.url is not None:
        throughput_child(args)
        return
    sections = set(args.sections.split(","))
    _register_domain()
    workdir = Path(tempfile.mkdtemp(prefix="rejudge-bench-"))
    try:
        if "overhead" in sections:
            overhead(args, bench_suite(args.exchanges), workdir)
        if "throughput" in sections:
            throughput(args, workdir)
        if "replay" in sections:
            replay(workdir)
        if "pool" in sections:
            pool(args, workdir)
        if "emit" in sections:
            emit()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
