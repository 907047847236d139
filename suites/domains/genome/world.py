"""The genome-browser world (``genome``, data version 1): the synthetic genome as initial data
and the 29 browser tools acting on a copy-on-write state.

Tables. The reference, never written: ``genome`` (name, organism, format), ``chromosomes``
(with their sequences), ``genes`` and ``features``, as ``data/genome.json`` holds them, so the
data hash a registry names covers every base the tools read. The browser session, as a fresh
sandbox had it: ``annotations`` (every gene and feature as an editable annotation), ``tabs``
(``tab-1``, "Main", the first 2,000 bases of chrA), ``browser/session`` (the active tab),
``queue`` and ``files`` (empty). The ledger, not compared: ``counters/session``, the next tab,
action and new-annotation numbers.

A case may start from another state: ``metadata.setup_calls`` run on the fresh state before
the conversation (:meth:`GenomeWorld.case_state`), for the recorder's sandbox and the judge's
``state`` tier alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from rejudge.suites._domain import read_json_data
from rejudge.suites._sandbox import SchemaWorld
from rejudge.suites.domains.genome._edits import EditTools
from rejudge.suites.domains.genome._reads import ReadTools
from rejudge.suites.domains.genome._tools_base import DEFAULT_VIEW_WIDTH, SESSION
from rejudge.suites.domains.genome._views import ViewTools
from rejudge.suites.domains.genome.genome import DATA_PATH, Genome, load_genome
from rejudge.suites.domains.genome.tools import REGISTRY_VERSION, tool_specs

from rejudge.errors import InvalidInputError
from rejudge.model import ToolRegistry, WorldData, WorldState, world_key
from rejudge.registry import REGISTRY

__all__ = [
    "NAME",
    "SETUP_KEY",
    "VERSION",
    "GenomeSetupError",
    "GenomeWorld",
    "genome_world",
    "load_data",
]

NAME = "genome"
#: a change to genome.json or to what a tool writes is a new version
VERSION = "1"
# case.metadata[SETUP_KEY]: calls run on a fresh state before the case (e.g. open tabs)
SETUP_KEY = "setup_calls"


class GenomeSetupError(InvalidInputError):
    """A case's setup calls do not run; fix the case's metadata.setup_calls."""


def _session(genome: Genome) -> dict[str, Any]:
    """The browser session a fresh sandbox starts with: annotations, one tab, empty queue."""
    annotations: dict[str, Any] = {}
    for gene in genome.genes:
        annotations[gene.id] = {
            "id": gene.id,
            "type": "gene",
            "chromosome": gene.chromosome,
            "start": gene.start,
            "end": gene.end,
            "strand": gene.strand,
            "name": gene.name,
            "product": gene.product,
            "note": "",
        }
    for feature in genome.features:
        annotations[feature.id] = {
            "id": feature.id,
            "type": feature.type,
            "chromosome": feature.chromosome,
            "start": feature.start,
            "end": feature.end,
            "strand": feature.strand,
            "name": feature.name,
            "product": "",
            "note": feature.note,
        }
    first = genome.chromosomes[0]
    tab = {
        "tab_id": "tab-1",
        "label": "Main",
        "chromosome": first.name,
        "start": 1,
        "end": min(first.length, DEFAULT_VIEW_WIDTH),
    }
    return {
        "annotations": annotations,
        "tabs": {"tab-1": tab},
        "browser": {SESSION: {"active_tab": "tab-1"}},
        "queue": {},
        "files": {},
        "counters": {SESSION: {"next_tab": 2, "next_action": 1, "next_new_id": 1}},
    }


@cache
def load_data() -> WorldData:
    """The initial data: genome.json's reference as tables, plus a fresh browser session."""
    raw = read_json_data(DATA_PATH, "the genome world's initial data")
    reference = {
        "genome": {"reference": {k: v for k, v in raw.items() if not isinstance(v, list)}},
        "chromosomes": {c["name"]: c for c in raw["chromosomes"]},
        "genes": {g["id"]: g for g in raw["genes"]},
        "features": {f["id"]: f for f in raw["features"]},
    }
    return WorldData.of(NAME, VERSION, {**reference, **_session(load_genome())})


class GenomeWorld(ReadTools, ViewTools, EditTools, SchemaWorld):
    """The genome browser as a world: every tool reads and writes the state it is given."""

    name: ClassVar[str] = NAME
    version: ClassVar[str] = VERSION
    ledger_tables: ClassVar[frozenset[str]] = frozenset({"counters"})

    def __init__(self, data: WorldData, registry: ToolRegistry, genome: Genome) -> None:
        super().__init__(data, registry)
        # the reference as objects (the tables hold the same, for the hash): tools read it
        self.genome = genome

    def case_state(self, metadata: Mapping[str, Any] | None = None) -> WorldState:
        state = self.new_state()
        for index, call in enumerate((metadata or {}).get(SETUP_KEY, [])):
            outcome = self.execute(state, call["tool"], dict(call.get("arguments", {})))
            if not outcome.ok:
                error = outcome.content.get("error") if isinstance(outcome.content, dict) else None
                raise GenomeSetupError(
                    f"setup call {index + 1} ({call['tool']}) failed: {error}; "
                    f"fix metadata.{SETUP_KEY}"
                )
        return state


@cache
def genome_world() -> GenomeWorld:
    """The world on the shipped genome, built once per process (what the registry keeps)."""
    # the argument check needs the tools' schemas only (the domain's registry, in domain.py,
    # also names this world, whose data hash needs the data first)
    checks = ToolRegistry(domain=NAME, version=REGISTRY_VERSION, tools=list(tool_specs()))
    return GenomeWorld(load_data(), checks, load_genome())


# the latest version under the bare name, every version under its key (rejudge.model.world_key)
REGISTRY.register_factory("world", NAME, genome_world)
REGISTRY.register_factory("world", world_key(NAME, VERSION), genome_world)
