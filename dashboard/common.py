"""What every page shares: the database URL the app was started with, pickers, formatting."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import streamlit as st
from rejudge.dashboard import CASSETTES_ENV, DB_ENV, PRICES_ENV
from rejudge.dashboard.figures_html import figure_html
from rejudge.store import (
    EvaluationSummary,
    FilterOptions,
    RunSummary,
    Store,
    redact_url,
)

from rejudge.errors import RejudgeError
from rejudge.model import FLIP_CAUSES as _CAUSES
from rejudge.model import UNKNOWN_CAUSE

__all__ = [
    "AppContext",
    "page_picker",
    "context",
    "parse_args",
    "pct",
    "figure",
    "num",
    "eval_label",
    "pick_evaluation",
    "pick_run",
    "filters_widget",
    "url_multiselect",
    "tool_badge",
    "md_escape",
    "store_errors",
    "query_int",
    "p_value",
    "delta_shown",
    "verdict_caption",
    "not_scorable",
    "verdict_shown",
    "NOT_SCORABLE",
    "FLIP_CAUSES",
    "FLIP_COLUMNS",
    "url_choice",
]

FILTER_KEYS = {"suite": "Suite", "model": "Model", "tier": "Tier", "rule_set": "Rule set"}

# why a case flipped: the first input that differs, in the model's order (rejudge.model)
FLIP_CAUSES: tuple[str, ...] = (*(label for _field, label in _CAUSES), UNKNOWN_CAUSE)
# a flip's columns as the tables head them (``from`` is a Python keyword, not a field name)
FLIP_COLUMNS = {"from_verdict": "from", "to_verdict": "to"}


@dataclass(frozen=True)
class AppContext:
    db_url: str
    cassettes_dir: Path | None
    #: the price table (``rejudge dashboard --prices``); None: no cost is shown
    prices_file: Path | None = None

    @property
    def shown_url(self) -> str:
        return redact_url(self.db_url)


def parse_args(argv: list[str], environ: Mapping[str, str]) -> AppContext | None:
    """The store as ``rejudge dashboard`` passes it (environment: :data:`dashboard.DB_ENV`,
    :data:`dashboard.CASSETTES_ENV`, :data:`dashboard.PRICES_ENV`), or ``--db URL [--cassettes
    DIR] [--prices FILE]`` after ``--`` for a hand-started ``streamlit run`` (the command line
    wins)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--db")
    parser.add_argument("--cassettes")
    parser.add_argument("--prices")
    known, _rest = parser.parse_known_args(argv)
    db = known.db or environ.get(DB_ENV)
    if not db:
        return None
    cassettes = known.cassettes if known.db else environ.get(CASSETTES_ENV)
    prices = known.prices if known.db else environ.get(PRICES_ENV)
    return AppContext(db, Path(cassettes) if cassettes else None, Path(prices) if prices else None)


def context() -> AppContext:
    """The app's store: set in session state (tests) or passed on the command line."""
    if "db_url" not in st.session_state:
        parsed = parse_args(sys.argv[1:], os.environ)
        if parsed is None:
            st.error(
                "No database given. Start the dashboard with `rejudge dashboard` "
                f"(it passes the store in {DB_ENV})."
            )
            st.stop()
        st.session_state["db_url"] = parsed.db_url
        st.session_state["cassettes_dir"] = str(parsed.cassettes_dir or "")
        st.session_state["prices_file"] = str(parsed.prices_file or "")
    cassettes = st.session_state.get("cassettes_dir") or None
    prices = st.session_state.get("prices_file") or None
    return AppContext(
        str(st.session_state["db_url"]),
        Path(cassettes) if cassettes else None,
        Path(prices) if prices else None,
    )


