"""The rejudge dashboard (Streamlit). Start it with ``rejudge dashboard``.

The command passes the store in the app's environment (``REJUDGE_DASHBOARD_DB``, never on the
command line, where a password would show in ``ps``); a hand-started ``streamlit run
dashboard/app.py -- --db URL [--cassettes DIR]`` works too. Pages live in ``dashboard/views/``
and read the store only through its read models (``rejudge.store.*_reads``, cached by
``dashboard.data``), the services and the judge's pure functions.
"""

from __future__ import annotations

import streamlit as st
from rejudge.dashboard import data
from rejudge.dashboard.common import context
from rejudge.store import RejudgeError

st.set_page_config(page_title="rejudge", page_icon=":material/balance:", layout="wide")

ctx = context()
try:
    data.store(ctx.db_url)
except RejudgeError as exc:
    st.error(f"Cannot open the store {ctx.shown_url}: {exc}")
    st.stop()

PAGES = [
    st.Page(
        "views/overview.py",
        title="Overview",
        icon=":material/home:",
        url_path="overview",
        default=True,
    ),
    st.Page(
        "views/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"
    ),
    st.Page(
        "views/rule_impact.py", title="Rule impact", icon=":material/rule:", url_path="rule_impact"
    ),
    st.Page(
        "views/trace_viewer.py",
        title="Trace viewer",
        icon=":material/manage_search:",
        url_path="trace",
    ),
    st.Page("views/pass_k.py", title="pass^k", icon=":material/repeat:", url_path="pass_k"),
    st.Page(
        "views/agreement.py", title="Agreement", icon=":material/handshake:", url_path="agreement"
    ),
    st.Page("views/review.py", title="Review", icon=":material/rate_review:", url_path="review"),
    st.Page("views/live.py", title="Live monitor", icon=":material/sensors:", url_path="live"),
    st.Page("views/trends.py", title="Trends", icon=":material/trending_up:", url_path="trends"),
]

page = st.navigation(PAGES)
st.sidebar.caption(f"Store: `{ctx.shown_url}`")
page.run()
