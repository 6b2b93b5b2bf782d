"""Apply typed chat operations (``tools.chat.ops``) to a bundle: a preview first (what changes, what is
redone), then one recorded version (``undo`` takes all of a line's operations back together).

Re-runs only what a change invalidates and keeps the rest: an incident change regenerates the data and
its checks, keeps every question both executors still answer (with its paraphrases) and synthesizes the
incident questions again; a world change (count, horizon, cadence) or a harder mix re-synthesizes a suite
of the same size and extra families and voices it with the same personas, as many variants each; persona
and question operations touch qa.jsonl only; the seed is never changed.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.chat_ops import (
    Change,
    _days,
    _regenerate,
    _write_report,
    add_persona,
    drop_questions,
    more_questions,
    refresh_incidents,
    spec_text,
)
from agents.paraphraser import paraphrase_bundle
from knowledge.personas import load_personas
from tools.bundle.atomic import atomic_write_text
from tools.bundle.files import SPEC
from tools.bundle.history import recorded
from tools.chat import spec_edits
from tools.common.families import CORE_FAMILIES
from tools.describe.apply import persona_from_text
from tools.describe.refine import Refinement
from tools.paraphrase.personas import Persona, personas_for
from tools.queries.refresh import read_qa, write_qa
from tools.queries.suite import build_suite
from tools.spec.io import load_spec, spec_to_dict

INCIDENT_OPS = {"add_incident", "edit_incident", "move_incident", "remove_incident", "cascade_incident"}
WORLD_OPS = {"scale_entities", "set_horizon", "set_cadence"}


@dataclass
class Preview:
    """What applying operations would do, before anything changes."""

    sentences: list[str]
    spec_diff: list[str] = field(default_factory=list)
    redone: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = ["I will:", *[f"  - {s}" for s in self.sentences]]
        if self.redone:
            out.append("this redoes: " + "; ".join(self.redone))
        if self.spec_diff:
            out += ["spec.yaml changes:", *[f"  {x}" for x in self.spec_diff[:40]]]
            if len(self.spec_diff) > 40:
                out.append(f"  … {len(self.spec_diff) - 40} more line(s)")
        return [*out, "say 'ok' to apply, 'cancel' to drop it"]


def _edit_spec(spec: dict, op: Any) -> str:
    days = _days(spec)
    fn = {"add_incident": lambda: spec_edits.add_incident(spec, op, days),
          "edit_incident": lambda: spec_edits.edit_incident(spec, op),
          "move_incident": lambda: spec_edits.move_incident(spec, op),
          "remove_incident": lambda: spec_edits.remove_incident(spec, op),
          "cascade_incident": lambda: spec_edits.cascade_incident(spec, op, days),
          "edit_persona": lambda: spec_edits.edit_persona(spec, op),
          "remove_persona": lambda: spec_edits.remove_persona(spec, op),
          "scale_entities": lambda: spec_edits.scale_entities(spec, op),
          "set_horizon": lambda: spec_edits.set_horizon(spec, op),
          "set_cadence": lambda: spec_edits.set_cadence(spec, op)}.get(op.op)
    if fn is not None:
        return fn()
    if op.op == "make_harder":
        spec.setdefault("query_plan", {})["mix"] = dict(spec_edits.HARDER_MIX)
        return "shift the question mix toward stateful and incident questions (same number of questions)"
    if op.op == "add_persona":
        return f"add persona '{op.name or persona_from_text(op.description)['name']}' and a variant in its voice " \
               "of every question"
    if op.op == "add_questions":
        return f"add {op.count or 6} {op.family or op.template or ''} question(s)" + (
            f" about '{op.topic}'" if op.topic else "")
    if op.op == "drop_questions":
        return f"drop the {op.family or op.template or ''} questions" + (f" about '{op.topic}'" if op.topic else "")
    return f"show the {op.what}"


def preview(bundle: Path, ops: list) -> Preview:
    """The sentences, the spec diff and what would be redone; raises RefineError when an operation cannot
    be applied (nothing changes)."""
    spec = spec_to_dict(load_spec(Path(bundle) / SPEC))
    new = copy.deepcopy(spec)
    sentences = [_edit_spec(new, op) for op in ops]
    diff = [line.rstrip("\n") for line in difflib.unified_diff(
        spec_text(spec).splitlines(True), spec_text(new).splitlines(True), "spec.yaml", "spec.yaml (new)", n=1)][2:]
    kinds = {op.op for op in ops}
    redone = []
    if kinds & (INCIDENT_OPS | WORLD_OPS):
        redone.append("the data and its checks are regenerated (same seed)")
    if kinds & INCIDENT_OPS and not kinds & WORLD_OPS:
        redone.append("questions both executors still answer are kept with their paraphrases; incident questions "
                      "are synthesized again")
    if kinds & WORLD_OPS or "make_harder" in kinds:
        n = sum(1 for x in read_qa(Path(bundle)) if not x.get("variant_of"))
        redone.append(f"a new suite of the same size ({n} questions) voiced by the same personas")
    if kinds & {"add_persona", "edit_persona"}:
        redone.append("variants in the persona's voice")
    return Preview(sentences, diff, redone)


def _spec_personas(spec: dict) -> list[Persona]:
    out = []
    for p in spec.get("personas", []):
        made = persona_from_text(" ".join(x for x in (p.get("description", ""), p.get("style", "")) if x))
        out.append(Persona.model_validate({**made, "name": p["name"]}))
    return out


def _revoice(bundle: Path, before: list[dict], model: Any) -> str:
    """Voice the new suite as the old one was: the library personas it used, as many variants per question
    as before; every persona the user added, one variant of every question (as when it was added)."""
    spec = spec_to_dict(load_spec(bundle / SPEC))
    mine = _spec_personas(spec)
    own = {p.name for p in mine}
    per_q = Counter(x["variant_of"] for x in before if x.get("variant_of") and x.get("persona") not in own)
    used = [x.get("persona") for x in before if x.get("variant_of") and x.get("persona") not in own]
    library = {p.name: p for p in personas_for(spec.get("name"), load_personas())}
    said = []
    if per_q:
        k = Counter(per_q.values()).most_common(1)[0][0]
        personas = [library[n] for n in dict.fromkeys(used) if n in library]
        rep = paraphrase_bundle(bundle, personas, k, model=model)
        said.append(f"{len(rep.added)} variant(s), {k} per question, from {', '.join(p.name for p in personas)}")
    voiced = {x.get("persona") for x in before if x.get("variant_of")}
    for p in (p for p in mine if p.name in voiced):
        rep = paraphrase_bundle(bundle, [p], 1, model=model)
        said.append(f"{len(rep.added)} in the voice of {p.name}")
    return "paraphrases: " + ("; ".join(said) if said else "the suite had none, so the new questions got none")


def _new_suite(bundle: Path, spec: dict, what: str, model: Any) -> Change:
    before = read_qa(bundle)
    canon = [x for x in before if not x.get("variant_of")]
    extra = sorted({x["family"] for x in canon} - set(CORE_FAMILIES))
    _regenerate(bundle, spec)
    suite = build_suite(bundle, n=len(canon) or None, families=extra)
    voiced = _revoice(bundle, before, model)
    return Change(what, data_changed=True, added=[x["id"] for x in suite.records], removed=[x["id"] for x in canon],
                  details=[f"a new suite of {len(suite.records)} questions (as before: {len(canon)})", voiced])


def _persona_change(bundle: Path, spec: dict, what: str, name: str, model: Any) -> Change:
    atomic_write_text(bundle / SPEC, spec_text(spec))
    records = [x for x in read_qa(bundle) if x.get("persona") != name]
    write_qa(bundle, records)
    _write_report(bundle, records)
    persona = next((p for p in _spec_personas(spec) if p.name == name), None)
    if persona is None:
        return Change(what, removed=[])
    rep = paraphrase_bundle(bundle, [persona], 1, model=model)
    return Change(what, added=[x["id"] for x in rep.added])


def _apply_one(bundle: Path, op: Any, model: Any) -> Change:
    if op.op == "show":
        return show(bundle, op)
    if op.op == "add_persona":
        text = op.description + (f"; writes {op.style}" if op.style else "")
        return add_persona(bundle, Refinement(op="add_persona", topic=text, text=text), model)
    if op.op == "add_questions":
        r = Refinement(op="more_questions", kind=op.family, topic=op.topic or op.template)
        return more_questions(bundle, r, n=op.count or 6, model=model)
    if op.op == "drop_questions":
        return drop_questions(bundle, Refinement(op="drop_questions", topic=op.family or op.template or op.topic))
    spec = spec_to_dict(load_spec(bundle / SPEC))
    what = _edit_spec(spec, op)
    if op.op in INCIDENT_OPS:
        return refresh_incidents(bundle, spec, what, model)
    if op.op in WORLD_OPS or op.op == "make_harder":
        return _new_suite(bundle, spec, what, model)
    if op.op in ("edit_persona", "remove_persona"):
        return _persona_change(bundle, spec, what, op.persona, model)
    raise ValueError(f"unknown operation {op.op!r}")


def apply_ops(bundle: Path, ops: list, model: Any = None) -> Change:
    """Apply a line's operations as one version of the bundle (views record none)."""
    bundle = Path(bundle)
    changes: list[Change] = []
    with recorded(bundle, [op.model_dump(exclude_defaults=True) | {"op": op.op} for op in ops]) as rec:
        for op in ops:
            changes.append(_apply_one(bundle, op, model))
        rec.summary = "; ".join(c.summary for c in changes)
    first = changes[0] if len(changes) == 1 else Change(rec.summary, data_changed=any(c.data_changed for c in changes),
                                                        added=[x for c in changes for x in c.added],
                                                        removed=[x for c in changes for x in c.removed],
                                                        details=[d for c in changes for d in c.details])
    if rec.version is not None:
        first.details.append(f"(version {rec.version.n}; `undo` takes it back)")
    return first


