"""The rejudge dashboard (Streamlit). Start it with ``rejudge dashboard``.

The command passes the store in the app's environment (``REJUDGE_DASHBOARD_DB``, never on the
command line, where a password would show in ``ps``); a hand-started ``streamlit run
dashboard/app.py -- --db URL [--cassettes DIR]`` works too. Pages live in ``dashboard/views/``
and read the store only through its read models (``rejudge.store.*_reads``, cached by
``dashboard.data``), the services and the judge's pure functions.

Nothing the page loads leaves the machine: the favicon is an emoji (Streamlit draws it as an
inline SVG; a ``:material/...:`` icon would be fetched from a font CDN), fonts are Streamlit's
bundled ones, and the developer toolbar is hidden.
"""

from __future__ import annotations

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context, md_escape, store_errors

from rejudge.errors import RejudgeError

# scriptable client option: set here too, so a hand-started `streamlit run` hides the toolbar
st.set_option("client.toolbarMode", "minimal")
st.set_page_config(page_title="rejudge", page_icon="⚖️", layout="wide")

# the main area starts 6rem down by default: a sixth of a 800-px window spent on nothing, and
# the answer a page opens on must sit in the first screen (issue 39)
st.html('<style>[data-testid="stMainBlockContainer"]{padding-top:2.5rem}</style>')

ctx = context()
try:
    store = data.store(ctx.db_url)
except RejudgeError as exc:
    st.error(f"Cannot open the store {md_escape(ctx.shown_url)}: {md_escape(str(exc))}")
    st.stop()

# the default page is served at "/" only; its url_path is reserved but never answers, so the
# address people type or paste ("/overview") is a hidden alias that switches to it
OVERVIEW = st.Page(
    "views/overview.py", title="Overview", icon=":material/home:", url_path="home", default=True
)
PAGES = [
    OVERVIEW,
    st.Page("views/report.py", title="Report", icon=":material/summarize:", url_path="report"),
    st.Page(
        "views/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"
    ),
    st.Page("views/grid.py", title="Models", icon=":material/grid_on:", url_path="models"),
    st.Page(
        "views/rule_impact.py", title="Rule impact", icon=":material/rule:", url_path="rule_impact"
    ),
    st.Page(
        "views/trace_viewer.py",
        title="Trace viewer",
        icon=":material/manage_search:",
        url_path="trace",
    ),
    st.Page(
        "views/side_by_side.py",
        title="Side by side",
        icon=":material/view_column_2:",
        url_path="side_by_side",
    ),
    st.Page("views/pass_k.py", title="pass^k", icon=":material/repeat:", url_path="pass_k"),
    st.Page(
        "views/agreement.py", title="Agreement", icon=":material/handshake:", url_path="agreement"
    ),
    st.Page("views/review.py", title="Review", icon=":material/rate_review:", url_path="review"),
    st.Page("views/live.py", title="Live monitor", icon=":material/sensors:", url_path="live"),
    st.Page("views/trends.py", title="Trends", icon=":material/trending_up:", url_path="trends"),
]


def _overview_alias() -> None:
    st.switch_page(OVERVIEW)


ALIAS = st.Page(_overview_alias, title="Overview", url_path="overview")

page = st.navigation([*PAGES, ALIAS], position="hidden")
with st.sidebar:
    for entry in PAGES:
        # Compare's link keeps the pair last opened there (a plain link would drop it)
        pair = st.session_state.get("compare_pair") if entry.url_path == "compare" else None
        st.page_link(entry, label=entry.title, icon=entry.icon, query_params=pair)
    st.caption(f"Store: {md_escape(ctx.shown_url)}")
gone = data.store_gone(ctx.db_url)
if gone is not None:
    st.error(md_escape(gone))
    st.stop()
with store_errors(store):
    page.run()