def pct(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{100 * value:.{digits}f}%"


def figure(
    where: object, label: str, value: object, *, note: str | None = None, delta: str | None = None
) -> None:
    """A headline figure (label, value, an optional delta and hover note) in ``where``: ``st``
    or a column. All four are text, never Markdown (:mod:`rejudge.dashboard.figures_html`)."""
    where.html(figure_html(label, value, note=note, delta=delta))  # type: ignore[attr-defined]


def num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def eval_label(row: EvaluationSummary) -> str:
    return f"#{row.id} · {row.run} · {row.tier} · {row.rule_set}"


def query_int(name: str) -> int | None:
    raw = st.query_params.get(name)
    try:
        return int(raw) if raw is not None else None
    except (TypeError, ValueError):
        return None


def pick_evaluation(
    label: str, rows: list[EvaluationSummary], *, key: str, default_index: int = 0
) -> EvaluationSummary | None:
    """A selectbox over evaluations; ``?<key>=<id>`` in the URL preselects one."""
    if not rows:
        return None
    ids = [r.id for r in rows]
    wanted = query_int(key)
    index = ids.index(wanted) if wanted in ids else min(max(default_index, 0), len(ids) - 1)
    by_id = {r.id: r for r in rows}
    chosen = st.selectbox(
        label, ids, index=index, key=f"pick_{key}", format_func=lambda i: eval_label(by_id[i])
    )
    if chosen is not None:
        st.query_params[key] = str(chosen)
    return by_id.get(chosen) if chosen is not None else None


def pick_run(
    label: str, rows: list[RunSummary], *, key: str = "run", default_index: int = -1
) -> RunSummary | None:
    if not rows:
        return None
    ids = [r.id for r in rows]
    wanted = query_int(key)
    index = ids.index(wanted) if wanted in ids else default_index % len(ids)
    by_id = {r.id: r for r in rows}
    chosen = st.selectbox(
        label,
        ids,
        index=index,
        key=f"pick_{key}",
        format_func=lambda i: f"#{i} · {by_id[i].run} · {by_id[i].model} · {by_id[i].suite}",
    )
    if chosen is not None:
        st.query_params[key] = str(chosen)
    return by_id.get(chosen) if chosen is not None else None


# a filter's name in the URL (``?suite=a,b&rules=standard@2``), where it differs from its key
URL_NAMES = {"rule_set": "rules"}


def url_multiselect(label: str, options: list[str], *, key: str, param: str) -> list[str]:
    """A multiselect kept in the URL as ``?param=a,b``, so a filtered view is a link. A link's
    values seed the widget when it opens (values the store does not hold are said in a warning
    and dropped: the unfiltered view shows); later the widget writes the URL."""
    seen_key = f"_url_{key}"
    raw = ",".join(st.query_params.get_all(param))
    # a URL naming values this widget did not write is a link: it wins (a URL naming none, as
    # after moving between pages, keeps what the session chose)
    if raw and raw != st.session_state.get(seen_key, ""):
        asked = [v for v in raw.split(",") if v]
        unknown = [v for v in asked if v not in options]
        if unknown:
            st.warning(
                md_escape(f"No {param} {', '.join(map(repr, unknown))} in this store")
                + ": the filter is left out."
            )
        st.session_state[key] = [v for v in asked if v in options]
    current = [v for v in st.session_state.get(key, []) if v in options]
    st.session_state[key] = current
    chosen = st.multiselect(label, options, key=key, placeholder="all")
    written = ",".join(chosen)
    if written:
        st.query_params[param] = written
    else:
        st.query_params.pop(param, None)
    st.session_state[seen_key] = written
    return list(chosen)


def filters_widget(options: FilterOptions, *, keys: tuple[str, ...]) -> dict[str, list[str]]:
    """Multiselects for suite / model / tier / rule set, shared between pages by session key
    and kept in the URL (:func:`url_multiselect`)."""
    columns = st.columns(len(keys))
    chosen: dict[str, list[str]] = {}
    for column, name in zip(columns, keys, strict=True):
        with column:
            chosen[name] = url_multiselect(
                FILTER_KEYS[name],
                list(options.values(name)),
                key=f"filter_{name}",
                param=URL_NAMES.get(name, name),
            )
    return {k: v for k, v in chosen.items() if v}


_MD_SPECIAL = "\\`*_{}[]()#+-.!|<>:$~"
# Streamlit's Markdown turns text that reads as a URL or an e-mail address into a live link
# after escapes are decoded, so escaping cannot stop it: a zero-width space inside the pattern
# ("http:/\u200b/", "www\u200b.", "a@\u200bb.c") does, and the text still reads the same
_LINKABLE = re.compile(r"(?<=:/)(?=/)|(?i:(?<=www)(?=\.))|(?<=@)(?=[\w-]+\.[\w-])")


def md_escape(value: str) -> str:
    """``value`` as inert Markdown: no markup, no HTML, no LaTeX and no link."""
    value = _LINKABLE.sub("\u200b", value)
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in value)


def judge_headline(where: object, line: str, weak: bool) -> None:
    """A model judge's one line (``weak judge: kappa 0.05 vs τ-bench reward on 200 traces``,
    computed by the calibration service) in ``where``: a warning when the judge is weak, else a
    caption. Escaped: source and tier names are data."""
    if weak:
        where.warning(md_escape(line))  # type: ignore[attr-defined]
    else:
        where.caption(md_escape(line))  # type: ignore[attr-defined]


