"""The ``genome-complex`` suite's cases: multi-step genome-browser workflows validated step by
step. See :mod:`suites.domains.genome.authoring` for the conventions."""

from __future__ import annotations

from rejudge.suites.domains.genome.case_kit import (
    SEQ_RULE,
    dna_of,
    genome_case,
    golden_call,
    protein_of,
    setup_call,
    span_of,
)
from rejudge.suites.domains.genome.genome import reverse_complement

from rejudge.model import Case

__all__ = ["complex_cases"]


def complex_cases() -> list[Case]:
    fla_a = dna_of("SGA_0080")
    rc_input = "TTAGCCACCGGTCAT"
    tox_a = dna_of("SGA_0070")
    pro_c = protein_of("SGC_0100")
    chr_b, b_start, b_end = span_of("SGB_0020")
    chr_c, c_start, c_end = span_of("SGC_0020")
    fla_b_chrom, fla_b_start, fla_b_end = span_of("SGB_0070")
    rpo_chrom, rpo_start, rpo_end = span_of("SGA_0100")
    assert reverse_complement(rc_input).startswith("ATG")
    return [
        # ------------------------------------------------------------ lookup
        genome_case(
            "gc-lookup-001",
            "search_then_sequence",
            "Search chrB for the DNA gyrase gene, then fetch its protein sequence.",
            [
                golden_call(
                    "search_genes", {"query": "gyr", "chromosome": "chrB"}, {"query": "contains"}
                ),
                golden_call(
                    "get_gene_sequence", {"gene_id": "SGB_0040", "sequence_type": "protein"}
                ),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-lookup-002",
            "details_then_gc",
            "Look up gene SGA_0100, then compute the GC content of exactly its coordinates.",
            [
                golden_call("get_gene_details", {"gene_id": "SGA_0100"}),
                golden_call(
                    "calculate_gc_content",
                    {"chromosome": rpo_chrom, "start": rpo_start, "end": rpo_end},
                ),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-lookup-003",
            "details_jump_sequence",
            "Look up gene SGB_0130, jump to it in the browser, and get its DNA with 50 bp "
            "flanks on both sides.",
            [
                golden_call("get_gene_details", {"gene_id": "SGB_0130"}),
                golden_call("jump_to_gene", {"gene_id": "SGB_0130"}),
                golden_call("get_gene_sequence", {"gene_id": "SGB_0130", "flank": 50}),
            ],
        ),
        # ------------------------------------------------------------ analysis
        genome_case(
            "gc-analysis-001",
            "sequence_then_translate",
            "Get the DNA sequence of gene SGA_0080 and translate it into protein.",
            [
                golden_call("get_gene_sequence", {"gene_id": "SGA_0080"}),
                golden_call("translate_sequence", {"sequence": fla_a}, SEQ_RULE),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-analysis-002",
            "region_then_translate",
            f"Fetch {fla_b_chrom}:{fla_b_start}-{fla_b_end} and translate that DNA into protein.",
            [
                golden_call(
                    "get_sequence",
                    {"chromosome": fla_b_chrom, "start": fla_b_start, "end": fla_b_end},
                ),
                golden_call(
                    "translate_dna",
                    {"sequence": dna_of("SGB_0070")},
                    SEQ_RULE,
                ),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-analysis-003",
            "revcomp_then_translate",
            f"Reverse-complement {rc_input}, then translate the result.",
            [
                golden_call("reverse_complement", {"sequence": rc_input}, SEQ_RULE),
                golden_call(
                    "translate_sequence", {"sequence": reverse_complement(rc_input)}, SEQ_RULE
                ),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-analysis-004",
            "orfs_then_annotate",
            "Scan chrC 2800-3100 for ORFs, annotate the longest plus-strand ORF as a CDS named "
            "orf_flaC on the plus strand, and apply the change.",
            [
                golden_call("find_orfs", {"chromosome": "chrC", "start": 2800, "end": 3100}),
                golden_call(
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
                golden_call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-analysis-005",
            "compare_gc",
            "Compare the GC content of genes SGB_0020 and SGC_0020 over their exact coordinates.",
            [
                golden_call("get_gene_details", {"gene_id": "SGB_0020"}),
                golden_call("get_gene_details", {"gene_id": "SGC_0020"}),
                golden_call(
                    "calculate_gc_content", {"chromosome": chr_b, "start": b_start, "end": b_end}
                ),
                golden_call(
                    "calculate_gc_content", {"chromosome": chr_c, "start": c_start, "end": c_end}
                ),
            ],
        ),
        # ------------------------------------------------------------ annotation
        genome_case(
            "gc-annotation-001",
            "add_apply_export",
            "Add a terminator annotation TgyrB on chrB 1530-1560, minus strand, apply it, and "
            "export chrB as GenBank.",
            [
                golden_call(
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
                golden_call("execute_actions"),
                golden_call("export_genbank_format", {"chromosome": "chrB"}),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-annotation-002",
            "edit_apply",
            "Rename gene SGC_0060 to gyrZ and apply the edit.",
            [
                golden_call(
                    "edit_annotation",
                    {"annotation_id": "SGC_0060", "name": "gyrZ"},
                    {"name": "normalized_str"},
                ),
                golden_call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-annotation-003",
            "delete_apply_export",
            "Delete the repeat annotation FTC_02, apply the deletion, then export chrC's "
            "annotations as BED.",
            [
                golden_call("delete_annotation", {"annotation_id": "FTC_02"}),
                golden_call("execute_actions"),
                golden_call("export_bed", {"chromosome": "chrC"}),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-annotation-004",
            "add_two_apply",
            "On chrA, add two plus-strand promoter annotations, PrpoA at 3400-3450 and PtrpA at "
            "3850-3900, then apply both.",
            [
                golden_call(
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
                golden_call(
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
                golden_call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-annotation-005",
            "add_edit_apply",
            "Add a misc_feature named 'test site' on chrB 10-40, then set its note to "
            "'verified', and apply everything.",
            [
                golden_call(
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
                golden_call(
                    "edit_annotation",
                    {"annotation_id": "NEW_001", "note": "verified"},
                    {"annotation_id": "any", "note": "normalized_str"},
                ),
                golden_call("execute_actions"),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-annotation-006",
            "review_apply_export",
            "Review the pending annotation actions, apply them, then export chrA in GenBank "
            "format.",
            [
                golden_call("list_pending_actions"),
                golden_call("execute_actions"),
                golden_call("export_genbank_format", {"chromosome": "chrA"}),
            ],
            order_sensitive=True,
            setup=[
                setup_call(
                    "edit_annotation", annotation_id="SGA_0150", product="cytochrome oxidase"
                ),
                setup_call("delete_annotation", annotation_id="FTA_01"),
            ],
            browser="two queued actions: act-1 edits SGA_0150, act-2 deletes FTA_01",
        ),
        # ------------------------------------------------------------ browse
        genome_case(
            "gc-browse-001",
            "tab_jump_zoom",
            "Open a new tab on chrB, jump to gene SGB_0090 there, then zoom in twice.",
            [
                golden_call("open_tab", {"chromosome": "chrB"}),
                golden_call("jump_to_gene", {"gene_id": "SGB_0090"}),
                golden_call("zoom_in", count=2),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-browse-002",
            "navigate_zoom_view",
            "Go to position 4000 on chrA, zoom out by a factor of 4, then tell me which genes "
            "are in view.",
            [
                golden_call("navigate_to_position", {"chromosome": "chrA", "position": 4000}),
                golden_call("zoom_out", {"factor": 4}),
                golden_call("get_current_view"),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-browse-003",
            "three_tabs_list",
            "Open three tabs, on chrA, chrB and chrC respectively, then list all tabs.",
            [
                golden_call("open_tab", {"chromosome": "chrA"}),
                golden_call("open_tab", {"chromosome": "chrB"}),
                golden_call("open_tab", {"chromosome": "chrC"}),
                golden_call("list_tabs"),
            ],
            order_sensitive=True,
        ),
        genome_case(
            "gc-browse-004",
            "tab_lifecycle",
            "Open a tab on chrC, switch back to tab-1, then close the chrC tab you just opened.",
            [
                golden_call("open_tab", {"chromosome": "chrC"}),
                golden_call("switch_tab", {"tab_id": "tab-1"}),
                golden_call("close_tab", {"tab_id": "tab-2"}),
            ],
            order_sensitive=True,
        ),
        # ------------------------------------------------------------ similarity
        genome_case(
            "gc-similarity-001",
            "sequence_then_blast",
            "Get the DNA sequence of gene SGA_0070 and BLAST it against the gene database.",
            [
                golden_call("get_gene_sequence", {"gene_id": "SGA_0070"}),
                golden_call("blast_search", {"sequence": tox_a}, SEQ_RULE),
            ],
            order_sensitive=True,
            call_only=True,
        ),
        genome_case(
            "gc-similarity-002",
            "protein_then_similarity",
            "Get the protein of SGC_0100 and run a similarity search against the protein "
            "database, at most 3 hits.",
            [
                golden_call(
                    "get_gene_sequence", {"gene_id": "SGC_0100", "sequence_type": "protein"}
                ),
                golden_call(
                    "similarity_search",
                    {"sequence": pro_c, "database": "proteins", "max_hits": 3},
                    SEQ_RULE,
                ),
            ],
            order_sensitive=True,
            call_only=True,
        ),
        # ------------------------------------------------------------ export
        genome_case(
            "gc-export-001",
            "search_then_fasta",
            "Find every membrane transport gene and export their proteins to a FASTA file "
            "named mtp.faa.",
            [
                golden_call(
                    "search_genes",
                    {"query": "membrane transport"},
                    {"query": "normalized_str"},
                ),
                golden_call(
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
        genome_case(
            "gc-export-002",
            "genbank_and_bed",
            "Export chrA both as a GenBank file and as a BED file of chrA only.",
            [
                golden_call("export_genbank_format", {"chromosome": "chrA"}),
                golden_call("export_bed", {"chromosome": "chrA"}),
            ],
        ),
    ]
