"""An imported cassette's copy obeys rejudge's secrecy rule (issue 16, item 9; DESIGN §5): the
copy goes through the recording's scrubber, the store holds none of the secrets, the source is
never touched, and the copy re-derives to the same traces."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import yaml
from click.testing import CliRunner
from rejudge.recorder import SECRET_REQUEST_HEADERS, SECRET_RESPONSE_HEADERS
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.model import hash_bytes

KEY = "sk-proj-Abcdefghijklmnop0123456789XYZ"
REQUEST_SECRETS = {
    "authorization": f"Bearer {KEY}",
    "x-api-key": "xak-secret-value-1",
    "api-key": "azure-secret-value-2",
    "cookie": "session=cookie-secret-value-3",
    "openai-organization": "org-secret-value-4",
    "openai-project": "proj_secret-value-5",
    "proxy-authorization": "Basic proxy-secret-value-6",
    "x-goog-api-key": "AIza-secret-value-7",
}
RESPONSE_SECRETS = {
    "set-cookie": "__cf_bm=setcookie-secret-value-8; path=/",
    "openai-organization": "org-secret-value-9",
    "openai-project": "proj_secret-value-10",
}
SECRETS = [KEY, *REQUEST_SECRETS.values(), *RESPONSE_SECRETS.values()]


def _cassette(arguments: str = '{"city": "Paris"}') -> bytes:
    request = {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "user", "content": f"my key is {KEY}, what is the weather in Paris?"}
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
    }
    response = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": arguments},
                        }
                    ],
                },
            }
        ],
    }
    interaction = {
        "request": {
            "method": "POST",
            "uri": "https://api.openai.com/v1/chat/completions",
            "body": json.dumps(request),
            "headers": {
                "content-type": ["application/json"],
                **{k.title(): [v] for k, v in REQUEST_SECRETS.items()},
            },
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {
                "content-type": ["application/json"],
                **{k: [v] for k, v in RESPONSE_SECRETS.items()},
            },
            "body": {"string": json.dumps(response)},
        },
    }
    return yaml.safe_dump({"interactions": [interaction], "version": 1}).encode("utf-8")


def _every_text_value(db_file: Path) -> str:
    conn = sqlite3.connect(db_file)
    try:
        out = []
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):  # noqa: S608 - names from sqlite
                out.extend(
                    v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in row
                )
        return "\n".join(out)
    finally:
        conn.close()


def test_import_copy_and_store_hold_no_secret(tmp_path: Path) -> None:
    # the test's own cassette carries every secret header of DESIGN §5 and a key in a body
    assert set(REQUEST_SECRETS) == SECRET_REQUEST_HEADERS
    assert set(RESPONSE_SECRETS) == SECRET_RESPONSE_HEADERS
    src = tmp_path / "src"
    src.mkdir()
    source = src / "weather.yaml"
    original = _cassette()
    source.write_bytes(original)
    db_file = tmp_path / "r.db"
    cas = tmp_path / "cas"
    args = ["--db", f"sqlite:///{db_file}", "--cassettes", str(cas)]
    result = CliRunner().invoke(
        cli, [*args, "import", "cassettes", str(src), "--name", "imp", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["inserted"] == 1 and data["skipped_files"] == []
    assert data["traces"][0]["calls"] == 1 and data["traces"][0]["status"] == "completed"
    table = CliRunner().invoke(cli, [*args, "import", "cassettes", str(src), "--name", "imp"])
    assert table.exit_code == 0, table.output

    assert source.read_bytes() == original  # the source is only read
    copy = (cas / "imp" / "weather.yaml").read_bytes()
    stored_text = _every_text_value(db_file)
    assert "weather in Paris" in copy.decode() and "get_weather" in stored_text
    for where, text in [
        ("copy", copy.decode()),
        ("store", stored_text),
        ("json output", result.output),
        ("table output", table.output),
    ]:
        for secret in SECRETS:
            assert secret not in text, (where, secret)
    headers = yaml.safe_load(copy)["interactions"][0]
    sent = {k.lower() for k in headers["request"]["headers"]}
    received = {k.lower() for k in headers["response"]["headers"]}
    assert sent == {"content-type"} and received == {"content-type"}

    # the stored hash and path are the copy's: renormalize from the copy changes nothing
    from rejudge.services import renormalize_run

    store = Store.open(f"sqlite:///{db_file}")
    try:
        run = store.runs.get_run("imp")
        (trace,) = list(store.traces.iter_traces(run.id))
        assert trace.cassette_path == f"cassettes:{cas.resolve().as_posix()}//imp/weather.yaml"
        report = renormalize_run(store, run, cas)
        assert report.traces == 1 and report.unchanged == 1 and report.changed == 0
    finally:
        store.close()


def test_a_file_imported_where_it_lies_derives_the_same_secret_free_trace_again(
    tmp_path: Path,
) -> None:
    # --no-copy: the store names the user's own file (its path and hash), which still holds
    # every secret, here a key the model put in a call's arguments too; renormalize reads it
    # scrubbed, as the import did, so nothing changes and no secret reaches the store
    src = tmp_path / "src"
    src.mkdir()
    source = src / "weather.yaml"
    source.write_bytes(_cassette(json.dumps({"city": "Paris", "api_key": KEY})))
    db_file = tmp_path / "r.db"
    args = ["--db", f"sqlite:///{db_file}", "--cassettes", str(tmp_path / "cas")]
    result = CliRunner().invoke(
        cli, [*args, "import", "cassettes", str(src), "--name", "here", "--no-copy", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "cas").exists()
    from rejudge.services import renormalize_run

    store = Store.open(f"sqlite:///{db_file}")
    try:
        run = store.runs.get_run("here")
        (trace,) = list(store.traces.iter_traces(run.id))
        assert Path(trace.cassette_path) == source.resolve()
        assert trace.cassette_hash == hash_bytes(source.read_bytes())
        report = renormalize_run(store, run, tmp_path / "cas")
        assert (report.traces, report.unchanged, report.changed) == (1, 1, 0)
    finally:
        store.close()
    stored_text = _every_text_value(db_file)
    for secret in SECRETS:
        assert secret not in stored_text, secret