@contextlib.contextmanager
def store_errors(store: Store) -> Iterator[None]:
    """A library error or a lost database inside the block as one line, never a traceback (the
    app wraps every page run in it; a fragment that reruns on its own, like the live monitor's,
    wraps itself, since the app's wrapper is not around its reruns)."""
    try:
        yield
    except RejudgeError as exc:
        st.error(md_escape(str(exc)))
    except Exception as exc:
        lost = store.unavailable(exc)
        if lost is None:
            raise
        st.error(f"The store is unavailable: {md_escape(str(lost))}")


def tool_badge(name: str, ok: bool | None, parse_error: bool = False) -> str:
    """Green when the call executed successfully, red when it failed or did not parse, gray when
    it was never executed (e.g. imported traces)."""
    if parse_error or ok is False:
        color, mark = "red", "✗"
    elif ok is True:
        color, mark = "green", "✓"
    else:
        color, mark = "gray", "·"
    return f":{color}-badge[{mark} {md_escape(name)}]"


NO_CALL_BADGE = ":yellow-badge[⚠ no call]"


NOT_SCORABLE = "not scorable"


def not_scorable(case_body: Mapping[str, object] | None) -> bool:
    """A case nothing can be scored against: not negative, not skipped, and no golden call (an
    ad-hoc case imported from cassettes). Its FAIL says nothing about the model."""
    if not case_body:
        return False
    golden = case_body.get("golden")
    calls = golden.get("calls") if isinstance(golden, Mapping) else None
    return not calls and not case_body.get("negative") and not case_body.get("skip")


def verdict_shown(judgment: Mapping[str, object], case_body: Mapping[str, object] | None) -> str:
    """The verdict as a page shows it: ``not scorable`` for a case with no golden call to score
    against (the judge's SKIP for it, or the FAIL an engine before 1.1.0 stored)."""
    verdict = str(judgment.get("verdict", "?"))
    if verdict in ("FAIL", "SKIP") and not_scorable(case_body):
        return NOT_SCORABLE
    return verdict


def p_value(p: float | None, *, prefix: bool = False) -> str:
    """A p-value as people read it: four decimals, and ``< 0.0001`` below that (never
    ``0.0000``); ``prefix`` gives ``= 0.0312`` / ``< 0.0001`` for a sentence."""
    if p is None:
        return "—"
    if p < 0.0001:
        return "< 0.0001"
    return f"= {p:.4f}" if prefix else f"{p:.4f}"


def delta_shown(delta: float | None) -> str | None:
    """A metric's delta in points; None (no arrow) when there is none or it is zero."""
    if delta is None or round(100 * delta, 1) == 0:
        return None
    return f"{100 * delta:+.1f} pts"


def verdict_caption(ev: EvaluationSummary) -> str:
    """An evaluation's counts in one line, what accuracy leaves out beside it."""
    return (
        f"n={ev.scored} scored ({ev.PASS} PASS · {ev.FAIL} FAIL) · "
        f"{ev.SKIP} SKIP · {ev.AGENT_ERROR} AGENT_ERROR"
    )


@overload
def url_choice(name: str, options: list[str], default: str) -> str: ...
@overload
def url_choice(name: str, options: list[str], default: None) -> str | None: ...
def url_choice(name: str, options: list[str], default: str | None) -> str | None:
    """The value ``?name=`` asks for among ``options``, else ``default``. A value that is not
    among them is said on the page (a warning naming it), and the default view is shown: a
    link to a suite since renamed still opens a page, and says why it shows something else."""
    raw = st.query_params.get(name)
    if raw is None or raw == "":
        return default
    if raw in options:
        return str(raw)
    st.warning(
        md_escape(f"No {name} {raw!r} in this store: showing ")
        + (md_escape(repr(default)) if default is not None else "everything")
        + " instead."
    )
    return default


def page_picker(total: int, *, key: str) -> int:
    """Which page of ``total`` flips to show (1 when they fit on one, and no picker then)."""
    from rejudge.dashboard.paging import FLIPS_PAGE, page_count

    pages = page_count(total, FLIPS_PAGE)
    if pages == 1:
        return 1
    if int(st.session_state.get(key, 1)) > pages:
        # a narrower filter has fewer pages: back to the first, not past the last
        st.session_state[key] = 1
    chosen = st.number_input(
        f"Page (of {pages:,}, {FLIPS_PAGE:,} flips each)",
        min_value=1,
        max_value=pages,
        step=1,
        key=key,
    )
    return int(chosen)
