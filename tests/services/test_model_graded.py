"""The model-graded tier through the services layer: judge exchanges recorded as cassettes over
real HTTP (a loopback judge server), replayed with the network blocked to the same judgment
hashes, missing or foreign cassettes refused, a server that goes down, resuming, samples."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rejudge.judge import DEFAULT_RUBRIC, DEFAULT_RULE_SET, load_rubric, load_rule_set
from rejudge.judge.tiers import MODEL_GRADED, MODEL_GRADED_VERSION
from rejudge.recorder import JudgeEndpoint, JudgeMissError, JudgeServerError, RetryPolicy
from rejudge.store import Store

from rejudge.cli import cli
from rejudge.errors import InvalidInputError
from rejudge.model import JudgeModel
from rejudge.services import ModelGradedOptions, judge_run_model_graded
from rejudge.services._judge_steps import resolve_inputs
from rejudge.services._model_graded import _Planner, judge_item
from tests.judge.conftest import call, case, gcall, saved_run, trace
from tests.services.judge_server import JudgeServer, serve, verdict_reply

CASES = [
    case(gcall("get_order", order_id="W441"), id="a", dimension="D1"),
    case(gcall("get_user", user_id="U101"), id="b", dimension="D2"),
    case(id="s", skip=True, skip_reason="broken"),
]
TRACES = [
    trace(call("get_order", order_id="W441"), case_id="a"),
    trace(call("get_user", user_id="U101"), case_id="b"),
    trace(call("get_order", order_id="W442"), case_id="a", repetition=1),
    trace(case_id="s"),
]
RUBRIC = load_rubric("task-success@1")  # the whole conversation (the default is brief)
FAST = RetryPolicy(max_retries=2, base_delay_s=0.0, max_delay_s=0.0)


def _store(path: Path) -> Store:
    st = Store.open(f"sqlite:///{path}")
    saved_run(st, CASES, TRACES)
    return st


def _options(cassettes: Path, url: str | None = None, **kw: Any) -> ModelGradedOptions:
    return ModelGradedOptions(
        rubric=kw.pop("rubric", RUBRIC),
        judge=kw.pop("judge", JudgeModel()),
        cassettes=cassettes,
        endpoint=JudgeEndpoint(base_url=url, api_key=kw.pop("api_key", None), retry=FAST),
        **kw,
    )


def _hashes(st: Store, evaluation: int) -> dict[tuple[str, int], str]:
    rows = st.judgments.iter_evaluation_rows(evaluation)
    return {(r.case_key, r.repetition): r.judgment_hash for r in rows}


@pytest.fixture()
def blocked(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the judging opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)


def test_record_then_replay_offline_gives_the_same_judgments(tmp_path: Path) -> None:
    server = JudgeServer()
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")
    with serve(server) as url:
        result = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", concurrency=2)
        )
    counts = result.summary.verdict_counts
    assert (counts.PASS, counts.FAIL, counts.SKIP) == (2, 1, 1)
    assert len(server.requests) == 3  # the skipped case never reaches the judge
    # llama-server's constrained output: the rubric's schema travels with the request
    assert server.requests[0]["response_format"]["json_schema"]["schema"] == RUBRIC.reply_schema
    files = sorted((cassettes / "r1" / "judge").rglob("*__s*.json"))
    assert len(files) == 3
    assert all(f.parent.name == RUBRIC.hash.split(":")[1][:16] for f in files)
    meta = json.loads(files[0].read_text())["rejudge"]
    assert meta["kind"] == "judge" and meta["rubric_hash"] == RUBRIC.hash
    recorded = {k: v for k, v in _hashes(st, result.evaluation).items()}
    st.close()

    # a fresh store, the same traces, the network blocked: the same judgment hashes
    st2 = _store(tmp_path / "b.db")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", _refuse)
        again = judge_run_model_graded(st2, "r1", _options(cassettes))
    assert _hashes(st2, again.evaluation) == recorded
    # a second judging of the same inputs is a lookup
    third = judge_run_model_graded(st2, "r1", _options(cassettes))
    assert third.written == 0 and _hashes(st2, third.evaluation) == recorded
    st2.close()


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("network used during replay")


def test_a_missing_exchange_names_the_case_and_stores_nothing(
    tmp_path: Path, blocked: None
) -> None:
    st = _store(tmp_path / "a.db")
    with pytest.raises(InvalidInputError) as info:
        judge_run_model_graded(st, "r1", _options(tmp_path / "none"))
    assert "case 'a'" in str(info.value) and "new_episodes" in str(info.value)
    assert info.value.field == "judge_record"
    assert st.evaluations.list_evaluations(st.runs.get_run("r1").id) == []


def test_cli_missing_exchange_is_one_line_naming_the_flag(tmp_path: Path, blocked: None) -> None:
    _store(tmp_path / "a.db").close()
    result = CliRunner().invoke(
        cli,
        [
            "--db",
            f"sqlite:///{tmp_path / 'a.db'}",
            "--cassettes",
            str(tmp_path / "c"),
            "judge",
            "r1",
            "--tier",
            "model-graded",
        ],
        env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
    )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "--judge-record" in lines[0]


@pytest.mark.parametrize(
    ("tier", "flags", "named"),
    [
        ("model-graded", ["--world", "retail@2", "--engine", "dask"], "--engine, --world go with"),
        ("model-graded", ["--rules", "standard@2"], "--rules goes with the rule tiers"),
        ("golden", ["--judge-samples", "3"], "--judge-samples goes with --tier model-graded"),
    ],
)
def test_cli_refuses_the_other_paths_flags_instead_of_ignoring_them(
    tmp_path: Path, blocked: None, tier: str, flags: list[str], named: str
) -> None:
    db = tmp_path / "a.db"
    _store(db).close()
    argv = ["--db", f"sqlite:///{db}", "--cassettes", str(tmp_path / "c")]
    result = CliRunner().invoke(
        cli,
        [*argv, "judge", "r1", "--tier", tier, *flags],
        env={"REJUDGE_DB": None, "REJUDGE_CASSETTES": None},
    )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and named in lines[0]
    st = Store.open(f"sqlite:///{db}")
    assert st.evaluations.list_evaluations(st.runs.get_run("r1").id) == []  # nothing judged
    st.close()


def test_another_rubrics_cassette_is_never_replayed(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")
    with serve(JudgeServer()) as url:
        judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
    other = RUBRIC.model_copy(update={"version": "2"})
    # the other rubric's cassettes live elsewhere: nothing of the first is found
    with pytest.raises(InvalidInputError, match="task-success@2"):
        judge_run_model_graded(st, "r1", _options(cassettes, rubric=other))
    # and one put where the other's would be is refused by its recorded rubric hash
    src = sorted((cassettes / "r1" / "judge").rglob("*__s*.json"))
    dst_dir = cassettes / "r1" / "judge" / other.hash.split(":")[1][:16]
    dst_dir.mkdir(parents=True)
    for f in src:
        (dst_dir / f.name).write_bytes(f.read_bytes())
    with pytest.raises(JudgeMissError, match="another rubric hash"):
        judge_run_model_graded(st, "r1", _options(cassettes, rubric=other))


def test_secrets_never_reach_a_judge_cassette(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")
    server = JudgeServer()
    with serve(server) as url:
        judge_run_model_graded(
            st,
            "r1",
            _options(
                cassettes,
                url,
                record="new_episodes",
                api_key="sk-test-secret-123",
                judge=JudgeModel(provider="openai", model="gpt-judge"),
            ),
        )
    assert server.headers[0]["authorization"] == "Bearer sk-test-secret-123"
    for f in (cassettes / "r1" / "judge").rglob("*__s*.json"):
        text = f.read_text()
        assert "sk-test-secret-123" not in text and "authorization" not in text.lower()


def test_server_down_keeps_what_was_recorded_and_a_rerun_resumes(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")

    def dies_after_one(body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str | None]:
        return verdict_reply(body, n) if n == 0 else (503, {}, "overloaded")

    with serve(JudgeServer(dies_after_one)) as url:
        with pytest.raises(JudgeServerError) as info:
            judge_run_model_graded(
                st, "r1", _options(cassettes, url, record="new_episodes", chunk_size=1)
            )
    message = str(info.value)
    assert url in message and "1 judgment(s)" in message and "\n" not in message
    assert len(list((cassettes / "r1" / "judge").rglob("*__s*.json"))) == 1
    resumed = JudgeServer()
    with serve(resumed) as url:
        result = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", chunk_size=1)
        )
    assert len(resumed.requests) == 2  # only what was not recorded
    assert result.summary.verdict_counts.PASS + result.summary.verdict_counts.FAIL == 3


def test_retry_after_is_honoured_and_the_answer_replayed(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")

    def busy_first(body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str | None]:
        return (429, {"retry-after": "0"}, "slow down") if n == 0 else verdict_reply(body, n)

    server = JudgeServer(busy_first)
    with serve(server) as url:
        result = judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
    assert len(server.requests) == 4
    assert result.summary.verdict_counts.SKIP == 1
    offline = judge_run_model_graded(st, "r1", _options(cassettes))
    assert _hashes(st, offline.evaluation) == _hashes(st, result.evaluation)


def test_samples_vote_and_every_sample_is_recorded(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")

    def by_seed(body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str | None]:
        ok = body["seed"] != 1  # sample 1 dissents
        return 200, {}, json.dumps({"justification": f"seed {body['seed']}", "success": ok})

    judge = JudgeModel(samples=3)
    with serve(JudgeServer(by_seed)) as url:
        result = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", judge=judge)
        )
    assert result.summary.verdict_counts.PASS == 3
    assert len(list((cassettes / "r1" / "judge").rglob("*__s*.json"))) == 9
    bodies = [r.body for r in st.judgments.iter_evaluation_rows(result.evaluation, with_body=True)]
    judged = [b for b in bodies if b["verdict"] == "PASS"]
    assert len(judged) == 3
    assert all(b["details"]["votes"] == {"PASS": 2, "FAIL": 1, "INVALID": 0} for b in judged)
    assert all(b["details"]["disagreement"] for b in judged)


def test_an_invalid_reply_is_stored_raw_and_never_fails(tmp_path: Path) -> None:
    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")

    def prose(body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str | None]:
        return 200, {}, "The assistant did fine, I think."

    with serve(JudgeServer(prose)) as url:
        result = judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
    counts = result.summary.verdict_counts
    assert (counts.FAIL, counts.SKIP, result.summary.scored_count) == (0, 4, 0)


def test_compare_names_a_judge_change_as_the_cause_of_a_flip(tmp_path: Path) -> None:
    from rejudge.services import compare_evaluations

    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")

    def contrary(body: dict[str, Any], n: int) -> tuple[int, dict[str, str], str | None]:
        status, headers, text = verdict_reply(body, n)
        data = json.loads(text or "{}")
        return status, headers, json.dumps({**data, "success": not data["success"]})

    with serve(JudgeServer()) as url:
        a = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", judge=JudgeModel(model="a"))
        )
    with serve(JudgeServer(contrary)) as url:
        b = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", judge=JudgeModel(model="b"))
        )
    hot = JudgeModel(model="a", temperature=0.7)
    with serve(JudgeServer(contrary)) as url:
        c = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", judge=hot)
        )
    flips = compare_evaluations(st, a.evaluation, b.evaluation).to_json()["flips"]
    assert len(flips) == 3
    assert all(f["cause"] == "judge model changed" for f in flips)
    hot_flips = compare_evaluations(st, a.evaluation, c.evaluation).to_json()["flips"]
    assert hot_flips and all(f["cause"] == "judge parameters changed" for f in hot_flips)
    # two judge models on the same traces: a comparison of judges, never a race
    cmp = compare_evaluations(st, a.evaluation, b.evaluation)
    assert cmp.kind == "judge" and cmp.differs["judge"] == ["judge model changed"]
    assert cmp.mcnemar_p is None and cmp.judges is not None
    # a baseline judged by model "a" refuses an evaluation judged by model "b": judge changed
    from rejudge.judge import BaselineMismatchError

    from rejudge.services import check_evaluation_baseline, lock_evaluation_baseline

    lock_evaluation_baseline(st, a.evaluation, "mg")
    with pytest.raises(BaselineMismatchError, match=r"judge changed .*judge model changed"):
        check_evaluation_baseline(st, b.evaluation, "mg")
    allowed = check_evaluation_baseline(st, c.evaluation, "mg", allow_mismatch=True)
    assert allowed.judge_changed == ["judge parameters changed"]
    assert check_evaluation_baseline(st, a.evaluation, "mg").judge_changed == []


def test_replay_judges_every_model_graded_judgment_again_from_its_cassettes(
    tmp_path: Path,
) -> None:
    from rejudge.services import verify_run
    from rejudge.services._judge_replay import check_judge_cassettes

    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")
    mine = RUBRIC.model_copy(update={"name": "mine", "version": "7"})  # as from a user's file
    with serve(JudgeServer()) as url:
        judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
        judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", rubric=mine)
        )
    run = st.runs.get_run("r1")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", _refuse)
        checks = check_judge_cassettes(st, run, cassettes)
        assert len(checks) == 8 and all(c.outcome == "same" for c in checks), checks
        report = verify_run(st, run, cassettes).as_dict()
    assert report["judgments"]["checked"] == 8 and report["judgments"]["matched"] == 8
    # a reply changed on disk is a divergence naming the case
    victim = next((cassettes / "r1" / "judge").rglob("*__s0.json"))
    doc = json.loads(victim.read_text())
    answer = doc["interactions"][-1]["response"]["body"]
    completion = json.loads(answer["string"])
    message = completion["choices"][0]["message"]
    reply = json.loads(message["content"])
    message["content"] = json.dumps({**reply, "success": not reply["success"]})
    answer["string"] = json.dumps(completion)  # the reply only: the request stays as asked
    victim.write_text(json.dumps(doc))
    bad = [c for c in check_judge_cassettes(st, run, cassettes) if c.outcome != "same"]
    assert len(bad) == 1 and "another judgment" in (bad[0].message or "")
    # a user's rubric with its file gone cannot be checked: said, never passed
    (cassettes / "r1" / "judge" / mine.hash.split(":")[1][:16] / "rubric.json").unlink()
    unchecked = [c for c in check_judge_cassettes(st, run, cassettes) if c.outcome == "not checked"]
    assert len(unchecked) == 3 and "mine@7" in (unchecked[0].message or "")
    # judgments another version of the tier gave are not this version's to check: said, never
    # passed (as if this rejudge were the tier's next version)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("rejudge.services._judge_replay.MODEL_GRADED_VERSION", 99)
        later = check_judge_cassettes(st, run, cassettes)
    judged = [c for c in later if c.message != "no judge call (skipped before the judge)"]
    assert judged and all(c.outcome == "not checked" for c in judged)
    said = f"version {MODEL_GRADED_VERSION} of the model-graded tier, this is version 99"
    assert said in (judged[0].message or "")


def test_a_rule_set_re_judge_passes_model_graded_over(tmp_path: Path) -> None:
    from rejudge.services import judge_run, plan_rejudge

    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")
    with serve(JudgeServer()) as url:
        judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
    # re-judging "every tier the run was judged under" under a rule set cannot re-ask a judge
    with pytest.raises(
        InvalidInputError, match="model-graded is judged again with its rubric"
    ) as e:
        plan_rejudge(st, ["r1"])
    assert "never judged" not in str(e.value)  # it was judged, by a model judge
    with pytest.raises(InvalidInputError, match="judge_run_model_graded"):
        judge_run(st, "r1", "model-graded", load_rule_set("standard@2"))
    judge_run(st, "r1", "golden", load_rule_set("standard@2"))
    plan = plan_rejudge(st, ["r1"])
    assert [tier for _run, tier, _n in plan.jobs] == ["golden"]
    assert plan.skipped and "model-graded" in plan.skipped[0]["reason"]


def test_report_and_compare_name_the_rubric_and_judge(tmp_path: Path) -> None:
    from rejudge.services import compare_evaluations, evaluation_report

    cassettes = tmp_path / "cassettes"
    st = _store(tmp_path / "a.db")
    with serve(JudgeServer()) as url:
        a = judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
        b = judge_run_model_graded(
            st, "r1", _options(cassettes, url, record="new_episodes", judge=JudgeModel(model="b"))
        )
    report = evaluation_report(st, a.evaluation)
    assert report.rules == f"{RUBRIC.ref} by SmolLM2-135M-Instruct"
    assert len(report.cases) == 4
    data = compare_evaluations(st, a.evaluation, b.evaluation).to_json()
    assert data["meta_b"]["rules"] == f"{RUBRIC.ref} by b"


def test_cli_records_then_replays_through_the_flags(tmp_path: Path) -> None:
    _store(tmp_path / "a.db").close()
    base = ["--db", f"sqlite:///{tmp_path / 'a.db'}", "--cassettes", str(tmp_path / "c")]
    env = {"REJUDGE_DB": None, "REJUDGE_CASSETTES": None}
    argv = [*base, "--json", "judge", "r1", "--tier", "model-graded", "--judge-samples", "3"]
    server = JudgeServer()
    with serve(server) as url:
        live = CliRunner().invoke(
            cli,
            [
                *argv,
                "--judge-record",
                "new_episodes",
                "--judge-base-url",
                url,
                "--judge-concurrency",
                "3",
                "--judge-temperature",
                "0.2",
            ],
            env=env,
        )
    assert live.exit_code == 0, live.output
    data = json.loads(live.output)
    assert data["tier"] == "model-graded" and data["rules"] == DEFAULT_RUBRIC
    assert len(server.requests) == 9 and {r["temperature"] for r in server.requests} == {0.2}
    assert sorted(r["seed"] for r in server.requests) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", _refuse)
        again = CliRunner().invoke(cli, [*argv, "--judge-temperature", "0.2"], env=env)
        # another temperature is another judge: its exchanges were never recorded
        other = CliRunner().invoke(cli, argv, env=env)
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["summary"] == data["summary"]
    assert other.exit_code == 1 and "--judge-record" in other.output


def test_cli_takes_the_judges_key_from_its_providers_variable_only(tmp_path: Path) -> None:
    _store(tmp_path / "a.db").close()
    cassettes = tmp_path / "c"
    argv = ["--db", f"sqlite:///{tmp_path / 'a.db'}", "--cassettes", str(cassettes), "judge"]
    argv += ["r1", "--tier", "model-graded", "--judge-provider", "openai"]
    argv += ["--judge-model", "gpt-judge", "--judge-record", "new_episodes"]
    server = JudgeServer()
    env = {"REJUDGE_DB": None, "REJUDGE_CASSETTES": None, "OPENAI_API_KEY": "sk-cli-secret-9"}
    with serve(server) as url:
        result = CliRunner().invoke(cli, [*argv, "--judge-base-url", url], env=env)
    assert result.exit_code == 0, result.output
    assert {h["authorization"] for h in server.headers} == {"Bearer sk-cli-secret-9"}
    files = list((cassettes / "r1" / "judge").rglob("*__s*.json"))
    assert files and all("sk-cli-secret-9" not in f.read_text() for f in files)


def test_the_demo_reuses_a_model_graded_evaluation_only_while_it_is_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rejudge.services._judging as judging
    from rejudge.services._demo_judge import _reused

    st = _store(tmp_path / "a.db")
    with serve(JudgeServer()) as url:
        ev = judge_run_model_graded(
            st, "r1", _options(tmp_path / "c", url, record="new_episodes")
        ).evaluation
    run = st.runs.get_run("r1").id
    model = JudgeModel().model
    assert _reused(st, run, RUBRIC.ref, model) == ev
    assert _reused(st, run, DEFAULT_RUBRIC, model) is None  # another rubric's
    # under another engine it is stale, as a rule tier's evaluation is
    monkeypatch.setattr(judging, "ENGINE_VERSION", "another engine")
    assert _reused(st, run, RUBRIC.ref, model) is None


def test_an_anthropic_judge_is_asked_in_its_own_wire_format() -> None:
    from rejudge.recorder import judge_request_body
    from rejudge.recorder.providers import get_provider

    judge = JudgeModel(provider="anthropic", model="claude-judge", max_tokens=200)
    path, body = judge_request_body(
        get_provider("anthropic"), judge, "be strict", "judge this", RUBRIC.reply_schema, 1
    )
    assert path == "/v1/messages" and body["model"] == "claude-judge"
    assert body["system"] == "be strict" and body["max_tokens"] == 200
    assert "response_format" not in body  # Anthropic takes no schema: the prompt carries it
    _path, openai = judge_request_body(
        get_provider("openai"), JudgeModel(provider="openai"), "s", "u", RUBRIC.reply_schema, 0
    )
    assert openai["response_format"]["type"] == "json_schema"


def _recorded(tmp_path: Path) -> Path:
    """Judge cassettes of every trace of ``TRACES``, recorded from a loopback judge."""
    cassettes = tmp_path / "c"
    with serve(JudgeServer()) as url:
        recording = _store(tmp_path / "rec.db")
        judge_run_model_graded(recording, "r1", _options(cassettes, url, record="new_episodes"))
        recording.close()
    return cassettes


def test_replay_renders_each_judged_trace_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record mode none in one pass: each judged trace's prompt is rendered once (a checking
    pass before the judging rendered every one twice)."""
    import rejudge.services._model_graded as mg

    cassettes = _recorded(tmp_path)
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    rendered: list[str] = []
    render = mg.render_prompt

    def counted(*args: Any, **kwargs: Any) -> Any:
        prompt = render(*args, **kwargs)
        rendered.append(prompt.hash)
        return prompt

    monkeypatch.setattr(mg, "render_prompt", counted)
    judge_run_model_graded(_store(tmp_path / "a.db"), "r1", _options(cassettes, chunk_size=1))
    assert len(rendered) == 3 == len(set(rendered))  # three traces reach the judge, once each


