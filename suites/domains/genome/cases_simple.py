"""The ``genome-simple`` suite's cases: single genome-browser operations, one function per
dimension (search, sequence, navigation, tabs, analysis, similarity, annotation, export). See
:mod:`suites.domains.genome.authoring` for the conventions."""

from __future__ import annotations

from rejudge.suites.domains.genome.case_kit import (
    SEQ_RULE,
    dna_of,
    genome_case,
    golden_call,
    protein_of,
    setup_call,
)

from rejudge.model import Case

__all__ = ["simple_cases"]


def _simple_search() -> list[Case]:
    return [
        genome_case(
            "gs-search-001",
            "search_by_product",
            "Find all genes whose product mentions kinase.",
            [golden_call("search_genes", {"query": "kinase"}, {"query": "normalized_str"})],
        ),
        genome_case(
            "gs-search-002",
            "search_filtered",
            'Search chromosome chrB only for "lipoate synthase".',
            [
                golden_call(
                    "search_genes",
                    {"query": "lipoate synthase", "chromosome": "chrB"},
                    {"query": "normalized_str"},
                )
            ],
        ),
        genome_case(
            "gs-search-003",
            "search_limited",
            'Look up genes matching "GYR" and give me at most 2 results.',
            [
                golden_call(
                    "search_genes", {"query": "GYR", "limit": 2}, {"query": "normalized_str"}
                )
            ],
        ),
        genome_case(
            "gs-search-004",
            "gene_details",
            "Show me the details of gene SGB_0040.",
            [golden_call("get_gene_details", {"gene_id": "SGB_0040"})],
        ),
        genome_case(
            "gs-search-005",
            "gene_details",
            "What product does locus SGC_0070 encode?",
            [golden_call("get_gene_details", {"gene_id": "SGC_0070"})],
        ),
        genome_case(
            "gs-search-006",
            "gene_details",
            "Give me the full record of SGA_0140: strand, coordinates and synonyms.",
            [golden_call("get_gene_details", {"gene_id": "SGA_0140"})],
        ),
        genome_case(
            "gs-search-007",
            "list_chromosomes",
            "Which chromosomes does the loaded genome have, and how long is each?",
            [golden_call("list_chromosomes")],
        ),
        genome_case(
            "gs-search-008",
            "search_synonym",
            'Which gene has the old synonym "orf197"? Search for it.',
            [golden_call("search_genes", {"query": "orf197"}, {"query": "normalized_str"})],
        ),
        genome_case(
            "gs-search-009",
            "search_by_name",
            "Search the genome for the gene named toxB.",
            [golden_call("search_genes", {"query": "toxB"}, {"query": "normalized_str"})],
        ),
        genome_case(
            "gs-search-010",
            "no_call_needed",
            "In one sentence, what is a locus tag? No need to look anything up.",
            [],
            negative=True,
        ),
    ]


