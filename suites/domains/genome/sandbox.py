"""The genome sandbox: a genome browser session over the shared, immutable synthetic genome.

Per-sandbox state, fresh for every case: the browser tabs (each with a view), the active tab,
the queue of annotation actions, the annotation layer (reference genes and features plus applied
edits) and the files written by execute_actions and the exports. The reference genome itself is
never modified. Results depend only on the data and the calls made, so the same calls give
byte-identical results.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from rejudge.store import ToolRegistry
from rejudge.suites._errors import ToolError
from rejudge.suites._sandbox import SchemaSandbox
from rejudge.suites.domains.genome.genome import (
    Gene,
    Genome,
    find_orfs,
    gc_fraction,
    kmer_set,
    load_genome,
    reverse_complement,
    translate,
)

__all__ = ["GenomeSandbox", "DEFAULT_VIEW_WIDTH", "MIN_VIEW_WIDTH", "GENE_PADDING"]

DEFAULT_VIEW_WIDTH = 2000
MIN_VIEW_WIDTH = 50
GENE_PADDING = 50
MAX_ORFS = 100
GENBANK_DATE = "01-JAN-2024"
DNA_KMER = 8
PROTEIN_KMER = 3
MIN_SHARED_KMERS = 3


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _wrap(sequence: str, width: int = 60) -> Iterable[str]:
    for i in range(0, len(sequence), width):
        yield sequence[i : i + width]


class GenomeSandbox(SchemaSandbox):
    """One browser session. Tool methods are ``tool_<name>``; the base class checks schemas."""

    def __init__(self, registry: ToolRegistry, genome: Genome | None = None) -> None:
        super().__init__(registry)
        self.genome = genome if genome is not None else load_genome()
        first = self.genome.chromosomes[0]
        self.tabs: dict[str, dict[str, Any]] = {
            "tab-1": {
                "tab_id": "tab-1",
                "label": "Main",
                "chromosome": first.name,
                "start": 1,
                "end": min(first.length, DEFAULT_VIEW_WIDTH),
            }
        }
        self.active_tab = "tab-1"
        self._next_tab = 2
        self.annotations: dict[str, dict[str, Any]] = {}
        for gene in self.genome.genes:
            self.annotations[gene.id] = {
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
        for feature in self.genome.features:
            self.annotations[feature.id] = {
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
        self.queue: list[dict[str, Any]] = []
        self.applied: list[dict[str, Any]] = []
        self._next_action = 1
        self._next_new_id = 1
        self.files: dict[str, str] = {}

    # ------------------------------------------------------------------ helpers

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

    def _view(self) -> dict[str, Any]:
        return self.tabs[self.active_tab]

    def _set_view(self, chromosome: str, start: int, end: int) -> dict[str, Any]:
        view = self._view()
        view.update({"chromosome": chromosome, "start": start, "end": end})
        return self._describe(view)

    def _centre(self, chromosome: str, centre: int, width: int) -> dict[str, Any]:
        length = self._length(chromosome)
        if centre > length:
            raise ToolError(f"{chromosome} has {length} bases; position {centre} is out of range")
        width = max(MIN_VIEW_WIDTH, min(width, length))
        start = max(1, centre - width // 2)
        end = start + width - 1
        if end > length:
            end = length
            start = max(1, end - width + 1)
        return self._set_view(chromosome, start, end)

    def _genes_in(self, chromosome: str, start: int, end: int) -> list[str]:
        return [
            a["id"]
            for a in self._sorted_annotations([chromosome])
            if a["type"] == "gene" and a["end"] >= start and a["start"] <= end
        ]

    def _describe(self, tab: dict[str, Any]) -> dict[str, Any]:
        return {
            "tab_id": tab["tab_id"],
            "label": tab["label"],
            "chromosome": tab["chromosome"],
            "start": tab["start"],
            "end": tab["end"],
            "width": tab["end"] - tab["start"] + 1,
            "genes_in_view": self._genes_in(tab["chromosome"], tab["start"], tab["end"]),
        }

    def _sorted_annotations(self, chromosomes: Iterable[str]) -> list[dict[str, Any]]:
        order = {name: i for i, name in enumerate(self.genome.chromosome_names())}
        wanted = set(chromosomes)
        return sorted(
            (a for a in self.annotations.values() if a["chromosome"] in wanted),
            key=lambda a: (order[a["chromosome"]], a["start"], a["end"], a["id"]),
        )

    def _write(self, filename: str, text: str, fmt: str, records: int) -> dict[str, Any]:
        self.files[filename] = text
        return {
            "filename": filename,
            "format": fmt,
            "records": records,
            "bytes": len(text.encode("utf-8")),
            "sha256": _digest(text),
        }

    # ------------------------------------------------------------------ query

    def tool_list_chromosomes(self) -> dict[str, Any]:
        return {
            "genome": self.genome.name,
            "organism": self.genome.organism,
            "chromosomes": [
                {
                    "name": c.name,
                    "length": c.length,
                    "gene_count": sum(1 for g in self.genome.genes if g.chromosome == c.name),
                }
                for c in self.genome.chromosomes
            ],
        }

    def tool_search_genes(
        self, query: str, chromosome: str | None = None, limit: int = 10
    ) -> dict[str, Any]:
        needle = query.strip().casefold()
        if not needle:
            raise ToolError("query is blank; give a gene name, locus tag or product word")
        hits = []
        for gene in self.genome.genes:
            if chromosome is not None and gene.chromosome != chromosome:
                continue
            haystack = [gene.id, gene.name, gene.product, *gene.synonyms]
            if any(needle in text.casefold() for text in haystack):
                hits.append(gene)
        return {
            "query": query,
            "chromosome": chromosome,
            "total": len(hits),
            "genes": [
                {
                    "id": g.id,
                    "name": g.name,
                    "chromosome": g.chromosome,
                    "start": g.start,
                    "end": g.end,
                    "strand": g.strand,
                    "product": g.product,
                }
                for g in hits[:limit]
            ],
        }

    def tool_get_gene_details(self, gene_id: str) -> dict[str, Any]:
        gene = self._gene(gene_id)
        dna = self.genome.gene_dna(gene)
        gc, called = gc_fraction(dna)
        return {
            **gene.record(),
            "length": gene.length,
            "protein_length": len(self.genome.gene_protein(gene)),
            "gc_percent": round(100.0 * gc / called, 2),
            "start_codon": dna[:3],
            "stop_codon": dna[-3:],
        }

    def tool_get_sequence(
        self, chromosome: str, start: int, end: int, strand: str = "+"
    ) -> dict[str, Any]:
        self._check_region(chromosome, start, end)
        dna = self.genome.region(chromosome, start, end)
        if strand == "-":
            dna = reverse_complement(dna)
        return {
            "chromosome": chromosome,
            "start": start,
            "end": end,
            "strand": strand,
            "length": len(dna),
            "sequence": dna,
        }

    def tool_get_gene_sequence(
        self, gene_id: str, sequence_type: str = "dna", flank: int = 0
    ) -> dict[str, Any]:
        gene = self._gene(gene_id)
        if sequence_type == "protein":
            if flank:
                raise ToolError("flank only applies to sequence_type 'dna'")
            sequence = self.genome.gene_protein(gene)
        else:
            sequence = self.genome.gene_dna(gene, flank)
        return {
            "gene_id": gene.id,
            "name": gene.name,
            "sequence_type": sequence_type,
            "flank": flank,
            "length": len(sequence),
            "sequence": sequence,
        }

    def tool_reverse_complement(self, sequence: str) -> dict[str, Any]:
        return {"length": len(sequence), "sequence": reverse_complement(sequence.upper())}

    # ------------------------------------------------------------------ view

    def tool_navigate_to_position(
        self,
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
        view = self._view()
        width = view["end"] - view["start"] + 1
        if start is not None and end is not None:
            self._check_region(chromosome, start, end)
            return self._set_view(chromosome, start, end)
        centre = position if position is not None else start
        assert centre is not None
        return self._centre(chromosome, centre, width)

    def tool_jump_to_gene(self, gene_id: str) -> dict[str, Any]:
        gene = self._gene(gene_id)
        length = self._length(gene.chromosome)
        start = max(1, gene.start - GENE_PADDING)
        end = min(length, gene.end + GENE_PADDING)
        return {"gene_id": gene.id, **self._set_view(gene.chromosome, start, end)}

    def _zoom(self, width: int) -> dict[str, Any]:
        view = self._view()
        centre = (view["start"] + view["end"]) // 2
        return self._centre(view["chromosome"], centre, width)

    def tool_zoom_in(self, factor: int = 2) -> dict[str, Any]:
        view = self._view()
        return self._zoom((view["end"] - view["start"] + 1) // factor)

    def tool_zoom_out(self, factor: int = 2) -> dict[str, Any]:
        view = self._view()
        return self._zoom((view["end"] - view["start"] + 1) * factor)

    def tool_get_current_view(self) -> dict[str, Any]:
        return self._describe(self._view())

    def tool_open_tab(
        self,
        chromosome: str | None = None,
        start: int = 1,
        end: int | None = None,
        label: str | None = None,
    ) -> dict[str, Any]:
        chromosome = chromosome or self._view()["chromosome"]
        length = self._length(chromosome)
        if end is None:
            end = min(length, start + DEFAULT_VIEW_WIDTH - 1)
        self._check_region(chromosome, start, end)
        tab_id = f"tab-{self._next_tab}"
        self._next_tab += 1
        self.tabs[tab_id] = {
            "tab_id": tab_id,
            "label": label or f"{chromosome}:{start}-{end}",
            "chromosome": chromosome,
            "start": start,
            "end": end,
        }
        self.active_tab = tab_id
        return {**self._describe(self.tabs[tab_id]), "open_tabs": len(self.tabs)}

    def _tab(self, tab_id: str) -> dict[str, Any]:
        if tab_id not in self.tabs:
            known = ", ".join(self.tabs)
            raise ToolError(f"no open tab {tab_id!r} (open: {known}); use list_tabs")
        return self.tabs[tab_id]

    def tool_switch_tab(self, tab_id: str) -> dict[str, Any]:
        tab = self._tab(tab_id)
        self.active_tab = tab_id
        return self._describe(tab)

    def tool_close_tab(self, tab_id: str) -> dict[str, Any]:
        self._tab(tab_id)
        if len(self.tabs) == 1:
            raise ToolError(f"{tab_id} is the last open tab and cannot be closed")
        order = list(self.tabs)
        index = order.index(tab_id)
        del self.tabs[tab_id]
        if self.active_tab == tab_id:
            remaining = list(self.tabs)
            self.active_tab = remaining[max(0, index - 1)]
        return {"closed": tab_id, "active_tab": self.active_tab, "open_tabs": len(self.tabs)}

    def tool_list_tabs(self) -> dict[str, Any]:
        return {
            "active_tab": self.active_tab,
            "tabs": [
                {**self._describe(tab), "active": tab_id == self.active_tab}
                for tab_id, tab in self.tabs.items()
            ],
        }

    # ------------------------------------------------------------------ analysis

    def _translate(self, sequence: str, frame: int, to_stop: bool) -> dict[str, Any]:
        if len(sequence) - (frame - 1) < 3:
            raise ToolError(f"the sequence is too short for a codon in frame {frame}")
        protein = translate(sequence, frame=frame, to_stop=to_stop)
        return {
            "frame": frame,
            "to_stop": to_stop,
            "dna_length": len(sequence),
            "protein_length": len(protein),
            "protein": protein,
        }

    def tool_translate_sequence(
        self, sequence: str, frame: int = 1, to_stop: bool = False
    ) -> dict[str, Any]:
        return self._translate(sequence, frame, to_stop)

    def tool_translate_dna(
        self, sequence: str, frame: int = 1, to_stop: bool = False
    ) -> dict[str, Any]:
        return self._translate(sequence, frame, to_stop)

    def tool_calculate_gc_content(self, chromosome: str, start: int, end: int) -> dict[str, Any]:
        self._check_region(chromosome, start, end)
        gc, called = gc_fraction(self.genome.region(chromosome, start, end))
        fraction = gc / called if called else 0.0
        return {
            "chromosome": chromosome,
            "start": start,
            "end": end,
            "length": end - start + 1,
            "gc_count": gc,
            "gc_fraction": round(fraction, 4),
            "gc_percent": round(100.0 * fraction, 2),
        }

    def tool_find_orfs(
        self,
        chromosome: str,
        start: int,
        end: int,
        min_length: int = 90,
        strand: str = "both",
    ) -> dict[str, Any]:
        self._check_region(chromosome, start, end)
        strands = ("+", "-") if strand == "both" else (strand,)
        orfs = find_orfs(self.genome.region(chromosome, start, end), start, min_length, strands)
        return {
            "chromosome": chromosome,
            "start": start,
            "end": end,
            "min_length": min_length,
            "strand": strand,
            "total": len(orfs),
            "orfs": orfs[:MAX_ORFS],
        }

    def _similarity(self, sequence: str, database: str, max_hits: int) -> dict[str, Any]:
        query = sequence.upper()
        if database == "genes":
            if set(query) - set("ACGTN"):
                raise ToolError("database 'genes' needs a DNA query; use 'proteins' for protein")
            k = DNA_KMER
            queries = {"+": kmer_set(query, k), "-": kmer_set(reverse_complement(query), k)}
        else:
            k = PROTEIN_KMER
            queries = {"+": kmer_set(query.rstrip("*"), k)}
        if not queries["+"]:
            raise ToolError(f"the query is shorter than the {k}-mer seed")
        hits: list[dict[str, Any]] = []
        for gene in self.genome.genes:
            target = (
                self.genome.gene_dna(gene)
                if database == "genes"
                else self.genome.gene_protein(gene)
            )
            target_kmers = kmer_set(target, k)
            best_strand, best_shared = "+", 0
            for orientation, kmers in queries.items():
                shared = len(kmers & target_kmers)
                if shared > best_shared:
                    best_strand, best_shared = orientation, shared
            if best_shared >= MIN_SHARED_KMERS:
                hits.append(
                    {
                        "gene_id": gene.id,
                        "name": gene.name,
                        "chromosome": gene.chromosome,
                        "query_strand": best_strand,
                        "shared_kmers": best_shared,
                        "score": round(best_shared / len(queries["+"]), 4),
                    }
                )
        hits.sort(key=lambda h: (-h["shared_kmers"], h["gene_id"]))
        return {
            "database": database,
            "method": f"{k}-mer overlap",
            "query_length": len(query),
            "total_hits": len(hits),
            "hits": [{"rank": i + 1, **h} for i, h in enumerate(hits[:max_hits])],
        }

    def tool_blast_search(
        self, sequence: str, database: str = "genes", max_hits: int = 5
    ) -> dict[str, Any]:
        return self._similarity(sequence, database, max_hits)

    def tool_similarity_search(
        self, sequence: str, database: str = "genes", max_hits: int = 5
    ) -> dict[str, Any]:
        return self._similarity(sequence, database, max_hits)

    # ------------------------------------------------------------------ edits

    def _projected(self) -> dict[str, dict[str, Any]]:
        """The annotation layer as it will be once the queue is applied."""
        state = {key: dict(value) for key, value in self.annotations.items()}
        for action in self.queue:
            self._apply(state, action)
        return state

    @staticmethod
    def _apply(state: dict[str, dict[str, Any]], action: dict[str, Any]) -> str:
        target = action["annotation_id"]
        if action["action"] == "add":
            state[target] = dict(action["feature"])
            return state[target]["chromosome"]
        chromosome = state[target]["chromosome"]
        if action["action"] == "delete":
            del state[target]
        else:
            state[target].update(action["changes"])
        return str(chromosome)

    def _queue(self, action: dict[str, Any]) -> dict[str, Any]:
        action_id = f"act-{self._next_action}"
        self._next_action += 1
        entry = {"action_id": action_id, **action}
        self.queue.append(entry)
        return {
            "action_id": action_id,
            "action": action["action"],
            "annotation_id": action["annotation_id"],
            "status": "queued",
            "pending_actions": len(self.queue),
            "hint": "call execute_actions to apply the queue",
        }

    def _existing(self, annotation_id: str) -> dict[str, Any]:
        state = self._projected()
        if annotation_id not in state:
            raise ToolError(
                f"unknown annotation {annotation_id!r}; give a locus tag, a feature id "
                "(e.g. FTA_02) or an id returned by add_annotation"
            )
        return state[annotation_id]

    def tool_add_annotation(
        self,
        chromosome: str,
        start: int,
        end: int,
        feature_type: str,
        name: str,
        strand: str = ".",
        note: str = "",
    ) -> dict[str, Any]:
        self._check_region(chromosome, start, end)
        annotation_id = f"NEW_{self._next_new_id:03d}"
        self._next_new_id += 1
        feature = {
            "id": annotation_id,
            "type": feature_type,
            "chromosome": chromosome,
            "start": start,
            "end": end,
            "strand": strand,
            "name": name,
            "product": "",
            "note": note,
        }
        return self._queue({"action": "add", "annotation_id": annotation_id, "feature": feature})

    def tool_edit_annotation(
        self,
        annotation_id: str,
        name: str | None = None,
        product: str | None = None,
        note: str | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> dict[str, Any]:
        current = self._existing(annotation_id)
        changes = {
            key: value
            for key, value in (
                ("name", name),
                ("product", product),
                ("note", note),
                ("start", start),
                ("end", end),
            )
            if value is not None
        }
        if not changes:
            raise ToolError("nothing to change; give name, product, note, start or end")
        self._check_region(
            current["chromosome"],
            changes.get("start", current["start"]),
            changes.get("end", current["end"]),
        )
        return self._queue({"action": "edit", "annotation_id": annotation_id, "changes": changes})

    def tool_delete_annotation(self, annotation_id: str) -> dict[str, Any]:
        self._existing(annotation_id)
        return self._queue({"action": "delete", "annotation_id": annotation_id})

    def tool_list_pending_actions(self) -> dict[str, Any]:
        return {"pending_actions": len(self.queue), "actions": [dict(a) for a in self.queue]}

    def tool_execute_actions(self) -> dict[str, Any]:
        if not self.queue:
            return {"applied": [], "files": [], "message": "no pending actions"}
        touched: set[str] = set()
        applied = []
        for action in self.queue:
            touched.add(self._apply(self.annotations, action))
            applied.append(
                {
                    "action_id": action["action_id"],
                    "action": action["action"],
                    "annotation_id": action["annotation_id"],
                    "status": "applied",
                }
            )
        self.applied.extend(applied)
        self.queue = []
        order = self.genome.chromosome_names()
        files = [self._genbank(name, f"{name}.gbk") for name in order if name in touched]
        return {"applied": applied, "files": files}

    # ------------------------------------------------------------------ exports

    def _genbank(self, chromosome: str, filename: str) -> dict[str, Any]:
        chrom = self.genome.chromosome(chromosome)
        assert chrom is not None
        annotations = self._sorted_annotations([chromosome])
        lines = [
            f"LOCUS       {chrom.name:<16}{chrom.length:>11} bp    DNA     linear   SYN "
            f"{GENBANK_DATE}",
            f"DEFINITION  {self.genome.organism} chromosome {chrom.name}.",
            f"ACCESSION   {chrom.name}",
            f"SOURCE      {self.genome.organism}",
            "FEATURES             Location/Qualifiers",
            f"     {'source':<16}1..{chrom.length}",
        ]
        for a in annotations:
            span = f"{a['start']}..{a['end']}"
            location = f"complement({span})" if a["strand"] == "-" else span
            lines.append(f"     {a['type']:<16}{location}")
            qualifiers = [("locus_tag" if a["type"] == "gene" else "note_id", a["id"])]
            qualifiers.append(("gene" if a["type"] == "gene" else "label", a["name"]))
            if a["product"]:
                qualifiers.append(("product", a["product"]))
            if a["note"]:
                qualifiers.append(("note", a["note"]))
            lines.extend(f'                     /{key}="{value}"' for key, value in qualifiers)
        lines.append("ORIGIN")
        seq = chrom.sequence.lower()
        for i in range(0, len(seq), 60):
            blocks = " ".join(seq[j : j + 10] for j in range(i, min(i + 60, len(seq)), 10))
            lines.append(f"{i + 1:>9} {blocks}")
        lines.append("//")
        return self._write(filename, "\n".join(lines) + "\n", "genbank", len(annotations))

    def tool_export_fasta(
        self, gene_ids: list[str], sequence_type: str = "dna", filename: str = "genes.fasta"
    ) -> dict[str, Any]:
        genes = [self._gene(key) for key in gene_ids]
        seen: set[str] = set()
        lines: list[str] = []
        for gene in genes:
            if gene.id in seen:
                raise ToolError(f"{gene.id} is listed twice (as id and name); list each gene once")
            seen.add(gene.id)
            sequence = (
                self.genome.gene_protein(gene)
                if sequence_type == "protein"
                else self.genome.gene_dna(gene)
            )
            lines.append(
                f">{gene.id} {gene.name} {gene.product} "
                f"{gene.chromosome}:{gene.start}-{gene.end}({gene.strand})"
            )
            lines.extend(_wrap(sequence))
        result = self._write(filename, "\n".join(lines) + "\n", "fasta", len(genes))
        return {**result, "sequence_type": sequence_type, "gene_ids": [g.id for g in genes]}

    def tool_export_genbank_format(
        self, chromosome: str, filename: str | None = None
    ) -> dict[str, Any]:
        self._length(chromosome)
        return self._genbank(chromosome, filename or f"{chromosome}.gbk")

    def tool_export_bed(
        self, chromosome: str | None = None, filename: str = "annotations.bed"
    ) -> dict[str, Any]:
        names = [chromosome] if chromosome else self.genome.chromosome_names()
        annotations = self._sorted_annotations(names)
        rows = [
            f"{a['chromosome']}\t{a['start'] - 1}\t{a['end']}\t{a['id']}\t0\t{a['strand']}"
            for a in annotations
        ]
        return self._write(filename, "".join(row + "\n" for row in rows), "bed", len(rows))
