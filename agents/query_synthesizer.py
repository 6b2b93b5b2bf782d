"""Query-synthesizer agent: the question suite of the bundle (qa.jsonl), with the spec's plan."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from langgraph.runtime import Runtime

from agents.build_ops import synthesize_questions
from agents.context import BuildContext
from agents.state import BuildState, decision
from agents.structured import structured_call
from prompts.spec_writer import QUERY_FOCUS, FocusInput, QueryFocus
from tools.bundle.atomic import atomic_write_text
from tools.bundle.files import MANIFEST
from tools.queries.registry import EXTRA_FAMILIES, load_templates


def query_synthesizer(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Synthesize questions; answers come from the pandas and SQL executors, which must agree."""
    ctx = runtime.context
    used = notes_used(ctx.memory) if ctx.use_notes else None
    prefer = list(used["templates"]) if used else []
    if ctx.model is not None:
        prefer = prefer + [t for t in _llm_focus(ctx.model, state, prefer) if t not in prefer]
    extra = preferred_families(prefer)
    res = synthesize_questions(state["out"], n=ctx.n_questions, seed=ctx.seed, prefer=prefer, families=extra)
    fams = ", ".join(f"{f} {n}" for f, n in res["by_family"].items())
    why = f"short of the plan: {res['shortfall']}" if res["shortfall"] else "the plan's quotas are met"
    log = [decision("query_synthesizer", "query_synthesizer", f"{res['questions']} questions ({fams})", why)]
    if used is not None:
        _record_notes(Path(state["out"]), used)
        log.append(decision("query_synthesizer", "query_synthesizer",
                            f"experience notes used (--use-notes): {len(used['ids'])} note(s), digest "
                            f"{used['digest'][:12]}", f"ids: {', '.join(used['ids']) or 'none'}; recorded in "
                            "manifest.json (notes_used)"))
    if prefer:
        why = ("experience notes say agents fail them" if used and used["templates"]
               else "the model says this domain's users ask them")
        log.append(decision("query_synthesizer", "query_synthesizer", f"templates favoured: {', '.join(prefer)}", why))
    if res["disagreements"]:
        log.append(decision("query_synthesizer", "query_synthesizer",
                            f"{res['disagreements']} candidate(s) dropped: executors disagreed", "listed in report.md"))
    stale = [s for s in state.get("stale", []) if s != "questions"]
    return {"questions": res["questions"], "shortfall": dict(res["shortfall"]), "paraphrased": False, "stale": stale,
            "decisions": log}


def preferred_families(prefer: list[str]) -> list[str]:
    """The extra families (shape, detection, claim, ...) of favoured templates: favouring a template
    of a family the plan does not ask for adds that family (forecast excepted: it needs held-back
    data, which only --holdout or the plan's mix asks for)."""
    templates = load_templates()
    fams = [templates[t].family for t in prefer if t in templates]
    return [f for f in EXTRA_FAMILIES if f in fams and f != "forecast"]


def failing_templates(memory) -> list[str]:
    """Template names that agent-failure experience notes mention, most-noted first."""
    return notes_used(memory)["templates"] if memory is not None else []


def notes_used(memory) -> dict:
    """What the agent-failure notes in ``memory`` make a build favour: ``{templates, ids, digest}``:
    the templates most-noted first, the ids of the notes that named one, and a sha256 over those
    notes (id, text, count), so the same notes are known to give the same suite."""
    names = sorted(load_templates())
    counts: dict[str, int] = {}
    used = []
    for note in (memory.notes(kind="agent_failure") if memory is not None else []):
        named = [n for n in names if n in note.text]
        for name in named:
            counts[name] = counts.get(name, 0) + note.count
        if named:
            used.append({"id": note.id, "text": note.text, "count": note.count})
    used.sort(key=lambda n: n["id"])
    digest = hashlib.sha256(json.dumps(used, sort_keys=True).encode()).hexdigest()
    return {"templates": sorted(counts, key=lambda n: (-counts[n], n)), "ids": [n["id"] for n in used],
            "digest": digest}


def _record_notes(out: Path, used: dict) -> None:
    """``notes_used`` in the bundle's manifest.json (ids, digest, templates favoured)."""
    path = out / MANIFEST
    if path.is_file():
        doc = json.loads(path.read_text())
        doc["notes_used"] = {"ids": used["ids"], "digest": used["digest"], "templates": used["templates"]}
        atomic_write_text(path, json.dumps(doc, indent=2) + "\n")


def _llm_focus(model, state: BuildState, noted: list[str]) -> list[str]:
    """Templates the LLM says this domain's users ask most (names checked against the catalog)."""
    names = sorted(load_templates())

    def check(f: QueryFocus) -> list[str]:
        bad = [t for t in f.prefer if t not in names]
        return [f"unknown template(s) {', '.join(bad)}; choose from the list"] if bad else []

    focus = structured_call(model, QUERY_FOCUS.render(FocusInput(description=state.get("request", ""), templates=names,
                                                                 notes=noted)),
                            QueryFocus, purpose="query_synthesizer", check=check)
    return list(focus.prefer) if focus is not None else []
