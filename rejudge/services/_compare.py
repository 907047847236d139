"""Comparisons of two stored evaluations, and what each evaluation measured (its inputs)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any, NamedTuple

from rejudge.judge import FlipSide, Pairing, compare, compare_pairing, flip_between
from rejudge.judge.tiers import MODEL_GRADED
from rejudge.model import (
    KEY_PARAMETERS,
    Comparison,
    Flip,
    JudgeCalibration,
    canonical_json,
    content_hash,
)
from rejudge.store import PAIRING_FIELDS, DiscordantPair, PairedJudgment, Store

from ._evaluation_meta import EvaluationMeta, evaluation_meta
from ._judge_calibration import evaluation_judge_calibration
from ._judge_steps import evaluation_rows

__all__ = [
    "BASELINE_INPUTS",
    "evaluation_inputs",
    "compare_evaluations",
    "comparison_flips",
    "FlipCodes",
    "FirstFlips",
    "compare_first_flips",
]

#: the inputs a baseline check requires to line up (the model and its traces may differ: that is
#: what a regression check measures)
BASELINE_INPUTS = (
    "suite_hash",
    "cases_hash",
    "registry_hash",
    "tier",
    "rule_set_hash",
    "engine_version",
    "harness_mode",
)


def evaluation_inputs(store: Store, evaluation_id: int | str) -> dict[str, Any]:
    """The input hashes a baseline binds (see :data:`BASELINE_INPUTS`)."""
    meta = evaluation_meta(store, evaluation_id)
    case_hashes = sorted(
        {(r.case_key, r.case_hash) for r in store.judgments.iter_evaluation_rows(meta.id)}
    )
    flat = meta.to_json()
    inputs = {key: flat.get(key) for key in BASELINE_INPUTS if key != "cases_hash"}
    inputs["cases_hash"] = content_hash([list(pair) for pair in case_hashes])
    if meta.tier == MODEL_GRADED:
        # the model judge is part of the judge: a baseline check names its change ("judge
        # changed"); other tiers bind no such input, so their baselines are as before
        rows = _rows_with_judge(store, meta)
        for name in JUDGE_PATHS:
            values = sorted({canonical_json(r.get(name)) for r in rows})
            inputs[name] = values[0] if len(values) == 1 else content_hash(values)
    return inputs


def compare_evaluations(
    store: Store, a: int | str, b: int | str, *, with_flips: bool = True
) -> Comparison:
    """DESIGN §11 ``compare`` of two stored evaluations (plus reasons and per-dimension deltas).

    The pairing is read in SQL (:func:`_stored_pairing`) and compared by the judge
    (:func:`rejudge.judge.compare_pairing`): only the flips' rows come back whole, and none with
    ``with_flips=False`` (every count and figure stays; ``flips`` is then empty)."""
    meta_a, meta_b = evaluation_meta(store, a), evaluation_meta(store, b)
    stored = _stored_pairing(store, meta_a, meta_b, with_flips=with_flips)
    if stored is not None:
        comparison = compare_pairing(stored[0], meta_a=meta_a.to_json(), meta_b=meta_b.to_json())
    else:
        comparison = compare(
            _rows_with_judge(store, meta_a),
            _rows_with_judge(store, meta_b),
            meta_a=meta_a.to_json(),
            meta_b=meta_b.to_json(),
        )
    calibration_a, calibration_b = (
        _judge_calibration(store, meta_a),
        _judge_calibration(store, meta_b),
    )
    if calibration_a is None and calibration_b is None:
        return comparison
    # a model judge's side is shown with how far it can be trusted (a weak judge says so)
    return replace(comparison, judge_calibration_a=calibration_a, judge_calibration_b=calibration_b)


def comparison_flips(
    store: Store, a: int | str, b: int | str, *, start: int = 0, limit: int | None = None
) -> list[Flip]:
    """The flips of :func:`compare_evaluations` from ``start``, ``limit`` of them (all by
    default), read only as far as asked: a page reads the flips' keys and its own rows whole,
    where the whole comparison reads every flip (25,466 at 100k for run-a against run-b). The
    flips are the judge's (:func:`rejudge.judge.flip_of`), the same as the comparison's."""
    meta_a, meta_b = evaluation_meta(store, a), evaluation_meta(store, b)
    ia, ib = meta_a.id, meta_b.id
    end = None if limit is None else start + limit
    fields = [p.field for p in KEY_PARAMETERS if p.field in PAIRING_FIELDS]
    pairs = None
    if MODEL_GRADED not in (meta_a.tier, meta_b.tier):
        # None when a key is linked twice (the read says so itself)
        pairs = store.evaluations.discordant_pairs(ia, ib, fields, start=start, limit=limit)
    if pairs is None:
        # made from rows in memory (see _stored_pairing): the whole comparison, then the page
        return compare_evaluations(store, a, b).flips[start:end]
    return [_flip(p, fields) for p in pairs]


class FlipCodes(NamedTuple):
    """``flips`` flips from ``verdict_a`` to ``verdict_b`` with these failure codes on each side
    (what decides which changed rule setting likely explains a flip)."""

    verdict_a: str | None
    verdict_b: str | None
    taxonomy_a: tuple[str, ...]
    taxonomy_b: tuple[str, ...]
    #: how many (not ``count``: that would shadow tuple.count)
    flips: int


class FirstFlips(NamedTuple):
    """A comparison whose ``flips`` are its first ones only (every count and figure kept), and
    every flip's verdicts and codes, counted."""

    comparison: Comparison
    codes: list[FlipCodes]


