"""A judgment's canonical text cut in two: the body shared by every trace that behaved alike, and
the one value that differs, the trace hash.

Repeated trials of a case that behaved alike (the same calls, arguments, results and final text:
:func:`rejudge.model.behaviour_hash`) are judged into bodies that differ only in ``trace_hash``.
The store keeps that body once (``judgment_bodies``) and each judgment row keeps its trace hash;
a judgment's hash stays what it always was, the sha256 of its whole canonical body.

The canonical text has sorted keys and no whitespace, and a trace hash is ``sha256:<hex>``
(nothing to escape), so the whole body is the shared text with ``,"trace_hash":"<hash>"`` put
back at one offset: joining gives byte for byte ``canonical_json(body)``, and a copy's hash is a
sha256 over a prefix hashed once and a short tail. A body where that cut is not certain (a
nested ``trace_hash`` key, a hash needing an escape) is kept whole: its shared text holds its
trace hash and serves that judgment alone, which is correct, only not shared.

:class:`PreparedJudgment` is a judgment in that form, ready for the store: the pure judge builds
it (in worker processes too), the store writes it as it is.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from rejudge.model._hashing import HASH_ALGORITHM, canonical_json, hash_bytes
from rejudge.model._schemas import Judgment, judgment_key

__all__ = [
    "split_judgment_text",
    "join_judgment_text",
    "put_trace_hash",
    "JudgmentTemplate",
    "PreparedJudgment",
    "text_hash",
]

_KEY = '"trace_hash":'
#: what comes before the trace hash's own characters where it is put back
_FRAGMENT_HEAD = "," + _KEY + '"'
_PLAIN_HASH = re.compile(r"[A-Za-z0-9:._-]+\Z")


def split_judgment_text(text: str, trace_hash: str) -> tuple[str, int]:
    """The canonical body ``text`` of a judgment of ``trace_hash``, without its trace hash:
    ``(shared text, offset)``; ``(text, -1)`` when the cut is not certain (see the module)."""
    fragment = "," + _KEY + '"' + trace_hash + '"'
    at = text.find(fragment)
    # the cut is certain when the body names its trace hash once, as its one trace_hash key:
    # a hash quoted elsewhere (a reason, a detail) would stay the first trace's in a copy
    if (
        at < 0
        or not _PLAIN_HASH.match(trace_hash)
        or text.count(_KEY) != 1
        or text.count(trace_hash) != 1
    ):
        return text, -1
    return text[:at] + text[at + len(fragment) :], at


def join_judgment_text(shared: str, offset: int, trace_hash: str) -> str:
    """The whole canonical body back from :func:`split_judgment_text`'s parts."""
    if offset < 0:
        return shared
    return shared[:offset] + "," + _KEY + '"' + trace_hash + '"' + shared[offset:]


def put_trace_hash(body: dict[str, Any], trace_hash: str) -> dict[str, Any]:
    """A stored shared body (decoded) made the judgment's own body again."""
    body["trace_hash"] = trace_hash
    return body


class JudgmentTemplate:
    """The hash of the same shared text for many trace hashes, cheaply: the prefix before the
    trace hash is hashed once; each trace adds its hash and the short tail (the keys after
    ``trace_hash`` in sorted order: ``verdict``, ``warnings``).

    The prefix is hashed at the first :meth:`hash_for`, not when the template is made: the
    judging service makes one for every judgment it may copy later, and a run of distinct
    behaviours never copies one (that hash was a third pass over every body)."""

    __slots__ = ("_shared", "_state", "offset")

    def __init__(self, shared: str, offset: int) -> None:
        self.offset = offset
        self._shared: str | None = shared if offset >= 0 else None
        # (prefix hash, tail) in ONE attribute: a thread sees both or neither, never a made
        # prefix with a tail still to come (templates are shared across judging threads)
        self._state: tuple[Any, bytes] | None = None

    def hash_for(self, trace_hash: str) -> str | None:
        """``sha256:<hex>`` of the whole body for ``trace_hash``; None when this text cannot
        be shared (its trace hash is part of it) or the hash would need an escape."""
        if self.offset < 0 or not _PLAIN_HASH.match(trace_hash):
            return None
        state = self._state
        if state is None:
            state = self._made_state()
        prefix, tail = state
        h = prefix.copy()
        h.update(trace_hash.encode("ascii"))
        h.update(tail)
        return f"{HASH_ALGORITHM}:{h.hexdigest()}"

    def _made_state(self) -> tuple[Any, bytes]:
        """The prefix hashed and the tail cut, once (two threads racing here make the same
        state; either one kept is right). The state is published before the text is let go,
        so a thread that finds no text finds the state."""
        shared = self._shared
        if shared is None:
            state = self._state
            assert state is not None  # published before _shared was cleared
            return state
        offset = self.offset
        prefix = hashlib.sha256((shared[:offset] + _FRAGMENT_HEAD).encode("utf-8"))
        state = (prefix, ('"' + shared[offset:]).encode("utf-8"))
        self._state = state
        self._shared = None  # the hash state holds what is needed
        return state


