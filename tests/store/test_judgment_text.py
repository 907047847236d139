"""A judgment's canonical text cut around its trace hash: the shared body and the one value that
differs, joined back byte for byte, and a copy's hash without its text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rejudge.model import (
    JudgmentTemplate,
    PreparedJudgment,
    canonical_json,
    hash_bytes,
    join_judgment_text,
    split_judgment_text,
)

hashes = st.text("0123456789abcdef", min_size=64, max_size=64).map(lambda h: f"sha256:{h}")
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def body_of(trace_hash: str, extra: dict) -> dict:
    """A judgment body's shape (every key judge_body writes), with arbitrary content."""
    return {
        "format_version": 1,
        "taxonomy": extra.get("taxonomy", []),
        "partial_score": None,
        "partial_breakdown": {},
        "diff": extra.get("diff", []),
        "reasons": extra.get("reasons", []),
        "warnings": [],
        "anomalies": [],
        "details": extra.get("details", {}),
        "tier": "golden",
        "trace_hash": trace_hash,
        "case_hash": "sha256:c",
        "registry_hash": "sha256:r",
        "rule_set_hash": "sha256:s",
        "engine_version": "1.1.0",
        "verdict": "FAIL",
    }


extras = st.fixed_dictionaries(
    {},
    optional={
        "reasons": st.lists(st.text(max_size=20), max_size=3),
        "diff": st.lists(values, max_size=3),
        "details": st.dictionaries(st.text(max_size=10), values, max_size=3),
    },
)


@settings(max_examples=300, deadline=None)
@given(hashes, hashes, extras)
def test_split_join_and_template_hash_are_the_canonical_text(first, other, extra):
    text = canonical_json(body_of(first, extra))
    shared, offset = split_judgment_text(text, first)
    assert join_judgment_text(shared, offset, first) == text
    if offset < 0:
        assert shared == text
        assert JudgmentTemplate(shared, offset).hash_for(other) is None
        return
    assert first not in shared and '"trace_hash":' not in shared
    # the other trace's whole body, hashed without building its text
    expected = canonical_json(body_of(other, extra))
    assert join_judgment_text(shared, offset, other) == expected
    assert JudgmentTemplate(shared, offset).hash_for(other) == hash_bytes(expected.encode())


def test_a_body_quoting_its_trace_hash_elsewhere_is_kept_whole():
    """A reason that names the trace hash would keep the first trace's hash in a copy."""
    h = "sha256:" + "a" * 64
    text = canonical_json(body_of(h, {"reasons": [f"see {h}"]}))
    assert split_judgment_text(text, h) == (text, -1)
    nested = canonical_json(body_of(h, {"details": {"trace_hash": "x"}}))
    assert split_judgment_text(nested, h) == (nested, -1)


def test_prepared_judgment_for_another_trace_is_judging_that_trace():
    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    prepared = PreparedJudgment.from_body(body_of(a, {}), "key-a")
    copy = prepared.for_trace(b, "key-b")
    assert copy == PreparedJudgment.from_body(body_of(b, {}), "key-b")
    assert copy.shared_json is prepared.shared_json  # one string, pickled once
    whole = PreparedJudgment.from_body(body_of(a, {"reasons": [a]}), "key-a")
    assert whole.offset == -1 and whole.for_trace(b, "key-b") is None


@settings(max_examples=300, deadline=None)
@given(hashes, st.text(max_size=4).map(lambda t: f"sha256:{t}"), extras)
def test_prepared_hashes_are_the_hashes_of_the_texts(trace_hash, odd_hash, extra):
    """from_body hashes the text the two hashes share once: the same as hashing the whole body
    and the shared text each on its own (non-ASCII text, escaped or odd hashes, whole bodies)."""
    for h in (trace_hash, odd_hash):
        body = body_of(h, extra)
        prepared = PreparedJudgment.from_body(body, "k")
        text = canonical_json(body)
        shared, offset = split_judgment_text(text, h)
        assert (prepared.shared_json, prepared.offset) == (shared, offset)
        assert prepared.hash == hash_bytes(text.encode("utf-8"))
        assert prepared.shared_hash == hash_bytes(shared.encode("utf-8"))
        assert prepared.body_json == text


@settings(max_examples=100, deadline=None)
@given(hashes, hashes, hashes, extras)
def test_a_template_hashes_every_trace_alike_however_often_used(first, b, c, extra):
    """The template hashes its prefix at its first use and keeps it: later uses agree."""
    shared, offset = split_judgment_text(canonical_json(body_of(first, extra)), first)
    template = JudgmentTemplate(shared, offset)
    fresh = [JudgmentTemplate(shared, offset).hash_for(h) for h in (b, c, b)]
    assert [template.hash_for(h) for h in (b, c, b)] == fresh
    if offset >= 0:
        assert fresh[0] == hash_bytes(canonical_json(body_of(b, extra)).encode("utf-8"))


class _TextThatLetsAnotherUseIn(str):
    """Shared text whose tail cut lets another user of the template in first: the point where
    a second judging thread may read a template a first one is still preparing."""

    template: JudgmentTemplate | None = None
    seen: list[str | None]

    def __getitem__(self, key):  # type: ignore[override]
        part = str.__getitem__(self, key)
        if isinstance(key, slice) and key.start is not None and self.template is not None:
            template, self.template = self.template, None  # once: no recursion
            self.seen.append(template.hash_for("sha256:" + "b" * 64))
        return part


def test_a_template_read_while_it_is_being_prepared_hashes_right():
    """A second thread that reads the template between its prefix and its tail being made
    sees neither half or both: never a prefix with no tail (a wrong hash, and stored so)."""
    other = "sha256:" + "b" * 64
    shared, offset = split_judgment_text(canonical_json(body_of("sha256:a", {})), "sha256:a")
    assert offset >= 0
    text = _TextThatLetsAnotherUseIn(shared)
    text.seen = []
    template = JudgmentTemplate(text, offset)
    text.template = template
    expected = hash_bytes(canonical_json(body_of(other, {})).encode("utf-8"))
    assert template.hash_for(other) == expected
    assert text.seen == [expected]  # the one let in mid-way got the right hash too
