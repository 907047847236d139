"""The genome tools that change the annotations or write files: edits queued
(add/edit/delete_annotation), the queue listed and applied (execute_actions), and the exports.

State they write: ``queue`` (the pending edits, one record per action id, in the order they were
queued), ``annotations`` (the reference genes and features, changed only when execute_actions
applies the queue), ``files`` (what execute_actions and the exports wrote: name, format, record
count, size, sha256 and the text), and, as the ledger, the action and new-annotation numbers
in ``counters/session``.
"""

from __future__ import annotations

import copy
from typing import Any

from rejudge.suites._errors import ToolError
from rejudge.suites.domains.genome._tools_base import GENBANK_DATE, GenomeTools, digest, wrap

from rejudge.model import WorldState

__all__ = ["EditTools", "apply_action"]


def apply_action(annotations: dict[str, Any], action: dict[str, Any]) -> str:
    """Apply one queued action to ``{id: annotation}`` in place; the chromosome it touched."""
    target = action["annotation_id"]
    if action["action"] == "add":
        annotations[target] = dict(action["feature"])
        return str(annotations[target]["chromosome"])
    chromosome = annotations[target]["chromosome"]
    if action["action"] == "delete":
        del annotations[target]
    else:
        annotations[target] = {**annotations[target], **action["changes"]}
    return str(chromosome)


class EditTools(GenomeTools):
    """The annotation queue, its application, and the files written."""

    # ------------------------------------------------------------------ the queue

    def _projected(self, state: WorldState) -> dict[str, Any]:
        """The annotation layer as it will be once the queue is applied (a view: the state's
        records are never changed here)."""
        projected = dict(state.items("annotations"))
        for _key, action in state.items("queue"):
            apply_action(projected, action)
        return projected

    def _queue(self, state: WorldState, action: dict[str, Any]) -> dict[str, Any]:
        action_id = f"act-{self._next(state, 'next_action')}"
        state.put("queue", action_id, {"action_id": action_id, **action})
        return {
            "action_id": action_id,
            "action": action["action"],
            "annotation_id": action["annotation_id"],
            "status": "queued",
            "pending_actions": len(state.keys("queue")),
            "hint": "call execute_actions to apply the queue",
        }

    def _existing(self, state: WorldState, annotation_id: str) -> Any:
        projected = self._projected(state)
        if annotation_id not in projected:
            raise ToolError(
                f"unknown annotation {annotation_id!r}; give a locus tag, a feature id "
                "(e.g. FTA_02) or an id returned by add_annotation"
            )
        return projected[annotation_id]

    def tool_add_annotation(
        self,
        state: WorldState,
        chromosome: str,
        start: int,
        end: int,
        feature_type: str,
        name: str,
        strand: str = ".",
        note: str = "",
    ) -> dict[str, Any]:
        self._check_region(chromosome, start, end)
        annotation_id = f"NEW_{self._next(state, 'next_new_id'):03d}"
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
        return self._queue(
            state, {"action": "add", "annotation_id": annotation_id, "feature": feature}
        )

    def tool_edit_annotation(
        self,
        state: WorldState,
        annotation_id: str,
        name: str | None = None,
        product: str | None = None,
        note: str | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> dict[str, Any]:
        current = self._existing(state, annotation_id)
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
        return self._queue(
            state, {"action": "edit", "annotation_id": annotation_id, "changes": changes}
        )

    def tool_delete_annotation(self, state: WorldState, annotation_id: str) -> dict[str, Any]:
        self._existing(state, annotation_id)
        return self._queue(state, {"action": "delete", "annotation_id": annotation_id})

    def tool_list_pending_actions(self, state: WorldState) -> dict[str, Any]:
        actions = [dict(a) for _key, a in state.items("queue")]
        return {"pending_actions": len(actions), "actions": actions}

    def tool_execute_actions(self, state: WorldState) -> dict[str, Any]:
        queued = [action for _key, action in state.items("queue")]
        if not queued:
            return {"applied": [], "files": [], "message": "no pending actions"}
        touched: set[str] = set()
        applied = []
        for action in queued:
            touched.add(self._apply(state, action))
            applied.append(
                {
                    "action_id": action["action_id"],
                    "action": action["action"],
                    "annotation_id": action["annotation_id"],
                    "status": "applied",
                }
            )
            state.delete("queue", action["action_id"])
        order = self.genome.chromosome_names()
        files = [self._genbank(state, name, f"{name}.gbk") for name in order if name in touched]
        return {"applied": applied, "files": files}

    @staticmethod
    def _apply(state: WorldState, action: dict[str, Any]) -> str:
        """:func:`apply_action` on the state: only the one annotation it names is written."""
        target = action["annotation_id"]
        one = {target: state.get("annotations", target)} if state.has("annotations", target) else {}
        chromosome = apply_action(one, copy.deepcopy(action))
        if target in one:
            state.put("annotations", target, one[target])
        else:
            state.delete("annotations", target)
        return chromosome

    # ------------------------------------------------------------------ files

    def _write(
        self, state: WorldState, filename: str, text: str, fmt: str, records: int
    ) -> dict[str, Any]:
        written = {
            "filename": filename,
            "format": fmt,
            "records": records,
            "bytes": len(text.encode("utf-8")),
            "sha256": digest(text),
        }
        state.put("files", filename, {**written, "text": text})
        return written

    def _genbank(self, state: WorldState, chromosome: str, filename: str) -> dict[str, Any]:
        chrom = self.genome.chromosome(chromosome)
        assert chrom is not None
        annotations = self._sorted_annotations(state, [chromosome])
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
        return self._write(state, filename, "\n".join(lines) + "\n", "genbank", len(annotations))

    def tool_export_fasta(
        self,
        state: WorldState,
        gene_ids: list[str],
        sequence_type: str = "dna",
        filename: str = "genes.fasta",
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
            lines.extend(wrap(sequence))
        result = self._write(state, filename, "\n".join(lines) + "\n", "fasta", len(genes))
        return {**result, "sequence_type": sequence_type, "gene_ids": [g.id for g in genes]}

    def tool_export_genbank_format(
        self, state: WorldState, chromosome: str, filename: str | None = None
    ) -> dict[str, Any]:
        self._length(chromosome)
        return self._genbank(state, chromosome, filename or f"{chromosome}.gbk")

    def tool_export_bed(
        self, state: WorldState, chromosome: str | None = None, filename: str = "annotations.bed"
    ) -> dict[str, Any]:
        names = [chromosome] if chromosome else self.genome.chromosome_names()
        annotations = self._sorted_annotations(state, names)
        rows = [
            f"{a['chromosome']}\t{a['start'] - 1}\t{a['end']}\t{a['id']}\t0\t{a['strand']}"
            for a in annotations
        ]
        text = "".join(row + "\n" for row in rows)
        return self._write(state, filename, text, "bed", len(rows))
