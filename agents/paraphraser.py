"""The paraphraser agent: persona variants of every canonical question of a suite.

With an LLM: one structured call per canonical question asks for k variants, variant i in the
voice of persona i (``prompts/paraphraser.py``); each variant must pass the judge (slot check + LLM
verdict) and the distance bound, or it is rejected with its reason. Whatever the LLM does not
provide (failure, malformed output after retries, rejection) the deterministic paraphraser
(``tools.paraphrase``) fills in, and the run's notes say so. An unreachable server switches the
whole run to the deterministic path after one clear note.

``paraphraser`` is the build graph's step: persona variants of every canonical question of the
bundle (judged: same slots, same query), appended to qa.jsonl with a Paraphrases section in report.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from langgraph.runtime import Runtime

from agents.context import BuildContext
from agents.judge import judge_paraphrase
from agents.models import LLMUnavailable, model_id, offline_reason, usage
from agents.state import BuildState, decision
from agents.structured import structured_call
from knowledge.personas import load_personas
from prompts.paraphraser import PARAPHRASER, ParaphraseInput, ParaphraseOutput
from tools.bundle.atomic import atomic_write_text, upsert_section
from tools.bundle.files import MANIFEST, QA, REPORT
from tools.bundle.manifest import refresh_manifest
from tools.paraphrase import Persona, paraphrase, token_edit_distance
from tools.paraphrase.engine import min_distance_for
from tools.paraphrase.personas import personas_for
from tools.paraphrase.records import (
    BEGIN,
    END,
    ParaphraseReport,
    Rejected,
    data_last_day,
    domain_synonyms,
    existing_variants,
    merge_records,
    next_variant_number,
    paraphrase_section,
    read_records,
    variant_record,
)


def rotation(personas: list[Persona], i: int) -> list[Persona]:
    """The persona order for the i-th question: the list rotated by i (spreads personas evenly)."""
    j = i % len(personas)
    return personas[j:] + personas[:j]


def _llm_variants(model: Any, rec: dict[str, Any], chosen: list[Persona], anchor: date | None,
                  kept: list[str], rep: ParaphraseReport,
                  synonyms: dict[str, list[str]] | None = None) -> list[tuple[str, Persona]]:
    """Variants the LLM proposes and the judge accepts (rejections go to ``rep.rejected``)."""
    briefs = "\n".join(f"variant {n}: {p.brief()}" for n, p in enumerate(chosen, 1))
    inp = ParaphraseInput(canonical_question=rec["question"], query_spec=rec["params"], persona=briefs,
                          k=len(chosen), today=anchor.isoformat() if anchor else None)
    notes: list[str] = []

    def check(out: ParaphraseOutput) -> list[str]:
        return [] if len(out.variants) >= len(chosen) else [f"give {len(chosen)} variants, not {len(out.variants)}"]

    out = structured_call(model, PARAPHRASER.render(inp), ParaphraseOutput, purpose="paraphrase",
                          notes=notes, check=check)
    if out is None:
        rep.notes += [f"{rec['id']}: {n}" for n in notes]
        return []
    accepted: list[tuple[str, Persona]] = []
    for text, p in zip(out.variants, chosen, strict=False):
        text = " ".join(text.split())
        d = min([token_edit_distance(t, text) for t in kept + [rec["question"]]])
        least = min_distance_for(rec["question"])
        if d < least:
            rep.rejected.append(Rejected(rec["id"], p.name, text, f"too close to the canonical question or another "
                                                                  f"variant (distance {d:.2f} < {least})"))
            continue
        verdict = judge_paraphrase(rec["question"], text, query_spec=rec["params"], gold_sql=rec.get("gold_sql", ""),
                                   model=model, synonyms=synonyms, notes=notes)
        if not verdict["equivalent"]:
            rep.rejected.append(Rejected(rec["id"], p.name, text, verdict["reason"]))
            continue
        accepted.append((text, p))
        kept.append(text)
    rep.notes += [f"{rec['id']}: {n}" for n in notes]
    return accepted


def paraphrase_records(records: list[dict[str, Any]], personas: list[Persona], k: int, *, seed: int = 0,
                       anchor: date | None = None, model: Any = None, synonyms: dict[str, list[str]] | None = None,
                       progress: Callable[[int, int], None] | None = None) -> ParaphraseReport:
    """Variant records to add (``report.added``) so that every canonical question has ``k``
    variants from the given personas; existing variants from those personas count towards k.
    ``synonyms`` (column → the domain's words for it) may stand for identifiers in variants."""
    rep = ParaphraseReport(per_question=k)
    if model is not None:
        rep.model = f"{model_id(model)} (LLM, judged; deterministic fallback)"
    have = existing_variants(records)
    canon = [r for r in records if not r.get("variant_of")]
    rep.canonical = len(canon)
    names = {p.name for p in personas}
    for i, rec in enumerate(canon):
        old = have.get(rec["id"], [])
        mine = [v for v in old if v.get("persona") in names]
        need = k - len(mine)
        if need > 0:
            used = {v.get("persona") for v in old}
            free = [p for p in rotation(personas, i) if p.name not in used]
            kept = [v["question"] for v in old]
            got: list[tuple[str, Persona, str]] = []
            if model is not None and free:
                try:
                    got += [(t, p, "llm") for t, p in _llm_variants(model, rec, free[:need], anchor, kept, rep,
                                                                                synonyms)]
                except LLMUnavailable as exc:
                    rep.notes.append(f"{exc}. Continuing offline: the deterministic paraphraser made the remaining "
                                     "variants.")
                    model = None
                if model is not None and offline_reason(model):  # unreachable: structured_call went offline
                    rep.notes.append(f"{offline_reason(model)}. Continuing offline: the deterministic paraphraser "
                                     "made the remaining variants.")
                    model = None
            taken = {p.name for _, p, _ in got}
            rest = paraphrase(rec["question"], [p for p in free if p.name not in taken], need - len(got), seed=seed,
                              key=rec["id"], anchor=anchor, existing=kept, synonyms=synonyms)
            by_name = {p.name: p for p in personas}
            got += [(v.text, by_name[v.persona], "rules") for v in rest.variants]
            if len(got) < need:
                rep.shortfall[rec["id"]] = need - len(got)
            n = next_variant_number(rec["id"], old)
            for j, (text, p, _) in enumerate(got):
                rep.added.append(variant_record(rec, n + j, text, p.name))
        if progress:
            progress(i + 1, len(canon))
    if model is not None or usage().calls:
        rep.usage = usage().summary()
    return rep


def paraphrase_bundle(bundle: Path, personas: list[Persona], k: int, *, seed: int = 0, model: Any = None,
                      progress: Callable[[int, int], None] | None = None) -> ParaphraseReport:
    """Paraphrase a bundle's suite in place: ``k`` variants per canonical question from ``personas``,
    merged into qa.jsonl (idempotently), the Paraphrases section of report.md, manifest hashes."""
    qa = Path(bundle) / QA
    records = read_records(qa)
    rep = paraphrase_records(records, personas, k, seed=seed, anchor=data_last_day(bundle), model=model,
                             synonyms=domain_synonyms(bundle), progress=progress)
    merged = merge_records(records, rep.added)
    atomic_write_text(qa, "".join(json.dumps(r) + "\n" for r in merged))
    upsert_section(Path(bundle) / REPORT, paraphrase_section(rep, merged), BEGIN, END)
    refresh_manifest(bundle, [QA, REPORT])
    rep.total_variants = sum(1 for r in merged if r.get("variant_of"))
    return rep


VARIANTS_PER_QUESTION = 2


def paraphraser(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """The build step: paraphrase the suite in the voices of the domain's typical personas."""
    ctx = runtime.context
    bundle = Path(state["out"])
    domain = json.loads((bundle / MANIFEST).read_text()).get("spec")
    chosen = personas_for(domain if isinstance(domain, str) else None, load_personas())[:4]
    rep = paraphrase_bundle(bundle, chosen, VARIANTS_PER_QUESTION, model=ctx.model, seed=ctx.seed)
    log = [decision("paraphraser", "paraphraser", f"{len(rep.added)} variant(s) from {', '.join(p.name for p in chosen)}",
                    f"{len(rep.rejected)} rejected by the judge; {rep.model}")]
    log += [decision("paraphraser", "judge", n) for n in rep.notes[:5]]
    stale = [s for s in state.get("stale", []) if s != "paraphrases"]
    return {"paraphrased": True, "stale": stale, "decisions": log}
