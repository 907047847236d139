"""Helpers the genome suites' cases are written with: a golden call, a case (context, setup
calls, the read-only whitelist), and facts cut from the shipped genome (a gene's DNA, protein,
span) at authoring time. See :mod:`suites.domains.genome.authoring`."""

from __future__ import annotations

from typing import Any

from rejudge.suites.domains.genome.domain import SETUP_KEY
from rejudge.suites.domains.genome.genome import load_genome
from rejudge.suites.domains.genome.tools import READ_ONLY_LOOKUPS

from rejudge.model import Case, Golden, GoldenCall, ParamRule

__all__ = [
    "SEQ_RULE",
    "dna_of",
    "genome_case",
    "golden_call",
    "protein_of",
    "setup_call",
    "span_of",
]

_CONTEXT = {"genome": "synthetica-minima (chromosomes chrA, chrB, chrC)"}


def golden_call(
    tool: str,
    params: dict[str, Any] | None = None,
    rules: dict[str, ParamRule] | None = None,
    count: int = 1,
) -> GoldenCall:
    return GoldenCall(tool=tool, params=params or {}, param_rules=rules or {}, count=count)


def genome_case(
    case_id: str,
    category: str,
    instruction: str,
    calls: list[GoldenCall],
    *,
    order_sensitive: bool = False,
    negative: bool = False,
    call_only: bool = False,
    setup: list[dict[str, Any]] | None = None,
    browser: str | None = None,
    equivalent_tools: dict[str, list[str]] | None = None,
    follow_ups: dict[str, list[str]] | None = None,
    alternative_keys: dict[str, dict[str, list[str]]] | None = None,
) -> Case:
    dimension = case_id.split("-")[1]
    context = dict(_CONTEXT)
    if browser is not None:
        context["browser"] = browser
    metadata: dict[str, Any] = {}
    if setup:
        metadata[SETUP_KEY] = setup
    return Case(
        id=case_id,
        dimension=dimension,
        category=category,
        instruction=instruction,
        context=context,
        golden=Golden(
            calls=calls,
            order_sensitive=order_sensitive,
            allowed_extra=[] if negative else list(READ_ONLY_LOOKUPS),
        ),
        negative=negative,
        call_only=call_only,
        equivalent_tools=equivalent_tools or {},
        follow_ups=follow_ups or {},
        alternative_keys=alternative_keys or {},
        metadata=metadata,
    )


def setup_call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


def dna_of(key: str) -> str:
    genome = load_genome()
    gene = genome.gene(key)
    assert gene is not None, key
    return genome.gene_dna(gene)


def protein_of(key: str) -> str:
    genome = load_genome()
    gene = genome.gene(key)
    assert gene is not None, key
    return genome.gene_protein(gene)


def span_of(key: str) -> tuple[str, int, int]:
    gene = load_genome().gene(key)
    assert gene is not None, key
    return gene.chromosome, gene.start, gene.end


SEQ_RULE: dict[str, ParamRule] = {"sequence": "normalized_str"}
