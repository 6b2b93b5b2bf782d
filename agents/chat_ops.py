"""What one chat refinement does to a bundle, re-running only what it invalidates:

- a persona: spec.yaml gains it and every canonical question gets a variant in its voice; data
  files are untouched;
- an incident (add, remove, cascade): the data and its checks are regenerated; questions whose
  answers both executors still confirm are kept (with their paraphrases), incident questions are
  synthesized again; a change whose incident check fails is rolled back;
- count / cadence / horizon: everything is rebuilt;
- questions (drop, more): qa.jsonl only.

Each returns a ``Change``: what was done and what changed (data files, questions, paraphrases).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agents.paraphraser import paraphrase_bundle
from knowledge.personas import load_personas
from tools.bundle.atomic import atomic_write_text
from tools.bundle.files import (
    DATA_DB,
    DATA_DIR,
    FIGURES_DIR,
    HOLDOUT_DIR,
    HOLDOUT_DOC,
    INCIDENTS,
    MANIFEST,
    QA,
    REPORT,
    SPEC,
)
from tools.bundle.manifest import refresh_manifest
from tools.checks import check_bundle
from tools.common.durations import parse_duration
from tools.common.families import CORE_FAMILIES
from tools.describe.apply import (
    DATA,
    RefineError,
    persona_from_text,
)
from tools.describe.refine import Refinement
from tools.generate import generate_bundle
from tools.paraphrase.personas import Persona, personas_for
from tools.queries.refresh import about_topic, add_questions, read_qa, refresh_answers, write_qa
from tools.queries.report import write_questions_report
from tools.queries.suite import Suite
from tools.spec.io import dump_spec, load_spec, parse_spec_text, spec_to_dict
from tools.spec.model import Spec


@dataclass
class Change:
    """The outcome of one turn, for the user and the session log."""

    summary: str
    data_changed: bool = False
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [self.summary]
        if self.data_changed or self.added or self.removed:
            out.append(f"data: {'regenerated' if self.data_changed else 'unchanged'}; questions: +{len(self.added)} "
                       f"-{len(self.removed)}")
        return out + self.details


def _spec(bundle: Path) -> dict[str, Any]:
    return spec_to_dict(load_spec(bundle / SPEC))


def spec_text(spec: dict[str, Any]) -> str:
    """The dict form back to validated spec YAML (a change that breaks the spec is a RefineError)."""
    try:
        return dump_spec(Spec.model_validate(spec))
    except ValidationError as exc:
        raise RefineError(f"that change would make the spec invalid: {exc.errors()[0]['msg']}") from None


def _days(spec: dict) -> int:
    return max(1, int(parse_duration(spec.get("horizon", "7d")) // 86400))


def data_hashes(bundle: Path) -> dict[str, str]:
    """sha256 of the data files (Parquet tables and the DuckDB file) from manifest.json."""
    files = json.loads((bundle / MANIFEST).read_text()).get("files", {})
    return {k: v for k, v in files.items() if k.startswith(f"{DATA_DIR}/") or k == DATA_DB}


def _write_report(bundle: Path, records: list[dict]) -> None:
    canon = [r for r in records if not r.get("variant_of")]
    fams: dict[str, int] = {}
    for r in canon:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    write_questions_report(bundle, Suite(records=canon, quotas=fams), _spec(bundle).get("name", ""))
    refresh_manifest(bundle, [QA, REPORT, FIGURES_DIR, SPEC])


def _regenerate(bundle: Path, spec: dict, seed: int | None = None) -> list[str]:
    """Regenerate the bundle from ``spec`` (keeping nothing but what is rebuilt); failing incident
    checks (names) are returned and nothing is replaced when there are any."""
    parsed = parse_spec_text(spec_text(spec), "spec.yaml")
    failed: list[str] = []

    def finalize(tmp: Path) -> None:
        found = check_bundle(tmp)
        failed.extend(f"{c.name}:{c.incident}" for c in found if not c.passed and c.incident)
        if failed:
            raise RefineError("after this change the data would not show every incident (failed checks: "
                              + ", ".join(failed) + "); nothing was changed; try a longer window, another "
                              "measurement or a larger world")

    generate_bundle(parsed, bundle, seed=seed, force=True, finalize=finalize)
    return failed


def refresh_incidents(bundle: Path, spec: dict, what: str, model: Any = None) -> Change:
    """After ``spec``'s incidents changed: regenerate data + checks, keep the questions both executors still
    answer (with their paraphrases), synthesize incident questions again and paraphrase the new ones."""
    before = read_qa(bundle)
    old_hashes = data_hashes(bundle)
    _regenerate(bundle, spec)  # raises RefineError (bundle untouched) when the incident is not in the data
    kept, updated, lost = refresh_answers(bundle, [x for x in before if x["family"] != "incident"])
    incident_old = [x for x in before if x["family"] == "incident" and not x.get("variant_of")]
    # the suite keeps its size: as many incident questions as before (6 when the suite had none)
    redo = {"incident": (len(incident_old) or 6) if spec.get("incidents") else 0}
    for x in lost:  # questions that cannot be asked of the new data are replaced by ones of their family
        redo[x["family"]] = redo.get(x["family"], 0) + 1
    redo = {f: k for f, k in redo.items() if k}
    current = kept + updated
    new = add_questions(bundle, current, redo, retired=before)[0] if redo else []
    records = sorted(current, key=_order) + new
    write_qa(bundle, records)
    _write_report(bundle, records)
    gone = [x["id"] for x in incident_old + lost]
    return Change(what, data_changed=data_hashes(bundle) != old_hashes, added=[x["id"] for x in new], removed=gone,
                  details=[f"non-incident questions: {len([x for x in kept if not x.get('variant_of')])} unchanged, "
                           f"{len(updated)} re-answered on the new data (both executors, every filter), "
                           f"{len(lost)} replaced; incident questions synthesized again",
                           paraphrase_new(bundle, before, [x["id"] for x in new], model)])


def paraphrase_new(bundle: Path, before: list[dict], new_ids: list[str], model: Any = None) -> str:
    """Give new canonical questions as many paraphrases as the suite's questions had (the same
    personas), and say what was done; a suite without paraphrases gets none."""
    if not new_ids:
        return "no new questions to paraphrase"
    per_q: dict[str, int] = {}
    for x in before:
        if x.get("variant_of"):
            per_q[x["variant_of"]] = per_q.get(x["variant_of"], 0) + 1
    if not per_q:
        return "the suite had no paraphrases, so the new questions got none (`chronoeval paraphrase` adds them)"
    k = Counter(per_q.values()).most_common(1)[0][0]
    used = {x.get("persona") for x in before if x.get("variant_of")}
    domain = json.loads((bundle / MANIFEST).read_text()).get("spec")
    ranked = personas_for(domain if isinstance(domain, str) else None, load_personas())
    # the suite's personas first; the others stand in where those cannot voice a question
    personas = [p for p in ranked if p.name in used] + [p for p in ranked if p.name not in used]
    rep = paraphrase_bundle(bundle, personas, k, model=model)
    got: dict[str, int] = {}
    for x in rep.added:
        got[x["variant_of"]] = got.get(x["variant_of"], 0) + 1
    short = [q for q in new_ids if got.get(q, 0) < k]
    said = f"paraphrases: the {len(new_ids)} new question(s) got {sum(got.get(q, 0) for q in new_ids)} variant(s), " \
           f"{k} each as the suite's questions have"
    if short:
        said += (f"; {len(short)} got fewer ({', '.join(f'{q}: {got.get(q, 0)}' for q in short[:6])}"
                 f"{', …' if len(short) > 6 else ''}): no other candidate kept every number, date and name of the "
                 "question far enough from the others (report.md lists the rejected ones)")
    return said


def _order(record: dict) -> tuple:
    """Canonical questions in id order, each followed by its paraphrases."""
    return (record.get("variant_of") or record["id"], record["id"])


def add_persona(bundle: Path, r: Refinement, model: Any = None) -> Change:
    """Add a persona to spec.yaml and a variant in its voice to every canonical question."""
    if not r.topic:
        raise RefineError("say who the persona is, e.g. 'add a persona: a NOC engineer who writes terse questions'")
    persona = Persona.model_validate(persona_from_text(r.topic))
    spec = _spec(bundle)
    spec["personas"] = [p for p in spec.get("personas", []) if p.get("name") != persona.name] + [
        {"name": persona.name, "description": persona.description, "style": r.topic}]
    atomic_write_text(bundle / SPEC, spec_text(spec))
    rep = paraphrase_bundle(bundle, [persona], 1, model=model)
    records = read_qa(bundle)
    _write_report(bundle, records)
    canon = [x["id"] for x in records if not x.get("variant_of")]
    voiced = {x["variant_of"] for x in records if x.get("persona") == persona.name}
    missing = [q for q in canon if q not in voiced]
    details = []
    if missing:
        details.append(f"{len(missing)} of the {len(canon)} questions got no variant in this voice "
                       f"({', '.join(missing[:6])}{', …' if len(missing) > 6 else ''}): every candidate changed a "
                       "number, date or name of the question, or was too close to a variant it already has")
    if rep.rejected:
        details.append(f"rejected {len(rep.rejected)} candidate variant(s) (see report.md)")
    return Change(f"added persona '{persona.name}' ({persona.style.replace('_', ' ')}); "
                  f"{len(rep.added)} variant(s) in its voice for {len(canon)} questions",
                  added=[x["id"] for x in rep.added], details=details)


def drop_questions(bundle: Path, r: Refinement) -> Change:
    """Remove the questions about a topic (and their paraphrases)."""
    if not r.topic:
        raise RefineError("say which questions, e.g. 'drop the incident questions' or 'drop questions about battery'")
    records = read_qa(bundle)
    gone = {x["id"] for x in records if not x.get("variant_of") and about_topic(x, r.topic)}
    if not gone:
        raise RefineError(f"no question is about '{r.topic}'; `show the questions` lists families and templates")
    keep = [x for x in records if x["id"] not in gone and x.get("variant_of") not in gone]
    write_qa(bundle, keep)
    _write_report(bundle, keep)
    return Change(f"dropped {len(gone)} question(s) about '{r.topic}'", removed=sorted(gone))


def more_questions(bundle: Path, r: Refinement, n: int = 6, model: Any = None) -> Change:
    """Add questions of a family (all families when none is named), about a topic when given."""
    records = read_qa(bundle)
    fams = [r.kind] if r.kind else list(CORE_FAMILIES)
    if r.kind == "forecast" and not (bundle / HOLDOUT_DIR / HOLDOUT_DOC).is_file():
        raise RefineError("forecast questions are checked on held-back data and this bundle holds none back; run "
                          f"`chronoeval queries {bundle} --holdout 1d --family forecast` first")
    new, _ = add_questions(bundle, records, {f: n for f in fams}, r.topic)
    if not new:
        raise RefineError(f"no new {r.kind or ''} question about '{r.topic}' passes the filters; try another topic")
    write_qa(bundle, records + new)
    _write_report(bundle, records + new)
    return Change(f"added {len(new)} {r.kind or ''} question(s)" + (f" about '{r.topic}'" if r.topic else ""),
                  added=[x["id"] for x in new], details=[paraphrase_new(bundle, records, [x["id"] for x in new], model)])


def show_incidents(bundle: Path) -> Change:
    """The incidents of the bundle, as incidents.json records them."""
    incs = json.loads((bundle / INCIDENTS).read_text()).get("incidents", [])
    lines = [f"{i['id']}: {i['kind']} on {len(i.get('entities', []))} {i.get('entity_type', '')}(s) "
             f"({', '.join(map(str, i.get('entities', [])[:4]))}{', …' if len(i.get('entities', [])) > 4 else ''}) "
             f"from {i.get('start', '')} to {i.get('end', '')}" + (f", {', '.join(i['keys'])}" if i.get("keys") else "")
             for i in incs]
    return Change(f"{len(incs)} incident(s)", details=lines)


__all__ = ["DATA", "Change", "refresh_incidents"]