def _simple_sequence() -> list[Case]:
    return [
        genome_case(
            "gs-sequence-001",
            "region_sequence",
            "Get the DNA sequence of chrA from position 1000 to 1100.",
            [golden_call("get_sequence", {"chromosome": "chrA", "start": 1000, "end": 1100})],
        ),
        genome_case(
            "gs-sequence-002",
            "region_minus_strand",
            "Fetch chrC:2500-2560 on the minus strand.",
            [
                golden_call(
                    "get_sequence",
                    {"chromosome": "chrC", "start": 2500, "end": 2560, "strand": "-"},
                )
            ],
        ),
        genome_case(
            "gs-sequence-003",
            "region_sequence",
            "Show me bases 4200 to 4300 of chromosome chrB.",
            [golden_call("get_sequence", {"chromosome": "chrB", "start": 4200, "end": 4300})],
        ),
        genome_case(
            "gs-sequence-004",
            "gene_sequence",
            "Get the coding sequence of gene SGA_0030.",
            [golden_call("get_gene_sequence", {"gene_id": "SGA_0030"})],
        ),
        genome_case(
            "gs-sequence-005",
            "gene_protein",
            "Get the protein sequence encoded by SGB_0070.",
            [golden_call("get_gene_sequence", {"gene_id": "SGB_0070", "sequence_type": "protein"})],
        ),
        genome_case(
            "gs-sequence-006",
            "gene_flanks",
            "Get the DNA of SGC_0020 with 100 bp of flanking sequence on each side.",
            [golden_call("get_gene_sequence", {"gene_id": "SGC_0020", "flank": 100})],
        ),
        genome_case(
            "gs-sequence-007",
            "reverse_complement",
            "Reverse-complement ATGGCGTACGTTAGC.",
            [golden_call("reverse_complement", {"sequence": "ATGGCGTACGTTAGC"}, SEQ_RULE)],
        ),
        genome_case(
            "gs-sequence-008",
            "reverse_complement",
            "What is the reverse complement of GGATCCAAGCTTGC?",
            [golden_call("reverse_complement", {"sequence": "GGATCCAAGCTTGC"}, SEQ_RULE)],
        ),
        genome_case(
            "gs-sequence-009",
            "gene_sequence",
            "Retrieve the nucleotide sequence of gene SGB_0110 (kinB).",
            [golden_call("get_gene_sequence", {"gene_id": "SGB_0110"})],
        ),
    ]


def _simple_navigation() -> list[Case]:
    return [
        genome_case(
            "gs-navigation-001",
            "navigate_position",
            "Navigate to position 2500 on chrA.",
            [golden_call("navigate_to_position", {"chromosome": "chrA", "position": 2500})],
        ),
        genome_case(
            "gs-navigation-002",
            "navigate_position",
            "Centre the browser on base 1800 of chrB.",
            [golden_call("navigate_to_position", {"chromosome": "chrB", "position": 1800})],
        ),
        genome_case(
            "gs-navigation-003",
            "navigate_start_only",
            "Go to chrC, starting at 3000.",
            # a start-only call is the registry's alternative key for position
            [golden_call("navigate_to_position", {"chromosome": "chrC", "position": 3000})],
        ),
        genome_case(
            "gs-navigation-004",
            "navigate_range",
            "Show the region chrA:3000-3600 in the browser.",
            [
                golden_call(
                    "navigate_to_position", {"chromosome": "chrA", "start": 3000, "end": 3600}
                )
            ],
        ),
        genome_case(
            "gs-navigation-005",
            "jump_to_gene",
            "Jump to gene SGB_0050.",
            [golden_call("jump_to_gene", {"gene_id": "SGB_0050"})],
        ),
        genome_case(
            "gs-navigation-006",
            "jump_to_gene",
            "Take me to the lipA gene (locus SGA_0030) in the viewer.",
            [golden_call("jump_to_gene", {"gene_id": "SGA_0030"})],
        ),
        genome_case("gs-navigation-007", "zoom", "Zoom in.", [golden_call("zoom_in")]),
        genome_case(
            "gs-navigation-008",
            "zoom",
            "Zoom out by a factor of 4.",
            [golden_call("zoom_out", {"factor": 4})],
        ),
        genome_case(
            "gs-navigation-009",
            "current_view",
            "Which region is the browser showing right now?",
            [golden_call("get_current_view")],
            # list_tabs also reports the active view: accept it for this question
            equivalent_tools={"get_current_view": ["list_tabs"]},
        ),
        genome_case(
            "gs-navigation-010",
            "zoom",
            "Zoom in three times closer (factor 3).",
            [golden_call("zoom_in", {"factor": 3})],
        ),
    ]


