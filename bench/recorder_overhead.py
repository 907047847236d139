"""Recorder benchmarks, reported as ratios measured in one run.

1. Overhead per exchange: the full recorder (agent loop + tape capture + normalize + scrubbed
   atomic cassette write + transactional store write) against plain httpx POSTs of the same
   request to the same loopback server. Measured against a zero-latency server (worst case: the
   recorder's fixed costs against almost nothing) and a 50 ms server (a fast real model).
2. Throughput at concurrency 1, 4, 16 against a loopback server that answers after 50 ms.
3. Replay wall time of the 72-case retail suite recorded against a loopback oracle model.

    python bench/recorder_overhead.py [--exchanges 200] [--cases 128] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import suites  # noqa: E402
from recorder.record import record_suite_async  # noqa: E402
from recorder.replay import replay_run  # noqa: E402
from store.repository import Store  # noqa: E402
from store.schemas import Case, Golden, RunConfig  # noqa: E402
from suites.case_format import SuiteSource  # noqa: E402

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


class Server:
    def __init__(self, delay_s: float = 0.0, answer: Any = None) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
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

    from store.schemas import ToolRegistry, ToolSpec
    from suites.domain import ToolResult, register_domain

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
) -> float:
    store = Store.open(f"sqlite:///{workdir / (name + '.db')}")
    config = RunConfig(model="bench", provider="local", base_url=url, concurrency=concurrency)
    marks: list[float] = []

    def progress(state: Any) -> None:
        # the first call comes once the run is set up: time the traces, not the setup
        marks.append(time.perf_counter())

    summary = await record_suite_async(
        store, suite, config, workdir / "cassettes", run_name=name, progress=progress
    )
    elapsed = marks[-1] - marks[0]
    assert summary.recorded == len(suite.cases), summary.progress
    store.close()
    return elapsed


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exchanges", type=int, default=200)
    parser.add_argument("--cases", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    _register_domain()
    workdir = Path(tempfile.mkdtemp(prefix="rejudge-bench-"))
    try:
        suite = bench_suite(max(args.exchanges, args.cases))
        body = _request_body(suite)
        print(f"# recorder overhead per exchange ({args.exchanges} exchanges, concurrency 1)")
        for delay in (0.0, 0.05):
            n = args.exchanges if delay == 0 else min(args.exchanges, 40)
            sub = SuiteSource(
                name="bench",
                domain="bench",
                format_version=1,
                registry=suite.registry,
                cases=suite.cases[:n],
            )
            plain_runs, rec_runs = [], []
            with Server(delay) as server:
                # alternate the two, several times, and keep the medians: the machine is shared
                for attempt in range(args.rounds):
                    plain_runs.append(asyncio.run(plain_httpx(server.url, n, body)))
                    rec_runs.append(
                        asyncio.run(
                            recorder_run(
                                server.url,
                                sub,
                                1,
                                workdir,
                                f"overhead-{int(delay * 1000)}-{attempt}",
                            )
                        )
                    )
            plain, rec = statistics.median(plain_runs), statistics.median(rec_runs)
            print(
                f"server latency {delay * 1000:.0f} ms: plain httpx {plain / n * 1000:.2f} ms/exchange, "
                f"recorder {rec / n * 1000:.2f} ms/exchange, ratio {rec / plain:.2f}x "
                f"(medians of {args.rounds})"
            )

        print(f"\n# throughput against a 50 ms server ({args.cases} one-exchange traces)")
        base = None
        tsuite = SuiteSource(
            name="bench",
            domain="bench",
            format_version=1,
            registry=suite.registry,
            cases=suite.cases[: args.cases],
        )
        with Server(0.05) as server:
            for concurrency in (1, 4, 16):
                cpu = time.process_time()
                elapsed = asyncio.run(
                    recorder_run(server.url, tsuite, concurrency, workdir, f"tp-{concurrency}")
                )
                cpu_ms = (time.process_time() - cpu) / args.cases * 1000
                rate = args.cases / elapsed
                base = base or rate
                print(
                    f"concurrency {concurrency:>2}: {rate:7.1f} traces/s ({rate / base:.1f}x "
                    f"concurrency 1); process CPU {cpu_ms:.1f} ms/trace (recorder + server threads)"
                )

        print("\n# replay of the retail suite (72 cases, recorded against a loopback oracle model)")
        retail = suites.load_suite("retail")
        RETAIL_BY_INSTRUCTION.update({c.instruction: c for c in retail.cases})
        store = Store.open(f"sqlite:///{workdir / 'retail.db'}")
        with Server(0.0, retail_oracle) as server:
            config = RunConfig(model="oracle", provider="local", base_url=server.url, concurrency=8)
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
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
