"""The genome domain: shipped data, strict tool contracts, and a deterministic, isolated sandbox."""

from __future__ import annotations

import dataclasses
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from rejudge.suites import get_domain
from rejudge.suites.domains.genome import make_genome
from rejudge.suites.domains.genome.genome import (
    DATA_PATH,
    STOP_CODONS,
    load_genome,
    reverse_complement,
    translate,
)
from rejudge.suites.domains.genome.sandbox import GenomeSandbox
from rejudge.suites.domains.genome.tools import ALTERNATIVE_KEYS, EQUIVALENCES, FOLLOW_UPS

from rejudge import suites  # noqa: F401  registers the built-in domains
from rejudge.model import canonical_json

DOMAIN = get_domain("genome")


def fresh() -> GenomeSandbox:
    sandbox = DOMAIN.new_sandbox()
    assert isinstance(sandbox, GenomeSandbox)
    return sandbox


def run(sandbox: GenomeSandbox, tool: str, **arguments: Any) -> Any:
    outcome = sandbox.execute(tool, arguments)
    assert outcome.ok, (tool, arguments, outcome.error)
    return outcome.result


def fails(sandbox: GenomeSandbox, tool: str, **arguments: Any) -> str:
    outcome = sandbox.execute(tool, arguments)
    assert not outcome.ok, (tool, arguments, outcome.result)
    assert outcome.result is None and outcome.error
    return outcome.error


# --------------------------------------------------------------------------- data


def test_shipped_genome_is_what_the_seeded_generator_writes() -> None:
    assert DATA_PATH.read_text(encoding="utf-8") == make_genome.render()


def test_genome_shape_and_every_gene_is_a_real_orf() -> None:
    genome = load_genome()
    assert genome.chromosome_names() == ["chrA", "chrB", "chrC"]
    assert len(genome.genes) >= 24
    assert len({g.id for g in genome.genes}) == len(genome.genes)
    assert len({g.name for g in genome.genes}) == len(genome.genes)
    for chrom in genome.chromosomes:
        assert len(chrom.sequence) == chrom.length and set(chrom.sequence) <= set("ACGT")
        genes = sorted(
            (g for g in genome.genes if g.chromosome == chrom.name), key=lambda g: g.start
        )
        for left, right in zip(genes, genes[1:], strict=False):
            assert left.end < right.start, (left.id, right.id)
    for gene in genome.genes:
        dna = genome.gene_dna(gene)
        assert gene.strand in "+-" and 1 <= gene.start < gene.end
        assert len(dna) % 3 == 0 and dna.startswith("ATG") and dna[-3:] in STOP_CODONS
        assert "*" not in translate(dna)[:-1], gene.id
        assert gene.product and gene.synonyms


def test_sequence_helpers() -> None:
    assert reverse_complement("ATGCN") == "NGCAT"
    assert translate("ATGGCTAGCAAAGGTTAA") == "MASKG*"
    assert translate("ATGGCTTAAGGT", to_stop=True) == "MA"
    assert translate("CATGAAATAG", frame=2) == "MK*"


# --------------------------------------------------------------------------- registry


def test_registry_tools_are_strict_and_documented() -> None:
    registry = DOMAIN.registry()
    assert len(registry.tools) >= 20
    assert len(set(registry.tool_names())) == len(registry.tools)
    for spec in registry.tools:
        schema = spec.parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False, spec.name
        assert set(schema["required"]) <= set(schema["properties"]), spec.name
        assert spec.description and spec.kind
        for name, prop in schema["properties"].items():
            assert prop.get("description"), (spec.name, name)
            if name not in schema["required"]:
                # an optional parameter documents its default
                assert "default" in prop or "Default" in prop["description"], (spec.name, name)
                if "default" in prop:
                    jsonschema.validate(prop["default"], prop)
    assert len(registry.openai_tools()) == len(registry.tools)


def test_read_only_flags_follow_the_documented_kinds() -> None:
    registry = DOMAIN.registry()
    by_kind: dict[str, set[bool]] = {}
    for spec in registry.tools:
        by_kind.setdefault(spec.kind or "", set()).add(spec.read_only)
    assert by_kind == {
        "query": {True},
        "analysis": {True},
        "similarity": {True},
        "view": {False},
        "edit": {False},
        "apply": {False},
        "export": {False},
    }
    state_changing = {s.name for s in registry.tools if not s.read_only}
    assert {"navigate_to_position", "open_tab", "execute_actions", "export_fasta"} <= state_changing
    assert {"get_current_view", "list_tabs"} <= {s.name for s in registry.tools if s.read_only}


