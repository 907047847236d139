"""The Review page through Streamlit's AppTest: the queue, one click per label (stored as a
review), progress, and the same figures as `rejudge review summary`."""

from __future__ import annotations

from pathlib import Path

import pytest
from rejudge.judge import load_rule_set
from rejudge.store import Store
from streamlit.testing.v1 import AppTest

from rejudge.services import calibration_summary, judge_run
from tests.dashboard.conftest import html_tables, metrics
from tests.judge.conftest import call, case, gcall, saved_run, trace

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"
CASES = [case(gcall("get_order", order_id=f"W44{i}"), id=f"k{i}") for i in range(1, 6)]
TRACES = [
    trace(call("get_order", order_id="W448" if i <= 2 else f"W44{i}"), case_id=f"k{i}")
    for i in range(1, 6)
]


@pytest.fixture
def evaluation(tmp_path: Path) -> tuple[str, int]:
    url = f"sqlite:///{tmp_path / 'review.db'}"
    store = Store.open(url)
    try:
        saved_run(store, CASES, TRACES)
        ev = judge_run(store, "r1", "golden", load_rule_set("standard@2")).evaluation_id
    finally:
        store.close()
    return url, ev


def test_label_the_queue(evaluation: tuple[str, int]) -> None:
    url, ev = evaluation
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = url
    at.session_state["cassettes_dir"] = ""
    at.query_params["ev"] = str(ev)
    at.run()
    at.switch_page("views/review.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.number_input(key="rv_sample").set_value(1).run()
    shown = metrics(at)
    assert shown["Reviewed"].startswith("0 of ") and shown["FAIL coverage"].startswith(
        "0.0% (0 of "
    )
    picker = at.selectbox(key="rv_item")
    assert len(picker.options) == 3  # two FAILs and one sampled PASS
    # the queue opens on its first item, none reviewed yet: the first FAIL
    assert picker.index == 0 and picker.options[0].startswith("· k1 · r0 · FAIL"), picker.options

    # no reviewer yet: a click stores nothing
    at.button(key="rv_confirmed").click().run()
    assert any("reviewer" in w.value for w in at.warning)
    at.text_input(key="rv_reviewer").set_value("ana").run()
    at.button(key="rv_confirmed").click().run()
    assert not at.exception, [e.value for e in at.exception]
    at.text_area(key=f"rv_note_{at.selectbox(key='rv_item').value}").set_value("tool ok").run()
    at.button(key="rv_judge_wrong").click().run()
    assert not at.exception, [e.value for e in at.exception]

    store = Store.open(url)
    try:
        labels = [
            (r.label, r.reviewer, r.note, r.evaluation_id) for r in store.reviews.list_reviews()
        ]
        expected = calibration_summary(store, ev)
    finally:
        store.close()
    assert labels == [("confirmed", "ana", None, ev), ("judge_wrong", "ana", "tool ok", ev)]
    shown = metrics(at)
    # every rate with its counts, as the calibration counts them
    figures = expected.figures
    fails = figures.fails
    assert shown["FAIL coverage"] == f"100.0% ({fails.reviewed} of {fails.total})"
    assert shown["Misjudgment rate"] == (
        f"{100 * (figures.misjudgment_rate or 0):.1f}% ({figures.misjudged} of {figures.reviewed})"
    )
    assert shown["Golden errors"] == "0"
    flagged = [e for e in at.expander if "Flagged by reviewers" in e.label]
    assert flagged and "1 (1 open)" in flagged[0].label


def test_a_judgments_labels_so_far_are_listed_as_written(evaluation: tuple[str, int]) -> None:
    url, ev = evaluation
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = url
    at.session_state["cassettes_dir"] = ""
    at.query_params["ev"] = str(ev)
    at.run()
    at.switch_page("views/review.py").run()
    at.text_input(key="rv_reviewer").set_value("ana").run()
    first = at.selectbox(key="rv_item").value
    assert not html_tables(at) or all("reviewer" not in t[0] for t in html_tables(at))
    note = "<b>bold</b> [link](https://example.com)"
    at.text_area(key=f"rv_note_{first}").set_value(note).run()
    at.button(key="rv_judge_wrong").click().run()
    at.selectbox(key="rv_item").set_value(first).run()
    assert not at.exception, [e.value for e in at.exception]
    (history,) = [t for t in html_tables(at) if t and "reviewer" in t[0]]
    assert [(r["reviewer"], r["label"], r["note"]) for r in history] == [
        ("ana", "judge_wrong", note)
    ]
    bodies = [e.proto.body for e in at.get("html") if "judge_wrong" in e.proto.body]
    assert bodies and all("<b>" not in b and "<a " not in b for b in bodies)


def test_the_reviewer_is_remembered_and_a_label_shows_at_once(
    evaluation: tuple[str, int],
) -> None:
    url, ev = evaluation
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = url
    at.session_state["cassettes_dir"] = ""
    at.query_params["ev"] = str(ev)
    at.run()
    at.switch_page("views/review.py")
    at.run()
    at.text_input(key="rv_reviewer").set_value("bo").run()
    assert at.query_params["reviewer"] in ("bo", ["bo"])  # in the address: a reload keeps it
    first = at.selectbox(key="rv_item").value
    at.button(key="rv_confirmed").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # the queue (cached between clicks) shows the new label at once and moved on
    assert metrics(at)["Reviewed"].startswith("1 of ")
    assert at.selectbox(key="rv_item").value != first
    at.button(key="rv_next").click().run()
    assert metrics(at)["Reviewed"].startswith("1 of ")

    again = AppTest.from_file(str(APP), default_timeout=60)
    again.session_state["db_url"] = url
    again.session_state["cassettes_dir"] = ""
    again.query_params["ev"] = str(ev)
    again.query_params["reviewer"] = "bo"
    again.run()
    again.switch_page("views/review.py")
    again.run()
    assert again.text_input(key="rv_reviewer").value == "bo"


def test_labels_read_plainly(evaluation: tuple[str, int]) -> None:
    url, ev = evaluation
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.session_state["db_url"] = url
    at.session_state["cassettes_dir"] = ""
    at.query_params["ev"] = str(ev)
    at.run()
    at.switch_page("views/review.py").run()
    titles = [
        b.label
        for b in at.button
        if str(b.key).startswith("rv_") and b.key not in ("rv_prev", "rv_next")
    ]
    assert titles == ["Confirmed", "Judge wrong", "Golden wrong", "Unclear"]  # the key shows beside
    item = at.selectbox(key="rv_item")
    label = item.format_func(item.value)
    assert "FAIL · FAIL" not in label and label.count("FAIL") == 1, label
    # codes as text, never a metric cut to its column
    assert not any(label in ("Taxonomy", "Why queued") for label in metrics(at))
    assert any(m.value.startswith("**Taxonomy:** PARAM") for m in at.markdown)


def test_an_ordinary_reply_in_a_conversation_is_no_missing_call() -> None:
    from rejudge.dashboard.evidence import round_kind

    body = {
        "status": "completed",
        "rounds": [
            {"index": 0, "text": "Which order?", "calls": []},  # answers the user, who replies
            {"index": 1, "calls": [{"name": "get_order"}]},
            {"index": 2, "text": "Hmm", "calls": []},  # no call, and no user message follows
            {"index": 3, "text": "Done.", "calls": []},
        ],
        "user_turns": [{"before_round": 1, "position": 1, "text": "W1"}],
    }
    assert [round_kind(body, i) for i in range(4)] == ["reply", "calls", "no_call", "answer"]
