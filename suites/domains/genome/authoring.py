"""Authoring of the built-in genome suites (``genome-simple`` and ``genome-complex``).

The cases are written here as code and shipped as data: ``python -m
suites.domains.genome.authoring`` rewrites ``suites/data/genome-simple`` and
``suites/data/genome-complex``; a test checks that the shipped files equal what this module builds,
so a hand edit of the JSONL cannot drift from the source. Sequences quoted in instructions and
golden parameters are cut from the shipped genome at authoring time.

Conventions:

* ids ``gs-<dimension>-NNN`` (simple) and ``gc-<dimension>-NNN`` (complex); the dimension is the
  id's middle token.
* genes are named by locus tag wherever a tool takes ``gene_id``; sequences, names and notes use
  ``normalized_str``; dynamic ids (a tab or annotation created earlier in the case) use ``any``.
* ``allowed_extra`` is the domain's read-only lookups (the released rule sets whitelist nothing
  for genome), or ``[]`` for negative cases.
* cases needing prior state (open tabs, queued edits) say so in ``context.browser`` and set it up
  with ``metadata.setup_calls``, replayed on the fresh sandbox.
* similarity-search cases are ``call_only`` (a real search is slow; the call must be made, its
  success is not required).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from store.schemas import Case, Golden, GoldenCall, ParamRule
from suites.case_format import SuiteManifest, dump_cases, write_suite
from suites.domain import package_data
from suites.domains.genome.domain import SETUP_KEY
from suites.domains.genome.genome import load_genome, reverse_complement
from suites.domains.genome.tools import READ_ONLY_LOOKUPS

__all__ = [
    "SIMPLE_NAME",
    "COMPLEX_NAME",
    "SIMPLE_DIMENSIONS",
    "COMPLEX_DIMENSIONS",
    "simple_cases",
    "complex_cases",
    "simple_manifest",
    "complex_manifest",
    "suite_folder",
    "rendered",
    "write_all",
]

SIMPLE_NAME = "genome-simple"
COMPLEX_NAME = "genome-complex"
SIMPLE_DIMENSIONS = (
    "search",
    "sequence",
    "navigation",
    "tabs",
    "analysis",
    "similarity",
    "annotation",
    "export",
)
COMPLEX_DIMENSIONS = ("lookup", "analysis", "annotation", "browse", "similarity", "export")

_CONTEXT = {"genome": "synthetica-minima (chromosomes chrA, chrB, chrC)"}


def _call(
    tool: str,
    params: dict[str, Any] | None = None,
    rules: dict[str, ParamRule] | None = None,
    count: int = 1,
) -> GoldenCall:
    return GoldenCall(tool=tool, params=params or {}, param_rules=rules or {}, count=count)


def _case(
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


def _setup(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": arguments}


def _gene_dna(key: str) -> str:
    genome = load_genome()
    gene = genome.gene(key)
    assert gene is not None, key
    return genome.gene_dna(gene)


def _gene_protein(key: str) -> str:
    genome = load_genome()
    gene = genome.gene(key)
    assert gene is not None, key
    return genome.gene_protein(gene)


def _gene_span(key: str) -> tuple[str, int, int]:
    gene = load_genome().gene(key)
    assert gene is not None, key
    return gene.chromosome, gene.start, gene.end


_SEQ: dict[str, ParamRule] = {"sequence": "normalized_str"}


# --------------------------------------------------------------------------- simple suite


def _simple_search() -> list[Case]:
    return [
        _case(
            "gs-search-001",
            "search_by_product",
            "Find all genes whose product mentions kinase.",
            [_call("search_genes", {"query": "kinase"}, {"query": "normalized_str"})],
        ),
        _case(
            "gs-search-002",
            "search_filtered",
            'Search chromosome chrB only for "lipoate synthase".',
            [
                _call(
                    "search_genes",
                    {"query": "lipoate synthase", "chromosome": "chrB"},
                    {"query": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-search-003",
            "search_limited",
            'Look up genes matching "GYR" and give me at most 2 results.',
            [_call("search_genes", {"query": "GYR", "limit": 2}, {"query": "normalized_str"})],
        ),
        _case(
            "gs-search-004",
            "gene_details",
            "Show me the details of gene SGB_0040.",
            [_call("get_gene_details", {"gene_id": "SGB_0040"})],
        ),
        _case(
            "gs-search-005",
            "gene_details",
            "What product does locus SGC_0070 encode?",
            [_call("get_gene_details", {"gene_id": "SGC_0070"})],
        ),
        _case(
            "gs-search-006",
            "gene_details",
            "Give me the full record of SGA_0140: strand, coordinates and synonyms.",
            [_call("get_gene_details", {"gene_id": "SGA_0140"})],
        ),
        _case(
            "gs-search-007",
            "list_chromosomes",
            "Which chromosomes does the loaded genome have, and how long is each?",
            [_call("list_chromosomes")],
        ),
        _case(
            "gs-search-008",
            "search_synonym",
            'Which gene has the old synonym "orf197"? Search for it.',
            [_call("search_genes", {"query": "orf197"}, {"query": "normalized_str"})],
        ),
        _case(
            "gs-search-009",
            "search_by_name",
            "Search the genome for the gene named toxB.",
            [_call("search_genes", {"query": "toxB"}, {"query": "normalized_str"})],
        ),
        _case(
            "gs-search-010",
            "no_call_needed",
            "In one sentence, what is a locus tag? No need to look anything up.",
            [],
            negative=True,
        ),
    ]


def _simple_sequence() -> list[Case]:
    return [
        _case(
            "gs-sequence-001",
            "region_sequence",
            "Get the DNA sequence of chrA from position 1000 to 1100.",
            [_call("get_sequence", {"chromosome": "chrA", "start": 1000, "end": 1100})],
        ),
        _case(
            "gs-sequence-002",
            "region_minus_strand",
            "Fetch chrC:2500-2560 on the minus strand.",
            [
                _call(
                    "get_sequence",
                    {"chromosome": "chrC", "start": 2500, "end": 2560, "strand": "-"},
                )
            ],
        ),
        _case(
            "gs-sequence-003",
            "region_sequence",
            "Show me bases 4200 to 4300 of chromosome chrB.",
            [_call("get_sequence", {"chromosome": "chrB", "start": 4200, "end": 4300})],
        ),
        _case(
            "gs-sequence-004",
            "gene_sequence",
            "Get the coding sequence of gene SGA_0030.",
            [_call("get_gene_sequence", {"gene_id": "SGA_0030"})],
        ),
        _case(
            "gs-sequence-005",
            "gene_protein",
            "Get the protein sequence encoded by SGB_0070.",
            [_call("get_gene_sequence", {"gene_id": "SGB_0070", "sequence_type": "protein"})],
        ),
        _case(
            "gs-sequence-006",
            "gene_flanks",
            "Get the DNA of SGC_0020 with 100 bp of flanking sequence on each side.",
            [_call("get_gene_sequence", {"gene_id": "SGC_0020", "flank": 100})],
        ),
        _case(
            "gs-sequence-007",
            "reverse_complement",
            "Reverse-complement ATGGCGTACGTTAGC.",
            [_call("reverse_complement", {"sequence": "ATGGCGTACGTTAGC"}, _SEQ)],
        ),
        _case(
            "gs-sequence-008",
            "reverse_complement",
            "What is the reverse complement of GGATCCAAGCTTGC?",
            [_call("reverse_complement", {"sequence": "GGATCCAAGCTTGC"}, _SEQ)],
        ),
        _case(
            "gs-sequence-009",
            "gene_sequence",
            "Retrieve the nucleotide sequence of gene SGB_0110 (kinB).",
            [_call("get_gene_sequence", {"gene_id": "SGB_0110"})],
        ),
    ]


def _simple_navigation() -> list[Case]:
    return [
        _case(
            "gs-navigation-001",
            "navigate_position",
            "Navigate to position 2500 on chrA.",
            [_call("navigate_to_position", {"chromosome": "chrA", "position": 2500})],
        ),
        _case(
            "gs-navigation-002",
            "navigate_position",
            "Centre the browser on base 1800 of chrB.",
            [_call("navigate_to_position", {"chromosome": "chrB", "position": 1800})],
        ),
        _case(
            "gs-navigation-003",
            "navigate_start_only",
            "Go to chrC, starting at 3000.",
            # a start-only call is the registry's alternative key for position
            [_call("navigate_to_position", {"chromosome": "chrC", "position": 3000})],
        ),
        _case(
            "gs-navigation-004",
            "navigate_range",
            "Show the region chrA:3000-3600 in the browser.",
            [_call("navigate_to_position", {"chromosome": "chrA", "start": 3000, "end": 3600})],
        ),
        _case(
            "gs-navigation-005",
            "jump_to_gene",
            "Jump to gene SGB_0050.",
            [_call("jump_to_gene", {"gene_id": "SGB_0050"})],
        ),
        _case(
            "gs-navigation-006",
            "jump_to_gene",
            "Take me to the lipA gene (locus SGA_0030) in the viewer.",
            [_call("jump_to_gene", {"gene_id": "SGA_0030"})],
        ),
        _case("gs-navigation-007", "zoom", "Zoom in.", [_call("zoom_in")]),
        _case(
            "gs-navigation-008",
            "zoom",
            "Zoom out by a factor of 4.",
            [_call("zoom_out", {"factor": 4})],
        ),
        _case(
            "gs-navigation-009",
            "current_view",
            "Which region is the browser showing right now?",
            [_call("get_current_view")],
            # list_tabs also reports the active view: accept it for this question
            equivalent_tools={"get_current_view": ["list_tabs"]},
        ),
        _case(
            "gs-navigation-010",
            "zoom",
            "Zoom in three times closer (factor 3).",
            [_call("zoom_in", {"factor": 3})],
        ),
    ]


def _simple_tabs() -> list[Case]:
    two_tabs = "tabs: tab-1 (Main, chrA:1-2000), tab-2 (chrB:1-2000, active)"
    three_tabs = "tabs: tab-1 (Main, chrA:1-2000), tab-2 (chrB:1-2000), tab-3 (chrC:1-2000, active)"
    return [
        _case(
            "gs-tabs-001",
            "open_tab",
            "Open a new tab showing chrB.",
            [_call("open_tab", {"chromosome": "chrB"})],
        ),
        _case(
            "gs-tabs-002",
            "open_tab",
            "Open a tab on chrC from 1000 to 2500 and label it 'helC region'.",
            [
                _call(
                    "open_tab",
                    {"chromosome": "chrC", "start": 1000, "end": 2500, "label": "helC region"},
                    {"label": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-tabs-003",
            "open_tabs_repeated",
            "Open three new tabs on chrA.",
            [_call("open_tab", {"chromosome": "chrA"}, count=3)],
        ),
        _case("gs-tabs-004", "list_tabs", "List the open tabs.", [_call("list_tabs")]),
        _case(
            "gs-tabs-005",
            "switch_tab",
            "Switch back to tab-1.",
            [_call("switch_tab", {"tab_id": "tab-1"})],
            setup=[_setup("open_tab", chromosome="chrB")],
            browser=two_tabs,
        ),
        _case(
            "gs-tabs-006",
            "close_tab",
            "Close tab-2.",
            [_call("close_tab", {"tab_id": "tab-2"})],
            setup=[_setup("open_tab", chromosome="chrB"), _setup("open_tab", chromosome="chrC")],
            browser=three_tabs,
        ),
        _case(
            "gs-tabs-007",
            "switch_tab",
            "Make tab-2 the active tab.",
            [_call("switch_tab", {"tab_id": "tab-2"})],
            setup=[
                _setup("open_tab", chromosome="chrB"),
                _setup("switch_tab", tab_id="tab-1"),
            ],
            browser="tabs: tab-1 (Main, chrA:1-2000, active), tab-2 (chrB:1-2000)",
        ),
        _case(
            "gs-tabs-008",
            "open_tabs_repeated",
            "Open two new tabs, both on chrB.",
            [_call("open_tab", {"chromosome": "chrB"}, count=2)],
        ),
        _case(
            "gs-tabs-009",
            "close_tab",
            "Close tab-3, I no longer need it.",
            [_call("close_tab", {"tab_id": "tab-3"})],
            setup=[_setup("open_tab", chromosome="chrB"), _setup("open_tab", chromosome="chrC")],
            browser=three_tabs,
        ),
    ]


def _simple_analysis() -> list[Case]:
    return [
        _case(
            "gs-analysis-001",
            "translate",
            "Translate ATGGCTAGCAAAGGTTAA to protein.",
            [_call("translate_sequence", {"sequence": "ATGGCTAGCAAAGGTTAA"}, _SEQ)],
        ),
        _case(
            "gs-analysis-002",
            "translate_frame",
            "Translate the DNA CATGAAACCCGGGTTTTGA in reading frame 2.",
            [_call("translate_dna", {"sequence": "CATGAAACCCGGGTTTTGA", "frame": 2}, _SEQ)],
        ),
        _case(
            "gs-analysis-003",
            "translate_to_stop",
            "Convert ATGTGGCATTAGCCCGGA into amino acids, stopping at the first stop codon.",
            [
                _call(
                    "translate_sequence",
                    {"sequence": "ATGTGGCATTAGCCCGGA", "to_stop": True},
                    _SEQ,
                )
            ],
        ),
        _case(
            "gs-analysis-004",
            "translate",
            "What protein does ATGAGTGAACTGCGTTGGTAG encode?",
            [_call("translate_dna", {"sequence": "ATGAGTGAACTGCGTTGGTAG"}, _SEQ)],
        ),
        _case(
            "gs-analysis-005",
            "gc_content",
            "What is the GC content of chrB between positions 1 and 1000?",
            [_call("calculate_gc_content", {"chromosome": "chrB", "start": 1, "end": 1000})],
        ),
        _case(
            "gs-analysis-006",
            "gc_content",
            "Compute the GC percentage of chrC 2000-3000.",
            [_call("calculate_gc_content", {"chromosome": "chrC", "start": 2000, "end": 3000})],
        ),
        _case(
            "gs-analysis-007",
            "gc_content",
            "Calculate the GC content of the whole of chrA (6000 bp).",
            [_call("calculate_gc_content", {"chromosome": "chrA", "start": 1, "end": 6000})],
        ),
        _case(
            "gs-analysis-008",
            "find_orfs",
            "Find open reading frames in chrA from 1 to 1500.",
            [_call("find_orfs", {"chromosome": "chrA", "start": 1, "end": 1500})],
        ),
        _case(
            "gs-analysis-009",
            "find_orfs_filtered",
            "Find ORFs of at least 150 bp on the plus strand of chrB between 500 and 2500.",
            [
                _call(
                    "find_orfs",
                    {
                        "chromosome": "chrB",
                        "start": 500,
                        "end": 2500,
                        "min_length": 150,
                        "strand": "+",
                    },
                )
            ],
        ),
        _case(
            "gs-analysis-010",
            "find_orfs_filtered",
            "Scan the minus strand of chrC 1-2000 for open reading frames.",
            [_call("find_orfs", {"chromosome": "chrC", "start": 1, "end": 2000, "strand": "-"})],
        ),
    ]


def _simple_similarity() -> list[Case]:
    hel_b = _gene_dna("SGB_0030")[30:90]
    kin_a = _gene_protein("SGA_0120")[4:34]
    tox_c = _gene_dna("SGC_0080")[60:150]
    rpo_a = _gene_protein("SGA_0100")[10:45]
    sig_b = _gene_dna("SGB_0130")[:72]
    atp_c = _gene_dna("SGC_0070")[100:160]
    return [
        _case(
            "gs-similarity-001",
            "blast_dna",
            f"Run a BLAST search with this sequence: {hel_b}",
            [_call("blast_search", {"sequence": hel_b}, _SEQ)],
            call_only=True,
        ),
        _case(
            "gs-similarity-002",
            "blast_protein",
            f"BLAST this protein against the protein database: {kin_a}",
            [_call("blast_search", {"sequence": kin_a, "database": "proteins"}, _SEQ)],
            call_only=True,
        ),
        _case(
            "gs-similarity-003",
            "blast_limited",
            f"BLAST {tox_c} against the genes and return at most 3 hits.",
            [_call("blast_search", {"sequence": tox_c, "max_hits": 3}, _SEQ)],
            call_only=True,
        ),
        _case(
            "gs-similarity-004",
            "similarity_protein",
            f"Which proteins are similar to {rpo_a}?",
            [_call("similarity_search", {"sequence": rpo_a, "database": "proteins"}, _SEQ)],
            call_only=True,
        ),
        _case(
            "gs-similarity-005",
            "similarity_dna",
            f"Find genes similar to the DNA fragment {sig_b}.",
            [_call("similarity_search", {"sequence": sig_b}, _SEQ)],
            call_only=True,
        ),
        _case(
            "gs-similarity-006",
            "similarity_limited",
            f"Run a similarity search with {atp_c} and show up to 10 hits.",
            [_call("similarity_search", {"sequence": atp_c, "max_hits": 10}, _SEQ)],
            call_only=True,
        ),
    ]


def _simple_annotation() -> list[Case]:
    return [
        _case(
            "gs-annotation-001",
            "add_annotation",
            "Add a promoter annotation named PhelA on chrA 1120-1170, plus strand.",
            [
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrA",
                        "start": 1120,
                        "end": 1170,
                        "strand": "+",
                        "feature_type": "promoter",
                        "name": "PhelA",
                    },
                    {"name": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-annotation-002",
            "add_annotation",
            "Annotate chrB 3800-3850 as a repeat_region called REPB2.",
            [
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrB",
                        "start": 3800,
                        "end": 3850,
                        "feature_type": "repeat_region",
                        "name": "REPB2",
                    },
                    {"name": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-annotation-003",
            "add_annotation",
            "Queue a misc_feature named 'hypothetical island' on chrC 3500-3700 with the note "
            "'low GC'.",
            [
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrC",
                        "start": 3500,
                        "end": 3700,
                        "feature_type": "misc_feature",
                        "name": "hypothetical island",
                        "note": "low GC",
                    },
                    {"name": "normalized_str", "note": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-annotation-004",
            "edit_annotation",
            "Rename gene SGA_0080 to flaZ.",
            [
                _call(
                    "edit_annotation",
                    {"annotation_id": "SGA_0080", "name": "flaZ"},
                    {"name": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-annotation-005",
            "edit_annotation",
            "Change the product of SGB_0120 to 'large ribosomal subunit protein L7'.",
            [
                _call(
                    "edit_annotation",
                    {"annotation_id": "SGB_0120", "product": "large ribosomal subunit protein L7"},
                    {"product": "normalized_str"},
                )
            ],
        ),
        _case(
            "gs-annotation-006",
            "edit_annotation",
            "Extend the repeat annotation FTA_02 so that it ends at 1060.",
            [_call("edit_annotation", {"annotation_id": "FTA_02", "end": 1060})],
        ),
        _case(
            "gs-annotation-007",
            "delete_annotation",
            "Delete the annotation FTB_02.",
            [_call("delete_annotation", {"annotation_id": "FTB_02"})],
        ),
        _case(
            "gs-annotation-008",
            "delete_annotation",
            "Remove the gene annotation SGC_0090.",
            [_call("delete_annotation", {"annotation_id": "SGC_0090"})],
        ),
        _case(
            "gs-annotation-009",
            "execute_actions",
            "Apply the pending annotation changes.",
            [_call("execute_actions")],
            setup=[
                _setup(
                    "add_annotation",
                    chromosome="chrA",
                    start=5300,
                    end=5350,
                    feature_type="terminator",
                    name="TcytA",
                )
            ],
            browser="one queued action: act-1 adds terminator TcytA on chrA 5300-5350",
        ),
        _case(
            "gs-annotation-010",
            "pending_actions",
            "Show me which annotation edits are waiting to be applied.",
            [_call("list_pending_actions")],
            setup=[_setup("edit_annotation", annotation_id="SGB_0070", note="check start codon")],
            browser="one queued action: act-1 edits SGB_0070",
        ),
    ]


def _simple_export() -> list[Case]:
    return [
        _case(
            "gs-export-001",
            "export_fasta",
            "Export the DNA of SGA_0030 and SGA_0040 to FASTA.",
            [_call("export_fasta", {"gene_ids": ["SGA_0030", "SGA_0040"]})],
        ),
        _case(
            "gs-export-002",
            "export_fasta_protein",
            "Write the protein sequences of SGB_0010, SGB_0020 and SGB_0030 to a FASTA file "
            "named membrane.faa.",
            [
                _call(
                    "export_fasta",
                    {
                        "gene_ids": ["SGB_0010", "SGB_0020", "SGB_0030"],
                        "sequence_type": "protein",
                        "filename": "membrane.faa",
                    },
                )
            ],
        ),
        _case(
            "gs-export-003",
            "export_fasta",
            "Save gene SGC_0050 as FASTA to helC.fasta.",
            [_call("export_fasta", {"gene_ids": ["SGC_0050"], "filename": "helC.fasta"})],
        ),
        _case(
            "gs-export-004",
            "export_genbank",
            "Export chrA in GenBank format.",
            [_call("export_genbank_format", {"chromosome": "chrA"})],
        ),
        _case(
            "gs-export-005",
            "export_genbank",
            "Export chrB as GenBank to the file chrB_annotated.gbk.",
            [
                _call(
                    "export_genbank_format",
                    {"chromosome": "chrB", "filename": "chrB_annotated.gbk"},
                )
            ],
        ),
        _case(
            "gs-export-006",
            "export_genbank",
            "Write chromosome chrC with its annotations to a GenBank file.",
            [_call("export_genbank_format", {"chromosome": "chrC"})],
        ),
        _case(
            "gs-export-007",
            "export_bed",
            "Export all annotations as a BED file.",
            [_call("export_bed")],
        ),
        _case(
            "gs-export-008",
            "export_bed",
            "Export the annotations of chrB to chrB.bed.",
            [_call("export_bed", {"chromosome": "chrB", "filename": "chrB.bed"})],
        ),
        _case(
            "gs-export-009",
            "export_bed",
            "Export chrC's annotations in BED format.",
            [_call("export_bed", {"chromosome": "chrC"})],
        ),
    ]


def simple_cases() -> list[Case]:
    return [
        *_simple_search(),
        *_simple_sequence(),
        *_simple_navigation(),
        *_simple_tabs(),
        *_simple_analysis(),
        *_simple_similarity(),
        *_simple_annotation(),
        *_simple_export(),
    ]


# --------------------------------------------------------------------------- complex suite


def complex_cases() -> list[Case]:
    fla_a = _gene_dna("SGA_0080")
    rc_input = "TTAGCCACCGGTCAT"
    tox_a = _gene_dna("SGA_0070")
    pro_c = _gene_protein("SGC_0100")
    chr_b, b_start, b_end = _gene_span("SGB_0020")
    chr_c, c_start, c_end = _gene_span("SGC_0020")
    fla_b_chrom, fla_b_start, fla_b_end = _gene_span("SGB_0070")
    rpo_chrom, rpo_start, rpo_end = _gene_span("SGA_0100")
    assert reverse_complement(rc_input).startswith("ATG")
    return [
        # ------------------------------------------------------------ lookup
        _case(
            "gc-lookup-001",
            "search_then_sequence",
            "Search chrB for the DNA gyrase gene, then fetch its protein sequence.",
            [
                _call(
                    "search_genes", {"query": "gyr", "chromosome": "chrB"}, {"query": "contains"}
                ),
                _call("get_gene_sequence", {"gene_id": "SGB_0040", "sequence_type": "protein"}),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-lookup-002",
            "details_then_gc",
            "Look up gene SGA_0100, then compute the GC content of exactly its coordinates.",
            [
                _call("get_gene_details", {"gene_id": "SGA_0100"}),
                _call(
                    "calculate_gc_content",
                    {"chromosome": rpo_chrom, "start": rpo_start, "end": rpo_end},
                ),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-lookup-003",
            "details_jump_sequence",
            "Look up gene SGB_0130, jump to it in the browser, and get its DNA with 50 bp "
            "flanks on both sides.",
            [
                _call("get_gene_details", {"gene_id": "SGB_0130"}),
                _call("jump_to_gene", {"gene_id": "SGB_0130"}),
                _call("get_gene_sequence", {"gene_id": "SGB_0130", "flank": 50}),
            ],
        ),
        # ------------------------------------------------------------ analysis
        _case(
            "gc-analysis-001",
            "sequence_then_translate",
            "Get the DNA sequence of gene SGA_0080 and translate it into protein.",
            [
                _call("get_gene_sequence", {"gene_id": "SGA_0080"}),
                _call("translate_sequence", {"sequence": fla_a}, _SEQ),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-analysis-002",
            "region_then_translate",
            f"Fetch {fla_b_chrom}:{fla_b_start}-{fla_b_end} and translate that DNA into protein.",
            [
                _call(
                    "get_sequence",
                    {"chromosome": fla_b_chrom, "start": fla_b_start, "end": fla_b_end},
                ),
                _call(
                    "translate_dna",
                    {"sequence": _gene_dna("SGB_0070")},
                    _SEQ,
                ),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-analysis-003",
            "revcomp_then_translate",
            f"Reverse-complement {rc_input}, then translate the result.",
            [
                _call("reverse_complement", {"sequence": rc_input}, _SEQ),
                _call("translate_sequence", {"sequence": reverse_complement(rc_input)}, _SEQ),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-analysis-004",
            "orfs_then_annotate",
            "Scan chrC 2800-3100 for ORFs, annotate the longest plus-strand ORF as a CDS named "
            "orf_flaC on the plus strand, and apply the change.",
            [
                _call("find_orfs", {"chromosome": "chrC", "start": 2800, "end": 3100}),
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrC",
                        "start": 2867,
                        "end": 3010,
                        "strand": "+",
                        "feature_type": "CDS",
                        "name": "orf_flaC",
                    },
                    {"name": "normalized_str"},
                ),
                _call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-analysis-005",
            "compare_gc",
            "Compare the GC content of genes SGB_0020 and SGC_0020 over their exact coordinates.",
            [
                _call("get_gene_details", {"gene_id": "SGB_0020"}),
                _call("get_gene_details", {"gene_id": "SGC_0020"}),
                _call(
                    "calculate_gc_content", {"chromosome": chr_b, "start": b_start, "end": b_end}
                ),
                _call(
                    "calculate_gc_content", {"chromosome": chr_c, "start": c_start, "end": c_end}
                ),
            ],
        ),
        # ------------------------------------------------------------ annotation
        _case(
            "gc-annotation-001",
            "add_apply_export",
            "Add a terminator annotation TgyrB on chrB 1530-1560, minus strand, apply it, and "
            "export chrB as GenBank.",
            [
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrB",
                        "start": 1530,
                        "end": 1560,
                        "strand": "-",
                        "feature_type": "terminator",
                        "name": "TgyrB",
                    },
                    {"name": "normalized_str"},
                ),
                _call("execute_actions"),
                _call("export_genbank_format", {"chromosome": "chrB"}),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-annotation-002",
            "edit_apply",
            "Rename gene SGC_0060 to gyrZ and apply the edit.",
            [
                _call(
                    "edit_annotation",
                    {"annotation_id": "SGC_0060", "name": "gyrZ"},
                    {"name": "normalized_str"},
                ),
                _call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-annotation-003",
            "delete_apply_export",
            "Delete the repeat annotation FTC_02, apply the deletion, then export chrC's "
            "annotations as BED.",
            [
                _call("delete_annotation", {"annotation_id": "FTC_02"}),
                _call("execute_actions"),
                _call("export_bed", {"chromosome": "chrC"}),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-annotation-004",
            "add_two_apply",
            "On chrA, add two plus-strand promoter annotations, PrpoA at 3400-3450 and PtrpA at "
            "3850-3900, then apply both.",
            [
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrA",
                        "start": 3400,
                        "end": 3450,
                        "strand": "+",
                        "feature_type": "promoter",
                        "name": "PrpoA",
                    },
                    {"name": "normalized_str"},
                ),
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrA",
                        "start": 3850,
                        "end": 3900,
                        "strand": "+",
                        "feature_type": "promoter",
                        "name": "PtrpA",
                    },
                    {"name": "normalized_str"},
                ),
                _call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-annotation-005",
            "add_edit_apply",
            "Add a misc_feature named 'test site' on chrB 10-40, then set its note to "
            "'verified', and apply everything.",
            [
                _call(
                    "add_annotation",
                    {
                        "chromosome": "chrB",
                        "start": 10,
                        "end": 40,
                        "feature_type": "misc_feature",
                        "name": "test site",
                    },
                    {"name": "normalized_str"},
                ),
                _call(
                    "edit_annotation",
                    {"annotation_id": "NEW_001", "note": "verified"},
                    {"annotation_id": "any", "note": "normalized_str"},
                ),
                _call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-annotation-006",
            "review_apply_export",
            "Review the pending annotation actions, apply them, then export chrA in GenBank "
            "format.",
            [
                _call("list_pending_actions"),
                _call("execute_actions"),
                _call("export_genbank_format", {"chromosome": "chrA"}),
            ],
            order_sensitive=True,
            setup=[
                _setup("edit_annotation", annotation_id="SGA_0150", product="cytochrome oxidase"),
                _setup("delete_annotation", annotation_id="FTA_01"),
            ],
            browser="two queued actions: act-1 edits SGA_0150, act-2 deletes FTA_01",
        ),
        # ------------------------------------------------------------ browse
        _case(
            "gc-browse-001",
            "tab_jump_zoom",
            "Open a new tab on chrB, jump to gene SGB_0090 there, then zoom in twice.",
            [
                _call("open_tab", {"chromosome": "chrB"}),
                _call("jump_to_gene", {"gene_id": "SGB_0090"}),
                _call("zoom_in", count=2),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-browse-002",
            "navigate_zoom_view",
            "Go to position 4000 on chrA, zoom out by a factor of 4, then tell me which genes "
            "are in view.",
            [
                _call("navigate_to_position", {"chromosome": "chrA", "position": 4000}),
                _call("zoom_out", {"factor": 4}),
                _call("get_current_view"),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-browse-003",
            "three_tabs_list",
            "Open three tabs, on chrA, chrB and chrC respectively, then list all tabs.",
            [
                _call("open_tab", {"chromosome": "chrA"}),
                _call("open_tab", {"chromosome": "chrB"}),
                _call("open_tab", {"chromosome": "chrC"}),
                _call("list_tabs"),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-browse-004",
            "tab_lifecycle",
            "Open a tab on chrC, switch back to tab-1, then close the chrC tab you just opened.",
            [
                _call("open_tab", {"chromosome": "chrC"}),
                _call("switch_tab", {"tab_id": "tab-1"}),
                _call("close_tab", {"tab_id": "tab-2"}),
            ],
            order_sensitive=True,
        ),
        # ------------------------------------------------------------ similarity
        _case(
            "gc-similarity-001",
            "sequence_then_blast",
            "Get the DNA sequence of gene SGA_0070 and BLAST it against the gene database.",
            [
                _call("get_gene_sequence", {"gene_id": "SGA_0070"}),
                _call("blast_search", {"sequence": tox_a}, _SEQ),
            ],
            order_sensitive=True,
            call_only=True,
        ),
        _case(
            "gc-similarity-002",
            "protein_then_similarity",
            "Get the protein of SGC_0100 and run a similarity search against the protein "
            "database, at most 3 hits.",
            [
                _call("get_gene_sequence", {"gene_id": "SGC_0100", "sequence_type": "protein"}),
                _call(
                    "similarity_search",
                    {"sequence": pro_c, "database": "proteins", "max_hits": 3},
                    _SEQ,
                ),
            ],
            order_sensitive=True,
            call_only=True,
        ),
        # ------------------------------------------------------------ export
        _case(
            "gc-export-001",
            "search_then_fasta",
            "Find every membrane transport gene and export their proteins to a FASTA file "
            "named mtp.faa.",
            [
                _call(
                    "search_genes",
                    {"query": "membrane transport"},
                    {"query": "normalized_str"},
                ),
                _call(
                    "export_fasta",
                    {
                        "gene_ids": ["SGA_0020", "SGB_0010", "SGC_0030"],
                        "sequence_type": "protein",
                        "filename": "mtp.faa",
                    },
                ),
            ],
            order_sensitive=True,
        ),
        _case(
            "gc-export-002",
            "genbank_and_bed",
            "Export chrA both as a GenBank file and as a BED file of chrA only.",
            [
                _call("export_genbank_format", {"chromosome": "chrA"}),
                _call("export_bed", {"chromosome": "chrA"}),
            ],
        ),
    ]


# --------------------------------------------------------------------------- suites


def simple_manifest() -> SuiteManifest:
    return SuiteManifest(
        name=SIMPLE_NAME,
        domain="genome",
        format_version=1,
        description=(
            "Single genome-browser operations over the synthetic genome: gene search, "
            "sequence retrieval, navigation and zoom, tabs, translation/GC/ORFs, similarity "
            "search (call-only), queued annotation edits and exports."
        ),
        id_pattern="gs-(" + "|".join(SIMPLE_DIMENSIONS) + r")-\d{3}",
    )


def complex_manifest() -> SuiteManifest:
    return SuiteManifest(
        name=COMPLEX_NAME,
        domain="genome",
        format_version=1,
        description=(
            "Multi-step genome-browser workflows validated step by step: lookups, analysis "
            "chains, queue-then-apply annotation edits with exports, tab and view handling, "
            "similarity searches (call-only)."
        ),
        id_pattern="gc-(" + "|".join(COMPLEX_DIMENSIONS) + r")-\d{3}",
    )


def suite_folder(name: str) -> Path:
    return package_data("data", name)


def rendered() -> dict[str, tuple[SuiteManifest, list[Case]]]:
    return {
        SIMPLE_NAME: (simple_manifest(), simple_cases()),
        COMPLEX_NAME: (complex_manifest(), complex_cases()),
    }


def rendered_text(name: str) -> str:
    _manifest, cases = rendered()[name]
    return dump_cases(cases)


def write_all() -> list[Path]:
    return [
        write_suite(suite_folder(name), manifest, cases)
        for name, (manifest, cases) in rendered().items()
    ]


if __name__ == "__main__":
    write_all()
