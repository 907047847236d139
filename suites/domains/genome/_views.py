"""The genome tools that move the browser: navigation and zoom (the active tab's view), and the
tabs themselves (open, switch, close, list).

State they write: ``tabs`` (one record per open tab: its label and view), ``browser/session``
(which tab is active) and, as the ledger, ``counters/session`` (the next tab number: a closed
tab's id is never handed out again).
"""

from __future__ import annotations

from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.domains.genome._tools_base import (
    DEFAULT_VIEW_WIDTH,
    GENE_PADDING,
    MIN_VIEW_WIDTH,
    SESSION,
    GenomeTools,
)

from rejudge.model import WorldState

__all__ = ["ViewTools"]


class ViewTools(GenomeTools):
    """Navigation in the active tab, and the tabs."""

    # ------------------------------------------------------------------ the active view

    def _set_view(self, state: WorldState, chromosome: str, start: int, end: int) -> dict[str, Any]:
        view = state.edit("tabs", self._active(state))
        view.update({"chromosome": chromosome, "start": start, "end": end})
        return self._describe(state, view)

    def _centre(
        self, state: WorldState, chromosome: str, centre: int, width: int
    ) -> dict[str, Any]:
        length = self._length(chromosome)
        if centre > length:
            raise ToolError(f"{chromosome} has {length} bases; position {centre} is out of range")
        width = max(MIN_VIEW_WIDTH, min(width, length))
        start = max(1, centre - width // 2)
        end = start + width - 1
        if end > length:
            end = length
            start = max(1, end - width + 1)
        return self._set_view(state, chromosome, start, end)

    def tool_navigate_to_position(
        self,
        state: WorldState,
        chromosome: str,
        position: int | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> dict[str, Any]:
        if position is not None and start is not None:
            raise ToolError("give either position or start (with an optional end), not both")
        if end is not None and start is None:
            raise ToolError("end needs start; give start and end, or position alone")
        if position is None and start is None:
            raise ToolError("give position (a base to centre on) or start")
        view = self._view(state)
        width = view["end"] - view["start"] + 1
        if start is not None and end is not None:
            self._check_region(chromosome, start, end)
            return self._set_view(state, chromosome, start, end)
        centre = position if position is not None else start
        assert centre is not None
        return self._centre(state, chromosome, centre, width)

    def tool_jump_to_gene(self, state: WorldState, gene_id: str) -> dict[str, Any]:
        gene = self._gene(gene_id)
        length = self._length(gene.chromosome)
        start = max(1, gene.start - GENE_PADDING)
        end = min(length, gene.end + GENE_PADDING)
        return {"gene_id": gene.id, **self._set_view(state, gene.chromosome, start, end)}

    def _zoom(self, state: WorldState, width: int) -> dict[str, Any]:
        view = self._view(state)
        centre = (view["start"] + view["end"]) // 2
        return self._centre(state, view["chromosome"], centre, width)

    def tool_zoom_in(self, state: WorldState, factor: int = 2) -> dict[str, Any]:
        view = self._view(state)
        return self._zoom(state, (view["end"] - view["start"] + 1) // factor)

    def tool_zoom_out(self, state: WorldState, factor: int = 2) -> dict[str, Any]:
        view = self._view(state)
        return self._zoom(state, (view["end"] - view["start"] + 1) * factor)

    def tool_get_current_view(self, state: WorldState) -> dict[str, Any]:
        return self._describe(state, self._view(state))

    # ------------------------------------------------------------------ tabs

    def _activate(self, state: WorldState, tab_id: str) -> None:
        state.edit("browser", SESSION)["active_tab"] = tab_id

    def _tab(self, state: WorldState, tab_id: str) -> Any:
        tab = state.get("tabs", tab_id)
        if tab is None:
            known = ", ".join(state.keys("tabs"))
            raise ToolError(f"no open tab {tab_id!r} (open: {known}); use list_tabs")
        return tab

    def tool_open_tab(
        self,
        state: WorldState,
        chromosome: str | None = None,
        start: int = 1,
        end: int | None = None,
        label: str | None = None,
    ) -> dict[str, Any]:
        chromosome = chromosome or self._view(state)["chromosome"]
        length = self._length(chromosome)
        if end is None:
            end = min(length, start + DEFAULT_VIEW_WIDTH - 1)
        self._check_region(chromosome, start, end)
        tab_id = f"tab-{self._next(state, 'next_tab')}"
        tab = {
            "tab_id": tab_id,
            "label": label or f"{chromosome}:{start}-{end}",
            "chromosome": chromosome,
            "start": start,
            "end": end,
        }
        # tabs list in the order they were opened: the first tab, then new ones as added
        state.put("tabs", tab_id, tab)
        self._activate(state, tab_id)
        return {**self._describe(state, tab), "open_tabs": len(state.keys("tabs"))}

    def tool_switch_tab(self, state: WorldState, tab_id: str) -> dict[str, Any]:
        tab = self._tab(state, tab_id)
        self._activate(state, tab_id)
        return self._describe(state, tab)

    def tool_close_tab(self, state: WorldState, tab_id: str) -> dict[str, Any]:
        self._tab(state, tab_id)
        order = state.keys("tabs")
        if len(order) == 1:
            raise ToolError(f"{tab_id} is the last open tab and cannot be closed")
        index = order.index(tab_id)
        state.delete("tabs", tab_id)
        active = self._active(state)
        if active == tab_id:
            # the tab before the closed one (or the new first) becomes active
            remaining = state.keys("tabs")
            active = remaining[max(0, index - 1)]
            self._activate(state, active)
        return {"closed": tab_id, "active_tab": active, "open_tabs": len(state.keys("tabs"))}

    def tool_list_tabs(self, state: WorldState) -> dict[str, Any]:
        active = self._active(state)
        return {
            "active_tab": active,
            "tabs": [
                {**self._describe(state, tab), "active": tab_id == active}
                for tab_id, tab in state.items("tabs")
            ],
        }
