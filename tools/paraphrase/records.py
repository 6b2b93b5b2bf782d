"""Variant records in qa.jsonl and the report's "Paraphrases" section.

A variant record is its canonical record with ``id`` ``q0001.p<n>``, ``question`` the variant,
``variant_of`` the canonical id and ``persona`` set (everything else, answer included, is the
canonical's: the query is the same). Appending is idempotent: a canonical question that already
has variants from the chosen personas gets only what it lacks, and ids continue after the last one.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from tools.bundle.files import MANIFEST, SPEC

BEGIN, END = "<!-- chronoeval:paraphrases:begin -->", "<!-- chronoeval:paraphrases:end -->"


@dataclass
class Rejected:
    """A variant the judge turned down."""

    qid: str
    persona: str
    text: str
    reason: str
    source: str = "llm"


@dataclass
class ParaphraseReport:
    """What a paraphrase run did, for report.md and the CLI summary."""

    canonical: int = 0
    added: list[dict[str, Any]] = field(default_factory=list)
    total_variants: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    shortfall: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    model: str = "none (deterministic paraphraser)"
    usage: str = ""
    per_question: int = 3


def read_records(path: Path) -> list[dict[str, Any]]:
    """qa.jsonl as dicts (order kept)."""
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def existing_variants(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Variant records by canonical id."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        if r.get("variant_of"):
            out.setdefault(r["variant_of"], []).append(r)
    return out


def next_variant_number(qid: str, variants: list[dict[str, Any]]) -> int:
    nums = [int(m.group(1)) for v in variants if (m := re.fullmatch(rf"{re.escape(qid)}\.p(\d+)", v["id"]))]
    return max(nums, default=0) + 1


def variant_record(canonical: dict[str, Any], n: int, text: str, persona: str) -> dict[str, Any]:
    """The qa.jsonl record of one variant (field order as in the canonical record)."""
    rec = dict(canonical)
    rec.update(id=f"{canonical['id']}.p{n}", question=text, canonical_question=canonical["canonical_question"],
               variant_of=canonical["id"], persona=persona)
    return rec


def merge_records(records: list[dict[str, Any]], added: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records with the new variants placed right after their canonical question and its variants."""
    by_parent: dict[str, list[dict[str, Any]]] = {}
    for r in added:
        by_parent.setdefault(r["variant_of"], []).append(r)
    out: list[dict[str, Any]] = []
    for i, r in enumerate(records):
        out.append(r)
        parent = r.get("variant_of") or r["id"]
        nxt = records[i + 1] if i + 1 < len(records) else None
        if nxt is None or (nxt.get("variant_of") or nxt["id"]) != parent:
            out.extend(by_parent.pop(parent, []))
    for rest in by_parent.values():
        out.extend(rest)
    return out


def _cell(s: object) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def paraphrase_section(rep: ParaphraseReport, records: list[dict[str, Any]]) -> str:
    """The markdown "Paraphrases" section (between markers, so a re-run replaces it)."""
    variants = [r for r in records if r.get("variant_of")]
    personas = Counter(r["persona"] for r in variants)
    lines = [BEGIN, "## Paraphrases", "",
             f"{len(variants)} variant(s) of {rep.canonical} canonical question(s) in `qa.jsonl` "
             f"({len(rep.added)} added by the last run, up to {rep.per_question} per question); "
             f"paraphraser: {rep.model}.", ""]
    if rep.usage:
        lines += [f"LLM usage: {rep.usage}.", ""]
    lines += ["| persona | variants |", "|---|---|"]
    lines += [f"| {p} | {n} |" for p, n in sorted(personas.items())]
    if rep.shortfall:
        lines += ["", f"**{len(rep.shortfall)} question(s) got fewer than {rep.per_question} variants** (no "
                  "candidate of the remaining personas kept every slot at the distance bound): "
                  + ", ".join(f"{q} ({n} short)" for q, n in sorted(rep.shortfall.items())) + "."]
    lines += ["", "### Notes", ""]
    lines += [f"- {_cell(n)}" for n in rep.notes] or ["None."]
    lines += ["", "### Rejected variants", ""]
    if rep.rejected:
        lines += ["| question | persona | source | reason | variant |", "|---|---|---|---|---|"]
        lines += [f"| {r.qid} | {r.persona} | {r.source} | {_cell(r.reason)} | {_cell(r.text)} |" for r in rep.rejected]
    else:
        lines.append("None: every proposed variant kept the canonical question's query.")
    lines += ["", "### Sample", "", "| id | persona | question |", "|---|---|---|"]
    step = max(1, len(variants) // 9)
    lines += [f"| {r['id']} | {r['persona']} | {_cell(r['question'])} |" for r in variants[::step][:9]]
    return "\n".join(lines) + "\n" + END + "\n"


def data_last_day(bundle: Path) -> date | None:
    """The last calendar day (UTC) with data, from manifest.json: 'today' for relative dates."""
    try:
        tables = json.loads((Path(bundle) / MANIFEST).read_text())["tables"].values()
        ends = [t["time_max"] for t in tables if t.get("time_max")]
        return max(datetime.fromisoformat(e.replace("Z", "+00:00")) for e in ends).date() if ends else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def domain_synonyms(bundle: Path) -> dict[str, list[str]]:
    """Column → the words the spec's own personas use for it (their ``vocabulary``), from spec.yaml."""
    from tools.spec import SpecError, load_spec

    try:
        spec = load_spec(Path(bundle) / SPEC)
    except (SpecError, OSError):
        return {}
    out: dict[str, list[str]] = {}
    for p in spec.personas:
        for column, words in p.vocabulary.items():
            if words and words not in out.setdefault(column, []):
                out[column].append(words)
    return out
