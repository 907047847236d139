"""The genome domain object: registry, fresh sandboxes (optionally pre-set by case metadata) and
the domain's own case checks for the validator."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from rejudge.suites.domains.genome.genome import load_genome
from rejudge.suites.domains.genome.sandbox import GenomeSandbox
from rejudge.suites.domains.genome.tools import (
    ALTERNATIVE_KEYS,
    DOMAIN_NAME,
    EQUIVALENCES,
    FOLLOW_UPS,
    REGISTRY_VERSION,
    annotation_ids,
    tool_specs,
)
from rejudge.suites.domains.genome.world import (
    SETUP_KEY,
    GenomeSetupError,
    genome_world,
    load_data,
)

from rejudge.model import Case, ToolRegistry

__all__ = ["GenomeDomain", "GenomeSetupError", "CASE_ID_PATTERN", "SETUP_KEY", "build_registry"]

# gs-<area>-NNN (simple suite) and gc-<area>-NNN (complex suite); <area> is the dimension
CASE_ID_PATTERN = r"g[sc]-[a-z]+-\d{3}"
_ID = re.compile(r"g[sc]-(?P<area>[a-z]+)-\d{3}")


@cache
def build_registry() -> ToolRegistry:
    genome = load_genome()
    gene_keys = sorted({g.id for g in genome.genes} | {g.name for g in genome.genes})
    return ToolRegistry(
        domain=DOMAIN_NAME,
        version=REGISTRY_VERSION,
        tools=list(tool_specs()),
        equivalences=[list(group) for group in EQUIVALENCES],
        alternative_keys={
            t: {p: list(k) for p, k in m.items()} for t, m in ALTERNATIVE_KEYS.items()
        },
        follow_ups={t: list(f) for t, f in FOLLOW_UPS.items()},
        fixture_ids={
            "gene_id": gene_keys,
            "gene_ids": gene_keys,
            "chromosome": genome.chromosome_names(),
        },
        # the world the tools act on: the judge's state tier applies to genome cases
        world=load_data().ref,
    )


class GenomeDomain:
    """The genome-browser world (DESIGN §6): 29 tools over a tiny synthetic genome."""

    name = DOMAIN_NAME
    case_id_pattern: str | None = CASE_ID_PATTERN

    def registry(self) -> ToolRegistry:
        return build_registry()

    def new_sandbox(self, case_metadata: dict[str, Any] | None = None) -> GenomeSandbox:
        # the case's setup calls run in the world, as the state tier runs them when it judges
        return GenomeSandbox(state=genome_world().case_state(case_metadata))

    def check_case(self, case: Case, registry: ToolRegistry) -> Iterator[tuple[str, str]]:
        match = _ID.fullmatch(case.id)
        if match is not None and case.dimension != match.group("area"):
            yield (
                "dimension",
                f"dimension {case.dimension!r} does not match the id "
                f"(expected {match.group('area')!r})",
            )
        known_annotations = set(annotation_ids())
        for index, call in enumerate(case.golden.calls):
            value = call.params.get("annotation_id")
            if (
                isinstance(value, str)
                and call.param_rules.get("annotation_id") != "any"
                and value not in known_annotations
            ):
                yield (
                    f"golden.calls[{index}].params.annotation_id",
                    f"unknown annotation {value!r}; ids created during the case need rule 'any'",
                )
        setup = case.metadata.get(SETUP_KEY, [])
        if not isinstance(setup, list):
            yield f"metadata.{SETUP_KEY}", "must be a list of {tool, arguments} objects"
            return
        malformed = False
        for index, call in enumerate(setup):
            field = f"metadata.{SETUP_KEY}[{index}]"
            if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
                malformed = True
                yield field, "needs a 'tool' name and optional 'arguments' object"
            elif registry.tool(call["tool"]) is None:
                malformed = True
                yield f"{field}.tool", f"unknown tool {call['tool']!r}"
            elif not isinstance(call.get("arguments", {}), dict):
                malformed = True
                yield f"{field}.arguments", "must be an object"
        if not setup or malformed:
            return
        try:
            self.new_sandbox(case.metadata)
        except GenomeSetupError as exc:
            yield f"metadata.{SETUP_KEY}", str(exc)
        except (KeyError, TypeError) as exc:
            yield f"metadata.{SETUP_KEY}", f"malformed setup call: {exc}"