class PreparedJudgment(NamedTuple):
    """A judgment ready for the store: its key, its hash and its body as canonical JSON text,
    cut where the trace hash goes (:func:`split_judgment_text`): ``shared_json`` is what
    ``judgment_bodies`` keeps once for every trace that behaved alike.

    The hash is ``Judgment.hash`` (sha256 of the canonical JSON of ``model_dump(mode="json")``)
    computed from the very text that is stored, so the body is serialized once. Built where the
    judging happens (a worker process pickles these small tuples of strings back; the copies
    of one behaviour share one ``shared_json`` string, pickled once).
    """

    key: str
    hash: str
    #: the canonical body without its trace hash (or whole: ``offset`` -1)
    shared_json: str
    #: sha256 of ``shared_json``: the ``judgment_bodies`` row it is stored as
    shared_hash: str
    #: where in ``shared_json`` the trace hash goes back
    offset: int
    trace_hash: str
    case_hash: str
    registry_hash: str
    tier: str
    rule_set_hash: str
    engine_version: str
    verdict: str
    partial_score: float | None
    taxonomy_json: str
    #: the body's ``anomalies`` and ``details.implicated_tools`` (None when absent), stored as
    #: columns next to it: what a report aggregates without parsing bodies
    anomalies_json: str
    implicated_tools_json: str | None

    @property
    def body_json(self) -> str:
        """The whole canonical body (what ``hash`` is the sha256 of)."""
        return join_judgment_text(self.shared_json, self.offset, self.trace_hash)

    @classmethod
    def of(cls, judgment: Judgment, key: str | None = None) -> PreparedJudgment:
        """``key``: the judgment's key when the caller already computed it (it must be
        ``judgment.key``)."""
        return cls.from_body(judgment.model_dump(mode="json"), key)

    @classmethod
    def from_body(cls, body: Mapping[str, Any], key: str | None = None) -> PreparedJudgment:
        """From a judgment's JSON dump (``Judgment.model_dump(mode="json")``, or the same dict
        built directly: ``judge.engine.judge_body``); ``key`` as in :meth:`of`."""
        text = canonical_json(body)
        tools = body["details"].get("implicated_tools")
        shared, offset = split_judgment_text(text, body["trace_hash"])
        digest, shared_digest = _text_hashes(text, shared, offset)
        return cls(
            key=key
            if key is not None
            else judgment_key(
                body["trace_hash"],
                body["case_hash"],
                body["registry_hash"],
                body["tier"],
                body["rule_set_hash"],
                body["engine_version"],
                body.get("judge_hash"),
            ),
            hash=digest,
            shared_json=shared,
            shared_hash=shared_digest,
            offset=offset,
            trace_hash=body["trace_hash"],
            case_hash=body["case_hash"],
            registry_hash=body["registry_hash"],
            tier=body["tier"],
            rule_set_hash=body["rule_set_hash"],
            engine_version=body["engine_version"],
            verdict=body["verdict"],
            partial_score=body["partial_score"],
            taxonomy_json=_names_json(body["taxonomy"]),
            anomalies_json=_names_json(body["anomalies"]),
            implicated_tools_json=None if tools is None else _names_json(tools),
        )

    def for_trace(
        self, trace_hash: str, key: str, template: JudgmentTemplate | None = None
    ) -> PreparedJudgment | None:
        """This judgment as the judgment of another trace that behaved alike (same case and
        inputs: only the trace hash differs), under that trace's judgment ``key``: the same
        shared body, its own hash. None when this body cannot be shared (its text holds its
        trace hash). ``template``: ``JudgmentTemplate(self.shared_json, self.offset)``, made
        once by a caller copying one judgment many times."""
        if template is None:
            template = JudgmentTemplate(self.shared_json, self.offset)
        digest = template.hash_for(trace_hash)
        if digest is None:
            return None
        # the fields in order, made without ``_replace`` (which maps over every field by name:
        # ~2.6 against ~0.9 µs, paid by every copy of a judging's call memo)
        return _prepared(PreparedJudgment, (key, digest, *self[2:5], trace_hash, *self[6:]))


#: a :class:`PreparedJudgment` made of its values in the fields' order
_prepared = tuple.__new__


def _names_json(value: Any) -> str:
    """``canonical_json`` of a judgment's short lists (taxonomy codes, anomaly flags, tool
    names): a list of strings is joined with the encoder's own string escape (the same text,
    without building an encoder's state per call); anything else goes through
    ``canonical_json``."""
    if type(value) is list and all(type(v) is str for v in value):
        return "[" + ",".join(map(encode_basestring, value)) + "]"
    return canonical_json(value)


def _text_hashes(text: str, shared: str, offset: int) -> tuple[str, str]:
    """``(text_hash(text), text_hash(shared))`` for ``shared, offset = split_judgment_text(
    text, ...)``, hashing the bytes they have in common once: both start with
    ``shared[:offset]`` (nearly all of a body; the keys after ``trace_hash`` are only
    ``verdict`` and ``warnings``), so its hash state is copied instead of hashed twice. A body
    kept whole is its own shared text: one hash."""
    if offset < 0:
        whole = text_hash(text)
        return whole, whole
    rest = shared[offset:]
    head = hashlib.sha256(shared[:offset].encode("utf-8"))
    tail = rest.encode("utf-8")
    of_shared = head.copy()
    of_shared.update(tail)
    # the text between them: ``,"trace_hash":"<hash>"``, what the split took out
    head.update(text[offset : len(text) - len(rest)].encode("utf-8"))
    head.update(tail)
    return f"{HASH_ALGORITHM}:{head.hexdigest()}", f"{HASH_ALGORITHM}:{of_shared.hexdigest()}"


def text_hash(text: str) -> str:
    """sha256 of a stored text (a shared judgment body's row key)."""
    return hash_bytes(text.encode("utf-8"))
