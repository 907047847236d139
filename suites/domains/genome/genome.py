"""The synthetic genome (read from ``data/genome.json``) and pure sequence helpers.

Nothing here holds per-sandbox state: :class:`Genome` is immutable reference data shared by every
sandbox, and the helpers are pure functions, so results are the same bytes on every call.
Coordinates are 1-based and inclusive with ``start <= end`` on both strands.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_PATH",
    "Chromosome",
    "Gene",
    "Feature",
    "Genome",
    "load_genome",
    "reverse_complement",
    "translate",
    "gc_fraction",
    "find_orfs",
    "kmer_set",
]

DATA_PATH = Path(__file__).parent / "data" / "genome.json"

STOP_CODONS = frozenset({"TAA", "TAG", "TGA"})
_BASES = "TCAG"
_AMINO = "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"
CODON_TABLE: dict[str, str] = {
    a + b + c: _AMINO[16 * i + 4 * j + k]
    for i, a in enumerate(_BASES)
    for j, b in enumerate(_BASES)
    for k, c in enumerate(_BASES)
}
_COMPLEMENT = str.maketrans("ACGTNacgtn", "TGCANtgcan")


@dataclass(frozen=True)
class Chromosome:
    name: str
    length: int
    sequence: str


@dataclass(frozen=True)
class Gene:
    id: str
    name: str
    chromosome: str
    start: int
    end: int
    strand: str
    product: str
    synonyms: tuple[str, ...]

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    def record(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "chromosome": self.chromosome,
            "start": self.start,
            "end": self.end,
            "strand": self.strand,
            "product": self.product,
            "synonyms": list(self.synonyms),
        }


@dataclass(frozen=True)
class Feature:
    id: str
    type: str
    chromosome: str
    start: int
    end: int
    strand: str
    name: str
    note: str


@dataclass(frozen=True)
class Genome:
    name: str
    organism: str
    chromosomes: tuple[Chromosome, ...]
    genes: tuple[Gene, ...]
    features: tuple[Feature, ...]

    def chromosome(self, name: str) -> Chromosome | None:
        for chrom in self.chromosomes:
            if chrom.name == name:
                return chrom
        return None

    def chromosome_names(self) -> list[str]:
        return [chrom.name for chrom in self.chromosomes]

    def gene(self, key: str) -> Gene | None:
        """A gene by locus tag or gene name, case-insensitively."""
        folded = key.strip().casefold()
        for gene in self.genes:
            if gene.id.casefold() == folded or gene.name.casefold() == folded:
                return gene
        return None

    def region(self, chromosome: str, start: int, end: int) -> str:
        chrom = self.chromosome(chromosome)
        if chrom is None:
            raise KeyError(chromosome)
        return chrom.sequence[start - 1 : end]

    def gene_dna(self, gene: Gene, flank: int = 0) -> str:
        """The gene's coding-strand DNA (reverse-complemented on ``-``), with flanks clipped."""
        chrom = self.chromosome(gene.chromosome)
        assert chrom is not None
        start = max(1, gene.start - flank)
        end = min(chrom.length, gene.end + flank)
        dna = chrom.sequence[start - 1 : end]
        return dna if gene.strand == "+" else reverse_complement(dna)

    def gene_protein(self, gene: Gene) -> str:
        return translate(self.gene_dna(gene), frame=1, to_stop=True)


@cache
def load_genome(path: Path = DATA_PATH) -> Genome:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return Genome(
        name=raw["name"],
        organism=raw["organism"],
        chromosomes=tuple(
            Chromosome(c["name"], int(c["length"]), c["sequence"]) for c in raw["chromosomes"]
        ),
        genes=tuple(
            Gene(
                id=g["id"],
                name=g["name"],
                chromosome=g["chromosome"],
                start=int(g["start"]),
                end=int(g["end"]),
                strand=g["strand"],
                product=g["product"],
                synonyms=tuple(g["synonyms"]),
            )
            for g in raw["genes"]
        ),
        features=tuple(
            Feature(
                id=f["id"],
                type=f["type"],
                chromosome=f["chromosome"],
                start=int(f["start"]),
                end=int(f["end"]),
                strand=f["strand"],
                name=f["name"],
                note=f["note"],
            )
            for f in raw["features"]
        ),
    )


def reverse_complement(sequence: str) -> str:
    return sequence.translate(_COMPLEMENT)[::-1]


def translate(sequence: str, frame: int = 1, to_stop: bool = False) -> str:
    """Translate DNA in reading frame 1-3 with the standard code; ``*`` marks stops, ``X`` Ns."""
    dna = sequence.upper()
    protein: list[str] = []
    for i in range(frame - 1, len(dna) - 2, 3):
        amino = CODON_TABLE.get(dna[i : i + 3], "X")
        if amino == "*" and to_stop:
            break
        protein.append(amino)
    return "".join(protein)


def gc_fraction(sequence: str) -> tuple[int, int]:
    """(G+C count, count of called bases A/C/G/T)."""
    dna = sequence.upper()
    gc = dna.count("G") + dna.count("C")
    called = gc + dna.count("A") + dna.count("T")
    return gc, called


def _orfs_forward(dna: str, min_length: int) -> list[tuple[int, int]]:
    """(offset, length in nt incl. the stop) of ORFs on the forward strand of ``dna``."""
    found: list[tuple[int, int]] = []
    for frame in range(3):
        start: int | None = None
        for i in range(frame, len(dna) - 2, 3):
            codon = dna[i : i + 3]
            if start is None and codon == "ATG":
                start = i
            elif start is not None and codon in STOP_CODONS:
                length = i + 3 - start
                if length >= min_length:
                    found.append((start, length))
                start = None
    return found


def find_orfs(
    sequence: str, offset: int, min_length: int, strands: tuple[str, ...]
) -> list[dict[str, Any]]:
    """ORFs (ATG to stop, nested starts ignored) of a region starting at 1-based ``offset``."""
    dna = sequence.upper()
    orfs: list[dict[str, Any]] = []
    if "+" in strands:
        for begin, length in _orfs_forward(dna, min_length):
            orfs.append(
                {
                    "start": offset + begin,
                    "end": offset + begin + length - 1,
                    "strand": "+",
                    "length": length,
                    "protein_length": length // 3 - 1,
                }
            )
    if "-" in strands:
        rc = reverse_complement(dna)
        for begin, length in _orfs_forward(rc, min_length):
            end = offset + len(dna) - 1 - begin
            orfs.append(
                {
                    "start": end - length + 1,
                    "end": end,
                    "strand": "-",
                    "length": length,
                    "protein_length": length // 3 - 1,
                }
            )
    orfs.sort(key=lambda o: (o["start"], o["strand"], o["end"]))
    return orfs


def kmer_set(sequence: str, k: int) -> frozenset[str]:
    seq = sequence.upper()
    return frozenset(seq[i : i + k] for i in range(len(seq) - k + 1))
