"""Authoring script for the genome domain's synthetic genome (``data/genome.json``).

Run once by a maintainer (``python -m suites.domains.genome.make_genome``); the output is
committed as data and only *read* at import time. The generator is seeded, so running it again
rewrites the same bytes; a test checks that the shipped file matches.

The genome: three chromosomes (chrA/chrB/chrC) of random sequence with per-chromosome GC bias,
genes planted as real open reading frames (ATG ... stop, no internal stop) on both strands, and
a few non-gene features (promoters, repeat regions) for the annotation tools.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

SEED = 20240611
DATA_PATH = Path(__file__).parent / "data" / "genome.json"

CHROMOSOMES: list[tuple[str, int, float]] = [
    # name, length, GC fraction of the background
    ("chrA", 6000, 0.50),
    ("chrB", 5000, 0.42),
    ("chrC", 4000, 0.58),
]

# (name prefix, product) pairs; the gene name is prefix + a capital letter
GENE_FAMILIES: list[tuple[str, str, str]] = [
    # prefix, product, alias stem
    ("atp", "ATP synthase subunit", "ATPS"),
    ("gyr", "DNA gyrase subunit", "GYR"),
    ("rpo", "DNA-directed RNA polymerase subunit", "RNAP"),
    ("lip", "lipoate synthase", "LIPS"),
    ("trp", "tryptophan biosynthesis protein", "TRPB"),
    ("kin", "serine/threonine protein kinase", "STK"),
    ("hel", "ATP-dependent DNA helicase", "HELI"),
    ("mem", "membrane transport protein", "MTP"),
    ("fla", "flagellar motor protein", "FLAG"),
    ("cyt", "cytochrome c oxidase subunit", "COX"),
    ("syn", "glutamine synthetase", "GLNS"),
    ("pro", "ATP-dependent protease", "PROT"),
    ("rib", "ribosomal protein", "RPL"),
    ("sig", "sigma factor", "SIGF"),
    ("tox", "toxin-antitoxin system toxin", "TAT"),
]

REPEAT_MOTIFS = ("CAGT", "GGCTA", "ATTGC")
STOPS = ("TAA", "TAG", "TGA")
_COMPLEMENT = str.maketrans("ACGT", "TGCA")


def _base(rng: random.Random, gc: float) -> str:
    if rng.random() < gc:
        return rng.choice("GC")
    return rng.choice("AT")


def _codon(rng: random.Random, gc: float) -> str:
    while True:
        codon = "".join(_base(rng, gc) for _ in range(3))
        if codon not in STOPS:
            return codon


def _orf(rng: random.Random, gc: float, codons: int) -> str:
    body = "".join(_codon(rng, gc) for _ in range(codons - 2))
    return "ATG" + body + rng.choice(STOPS)


def _revcomp(seq: str) -> str:
    return seq.translate(_COMPLEMENT)[::-1]


def build() -> dict[str, Any]:
    rng = random.Random(SEED)
    families = list(GENE_FAMILIES)
    rng.shuffle(families)
    family_index = 0
    letter_counts: dict[str, int] = {}
    chromosomes: list[dict[str, Any]] = []
    genes: list[dict[str, Any]] = []
    features: list[dict[str, Any]] = []
    old_orf_number = 100
    for chrom_index, (name, length, gc) in enumerate(CHROMOSOMES):
        seq = [_base(rng, gc) for _ in range(length)]
        tag = name[-1]  # A, B, C
        pos = 81 + rng.randint(0, 40)  # 1-based start of the next gene
        gene_number = 10
        while True:
            codons = rng.randint(35, 110)
            nt = codons * 3
            if pos + nt + 120 > length:
                break
            strand = "+" if rng.random() < 0.6 else "-"
            orf = _orf(rng, gc, codons)
            placed = orf if strand == "+" else _revcomp(orf)
            seq[pos - 1 : pos - 1 + nt] = list(placed)
            prefix, product, alias = families[family_index % len(families)]
            family_index += 1
            count = letter_counts.get(prefix, 0)
            letter_counts[prefix] = count + 1
            letter = "ABCDEFGH"[count]
            old_orf_number += rng.randint(1, 9)
            genes.append(
                {
                    "id": f"SG{tag}_{gene_number:04d}",
                    "name": f"{prefix}{letter}",
                    "chromosome": name,
                    "start": pos,
                    "end": pos + nt - 1,
                    "strand": strand,
                    "product": f"{product} {letter}",
                    "synonyms": [f"{alias}-{count + 1}", f"orf{old_orf_number}"],
                }
            )
            gene_number += 10
            pos += nt + rng.randint(70, 260)
        # non-gene features: one promoter upstream of the first + strand gene, a repeat region
        chrom_genes = [g for g in genes if g["chromosome"] == name]
        first_plus = next(g for g in chrom_genes if g["strand"] == "+")
        features.append(
            {
                "id": f"FT{tag}_01",
                "type": "promoter",
                "chromosome": name,
                "start": first_plus["start"] - 60,
                "end": first_plus["start"] - 11,
                "strand": "+",
                "name": f"P{first_plus['name']}",
                "note": f"predicted promoter of {first_plus['name']}",
            }
        )
        gap_after = chrom_genes[chrom_index + 2]
        repeat_start = gap_after["end"] + 21
        motif = REPEAT_MOTIFS[chrom_index]
        unit = (motif * 40)[:40]
        seq = list("".join(seq))
        seq[repeat_start - 1 : repeat_start + 39] = list(unit)
        features.append(
            {
                "id": f"FT{tag}_02",
                "type": "repeat_region",
                "chromosome": name,
                "start": gap_after["end"] + 21,
                "end": gap_after["end"] + 60,
                "strand": ".",
                "name": f"REP{tag}1",
                "note": f"tandem repeat of {motif}",
            }
        )
        chromosomes.append({"name": name, "length": length, "sequence": "".join(seq)})
    return {
        "format_version": 1,
        "name": "synthetica-minima",
        "organism": "Synthetica minima (synthetic)",
        "seed": SEED,
        "coordinates": "1-based, inclusive; start <= end on both strands",
        "chromosomes": chromosomes,
        "genes": genes,
        "features": features,
    }


def render() -> str:
    return json.dumps(build(), indent=1, sort_keys=True) + "\n"


def main() -> None:
    DATA_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATA_PATH.write_text(render(), encoding="utf-8")


if __name__ == "__main__":
    main()