def _simple_tabs() -> list[Case]:
    two_tabs = "tabs: tab-1 (Main, chrA:1-2000), tab-2 (chrB:1-2000, active)"
    three_tabs = "tabs: tab-1 (Main, chrA:1-2000), tab-2 (chrB:1-2000), tab-3 (chrC:1-2000, active)"
    return [
        genome_case(
            "gs-tabs-001",
            "open_tab",
            "Open a new tab showing chrB.",
            [golden_call("open_tab", {"chromosome": "chrB"})],
        ),
        genome_case(
            "gs-tabs-002",
            "open_tab",
            "Open a tab on chrC from 1000 to 2500 and label it 'helC region'.",
            [
                golden_call(
                    "open_tab",
                    {"chromosome": "chrC", "start": 1000, "end": 2500, "label": "helC region"},
                    {"label": "normalized_str"},
                )
            ],
        ),
        genome_case(
            "gs-tabs-003",
            "open_tabs_repeated",
            "Open three new tabs on chrA.",
            [golden_call("open_tab", {"chromosome": "chrA"}, count=3)],
        ),
        genome_case("gs-tabs-004", "list_tabs", "List the open tabs.", [golden_call("list_tabs")]),
        genome_case(
            "gs-tabs-005",
            "switch_tab",
            "Switch back to tab-1.",
            [golden_call("switch_tab", {"tab_id": "tab-1"})],
            setup=[setup_call("open_tab", chromosome="chrB")],
            browser=two_tabs,
        ),
        genome_case(
            "gs-tabs-006",
            "close_tab",
            "Close tab-2.",
            [golden_call("close_tab", {"tab_id": "tab-2"})],
            setup=[
                setup_call("open_tab", chromosome="chrB"),
                setup_call("open_tab", chromosome="chrC"),
            ],
            browser=three_tabs,
        ),
        genome_case(
            "gs-tabs-007",
            "switch_tab",
            "Make tab-2 the active tab.",
            [golden_call("switch_tab", {"tab_id": "tab-2"})],
            setup=[
                setup_call("open_tab", chromosome="chrB"),
                setup_call("switch_tab", tab_id="tab-1"),
            ],
            browser="tabs: tab-1 (Main, chrA:1-2000, active), tab-2 (chrB:1-2000)",
        ),
        genome_case(
            "gs-tabs-008",
            "open_tabs_repeated",
            "Open two new tabs, both on chrB.",
            [golden_call("open_tab", {"chromosome": "chrB"}, count=2)],
        ),
        genome_case(
            "gs-tabs-009",
            "close_tab",
            "Close tab-3, I no longer need it.",
            [golden_call("close_tab", {"tab_id": "tab-3"})],
            setup=[
                setup_call("open_tab", chromosome="chrB"),
                setup_call("open_tab", chromosome="chrC"),
            ],
            browser=three_tabs,
        ),
    ]


