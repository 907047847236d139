"""Every number `rejudge demo` prints comes from the same calls as `rejudge report`,
`rejudge compare` and `rejudge report --against external`: the demo's JSON is checked against
those commands' JSON, run after it on the same store (shipped evidence only, offline)."""

from __future__ import annotations

import json
import socket

import pytest


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("the demo opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)


def test_demo_numbers_are_the_commands_numbers(run_cli, tmp_path, monkeypatch) -> None:
    import rejudge.services._demo as demo_module

    empty = tmp_path / "no-local-cassettes"
    empty.mkdir()
    monkeypatch.setattr(demo_module, "cassette_roots", lambda preferred: [empty])
    demo = run_cli("--cassettes", str(empty), "--json", "demo")
    assert demo.exit_code == 0, demo.output
    data = json.loads(demo.output)

    def cli_json(*args: str) -> dict:
        result = run_cli(*args, "--json")
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    assert {h["run"] for h in data["headlines"]} == {r["run"] for r in data["runs"]}
    for headline in data["headlines"]:
        assert headline["nothing_to_score"] is None
        summary = cli_json("report", str(headline["evaluation"]))["summary"]
        assert headline["verdict_counts"] == summary["verdict_counts"]
        assert headline["accuracy"] == summary["accuracy"]
        assert headline["top_failures"] == summary["top_failures"][:3]
        if headline["pass_at_k"] is not None:
            assert headline["pass_at_k"] == summary["pass_at_k"]
    for report in data["reports"]:
        assert cli_json("report", str(report["evaluation"]))["summary"] == report["summary"]
    for cmp in data["comparisons"] + data["tier_comparisons"]:
        expected = cli_json("compare", str(cmp["a"]), str(cmp["b"]))
        assert {k: cmp[k] for k in expected} == expected
    assert any(c["flips"] for c in data["tier_comparisons"])

    tau = next(h for h in data["headlines"] if h["run"] == "tau-bench-gpt-4o-airline")
    against = cli_json("report", str(tau["evaluation"]), "--against", "external")
    assert data["agreement"] == against
    assert data["agreement"]["external_pass_hat_k"]["1"] == pytest.approx(0.42)
    human = run_cli("--cassettes", str(empty), "demo")
    flat = " ".join(human.output.split())
    golden = next(t for t in against["tiers"] if t["tier"] == "golden")
    assert "kappa" in flat and f"{golden['table']['kappa']:.3f}" in flat
    assert f"report {tau['evaluation']} --against external" in flat
