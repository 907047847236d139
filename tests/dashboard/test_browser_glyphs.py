"""What the dashboard draws as a mark is a glyph the browser has: a figure's note mark, drawn in
headless Chromium with the fonts of the machine, differs from the box a missing glyph draws
(issue 39: the former U+24D8 circled i, which no DejaVu or Liberation font holds, showed as an
empty box). Skips only when Debian's chromium is absent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rejudge.dashboard.figures_html import figure_html

from tests.dashboard.test_browser import CHROMIUM, CHROMIUM_FLAGS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed"),
]
# a private-use code point: no font has it, so the browser draws its missing-glyph box
MISSING = "\ue000"


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield browser.new_page(viewport={"width": 600, "height": 300})
        finally:
            browser.close()


def _drawn(page: Any, mark: str | None) -> bytes:
    """A screenshot of the figure's note mark, its text replaced by ``mark`` when given."""
    page.set_content(
        '<body style="font-family:sans-serif">'
        + figure_html("Accuracy", "72.2%", note="over 18 scored")
        + "</body>"
    )
    note = page.locator(".rj-figure-note")
    if mark is not None:
        note.evaluate("(e, m) => { e.textContent = m }", mark)
    return bytes(note.screenshot())


def test_the_note_mark_is_a_glyph_not_the_missing_glyph_box(page: Any) -> None:
    shown = _drawn(page, None)
    assert shown != _drawn(page, MISSING), "the note mark is drawn as a missing glyph"
    # and it is not blank either: an empty mark draws the same circle with nothing in it
    assert shown != _drawn(page, "")