def test_registry_declarations_name_real_tools_and_schema_keys() -> None:
    registry = DOMAIN.registry()
    names = set(registry.tool_names())
    assert registry.equivalences == EQUIVALENCES
    assert registry.follow_ups == FOLLOW_UPS and registry.alternative_keys == ALTERNATIVE_KEYS
    for group in registry.equivalences:
        assert set(group) <= names
        schemas = [registry.tool(name).parameters for name in group]  # type: ignore[union-attr]
        assert all(schema == schemas[0] for schema in schemas), group
    for tool, keys in registry.alternative_keys.items():
        properties = registry.tool(tool).parameters["properties"]  # type: ignore[union-attr]
        for param, alternatives in keys.items():
            assert param in properties and set(alternatives) <= set(properties)
    for tool, follow in registry.follow_ups.items():
        assert tool in names and set(follow) <= names
    genome = load_genome()
    assert set(registry.fixture_ids["chromosome"]) == {"chrA", "chrB", "chrC"}
    assert {g.id for g in genome.genes} <= set(registry.fixture_ids["gene_id"])
    assert registry.hash == get_domain("genome").registry().hash


# --------------------------------------------------------------------------- sandbox

SCRIPT: list[tuple[str, dict[str, Any]]] = [
    ("list_chromosomes", {}),
    ("search_genes", {"query": "synthase", "limit": 3}),
    ("get_gene_details", {"gene_id": "lipB"}),
    ("get_sequence", {"chromosome": "chrC", "start": 10, "end": 80, "strand": "-"}),
    ("get_gene_sequence", {"gene_id": "SGA_0050", "sequence_type": "protein"}),
    ("navigate_to_position", {"chromosome": "chrB", "position": 2500}),
    ("zoom_in", {"factor": 4}),
    ("open_tab", {"chromosome": "chrC", "label": "C"}),
    ("jump_to_gene", {"gene_id": "SGC_0040"}),
    ("list_tabs", {}),
    ("translate_dna", {"sequence": "ATGAAATTTTAG"}),
    ("calculate_gc_content", {"chromosome": "chrA", "start": 1, "end": 6000}),
    ("find_orfs", {"chromosome": "chrB", "start": 1, "end": 3000}),
    ("blast_search", {"sequence": "ATGAAACCCGGGTTTAAACCCGGGTTTAAA", "max_hits": 3}),
    (
        "add_annotation",
        {"chromosome": "chrA", "start": 5, "end": 50, "feature_type": "misc_feature", "name": "x"},
    ),
    ("delete_annotation", {"annotation_id": "FTB_01"}),
    ("execute_actions", {}),
    ("export_fasta", {"gene_ids": ["SGA_0010", "kinB"], "sequence_type": "protein"}),
    ("export_bed", {}),
    ("get_gene_details", {"gene_id": "NOPE_1"}),
]


def _transcript(calls: list[tuple[str, dict[str, Any]]]) -> str:
    sandbox = fresh()
    return canonical_json(
        [dataclasses.asdict(sandbox.execute(tool, dict(args))) for tool, args in calls]
    )


def test_same_calls_give_byte_identical_results() -> None:
    first = _transcript(SCRIPT)
    assert first == _transcript(SCRIPT)
    assert '"ok":false' in first and '"ok":true' in first


POOL = SCRIPT + [
    ("close_tab", {"tab_id": "tab-2"}),
    ("switch_tab", {"tab_id": "tab-1"}),
    ("zoom_out", {}),
    ("edit_annotation", {"annotation_id": "NEW_001", "name": "y"}),
    ("similarity_search", {"sequence": "MKTAYIAKQRQISFVKSHFSRQ", "database": "proteins"}),
    ("export_genbank_format", {"chromosome": "chrA"}),
    ("list_pending_actions", {}),
]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=12))
def test_any_call_sequence_is_deterministic(calls: list[tuple[str, dict[str, Any]]]) -> None:
    assert _transcript(calls) == _transcript(calls)