def show(bundle: Path, op: Any) -> Change:
    """Questions with their answers (optionally by topic or family), incidents, personas, the spec, the history."""
    from agents.chat_ops import show_incidents
    from agents.chat_versions import history_change
    from tools.queries.refresh import about_topic

    if op.what == "incidents":
        return show_incidents(bundle)
    if op.what == "history":
        return history_change(bundle)
    if op.what == "spec":
        return Change("spec.yaml:", details=(bundle / SPEC).read_text().splitlines())
    if op.what == "personas":
        spec = spec_to_dict(load_spec(bundle / SPEC))
        used = Counter(x.get("persona") for x in read_qa(bundle) if x.get("variant_of"))
        lines = [f"{p['name']}: {p.get('description', '')} ({used.get(p['name'], 0)} variant(s))"
                 for p in spec.get("personas", [])]
        lines += [f"{n} (library persona): {c} variant(s)" for n, c in sorted(used.items())
                  if n not in {p["name"] for p in spec.get("personas", [])}]
        return Change(f"{len(lines)} persona(s)", details=lines)
    canon = [x for x in read_qa(bundle) if not x.get("variant_of")
             and (op.family is None or x["family"] == op.family) and (op.topic is None or about_topic(x, op.topic))]
    lines = [f"{x['id']} [{x['family']}/{x['template']}] {x['question']} → {x.get('answer_text', json.dumps(x['answer']))}"
             for x in canon]
    about = f" about '{op.topic}'" if op.topic else f" of family {op.family}" if op.family else ""
    return Change(f"{len(canon)} question(s){about}", details=lines)
