"""The review picker's window (dashboard/paging.py): the current item always listed, centred
where the ends allow, never more than the window."""

from __future__ import annotations

from rejudge.dashboard.paging import around, page_count, shown_range


def test_the_window_holds_the_current_item_centred_within_the_ends() -> None:
    items = list(range(1000))
    assert around(items, 500, 10) == list(range(495, 505))
    assert around(items, 2, 10) == list(range(10))  # the start
    assert around(items, 998, 10) == list(range(990, 1000))  # the end
    assert around(items, -1, 10) == list(range(10))  # not in the list: the first
    assert around(items[:7], 3, 10) == items[:7]  # a short list is listed whole
    for current in (0, 1, 99, 500, 999):
        window = around(items, current, 200)
        assert current in window and len(window) == 200


def test_flip_pages_cover_every_flip_once() -> None:
    for total in range(0, 40):
        pages = page_count(total, 7)
        # the last page holds the last item; no page is left empty (one page for none)
        assert (pages - 1) * 7 < max(total, 1) <= pages * 7
    assert shown_range(0, 5) == "5"
    assert shown_range(1000, 1000) == "1000 (1,001–2,000)"
