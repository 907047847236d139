"""What every genome-browser tool shares: the reference genome, the constants, and the reads of
the browser state (the active tab, the annotation layer) the tools build their answers from.

The tools themselves are three mixins over this base (:mod:`._reads`: queries and analysis,
which read the genome only; :mod:`._views`: navigation and tabs; :mod:`._edits`: the annotation
queue and the files written), joined into one world in :mod:`.world`. A tool is a method
``tool_<name>(self, state, ...)``: it reads and writes the browser state only through the
:class:`~rejudge.model.WorldState` it is given, never on ``self``, so the world holds no
per-trace state and one world serves every trace.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.domains.genome.genome import Gene, Genome

from rejudge.model import WorldState

__all__ = [
    "DEFAULT_VIEW_WIDTH",
    "GENBANK_DATE",
    "GENE_PADDING",
    "MIN_VIEW_WIDTH",
    "SESSION",
    "GenomeTools",
    "digest",
    "wrap",
]

DEFAULT_VIEW_WIDTH = 2000
MIN_VIEW_WIDTH = 50
GENE_PADDING = 50
GENBANK_DATE = "01-JAN-2024"
#: the one record of the ``browser`` and ``counters`` tables
SESSION = "session"


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def wrap(sequence: str, width: int = 60) -> Iterable[str]:
    for i in range(0, len(sequence), width):
        yield sequence[i : i + width]


class GenomeTools:
    """Helpers of the genome tools; ``self.genome`` is the immutable reference genome."""

    genome: Genome

    # ------------------------------------------------------------------ reference

    def _gene(self, key: str) -> Gene:
        gene = self.genome.gene(key)
        if gene is None:
            raise ToolError(
                f"unknown gene {key!r}; use search_genes to find a locus tag (e.g. SGA_0030)"
            )
        return gene

    def _length(self, chromosome: str) -> int:
        chrom = self.genome.chromosome(chromosome)
        if chrom is None:  # the schema's enum normally catches this
            known = ", ".join(self.genome.chromosome_names())
            raise ToolError(f"unknown chromosome {chromosome!r} (known: {known})")
        return chrom.length

    def _check_region(self, chromosome: str, start: int, end: int) -> None:
        length = self._length(chromosome)
        if end < start:
            raise ToolError(f"end {end} is before start {start}; give start <= end")
        if end > length:
            raise ToolError(f"{chromosome} has {length} bases; end {end} is out of range")

    # ------------------------------------------------------------------ browser state

    @staticmethod
    def _active(state: WorldState) -> str:
        return str(state.get("browser", SESSION)["active_tab"])

    def _view(self, state: WorldState) -> Any:
        return state.get("tabs", self._active(state))

    @staticmethod
    def _next(state: WorldState, counter: str) -> int:
        """Hand out the next number of ``counter`` (tabs, queued actions, new annotations)."""
        counters = state.edit("counters", SESSION)
        number = int(counters[counter])
        counters[counter] = number + 1
        return number

    def _sorted_annotations(
        self, state: WorldState, chromosomes: Iterable[str]
    ) -> list[dict[str, Any]]:
        order = {name: i for i, name in enumerate(self.genome.chromosome_names())}
        wanted = set(chromosomes)
        return sorted(
            (a for _key, a in state.items("annotations") if a["chromosome"] in wanted),
            key=lambda a: (order[a["chromosome"]], a["start"], a["end"], a["id"]),
        )

    def _genes_in(self, state: WorldState, chromosome: str, start: int, end: int) -> list[str]:
        return [
            a["id"]
            for a in self._sorted_annotations(state, [chromosome])
            if a["type"] == "gene" and a["end"] >= start and a["start"] <= end
        ]

    def _describe(self, state: WorldState, tab: Any) -> dict[str, Any]:
        return {
            "tab_id": tab["tab_id"],
            "label": tab["label"],
            "chromosome": tab["chromosome"],
            "start": tab["start"],
            "end": tab["end"],
            "width": tab["end"] - tab["start"] + 1,
            "genes_in_view": self._genes_in(state, tab["chromosome"], tab["start"], tab["end"]),
        }