def test_sandboxes_are_isolated_and_the_reference_genome_never_changes() -> None:
    reference = load_genome.__wrapped__(DATA_PATH)  # a second, uncached read of the file
    used = fresh()
    run(used, "open_tab", chromosome="chrB")
    run(used, "navigate_to_position", chromosome="chrB", position=4000)
    run(used, "delete_annotation", annotation_id="SGA_0010")
    run(used, "edit_annotation", annotation_id="SGB_0020", name="renamed", start=500)
    run(used, "execute_actions")
    assert len(used.tabs) == 2 and "SGA_0010" not in used.annotations
    other = fresh()
    assert list(other.tabs) == ["tab-1"] and other.queue == [] and other.files == {}
    assert other.annotations["SGB_0020"]["name"] == "lipB"
    assert "SGA_0010" in other.annotations
    assert run(other, "get_current_view")["chromosome"] == "chrA"
    assert load_genome() == reference
    assert run(other, "get_gene_details", gene_id="SGB_0020")["start"] == 526


def test_errors_are_tool_results_not_exceptions() -> None:
    sandbox = fresh()
    assert "unknown gene" in fails(sandbox, "get_gene_details", gene_id="XYZ_9")
    assert "out of range" in fails(sandbox, "get_sequence", chromosome="chrC", start=3990, end=4010)
    assert "before start" in fails(
        sandbox, "calculate_gc_content", chromosome="chrA", start=90, end=10
    )
    assert "invalid arguments" in fails(sandbox, "get_sequence", chromosome="chrZ", start=1, end=9)
    assert "invalid arguments" in fails(sandbox, "search_genes", query="x", colour="red")
    assert "unknown tool" in fails(sandbox, "delete_everything")
    assert "last open tab" in fails(sandbox, "close_tab", tab_id="tab-1")
    assert "no open tab" in fails(sandbox, "switch_tab", tab_id="tab-7")
    assert "either position or start" in fails(
        sandbox, "navigate_to_position", chromosome="chrA", position=5, start=5
    )
    assert "give position" in fails(sandbox, "navigate_to_position", chromosome="chrA")
    assert "nothing to change" in fails(sandbox, "edit_annotation", annotation_id="SGA_0010")
    assert "unknown annotation" in fails(sandbox, "delete_annotation", annotation_id="NEW_001")
    assert "DNA query" in fails(sandbox, "blast_search", sequence="MKTAYIAKQRQISF")
    # a failed call leaves no trace in the state
    assert sandbox.queue == [] and list(sandbox.tabs) == ["tab-1"]


def test_alternative_key_start_only_centres_like_position() -> None:
    by_position = run(fresh(), "navigate_to_position", chromosome="chrC", position=3000)
    by_start = run(fresh(), "navigate_to_position", chromosome="chrC", start=3000)
    assert by_position == by_start
    assert by_start["start"] <= 3000 <= by_start["end"] and by_start["width"] == 2000
    ranged = run(fresh(), "navigate_to_position", chromosome="chrA", start=3000, end=3600)
    assert (ranged["start"], ranged["end"]) == (3000, 3600)


def test_equivalent_tools_return_the_same_results() -> None:
    sandbox = fresh()
    dna = "ATGGCTAGCAAAGGTTAACC"
    for frame in (1, 2, 3):
        assert run(sandbox, "translate_sequence", sequence=dna, frame=frame) == run(
            sandbox, "translate_dna", sequence=dna, frame=frame
        )
    genome = load_genome()
    query = genome.gene_dna(genome.gene("SGB_0030"))[20:120]  # type: ignore[arg-type]
    blast = run(sandbox, "blast_search", sequence=query)
    assert blast == run(sandbox, "similarity_search", sequence=query)
    assert blast["hits"][0]["gene_id"] == "SGB_0030" and blast["hits"][0]["score"] == 1.0
    # the reverse complement of a gene fragment still finds it, on the minus strand
    rc_hit = run(sandbox, "blast_search", sequence=reverse_complement(query))["hits"][0]
    assert (rc_hit["gene_id"], rc_hit["query_strand"]) == ("SGB_0030", "-")
    protein = genome.gene_protein(genome.gene("kinA"))[3:40]  # type: ignore[arg-type]
    hits = run(sandbox, "similarity_search", sequence=protein, database="proteins")["hits"]
    assert hits[0]["name"] == "kinA"


