"""Evidence text is never a link (AppTest, SQLite): a model name holding a URL, a ``www.``
address or an e-mail address reaches Streamlit's Markdown with its link pattern broken, on every
page that names it (Compare's "What differs", Overview's cards, Report, the trace viewer)."""

from __future__ import annotations

import re
from pathlib import Path

from rejudge.dashboard.common import md_escape

from tests.dashboard.conftest import app_on
from tests.dashboard.factory import build_store

EVIL = "https://evil.example/m www.evil.example mail@evil.example"
# what Streamlit's Markdown autolinks once the escapes are decoded
LINKABLE = re.compile(r"(https?|ftp)://|www\.|[\w.+-]+@[\w-]+\.\w")


def _markup(at) -> list[str]:
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    texts += [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]
    texts += [e.label for e in at.expander]  # figures are escaped HTML, not Markdown
    return [t.replace("\\", "") for t in texts]  # the escapes decoded, as the renderer does


def test_md_escape_breaks_every_link_pattern() -> None:
    for text in (EVIL, "see http://x.y/z", "WWW.EXAMPLE.COM", "ftp://a.b"):
        assert not LINKABLE.search(md_escape(text).replace("\\", "")), text
    assert md_escape("plain case-1").replace("\\", "") == "plain case-1"


def test_a_model_name_holding_a_url_is_no_link_anywhere(tmp_path: Path) -> None:
    built = build_store(
        f"sqlite:///{tmp_path / 'r.db'}", cases=4, repeat=1, models=("model-a", EVIL, "model-c")
    )
    a, b = built.evaluations["a1"], built.evaluations["b1"]
    pages = [
        app_on(built, "compare", a=str(a), b=str(b)),
        app_on(built),
        app_on(built, "report", ev=str(b)),
        app_on(built, "trace_viewer", run=str(built.runs["run-b"])),
        app_on(built, "side_by_side", a=str(a), b=str(b), case="c00000", rep="0"),
    ]
    compare = pages[0]
    assert any("What differs" in c.value and "evil" in c.value for c in compare.caption)
    for at in pages:
        for text in _markup(at):
            assert not LINKABLE.search(text), text