def _simple_analysis() -> list[Case]:
    return [
        genome_case(
            "gs-analysis-001",
            "translate",
            "Translate ATGGCTAGCAAAGGTTAA to protein.",
            [golden_call("translate_sequence", {"sequence": "ATGGCTAGCAAAGGTTAA"}, SEQ_RULE)],
        ),
        genome_case(
            "gs-analysis-002",
            "translate_frame",
            "Translate the DNA CATGAAACCCGGGTTTTGA in reading frame 2.",
            [
                golden_call(
                    "translate_dna", {"sequence": "CATGAAACCCGGGTTTTGA", "frame": 2}, SEQ_RULE
                )
            ],
        ),
        genome_case(
            "gs-analysis-003",
            "translate_to_stop",
            "Convert ATGTGGCATTAGCCCGGA into amino acids, stopping at the first stop codon.",
            [
                golden_call(
                    "translate_sequence",
                    {"sequence": "ATGTGGCATTAGCCCGGA", "to_stop": True},
                    SEQ_RULE,
                )
            ],
        ),
        genome_case(
            "gs-analysis-004",
            "translate",
            "What protein does ATGAGTGAACTGCGTTGGTAG encode?",
            [golden_call("translate_dna", {"sequence": "ATGAGTGAACTGCGTTGGTAG"}, SEQ_RULE)],
        ),
        genome_case(
            "gs-analysis-005",
            "gc_content",
            "What is the GC content of chrB between positions 1 and 1000?",
            [golden_call("calculate_gc_content", {"chromosome": "chrB", "start": 1, "end": 1000})],
        ),
        genome_case(
            "gs-analysis-006",
            "gc_content",
            "Compute the GC percentage of chrC 2000-3000.",
            [
                golden_call(
                    "calculate_gc_content", {"chromosome": "chrC", "start": 2000, "end": 3000}
                )
            ],
        ),
        genome_case(
            "gs-analysis-007",
            "gc_content",
            "Calculate the GC content of the whole of chrA (6000 bp).",
            [golden_call("calculate_gc_content", {"chromosome": "chrA", "start": 1, "end": 6000})],
        ),
        genome_case(
            "gs-analysis-008",
            "find_orfs",
            "Find open reading frames in chrA from 1 to 1500.",
            [golden_call("find_orfs", {"chromosome": "chrA", "start": 1, "end": 1500})],
        ),
        genome_case(
            "gs-analysis-009",
            "find_orfs_filtered",
            "Find ORFs of at least 150 bp on the plus strand of chrB between 500 and 2500.",
            [
                golden_call(
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
        genome_case(
            "gs-analysis-010",
            "find_orfs_filtered",
            "Scan the minus strand of chrC 1-2000 for open reading frames.",
            [
                golden_call(
                    "find_orfs", {"chromosome": "chrC", "start": 1, "end": 2000, "strand": "-"}
                )
            ],
        ),
    ]


def _simple_similarity() -> list[Case]:
    hel_b = dna_of("SGB_0030")[30:90]
    kin_a = protein_of("SGA_0120")[4:34]
    tox_c = dna_of("SGC_0080")[60:150]
    rpo_a = protein_of("SGA_0100")[10:45]
    sig_b = dna_of("SGB_0130")[:72]
    atp_c = dna_of("SGC_0070")[100:160]
    return [
        genome_case(
            "gs-similarity-001",
            "blast_dna",
            f"Run a BLAST search with this sequence: {hel_b}",
            [golden_call("blast_search", {"sequence": hel_b}, SEQ_RULE)],
            call_only=True,
        ),
        genome_case(
            "gs-similarity-002",
            "blast_protein",
            f"BLAST this protein against the protein database: {kin_a}",
            [golden_call("blast_search", {"sequence": kin_a, "database": "proteins"}, SEQ_RULE)],
            call_only=True,
        ),
        genome_case(
            "gs-similarity-003",
            "blast_limited",
            f"BLAST {tox_c} against the genes and return at most 3 hits.",
            [golden_call("blast_search", {"sequence": tox_c, "max_hits": 3}, SEQ_RULE)],
            call_only=True,
        ),
        genome_case(
            "gs-similarity-004",
            "similarity_protein",
            f"Which proteins are similar to {rpo_a}?",
            [
                golden_call(
                    "similarity_search", {"sequence": rpo_a, "database": "proteins"}, SEQ_RULE
                )
            ],
            call_only=True,
        ),
        genome_case(
            "gs-similarity-005",
            "similarity_dna",
            f"Find genes similar to the DNA fragment {sig_b}.",
            [golden_call("similarity_search", {"sequence": sig_b}, SEQ_RULE)],
            call_only=True,
        ),
        genome_case(
            "gs-similarity-006",
            "similarity_limited",
            f"Run a similarity search with {atp_c} and show up to 10 hits.",
            [golden_call("similarity_search", {"sequence": atp_c, "max_hits": 10}, SEQ_RULE)],
            call_only=True,
        ),
    ]


def _simple_annotation() -> list[Case]:
    return [
        genome_case(
            "gs-annotation-001",
            "add_annotation",
            "Add a promoter annotation named PhelA on chrA 1120-1170, plus strand.",
            [
                golden_call(
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
        genome_case(
            "gs-annotation-002",
            "add_annotation",
            "Annotate chrB 3800-3850 as a repeat_region called REPB2.",
            [
                golden_call(
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
        genome_case(
            "gs-annotation-003",
            "add_annotation",
            "Queue a misc_feature named 'hypothetical island' on chrC 3500-3700 with the note "
            "'low GC'.",
            [
                golden_call(
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
        genome_case(
            "gs-annotation-004",
            "edit_annotation",
            "Rename gene SGA_0080 to flaZ.",
            [
                golden_call(
                    "edit_annotation",
                    {"annotation_id": "SGA_0080", "name": "flaZ"},
                    {"name": "normalized_str"},
                )
            ],
        ),
        genome_case(
            "gs-annotation-005",
            "edit_annotation",
            "Change the product of SGB_0120 to 'large ribosomal subunit protein L7'.",
            [
                golden_call(
                    "edit_annotation",
                    {"annotation_id": "SGB_0120", "product": "large ribosomal subunit protein L7"},
                    {"product": "normalized_str"},
                )
            ],
        ),
        genome_case(
            "gs-annotation-006",
            "edit_annotation",
            "Extend the repeat annotation FTA_02 so that it ends at 1060.",
            [golden_call("edit_annotation", {"annotation_id": "FTA_02", "end": 1060})],
        ),
        genome_case(
            "gs-annotation-007",
            "delete_annotation",
            "Delete the annotation FTB_02.",
            [golden_call("delete_annotation", {"annotation_id": "FTB_02"})],
        ),
        genome_case(
            "gs-annotation-008",
            "delete_annotation",
            "Remove the gene annotation SGC_0090.",
            [golden_call("delete_annotation", {"annotation_id": "SGC_0090"})],
        ),
        genome_case(
            "gs-annotation-009",
            "execute_actions",
            "Apply the pending annotation changes.",
            [golden_call("execute_actions")],
            setup=[
                setup_call(
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
        genome_case(
            "gs-annotation-010",
            "pending_actions",
            "Show me which annotation edits are waiting to be applied.",
            [golden_call("list_pending_actions")],
            setup=[
                setup_call("edit_annotation", annotation_id="SGB_0070", note="check start codon")
            ],
            browser="one queued action: act-1 edits SGB_0070",
        ),
    ]


def _simple_export() -> list[Case]:
    return [
        genome_case(
            "gs-export-001",
            "export_fasta",
            "Export the DNA of SGA_0030 and SGA_0040 to FASTA.",
            [golden_call("export_fasta", {"gene_ids": ["SGA_0030", "SGA_0040"]})],
        ),
        genome_case(
            "gs-export-002",
            "export_fasta_protein",
            "Write the protein sequences of SGB_0010, SGB_0020 and SGB_0030 to a FASTA file "
            "named membrane.faa.",
            [
                golden_call(
                    "export_fasta",
                    {
                        "gene_ids": ["SGB_0010", "SGB_0020", "SGB_0030"],
                        "sequence_type": "protein",
                        "filename": "membrane.faa",
                    },
                )
            ],
        ),
        genome_case(
            "gs-export-003",
            "export_fasta",
            "Save gene SGC_0050 as FASTA to helC.fasta.",
            [golden_call("export_fasta", {"gene_ids": ["SGC_0050"], "filename": "helC.fasta"})],
        ),
        genome_case(
            "gs-export-004",
            "export_genbank",
            "Export chrA in GenBank format.",
            [golden_call("export_genbank_format", {"chromosome": "chrA"})],
        ),
        genome_case(
            "gs-export-005",
            "export_genbank",
            "Export chrB as GenBank to the file chrB_annotated.gbk.",
            [
                golden_call(
                    "export_genbank_format",
                    {"chromosome": "chrB", "filename": "chrB_annotated.gbk"},
                )
            ],
        ),
        genome_case(
            "gs-export-006",
            "export_genbank",
            "Write chromosome chrC with its annotations to a GenBank file.",
            [golden_call("export_genbank_format", {"chromosome": "chrC"})],
        ),
        genome_case(
            "gs-export-007",
            "export_bed",
            "Export all annotations as a BED file.",
            [golden_call("export_bed")],
        ),
        genome_case(
            "gs-export-008",
            "export_bed",
            "Export the annotations of chrB to chrB.bed.",
            [golden_call("export_bed", {"chromosome": "chrB", "filename": "chrB.bed"})],
        ),
        genome_case(
            "gs-export-009",
            "export_bed",
            "Export chrC's annotations in BED format.",
            [golden_call("export_bed", {"chromosome": "chrC"})],
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