def compare_first_flips(store: Store, a: int | str, b: int | str, *, limit: int) -> FirstFlips:
    """:func:`compare_evaluations` with its first ``limit`` flips only, and the codes of all of
    them (:class:`FlipCodes`), from the one pairing read that counts the comparison: a page that
    counts every flip's causes and lists a page of them (Rule impact) makes no flip beyond its
    page and does not read the flips again (at 100k, 4,681 flips of 50,000 pairs)."""
    meta_a, meta_b = evaluation_meta(store, a), evaluation_meta(store, b)
    stored = _stored_pairing(store, meta_a, meta_b, flips_limit=limit)
    if stored is None:
        whole = compare_evaluations(store, a, b)
        codes = _codes(
            (f.from_verdict, f.to_verdict, f.taxonomy_from, f.taxonomy_to) for f in whole.flips
        )
        return FirstFlips(replace(whole, flips=whole.flips[:limit]), codes)
    pairing, discordant = stored
    comparison = compare_pairing(pairing, meta_a=meta_a.to_json(), meta_b=meta_b.to_json())
    codes = _codes((p.a.verdict, p.b.verdict, p.a.taxonomy, p.b.taxonomy) for p in discordant)
    return FirstFlips(comparison, codes)


def _codes(flips: Any) -> list[FlipCodes]:
    counted = Counter((va, vb, tuple(ta), tuple(tb)) for va, vb, ta, tb in flips)
    return [FlipCodes(*key, n) for key, n in counted.items()]


def _stored_pairing(
    store: Store,
    meta_a: EvaluationMeta,
    meta_b: EvaluationMeta,
    *,
    with_flips: bool = True,
    flips_limit: int | None = None,
) -> tuple[Pairing, list[DiscordantPair]] | None:
    """The two evaluations' :class:`rejudge.judge.Pairing`, joined and counted in SQL, and its
    discordant pairs when read (``with_flips``; the pairing's flips are the first
    ``flips_limit`` of them, all by default); None when it must be made from rows in memory: a
    model-graded side (its judge's fields are in the judgment bodies) or a (case, repetition)
    linked twice in one evaluation (the join would count it twice, the rows keep one)."""
    if MODEL_GRADED in (meta_a.tier, meta_b.tier):
        return None
    # the key parameters the judgments' columns hold, in the order causes are listed
    order = tuple((p.field, p.cause) for p in KEY_PARAMETERS if p.field in PAIRING_FIELDS)
    fields = [name for name, _ in order]
    a, b = meta_a.id, meta_b.id
    # the flips come with the counts, from one call (the discordant pairs read alone)
    counts = store.evaluations.pair_counts(a, b, fields, with_flips=with_flips)
    if counts.duplicated:
        return None
    discordant = counts.discordant or []
    flips = None
    if with_flips:
        flips = [_flip(p, fields) for p in discordant[:flips_limit]]
    pairing = Pairing(
        order=order,
        pairs={(g.verdict_a, g.verdict_b, g.same): g.count for g in counts.groups},
        both_hashed=counts.both_hashed,
        changed_cases=counts.changed_cases,
        only_a=counts.only_a,
        only_b=counts.only_b,
        side_a=_by_dimension(counts.side_a),
        side_b=_by_dimension(counts.side_b),
        flips=flips,
    )
    return pairing, discordant


def _by_dimension(
    side: dict[str | None, dict[str, int]],
) -> dict[str | None, dict[str | None, int]]:
    # as the rows' pairing keys a side (an empty dimension is none)
    out: dict[str | None, dict[str | None, int]] = {}
    for dimension, counts in side.items():
        into = out.setdefault(str(dimension) if dimension else None, {})
        for verdict, n in counts.items():
            into[verdict] = into.get(verdict, 0) + n
    return out


def _flip(pair: DiscordantPair, fields: list[str]) -> Flip:
    """The judge's flip of a discordant pair (:func:`rejudge.judge.flip_between`)."""
    return flip_between(pair.case, pair.repetition, _side(pair.a, fields), _side(pair.b, fields))


def _side(judgment: PairedJudgment, fields: list[str]) -> FlipSide:
    """One side of a flip as the judge reads a judgment: its values are ``fields``' in order."""
    inputs = dict(zip(fields, judgment.values, strict=True))
    return FlipSide(
        judgment.verdict,
        judgment.taxonomy,
        judgment.dimension,
        judgment.category,
        judgment.partial_score,
        inputs,
    )


def _judge_calibration(store: Store, meta: EvaluationMeta) -> JudgeCalibration | None:
    if meta.tier != MODEL_GRADED:
        return None
    return evaluation_judge_calibration(store, meta.id)


#: what a model-graded judgment says of its judge (a flip between two judges names it)
JUDGE_PATHS = {
    "rubric_hash": ("details", "judge", "rubric_hash"),
    "judge_model": ("details", "judge", "model"),
    "judge_params": ("details", "judge", "params"),
}


def _rows_with_judge(store: Store, meta: EvaluationMeta) -> list[dict[str, Any]]:
    # a model-graded judgment's judge is read with its row, in the one read (no other tier has one)
    paths = JUDGE_PATHS if meta.tier == MODEL_GRADED else None
    return evaluation_rows(store, meta.id, paths)
