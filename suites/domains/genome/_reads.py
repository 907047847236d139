"""The genome tools that read the reference only: queries (chromosomes, gene search, gene
details, sequences) and analysis (translation, GC content, ORFs, k-mer similarity search).

They take the browser state (every tool does) but never read or write it: their answers depend
on the genome and the arguments alone.
"""

from __future__ import annotations

from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.domains.genome._tools_base import GenomeTools
from rejudge.suites.domains.genome.genome import (
    find_orfs,
    gc_fraction,
    kmer_set,
    reverse_complement,
    translate,
)

from rejudge.model import WorldState

__all__ = ["ReadTools"]

MAX_ORFS = 100
DNA_KMER = 8
PROTEIN_KMER = 3
MIN_SHARED_KMERS = 3


class ReadTools(GenomeTools):
    """Queries and analysis over the reference genome."""

    def tool_list_chromosomes(self, state: WorldState) -> dict[str, Any]:
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
        self, state: WorldState, query: str, chromosome: str | None = None, limit: int = 10
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

    def tool_get_gene_details(self, state: WorldState, gene_id: str) -> dict[str, Any]:
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
        self, state: WorldState, chromosome: str, start: int, end: int, strand: str = "+"
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
        self, state: WorldState, gene_id: str, sequence_type: str = "dna", flank: int = 0
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

    def tool_reverse_complement(self, state: WorldState, sequence: str) -> dict[str, Any]:
        return {"length": len(sequence), "sequence": reverse_complement(sequence.upper())}

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
        self, state: WorldState, sequence: str, frame: int = 1, to_stop: bool = False
    ) -> dict[str, Any]:
        return self._translate(sequence, frame, to_stop)

    def tool_translate_dna(
        self, state: WorldState, sequence: str, frame: int = 1, to_stop: bool = False
    ) -> dict[str, Any]:
        return self._translate(sequence, frame, to_stop)

    def tool_calculate_gc_content(
        self, state: WorldState, chromosome: str, start: int, end: int
    ) -> dict[str, Any]:
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
        state: WorldState,
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
        self, state: WorldState, sequence: str, database: str = "genes", max_hits: int = 5
    ) -> dict[str, Any]:
        return self._similarity(sequence, database, max_hits)

    def tool_similarity_search(
        self, state: WorldState, sequence: str, database: str = "genes", max_hits: int = 5
    ) -> dict[str, Any]:
        return self._similarity(sequence, database, max_hits)
