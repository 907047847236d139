"""The genome domain's tool contracts and registry (equivalences, alternative keys, follow-ups).

Read-only versus state-changing (what the completion tier's "extra call" rule keys on):

* ``query`` / ``analysis`` / ``similarity`` tools only read the reference genome or the sandbox's
  state, so they are read-only.
* ``view`` tools (navigate_to_position, jump_to_gene, zoom_in, zoom_out, open_tab, switch_tab,
  close_tab) are **state-changing**: they move what the user is looking at. An unrequested jump or
  a stray tab is a visible side effect, so an extra view call is not tolerated unless a case
  whitelists or declares it; get_current_view and list_tabs only read the view and are read-only.
* ``edit`` tools queue annotation actions and ``apply`` (execute_actions) commits them, so both
  are state-changing; ``export`` tools write files, so they are state-changing too.

Every schema is strict: ``required`` lists the mandatory keys, closed enums, ``additionalProperties:
false``, and every optional parameter states its default in the schema (``default``) and in its
description.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rejudge.suites.domains.genome.genome import load_genome

from rejudge.model import ToolSpec

__all__ = [
    "DOMAIN_NAME",
    "REGISTRY_VERSION",
    "EQUIVALENCES",
    "ALTERNATIVE_KEYS",
    "FOLLOW_UPS",
    "READ_ONLY_LOOKUPS",
    "annotation_ids",
    "tool_specs",
]

DOMAIN_NAME = "genome"
REGISTRY_VERSION = "1"

CHROMOSOMES = ["chrA", "chrB", "chrC"]
FEATURE_TYPES = ["gene", "CDS", "promoter", "terminator", "repeat_region", "misc_feature"]
DNA_PATTERN = "^[ACGTNacgtn]+$"
FILENAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"

EQUIVALENCES: list[list[str]] = [
    ["translate_sequence", "translate_dna"],
    ["blast_search", "similarity_search"],
]
ALTERNATIVE_KEYS: dict[str, dict[str, list[str]]] = {
    # a start-only call centres the view exactly like position does
    "navigate_to_position": {"position": ["start"]},
}
FOLLOW_UPS: dict[str, list[str]] = {
    "add_annotation": ["execute_actions"],
    "edit_annotation": ["execute_actions"],
    "delete_annotation": ["execute_actions"],
    # execute_actions writes <chromosome>.gbk; exporting it again repeats that file
    "execute_actions": ["export_genbank_format"],
}
# read-only lookups a case may tolerate as extras (used as the golden tier's allowed_extra)
READ_ONLY_LOOKUPS: list[str] = [
    "list_chromosomes",
    "search_genes",
    "get_gene_details",
    "get_current_view",
    "list_tabs",
    "list_pending_actions",
]


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _chromosome(description: str = "Chromosome name.") -> dict[str, Any]:
    return {"type": "string", "enum": list(CHROMOSOMES), "description": description}


def _coord(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "description": description}


_GENE_ID = {
    "type": "string",
    "minLength": 1,
    "description": "Locus tag (e.g. SGA_0030) or gene name (e.g. lipA); case-insensitive.",
}
_DNA = {
    "type": "string",
    "minLength": 3,
    "pattern": DNA_PATTERN,
    "description": "DNA sequence (A, C, G, T, N; case-insensitive).",
}
_FRAME = {
    "type": "integer",
    "enum": [1, 2, 3],
    "default": 1,
    "description": "Reading frame 1-3 (offset 0-2 from the first base). Default 1.",
}
_TO_STOP = {
    "type": "boolean",
    "default": False,
    "description": "Stop at the first stop codon instead of writing '*'. Default false.",
}
_ZOOM_FACTOR = {
    "type": "integer",
    "minimum": 2,
    "maximum": 10,
    "default": 2,
    "description": "How many times to zoom. Default 2.",
}
_TAB_ID = {
    "type": "string",
    "pattern": "^tab-[0-9]+$",
    "description": "Tab identifier as listed by list_tabs, e.g. tab-2.",
}
_ANNOTATION_ID = {
    "type": "string",
    "minLength": 1,
    "description": (
        "Annotation identifier: a gene's locus tag (e.g. SGB_0040), a feature id (e.g. FTA_02) "
        "or the id add_annotation returned (e.g. NEW_001)."
    ),
}
_FILENAME = {
    "type": "string",
    "pattern": FILENAME_PATTERN,
    "description": "Output file name (letters, digits, '.', '_', '-').",
}


def _similarity_parameters() -> dict[str, Any]:
    return _obj(
        {
            "sequence": {
                "type": "string",
                "minLength": 10,
                "pattern": "^[A-Za-z*]+$",
                "description": "Query sequence: DNA for database 'genes', protein for 'proteins'.",
            },
            "database": {
                "type": "string",
                "enum": ["genes", "proteins"],
                "default": "genes",
                "description": "Search gene DNA ('genes') or translated proteins ('proteins'). "
                "Default 'genes'.",
            },
            "max_hits": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "default": 5,
                "description": "Maximum number of hits to return. Default 5.",
            },
        },
        ["sequence"],
    )


def _translate_parameters() -> dict[str, Any]:
    return _obj({"sequence": _DNA, "frame": _FRAME, "to_stop": _TO_STOP}, ["sequence"])


def _spec(
    name: str, description: str, parameters: dict[str, Any], read_only: bool, kind: str
) -> ToolSpec:
    return ToolSpec(
        name=name, description=description, parameters=parameters, read_only=read_only, kind=kind
    )


@cache
def tool_specs() -> tuple[ToolSpec, ...]:
    region = {
        "chromosome": _chromosome(),
        "start": _coord("First base, 1-based inclusive."),
        "end": _coord("Last base, 1-based inclusive; must be >= start."),
    }
    return (
        # ---------------------------------------------------------------- query
        _spec(
            "list_chromosomes",
            "List the chromosomes of the loaded genome with their lengths and gene counts.",
            _obj({}, []),
            True,
            "query",
        ),
        _spec(
            "search_genes",
            "Search genes by locus tag, gene name, synonym or product text (case-insensitive "
            "substring). Results are ordered by chromosome and position.",
            _obj(
                {
                    "query": {
                        "type": "string",
                        "minLength": 1,
                        "description": "Text to look for, e.g. 'kinase' or 'lipB'.",
                    },
                    "chromosome": _chromosome(
                        "Only search this chromosome. Default: all chromosomes."
                    ),
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 50,
                        "default": 10,
                        "description": "Maximum number of genes returned. Default 10.",
                    },
                },
                ["query"],
            ),
            True,
            "query",
        ),
        _spec(
            "get_gene_details",
            "Get a gene's full record: location, strand, product, synonyms, lengths, GC content.",
            _obj({"gene_id": _GENE_ID}, ["gene_id"]),
            True,
            "query",
        ),
        _spec(
            "get_sequence",
            "Get the DNA of a chromosome region; strand '-' returns its reverse complement.",
            _obj(
                {
                    **region,
                    "strand": {
                        "type": "string",
                        "enum": ["+", "-"],
                        "default": "+",
                        "description": "Strand to read. Default '+'.",
                    },
                },
                ["chromosome", "start", "end"],
            ),
            True,
            "query",
        ),
        _spec(
            "get_gene_sequence",
            "Get a gene's coding sequence (5'->3' on its own strand) or its protein translation.",
            _obj(
                {
                    "gene_id": _GENE_ID,
                    "sequence_type": {
                        "type": "string",
                        "enum": ["dna", "protein"],
                        "default": "dna",
                        "description": "'dna' or 'protein'. Default 'dna'.",
                    },
                    "flank": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": 500,
                        "default": 0,
                        "description": "Bases of flanking DNA added on each side (dna only). "
                        "Default 0.",
                    },
                },
                ["gene_id"],
            ),
            True,
            "query",
        ),
        _spec(
            "reverse_complement",
            "Return the reverse complement of a DNA sequence.",
            _obj({"sequence": _DNA}, ["sequence"]),
            True,
            "analysis",
        ),
        # ---------------------------------------------------------------- view
        _spec(
            "navigate_to_position",
            "Move the active tab's view. Give 'position' to centre the view on one base (the "
            "view keeps its width), or 'start' (optionally with 'end') instead: a start-only call "
            "centres on start exactly like position; start with end shows that range.",
            _obj(
                {
                    "chromosome": _chromosome(),
                    "position": _coord(
                        "Base to centre the view on. Default: none; give position or start."
                    ),
                    "start": _coord(
                        "Alternative to position: first base of the range to show. "
                        "Default: none; give position or start."
                    ),
                    "end": _coord(
                        "Last base of the range to show (only together with start). "
                        "Default: none (a start-only call centres on start)."
                    ),
                },
                ["chromosome"],
            ),
            False,
            "view",
        ),
        _spec(
            "jump_to_gene",
            "Move the active tab's view to a gene (the gene plus 50 bases on each side).",
            _obj({"gene_id": _GENE_ID}, ["gene_id"]),
            False,
            "view",
        ),
        _spec(
            "zoom_in",
            "Zoom the active tab in around its centre (the view shows 1/factor as many bases, "
            "never fewer than 50).",
            _obj({"factor": _ZOOM_FACTOR}, []),
            False,
            "view",
        ),
        _spec(
            "zoom_out",
            "Zoom the active tab out around its centre (factor times as many bases, at most the "
            "whole chromosome).",
            _obj({"factor": _ZOOM_FACTOR}, []),
            False,
            "view",
        ),
        _spec(
            "get_current_view",
            "Describe the active tab's view: chromosome, range, width and the genes in view.",
            _obj({}, []),
            True,
            "query",
        ),
        _spec(
            "open_tab",
            "Open a new browser tab and make it active.",
            _obj(
                {
                    "chromosome": _chromosome(
                        "Chromosome to show. Default: the active tab's chromosome."
                    ),
                    "start": _coord("First base shown. Default 1."),
                    "end": _coord("Last base shown. Default start + 1999 (clipped)."),
                    "label": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 40,
                        "description": "Tab title. Default '<chromosome>:<start>-<end>'.",
                    },
                },
                [],
            ),
            False,
            "view",
        ),
        _spec(
            "switch_tab",
            "Make another open tab the active one.",
            _obj({"tab_id": _TAB_ID}, ["tab_id"]),
            False,
            "view",
        ),
        _spec(
            "close_tab",
            "Close an open tab (the last remaining tab cannot be closed).",
            _obj({"tab_id": _TAB_ID}, ["tab_id"]),
            False,
            "view",
        ),
        _spec(
            "list_tabs",
            "List the open tabs, their views and which one is active.",
            _obj({}, []),
            True,
            "query",
        ),
        # ---------------------------------------------------------------- analysis
        _spec(
            "translate_sequence",
            "Translate a DNA sequence to protein with the standard genetic code ('*' = stop).",
            _translate_parameters(),
            True,
            "analysis",
        ),
        _spec(
            "translate_dna",
            "Convert DNA to an amino-acid sequence (standard code, '*' = stop). Same as "
            "translate_sequence.",
            _translate_parameters(),
            True,
            "analysis",
        ),
        _spec(
            "calculate_gc_content",
            "GC content (fraction and percent of G+C among called bases) of a chromosome region.",
            _obj(dict(region), ["chromosome", "start", "end"]),
            True,
            "analysis",
        ),
        _spec(
            "find_orfs",
            "Find open reading frames (ATG to stop) in a chromosome region.",
            _obj(
                {
                    **region,
                    "min_length": {
                        "type": "integer",
                        "minimum": 30,
                        "maximum": 3000,
                        "default": 90,
                        "description": "Minimum ORF length in bases, stop codon included. "
                        "Default 90.",
                    },
                    "strand": {
                        "type": "string",
                        "enum": ["+", "-", "both"],
                        "default": "both",
                        "description": "Strand(s) to scan. Default 'both'.",
                    },
                },
                ["chromosome", "start", "end"],
            ),
            True,
            "analysis",
        ),
        _spec(
            "blast_search",
            "BLAST-style similarity search of a query against the genome's genes or proteins "
            "(slow on real data).",
            _similarity_parameters(),
            True,
            "similarity",
        ),
        _spec(
            "similarity_search",
            "Find genes or proteins similar to a query sequence (same search as blast_search; "
            "slow on real data).",
            _similarity_parameters(),
            True,
            "similarity",
        ),
        # ---------------------------------------------------------------- edits
        _spec(
            "add_annotation",
            "Queue a new annotation feature. Nothing changes until execute_actions applies the "
            "queue; the result gives the id the feature will have.",
            _obj(
                {
                    **region,
                    "strand": {
                        "type": "string",
                        "enum": ["+", "-", "."],
                        "default": ".",
                        "description": "Strand of the feature ('.' = none). Default '.'.",
                    },
                    "feature_type": {
                        "type": "string",
                        "enum": list(FEATURE_TYPES),
                        "description": "Feature type.",
                    },
                    "name": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 60,
                        "description": "Feature name.",
                    },
                    "note": {
                        "type": "string",
                        "maxLength": 200,
                        "default": "",
                        "description": "Free-text note. Default empty.",
                    },
                },
                ["chromosome", "start", "end", "feature_type", "name"],
            ),
            False,
            "edit",
        ),
        _spec(
            "edit_annotation",
            "Queue a change to an annotation (give at least one field to change). Applied by "
            "execute_actions.",
            _obj(
                {
                    "annotation_id": _ANNOTATION_ID,
                    "name": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 60,
                        "description": "New name. Default: unchanged.",
                    },
                    "product": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 120,
                        "description": "New product description. Default: unchanged.",
                    },
                    "note": {
                        "type": "string",
                        "maxLength": 200,
                        "description": "New note. Default: unchanged.",
                    },
                    "start": _coord("New first base. Default: unchanged."),
                    "end": _coord("New last base. Default: unchanged."),
                },
                ["annotation_id"],
            ),
            False,
            "edit",
        ),
        _spec(
            "delete_annotation",
            "Queue the deletion of an annotation. Applied by execute_actions.",
            _obj({"annotation_id": _ANNOTATION_ID}, ["annotation_id"]),
            False,
            "edit",
        ),
        _spec(
            "list_pending_actions",
            "List the queued annotation actions that execute_actions would apply.",
            _obj({}, []),
            True,
            "query",
        ),
        _spec(
            "execute_actions",
            "Apply every queued annotation action in order, then write <chromosome>.gbk for each "
            "chromosome that changed.",
            _obj({}, []),
            False,
            "apply",
        ),
        # ---------------------------------------------------------------- exports
        _spec(
            "export_fasta",
            "Write genes' sequences to a FASTA file.",
            _obj(
                {
                    "gene_ids": {
                        "type": "array",
                        "items": _GENE_ID,
                        "minItems": 1,
                        "maxItems": 50,
                        "uniqueItems": True,
                        "description": "Genes to export (locus tags or names).",
                    },
                    "sequence_type": {
                        "type": "string",
                        "enum": ["dna", "protein"],
                        "default": "dna",
                        "description": "'dna' or 'protein'. Default 'dna'.",
                    },
                    "filename": {
                        **_FILENAME,
                        "default": "genes.fasta",
                        "description": ("Output file name. Default 'genes.fasta'."),
                    },
                },
                ["gene_ids"],
            ),
            False,
            "export",
        ),
        _spec(
            "export_genbank_format",
            "Write a chromosome with its current annotations as a GenBank file.",
            _obj(
                {
                    "chromosome": _chromosome(),
                    "filename": {
                        **_FILENAME,
                        "description": ("Output file name. Default '<chromosome>.gbk'."),
                    },
                },
                ["chromosome"],
            ),
            False,
            "export",
        ),
        _spec(
            "export_bed",
            "Write the current annotations as a BED file (0-based starts).",
            _obj(
                {
                    "chromosome": _chromosome(
                        "Only export this chromosome. Default: all chromosomes."
                    ),
                    "filename": {
                        **_FILENAME,
                        "default": "annotations.bed",
                        "description": ("Output file name. Default 'annotations.bed'."),
                    },
                },
                [],
            ),
            False,
            "export",
        ),
    )


def annotation_ids() -> list[str]:
    """The annotation ids that exist before any edit (genes and features).

    Not in the registry's ``fixture_ids``: add_annotation creates ids (NEW_001, ...) during a
    case, so an annotation id is not purely fixture-backed (like seed 001's action ids); the
    domain's case check verifies golden annotation ids against this list instead.
    """
    genome = load_genome()
    return sorted({g.id for g in genome.genes} | {f.id for f in genome.features})