def test_view_tabs_and_zoom() -> None:
    sandbox = fresh()
    view = run(sandbox, "jump_to_gene", gene_id="SGB_0090")
    assert (view["chromosome"], view["start"], view["end"]) == ("chrB", 3212, 3509)
    assert "SGB_0090" in view["genes_in_view"]
    assert run(sandbox, "zoom_in", factor=10)["width"] == 50  # never below 50 bases
    assert run(sandbox, "zoom_out", factor=10)["width"] == 500
    assert run(sandbox, "zoom_out", factor=10)["width"] == 5000  # the whole of chrB
    for expected in ("tab-2", "tab-3", "tab-4"):
        assert run(sandbox, "open_tab", chromosome="chrA")["tab_id"] == expected
    run(sandbox, "close_tab", tab_id="tab-4")
    tabs = run(sandbox, "list_tabs")
    assert tabs["active_tab"] == "tab-3" and len(tabs["tabs"]) == 3
    assert run(sandbox, "switch_tab", tab_id="tab-1")["chromosome"] == "chrB"


def test_queued_edits_apply_only_on_execute_and_write_genbank() -> None:
    sandbox = fresh()
    queued = run(sandbox, "edit_annotation", annotation_id="SGA_0080", name="flaZ")
    assert queued["status"] == "queued" and queued["action_id"] == "act-1"
    assert sandbox.annotations["SGA_0080"]["name"] == "flaA"
    added = run(
        sandbox,
        "add_annotation",
        chromosome="chrC",
        start=5,
        end=40,
        feature_type="promoter",
        name="P0",
    )
    assert added["annotation_id"] == "NEW_001"
    # a queued id can already be edited; the projected state is checked
    run(sandbox, "edit_annotation", annotation_id="NEW_001", note="seen")
    assert run(sandbox, "list_pending_actions")["pending_actions"] == 3
    applied = run(sandbox, "execute_actions")
    assert [a["action_id"] for a in applied["applied"]] == ["act-1", "act-2", "act-3"]
    assert [f["filename"] for f in applied["files"]] == ["chrA.gbk", "chrC.gbk"]
    assert sandbox.annotations["SGA_0080"]["name"] == "flaZ"
    assert sandbox.annotations["NEW_001"]["note"] == "seen"
    # export_genbank_format repeats the very file execute_actions wrote
    written = sandbox.files["chrA.gbk"]
    again = run(sandbox, "export_genbank_format", chromosome="chrA")
    assert again == applied["files"][0] and sandbox.files["chrA.gbk"] == written
    assert '/gene="flaZ"' in written and written.startswith("LOCUS       chrA")
    assert run(sandbox, "execute_actions") == {
        "applied": [],
        "files": [],
        "message": "no pending actions",
    }


def test_exports_write_well_formed_files() -> None:
    sandbox = fresh()
    fasta = run(sandbox, "export_fasta", gene_ids=["SGA_0030", "helA"], filename="two.fa")
    text = sandbox.files["two.fa"]
    assert fasta["records"] == 2 and text.count(">") == 2 and text.startswith(">SGA_0030 lipA")
    assert all(len(line) <= 60 for line in text.splitlines() if not line.startswith(">"))
    bed = run(sandbox, "export_bed", chromosome="chrB")
    rows = [line.split("\t") for line in sandbox.files["annotations.bed"].splitlines()]
    assert bed["records"] == len(rows) == 13 + 2
    first = next(r for r in rows if r[3] == "SGB_0010")
    assert first == ["chrB", "116", "302", "SGB_0010", "0", "+"]
    assert "listed twice" in fails(sandbox, "export_fasta", gene_ids=["SGA_0030", "lipA"])


def test_setup_calls_prepare_state_and_bad_setup_is_reported() -> None:
    from rejudge.suites.domains.genome.domain import GenomeSetupError

    sandbox = DOMAIN.new_sandbox(
        {"setup_calls": [{"tool": "open_tab", "arguments": {"chromosome": "chrB"}}]}
    )
    assert list(sandbox.tabs) == ["tab-1", "tab-2"] and sandbox.log == []
    try:
        DOMAIN.new_sandbox(
            {"setup_calls": [{"tool": "close_tab", "arguments": {"tab_id": "tab-1"}}]}
        )
    except GenomeSetupError as exc:
        assert "setup call 1 (close_tab) failed" in str(exc)
    else:  # pragma: no cover - the assertion above must run
        raise AssertionError("a failing setup call must raise")
