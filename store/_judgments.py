"""Judgments: stored once per key (insert-or-ignore, so judging the same inputs twice is a
lookup), their bodies kept once per behaviour, linked to the evaluations that use them, and
streamed back.

``JudgmentRepository`` is ``store.judgments``; evaluations are :mod:`rejudge.store._evaluations`.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rejudge.store import _nul
from rejudge.store._batching import BATCH, chunks
from rejudge.store._errors import InvalidInputError
from rejudge.store._insert_rows import insert_ignore_rows
from rejudge.store._json_text import _decode_array, _decode_small, _decode_stored
from rejudge.store._judgment_rows import (
    _NO_PATHS,
    EvaluatedTrace,
    JudgmentBody,
    JudgmentLink,
    KnownJudgment,
)
from rejudge.store._tables import (
    _T_BODY,
    _T_EJ,
    _T_JUDG,
    utcnow,
)
from rejudge.store._unit_of_work import Repository
from sqlalchemy import Text, and_, cast, func, or_, select
from sqlalchemy.engine import Connection

from rejudge.model import (
    Judgment,
    PreparedJudgment,
    put_trace_hash,
)

if TYPE_CHECKING:
    pass

# the store's own: Store hands it out as store.judgments; its rows are in _judgment_rows
__all__: list[str] = []


_JUDGMENT_COLUMNS = (
    "key",
    "hash",
    "trace_hash",
    "case_hash",
    "registry_hash",
    "tier",
    "rule_set_hash",
    "engine_version",
    "verdict",
    "partial_score",
    "taxonomy",
    "anomalies",
    "implicated_tools",
    "body_id",
    "created_at",
)
#: the link table's columns as a write gives them: the evaluation, then a JudgmentLink's
_LINK_COLUMNS = (
    "evaluation_id",
    "judgment_id",
    "trace_id",
    "case_key",
    "repetition",
    "verdict",
    "partial_score",
    "dimension",
    "category",
)

#: :meth:`JudgmentRepository.lookup_judgments`'s query without body paths
_LOOKUP_SQL = (
    'SELECT "key", "id", "verdict", "partial_score", CAST("taxonomy" AS TEXT), '
    'CAST("anomalies" AS TEXT), CAST("implicated_tools" AS TEXT) FROM "judgments" '
    'WHERE "key" {where}'
)


def _known_columns() -> list[Any]:
    """What a lookup reads of a judgment (``_LOOKUP_SQL``'s columns): the key, then what
    :func:`_known` makes a :class:`KnownJudgment` of."""
    t = _T_JUDG.c
    return [
        t.key,
        t.id,
        t.verdict,
        t.partial_score,
        cast(t.taxonomy, Text),
        cast(t.anomalies, Text),
        cast(t.implicated_tools, Text),
    ]


def _known(
    row: Sequence[Any],
    decode: Callable[[Any, dict[str, list[Any]]], Any],
    cache: dict[str, list[Any]],
    paths: Mapping[str, Any],
) -> KnownJudgment:
    """A row of :func:`_known_columns` (and maybe more after them) as a known judgment."""
    return KnownJudgment(
        row[1],
        row[2],
        row[3],
        decode(row[4], cache),
        decode(row[5], cache),
        decode(row[6], cache),
        paths,
    )


#: a judgment's anomalies column as text when it names none (an empty list, a JSON null)
_NO_ANOMALY = ("[]", "null")


def body_path_columns(
    backend: str, column: Any, body_paths: Mapping[str, Sequence[str]] | None
) -> tuple[list[Any], Callable[[Sequence[Any], dict[str, list[Any]]], dict[str, Any]]]:
    """Columns selecting the JSON values at ``body_paths`` (label -> object keys) of a JSON
    column, and a decoder of those columns' values into ``{label: value or None}``.

    SQLite parses a body once for all paths (``json_extract`` with several paths returns
    one JSON array); PostgreSQL reads each path from the binary JSONB.
    """
    labels = list(body_paths or {})
    paths = [list(body_paths[label]) for label in labels]  # type: ignore[index]
    if any(not path for path in paths):
        raise InvalidInputError("a body path names at least one key")
    if not labels:
        return [], lambda _values, _cache: {}
    if backend == "postgresql":
        # a body stored marked (it holds a NUL: rejudge.store._nul) has the path under its one
        # key; its value there comes back marked too, and is decoded back to the original. The
        # second path is read only where the first is missing (COALESCE)
        mark = _nul.MARK
        cols = [
            cast(
                func.coalesce(
                    func.jsonb_extract_path(column, *path),
                    func.jsonb_build_object(mark, func.jsonb_extract_path(column, mark, *path)),
                ),
                Text,
            ).label(f"path_{i}")
            for i, path in enumerate(paths)
        ]

        def each(values: Sequence[Any], cache: dict[str, list[Any]]) -> dict[str, Any]:
            return {
                label: _decode_stored(text, cache)
                for label, text in zip(labels, values, strict=True)
            }

        return cols, each
    selectors = ["$" + "".join("." + json.dumps(str(k)) for k in path) for path in paths]
    if len(selectors) == 1:
        # one path: json_extract returns a bare SQL value for a string; quote it back
        one = func.json_quote(func.json_extract(column, selectors[0])).label("path_0")

        def single(values: Sequence[Any], cache: dict[str, list[Any]]) -> dict[str, Any]:
            return {labels[0]: _decode_small(values[0], cache)}

        return [one], single
    together = func.json_extract(column, *selectors).label("paths")

    def array(values: Sequence[Any], cache: dict[str, list[Any]]) -> dict[str, Any]:
        text = values[0]
        if text is None:
            return dict.fromkeys(labels)
        return dict(zip(labels, _decode_array(text, cache), strict=True))

    return [together], array


#: a row made of the query's values (the columns in the fields' order), without __new__'s
#: per-field arguments
_evaluated = tuple.__new__


class JudgmentRepository(Repository):
    """``store.judgments``: find, save, link and stream judgments."""

    def find_judgments(self, keys: Sequence[str]) -> dict[str, int]:
        """judgment key -> row id for the keys already judged (lookups, not new rows)."""
        found: dict[str, int] = {}
        with self._connect() as c:
            for part in chunks(keys):
                chunk = list(part)
                for r in c.execute(
                    select(_T_JUDG.c.key, _T_JUDG.c.id).where(_T_JUDG.c.key.in_(chunk))
                ):
                    found[r.key] = r.id
        return found

    def lookup_judgments(
        self,
        keys: Sequence[str],
        *,
        body_paths: Mapping[str, Sequence[str]] | None = None,
        linked: tuple[int, int, int] | None = None,
    ) -> dict[str, KnownJudgment]:
        """judgment key -> :class:`KnownJudgment` (with, under each label of ``body_paths`` in
        its ``paths``, the body's value at that path) for the keys already judged.

        What linking a judgment to an evaluation (and summarizing it) needs, without decoding
        its body: a re-judge of unchanged inputs is this one query per batch.

        ``linked=(evaluation_id, first_trace_id, last_trace_id)``: the judgments that evaluation
        links to the traces in that id range are read first, through its links (the range of
        one index, then each judgment by its row id, in the order a judging inserted them), and
        only the keys not among them through the key index (a random page of it per key, which
        at 1,000,000 judgments no page cache holds). The answer is the same either way: a key
        names one judgment row, whichever way it is reached. Not with ``body_paths``.
        """
        found: dict[str, KnownJudgment] = {}
        if linked is not None and not body_paths:
            found = self._linked_judgments(keys, *linked)
            if len(found) == len(keys):
                return found
            if found:
                keys = [k for k in keys if k not in found]
        found.update(self._judgments_by_key(keys, body_paths))
        return found

    def _linked_judgments(
        self, keys: Sequence[str], evaluation_id: int, first: int, last: int
    ) -> dict[str, KnownJudgment]:
        """:meth:`lookup_judgments` of those of ``keys`` that ``evaluation_id`` links to a
        trace with an id from ``first`` to ``last``."""
        ej = _T_EJ.c
        query = (
            select(*_known_columns())
            .select_from(_T_EJ.join(_T_JUDG, _T_JUDG.c.id == ej.judgment_id))
            .where(ej.evaluation_id == evaluation_id, ej.trace_id.between(first, last))
        )
        wanted = set(keys)
        found: dict[str, KnownJudgment] = {}
        cache: dict[str, list[Any]] = {}
        decode = _decode_stored if self.backend == "postgresql" else _decode_small
        with self._connect() as c:
            for r in c.execute(query).fetchall():
                if r[0] in wanted:
                    found[r[0]] = _known(r, decode, cache, _NO_PATHS)
        return found

    def _judgments_by_key(
        self, keys: Sequence[str], body_paths: Mapping[str, Sequence[str]] | None
    ) -> dict[str, KnownJudgment]:
        t = _T_JUDG.c
        path_cols, decode_paths = body_path_columns(self.backend, _T_BODY.c.body, body_paths)
        cols = [*_known_columns(), *path_cols]
        found: dict[str, KnownJudgment] = {}
        cache: dict[str, list[Any]] = {}
        pg = self.backend == "postgresql"
        decode = _decode_stored if pg else _decode_small
        with self._connect() as c:
            for part in chunks(keys):
                chunk = list(part)
                if path_cols:
                    query = select(*cols).where(t.key.in_(chunk))
                    query = query.join(_T_BODY, _T_BODY.c.id == t.body_id)
                    rows: Any = c.execute(query)
                else:
                    # every judging's one query per chunk, as plain SQL: the statement
                    # SQLAlchemy renders for a 500-key IN costs the client about as much as
                    # the database's answer (bench/README.md, "Judging on Dask")
                    args: tuple[object, ...]
                    if pg:
                        where, args = "= ANY(%s)", (chunk,)
                    else:
                        where, args = f"IN ({', '.join('?' * len(chunk))})", tuple(chunk)
                    rows = c.exec_driver_sql(_LOOKUP_SQL.format(where=where), args)
                # the chunk's rows in one fetch: iterating the result fetches them one call
                # at a time (a re-judge of unchanged inputs reads every trace's judgment here)
                for r in rows.fetchall():
                    paths = decode_paths(r[7:], cache) if path_cols else _NO_PATHS
                    found[r[0]] = _known(r, decode, cache, paths)
        return found

    def judgment_body(self, evaluation_id: int, trace_id: int) -> JudgmentBody | None:
        """The stored body of the judgment ``evaluation_id`` linked for ``trace_id``."""
        query = (
            select(_T_BODY.c.body, _T_JUDG.c.trace_hash)
            .join(_T_JUDG, _T_JUDG.c.body_id == _T_BODY.c.id)
            .join(_T_EJ, _T_EJ.c.judgment_id == _T_JUDG.c.id)
            .where(_T_EJ.c.evaluation_id == evaluation_id, _T_EJ.c.trace_id == trace_id)
        )
        with self._connect() as c:
            row = c.execute(query).first()
        if row is None:
            return None
        return typing.cast(JudgmentBody, put_trace_hash(dict(row.body), row.trace_hash))

    def save_judgments(self, judgments: Sequence[Judgment]) -> dict[str, int]:
        """Bulk insert-or-ignore judgments by key; returns key -> row id for all of them."""
        return self.save_judgment_rows([PreparedJudgment.of(j) for j in judgments])

    def save_judgment_rows(self, rows: Sequence[PreparedJudgment]) -> dict[str, int]:
        """Bulk insert-or-ignore judgments already serialized (see :class:`PreparedJudgment`,
        built where the judging happens, e.g. in a worker process); returns key -> row id for
        all of them. The body text is stored as given: it is not decoded and encoded again."""
        if not rows:
            return {}
        with self._begin() as c:
            self._insert_judgment_rows(c, rows)
        return self.find_judgments([r.key for r in rows])

    def link_judgments(self, evaluation_id: int, links: Sequence[dict[str, Any]]) -> None:
        """Attach judgments to an evaluation. Each link: judgment_id, trace_id, case_key,
        repetition, dimension, category, verdict, partial_score."""
        self.save_and_link_judgments(evaluation_id, [], links)

    def save_and_link_judgments(
        self,
        evaluation_id: int,
        rows: Sequence[PreparedJudgment],
        links: Sequence[dict[str, Any]],
    ) -> None:
        """In one transaction: insert-or-ignore ``rows`` (see :meth:`save_judgment_rows`), then
        attach judgments to the evaluation. A link names its judgment by ``judgment_id`` or, for
        one of ``rows``, by ``judgment_key``; otherwise as in :meth:`link_judgments`."""
        self.save_and_link_rows(
            evaluation_id,
            rows,
            [
                JudgmentLink(
                    link.get("judgment_id"),
                    link["trace_id"],
                    link["case_key"],
                    link["repetition"],
                    link["verdict"],
                    link["partial_score"],
                    link["dimension"],
                    link["category"],
                    link.get("judgment_key"),
                )
                for link in links
            ],
        )

    def save_and_link_rows(
        self, evaluation_id: int, rows: Sequence[PreparedJudgment], links: Sequence[JudgmentLink]
    ) -> None:
        """:meth:`save_and_link_judgments` with typed links (what a judging writes per trace,
        without a dict each)."""
        with self._begin() as c:
            # the ids of the judgments inserted now come back with the insert; only keys
            # stored before (a retried chunk, another shard's judgment) are looked up
            ids = self._insert_judgment_rows(c, rows) if rows else {}
            wanted = [
                link.judgment_key
                for link in links
                if link.judgment_id is None and link.judgment_key not in ids
            ]
            for chunk in chunks(wanted):
                for r in c.execute(
                    select(_T_JUDG.c.key, _T_JUDG.c.id).where(_T_JUDG.c.key.in_(chunk))
                ):
                    ids[r.key] = r.id
            # the link table's columns (_LINK_COLUMNS): the evaluation, the judgment (a link
            # names it by one of the two: KeyError otherwise, as before), the link's own
            params = [
                (
                    evaluation_id,
                    ids[typing.cast(str, link[8])] if link[0] is None else link[0],
                    *link[1:8],
                )
                for link in links
            ]
            insert_ignore_rows(
                self.backend, c, _T_EJ, _LINK_COLUMNS, ("evaluation_id", "trace_id"), params
            )

    def _insert_judgment_rows(
        self, c: Connection, rows: Sequence[PreparedJudgment]
    ) -> dict[str, int]:
        """Insert-or-ignore ``rows`` and their bodies; key -> id of the rows inserted now."""
        # every value is already a string or a number, the JSON columns take the canonical
        # text as is (no serializer runs), one timestamp for the batch.
        # Bodies first, each distinct shared text once (repeated trials share theirs), then
        # the judgment rows pointing at them.
        shared: dict[str, str] = {}
        for r in rows:
            shared.setdefault(r.shared_hash, r.shared_json)
        # the ids of the bodies inserted now come back with the insert; only the bodies
        # stored before (a behaviour judged in an earlier chunk) are looked up
        body_ids: dict[str, int] = dict(
            insert_ignore_rows(
                self.backend,
                c,
                _T_BODY,
                ("hash", "body"),
                ("hash",),
                list(shared.items()),
                {"body"},
                returning=("hash", "id"),
            )
        )
        for chunk in chunks([h for h in shared if h not in body_ids]):
            for body in c.execute(
                select(_T_BODY.c.hash, _T_BODY.c.id).where(_T_BODY.c.hash.in_(chunk))
            ):
                body_ids[body.hash] = body.id
        created = _T_JUDG.c.created_at.type.dialect_impl(c.dialect).bind_processor(c.dialect)
        now: Any = utcnow()
        if created is not None:
            now = created(now)
        params = [
            (
                r.key,
                r.hash,
                r.trace_hash,
                r.case_hash,
                r.registry_hash,
                r.tier,
                r.rule_set_hash,
                r.engine_version,
                r.verdict,
                r.partial_score,
                r.taxonomy_json,
                r.anomalies_json,
                r.implicated_tools_json,
                body_ids[r.shared_hash],
                now,
            )
            for r in rows
        ]
        inserted = insert_ignore_rows(
            self.backend,
            c,
            _T_JUDG,
            _JUDGMENT_COLUMNS,
            ("key",),
            params,
            {"taxonomy", "anomalies", "implicated_tools"},
            returning=("key", "id"),
        )
        return {key: ident for key, ident in inserted}

    def iter_evaluation_rows(
        self,
        evaluation_id: int,
        *,
        with_body: bool = False,
        body_paths: Mapping[str, Sequence[str]] | None = None,
        yield_per: int = BATCH,
        by_trace: bool = False,
        queued: bool = False,
        judgment_ids: Collection[int] | None = None,
    ) -> Iterator[EvaluatedTrace]:
        """Stream an evaluation's per-trace rows (:class:`EvaluatedTrace`; case order, or trace
        id order with ``by_trace``: what a merge of two evaluations of one run reads),
        optionally with judgment bodies.

        Each row carries the judgment's ``taxonomy``, ``anomalies`` and ``implicated_tools``
        (None when the judgment names none) without its body.

        ``body_paths`` (label -> path of object keys) adds to each row's ``paths``, under each
        label, the value at that path of the judgment body (None when absent), extracted by the
        database: a caller that needs two small fields does not decode every whole body.

        ``queued``: only the rows review queues whatever the sample (every FAIL, every judgment
        with anomalies; a row of neither may come too, its anomalies then empty): the review
        page reads these, not all 50,000 rows of an evaluation. ``judgment_ids``: only those
        judgments' rows (in that order per batch of ids, not overall).
        """
        cols: list[Any] = [
            _T_EJ.c.trace_id,
            _T_EJ.c.case_key,
            _T_EJ.c.repetition,
            _T_EJ.c.dimension,
            _T_EJ.c.category,
            _T_EJ.c.verdict,
            _T_EJ.c.partial_score,
            _T_JUDG.c.id,
            _T_JUDG.c.key,
            _T_JUDG.c.hash,
            cast(_T_JUDG.c.taxonomy, Text),
            cast(_T_JUDG.c.anomalies, Text),
            cast(_T_JUDG.c.implicated_tools, Text),
            _T_JUDG.c.trace_hash,
            _T_JUDG.c.case_hash,
            _T_JUDG.c.registry_hash,
            _T_JUDG.c.rule_set_hash,
            _T_JUDG.c.engine_version,
            _T_JUDG.c.tier,
        ]
        if with_body:
            # as text, decoded row by row (see iter_trace_rows)
            cols.append(cast(_T_BODY.c.body, Text))
        path_cols, decode_paths = body_path_columns(self.backend, _T_BODY.c.body, body_paths)
        n_plain = len(cols)
        cols += path_cols
        query = (
            select(*cols)
            .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
            .where(_T_EJ.c.evaluation_id == evaluation_id)
            .order_by(
                *((_T_EJ.c.trace_id,) if by_trace else (_T_EJ.c.case_key, _T_EJ.c.repetition))
            )
        )
        if with_body or path_cols:
            query = query.join(_T_BODY, _T_BODY.c.id == _T_JUDG.c.body_id)
        if queued:
            # no anomalies is an empty list or a JSON null as text; any other text may hold
            # some (the caller decides on the decoded list)
            text = cast(_T_JUDG.c.anomalies, Text)
            query = query.where(
                or_(_T_EJ.c.verdict == "FAIL", and_(text.is_not(None), text.not_in(_NO_ANOMALY)))
            )
        decode = decode_paths if path_cols else None
        if judgment_ids is None:
            yield from self._evaluated_rows(query, yield_per, with_body, n_plain, decode)
            return
        for batch in chunks(sorted(set(judgment_ids)), BATCH):
            yield from self._evaluated_rows(
                query.where(_T_EJ.c.judgment_id.in_(batch)),
                yield_per,
                with_body,
                n_plain,
                decode,
            )

    def review_pass_keys(self, evaluation_id: int) -> list[tuple[int, str, int]]:
        """(judgment id, case, repetition) of every PASS row of an evaluation whose judgment
        names no anomalies, in (case, repetition) order: the PASSes review samples from, without
        reading the rows themselves (the sampled few are read by id)."""
        query = (
            select(
                _T_EJ.c.judgment_id,
                _T_EJ.c.case_key,
                _T_EJ.c.repetition,
                cast(_T_JUDG.c.anomalies, Text),
            )
            .join(_T_JUDG, _T_JUDG.c.id == _T_EJ.c.judgment_id)
            .where(_T_EJ.c.evaluation_id == evaluation_id, _T_EJ.c.verdict == "PASS")
            .order_by(_T_EJ.c.case_key, _T_EJ.c.repetition)
        )
        cache: dict[str, list[Any]] = {}
        decode = _decode_stored if self.backend == "postgresql" else _decode_small
        with self._connect() as c:
            return [
                (int(jid), case_key, int(repetition))
                for jid, case_key, repetition, anomalies in c.execute(query)
                if not decode(anomalies, cache)
            ]

    def _evaluated_rows(
        self,
        query: Any,
        yield_per: int,
        with_body: bool,
        n_plain: int,
        decode_paths: Callable[[Sequence[Any], dict[str, list[Any]]], dict[str, Any]] | None,
    ) -> Iterator[EvaluatedTrace]:
        # PostgreSQL's texts may be marked (a value holding a NUL: rejudge.store._nul)
        pg = self.backend == "postgresql"
        decode = _decode_stored if pg else _decode_small
        loads = _nul.loads if pg else json.loads
        with self._connect() as c:
            # the options go on the statement, not the connection: an atomic() block's connection
            # must not stay streaming for the writes after this read
            stream = {"stream_results": True, "yield_per": yield_per}
            result = c.execute(query, execution_options=stream)
            cache: dict[str, list[Any]] = {}
            # bodies (text) are decoded row by row as they are yielded, not a partition at a
            # time: thousands of live decoded bodies make the garbage collector ~3x slower
            for partition in result.partitions():
                for v in partition:
                    # the columns in the fields' order, the JSON lists decoded
                    yield _evaluated(
                        EvaluatedTrace,
                        (
                            *v[:10],
                            decode(v[10], cache),
                            decode(v[11], cache),
                            decode(v[12], cache),
                            *v[13:19],
                            put_trace_hash(loads(v[19]), v[13]) if with_body else None,
                            decode_paths(v[n_plain:], cache) if decode_paths else _NO_PATHS,
                        ),
                    )