def test_a_late_missing_exchange_rolls_back_what_was_judged_before_it(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cassette missing from the last chunk, after the chunks before it were judged and
    linked, leaves no evaluation and no judgment (one transaction, rolled back; SQLite and
    PostgreSQL), and the error names the sample."""
    from rejudge.recorder import read_cassette
    from sqlalchemy import text

    cassettes = _recorded(tmp_path)
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    # case a, repetition 1: the third of the four rows, judged after a and b were linked
    [victim] = [
        p
        for p in cassettes.rglob("*__s0.json")
        if (read_cassette(p).meta["case"], read_cassette(p).meta["repetition"]) == ("a", 1)
    ]
    victim.unlink()
    saved_run(store, CASES, TRACES)
    with pytest.raises(InvalidInputError, match=r"case 'a' \(repetition 1, sample 0\)"):
        judge_run_model_graded(store, "r1", _options(cassettes, chunk_size=1))
    assert store.evaluations.list_evaluations(store.runs.get_run("r1").id) == []
    with store.engine.connect() as c:
        assert c.execute(text("SELECT count(*) FROM judgments")).scalar() == 0


class _Killed(BaseException):
    """The process dying at this point (not an error anything would catch)."""


def test_rubric_json_is_never_left_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rubric.json (what replay of a user's rubric reads) is written to a temp file and renamed
    in place, as the cassettes are: killed before the rename, no rubric.json and no temp file
    is left; the next recording writes it whole."""
    import os

    from rejudge.model import Rubric
    from rejudge.services._model_graded import rubric_file

    cassettes = tmp_path / "c"
    st = _store(tmp_path / "a.db")
    target = rubric_file(cassettes, "r1", RUBRIC.hash)

    def killed(src: object, dst: object) -> None:
        raise _Killed

    with serve(JudgeServer()) as url:
        with monkeypatch.context() as m:
            m.setattr(os, "replace", killed)
            with pytest.raises(_Killed):
                judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
        assert not target.exists() and list(target.parent.iterdir()) == []
        judge_run_model_graded(st, "r1", _options(cassettes, url, record="new_episodes"))
    assert Rubric.model_validate_json(target.read_text(encoding="utf-8")).hash == RUBRIC.hash


def test_the_service_tells_a_progress_bar_its_length_before_the_first_trace(
    tmp_path: Path,
) -> None:
    """The CLI's bar learns the run's trace count from the judging service (``total``), told
    once before any chunk is judged; the CLI itself reads nothing from the store."""
    events: list[tuple[str, int]] = []
    with serve(JudgeServer()) as url:
        judge_run_model_graded(
            _store(tmp_path / "a.db"),
            "r1",
            _options(tmp_path / "c", url, record="new_episodes"),
            progress=lambda n: events.append(("done", n)),
            total=lambda n: events.append(("total", n)),
        )
    assert events[0] == ("total", len(TRACES))
    assert sum(n for kind, n in events if kind == "done") == len(TRACES)


def test_planning_and_replaying_a_trace_interns_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trace's judge cassette path stays text from planning to replay. pathlib interns every
    part of a path it parses (sys.intern), and the interned strings go when the last Path
    holding them goes: one Path a trace churned the interpreter's table of interned strings,
    whose rebuild then fell inside some later judging (a second replay of 20,000 traces in one
    process peaked 3.8 MB above the first: bench/README.md)."""
    cassettes = _recorded(tmp_path)
    st = _store(tmp_path / "a.db")
    inputs = resolve_inputs(st, "r1", MODEL_GRADED, load_rule_set(DEFAULT_RULE_SET))
    planner = _Planner(inputs, _options(cassettes))
    rows = list(st.traces.iter_trace_rows(inputs.run.id, page_size=10))
    interned: list[str] = []
    intern = sys.intern

    def counted(text: str) -> str:
        interned.append(text)
        return intern(text)

    monkeypatch.setattr(sys, "intern", counted)
    judged = [planner.item(row) for row in rows if row.case_key in inputs.cases]
    for item in judged:
        judge_item(planner, item)  # replayed: read, matched, judged
    monkeypatch.undo()
    assert sum(len(item.jobs) for item in judged) == 3
    assert interned == [], interned
    st.close()
