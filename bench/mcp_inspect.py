"""MCP executor overhead per call, and importing a 1,000-sample Inspect AI log.

1. MCP: the same FastMCP server (tests/mcp/notes_server.py), the same read-only call
   (``get_note``), N calls each way, interleaved in rounds in one process:
   - ``sdk``: the official SDK's ``ClientSession.call_tool`` on an open session;
   - ``executor``: rejudge's recording executor (``McpExecutor.call_tool``): the same call as a
     plain ``tools/call`` through the message-keeping relay, the exchange appended to a tape
     and the answer turned into the model's result.
   Over stdio and over streamable HTTP on loopback. The ratio is executor / sdk per call.
2. Inspect: a log of N samples (the shipped notes.json samples repeated with new ids) written
   as .json and as a zstd .eval (as Inspect writes it); samples/s for reading + parsing
   (``read_inspect_log`` + ``parse_inspect_samples``) and for the whole ``import inspect``
   into a fresh SQLite store.

    python bench/mcp_inspect.py                       # 300 calls per way, 1,000 samples
    python bench/mcp_inspect.py --calls 1000 --samples 1000 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "mcp" / "notes_server.py"
NOTES = ROOT / "tests" / "data" / "inspect" / "notes.json"


# --------------------------------------------------------------------------- MCP


async def _sdk_session(server: Any, stack: Any) -> Any:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if server.url is None:
        params = StdioServerParameters(command=server.command[0], args=list(server.command[1:]))
        read, write = await stack.enter_async_context(stdio_client(params))
    else:
        from mcp.client.streamable_http import streamable_http_client

        read, write, _ = await stack.enter_async_context(streamable_http_client(server.url))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def _mcp_rounds(server: Any, calls: int, rounds: int) -> dict[str, Any]:
    import contextlib

    from rejudge.recorder import McpExecutor, Tape

    per_call: dict[str, list[float]] = {"sdk": [], "executor": []}
    async with contextlib.AsyncExitStack() as stack:
        session = await _sdk_session(server, stack)
        executor = McpExecutor(server)
        tape = Tape()
        await executor.call_tool("get_note", {"note_id": "n1"}, tape)  # opens the session
        await session.call_tool("get_note", {"note_id": "n1"})
        try:
            for _ in range(rounds):
                start = time.perf_counter()
                for _ in range(calls):
                    await session.call_tool("get_note", {"note_id": "n1"})
                per_call["sdk"].append((time.perf_counter() - start) / calls)
                tape = Tape()
                start = time.perf_counter()
                for _ in range(calls):
                    await executor.call_tool("get_note", {"note_id": "n1"}, tape)
                per_call["executor"].append((time.perf_counter() - start) / calls)
                assert len(tape.interactions) == calls
        finally:
            await executor.aclose()
    sdk = statistics.median(per_call["sdk"])
    ours = statistics.median(per_call["executor"])
    return {"sdk_ms": sdk * 1e3, "executor_ms": ours * 1e3, "ratio": ours / sdk}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bench_mcp(calls: int, rounds: int) -> dict[str, Any]:
    from rejudge.recorder import McpServer

    out = {
        "stdio": asyncio.run(
            _mcp_rounds(McpServer(command=(sys.executable, str(SERVER))), calls, rounds)
        )
    }
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"
        out["streamable-http"] = asyncio.run(_mcp_rounds(McpServer(url=url), calls, rounds))
    finally:
        process.terminate()
        process.wait(timeout=10)
    return out


# --------------------------------------------------------------------------- Inspect


def _big_log(samples: int, folder: Path) -> tuple[Path, Path]:
    data = json.loads(NOTES.read_text())
    base = data["samples"]
    grown = []
    for i in range(samples):
        sample = json.loads(json.dumps(base[i % len(base)]))
        sample["id"] = f"{sample['id']}-{i:05d}"
        grown.append(sample)
    data["samples"] = grown
    as_json = folder / "big.json"
    as_json.write_text(json.dumps(data))
    header = {k: v for k, v in data.items() if k != "samples"}
    as_eval = folder / "big.eval"
    import zipfile_zstd  # noqa: F401  (zstd entries, as Inspect writes them)

    with zipfile.ZipFile(as_eval, "w", compression=zipfile.ZIP_ZSTANDARD) as archive:
        for sample in grown:
            archive.writestr(f"samples/{sample['id']}_epoch_1.json", json.dumps(sample))
        archive.writestr("header.json", json.dumps(header))
    return as_json, as_eval


def bench_inspect(samples: int) -> dict[str, Any]:
    from rejudge.store import Store

    from rejudge.importers import parse_inspect_samples, read_inspect_log
    from rejudge.services import import_inspect

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for path in _big_log(samples, folder):
            start = time.perf_counter()
            log = read_inspect_log(path)
            parsed = parse_inspect_samples(log.header, log.samples(), source=str(path))
            parse_s = time.perf_counter() - start
            assert len(parsed.traces) == samples
            store = Store.open(f"sqlite:///{folder / (path.suffix[1:] + '.db')}")
            start = time.perf_counter()
            result = import_inspect(path, store)
            import_s = time.perf_counter() - start
            store.close()
            assert result.inserted == samples
            out[path.suffix[1:]] = {
                "bytes": path.stat().st_size,
                "read_parse_samples_per_s": samples / parse_s,
                "import_samples_per_s": samples / import_s,
                "import_s": import_s,
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per way per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {"mcp": bench_mcp(args.calls, args.rounds), "inspect": bench_inspect(args.samples)}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for transport, r in results["mcp"].items():
        print(
            f"mcp {transport:16s} sdk {r['sdk_ms']:.3f} ms/call  executor {r['executor_ms']:.3f} "
            f"ms/call  ratio {r['ratio']:.2f}"
        )
    for fmt, r in results["inspect"].items():
        print(
            f"inspect .{fmt:5s} {args.samples} samples ({r['bytes'] / 1e6:.1f} MB): read+parse "
            f"{r['read_parse_samples_per_s']:.0f} samples/s, import {r['import_samples_per_s']:.0f} "
            "samples/s"
        )


if __name__ == "__main__":
    main()
