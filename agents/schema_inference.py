"""Schema-inference agent: the user's description (and edits) → a ``DomainDraft``.

Offline: the rules in ``tools.describe`` (through ``agents.build_ops``). With an LLM: a structured
``DomainDraft`` from the model, validated by pydantic; invalid or failed output falls back to the
rules and the decision log says so. A built-in pack needs no draft.
"""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from agents.build_ops import edit_draft, infer_spec
from agents.context import BuildContext
from agents.state import BuildState, decision
from agents.structured import structured_call
from knowledge.catalog import load_catalog
from prompts.schema_inference import SCHEMA_INFERENCE
from tools.describe.draft import DomainDraft
from tools.describe.errors import DescriptionError
from tools.describe.extract import snake
from tools.describe.llm_check import catalog_context, draft_problems, merge_drafts
from tools.describe.reading_review import apply_review, review_items, review_problems
from tools.describe.understand import understand
from tools.patterns.registry import all_kinds


def _llm_draft(model, request: str, offline, notes: list[str]):
    """The model's draft, checked against the catalog (problems are sent back once), or None (the
    notes say why): then the offline reading stands alone."""
    catalog = load_catalog()
    inp = {"description": request, "catalog": catalog_context(offline, catalog),
           "not_understood": list(offline.not_understood),
           "reading": [item.line() for item in review_items(offline, catalog)]}
    return structured_call(model, SCHEMA_INFERENCE.render(inp), DomainDraft, purpose="schema_inference", notes=notes,
                           retries=1, check=lambda d: draft_problems(d, offline, catalog)
                           + review_problems(d, offline, catalog))


def schema_inference(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Read the request into a draft (or note that a pack is used)."""
    ctx = runtime.context
    if state.get("pack"):
        return {"draft": None, "decisions": [decision("schema_inference", "schema_inference",
                                                      f"start from built-in pack '{state['pack']}'", "--pack given")]}
    log = []
    if state.get("samples") or state.get("ddl"):
        name = _name_from(state.get("request") or "")
        res = infer_spec(state.get("samples", []), state.get("ddl"), name=name, seed=ctx.seed)
        log.append(decision("schema_inference", "schema_inference", "spec fitted from "
                            + ", ".join(Path(f).name for f in [*state.get("samples", []), *filter(None, [state.get("ddl")])]),
                            "; ".join(res["notes"] + res["guesses"])[:500] or "tools.infer"))
        return {"draft": {"inferred": True}, "inferred_yaml": res["spec_yaml"], "decisions": log}
    offline = read_description(state["request"], ctx.memory)  # a description with nothing to model stops here
    draft = offline.model_dump()
    log += draft_decisions(draft)
    if ctx.model is not None:
        notes: list[str] = []
        llm = _llm_draft(ctx.model, state["request"], offline, notes)
        if llm is None:
            log.append(decision("schema_inference", "schema_inference", "the offline reading stands",
                                "LLM draft unusable: " + ("; ".join(notes) or "no answer")))
        else:
            merged, taken = merge_drafts(offline, llm, load_catalog())
            merged, fixed, refused = apply_review(merged, llm.corrections, load_catalog())
            draft = merged.model_dump()
            log.append(decision("schema_inference", "schema_inference", "LLM draft merged into the offline reading: "
                                + ("; ".join(taken) or "nothing new"), "validated against the catalog; the LLM "
                                "adds or resolves items"))
            if fixed or refused:
                log.append(decision("schema_inference", "schema_inference", "LLM review of the offline reading: "
                                    + ("; ".join(fixed) or "no correction taken"),
                                    ("refused: " + "; ".join(refused)) if refused else
                                    "each correction within the catalog's and the text's bounds"))
    for edit in state.get("edits", []):
        res = edit_draft(draft, edit)
        draft = res["draft"]
        log.append(decision("schema_inference", "schema_inference", f"edit '{edit}'",
                            "; ".join(res["changes"]) or "changed nothing the rules understand"))
    if ctx.memory is not None:
        draft, found = _retrieve(ctx.memory, state["request"], draft)
        log.append(decision("schema_inference", "schema_inference", f"retrieved from memory: {found}",
                            "nearest pack and the incident patterns that fit the description"))
    return {"draft": draft, "decisions": log}


def _name_from(request: str) -> str:
    """A spec name from the words beside sample files or DDL ("inferred" when they name nothing)."""
    if not request.strip():
        return "inferred"
    try:
        return read_description(request).name
    except DescriptionError:
        return snake(request)[:40] or "inferred"


def catalog_scorer(memory):
    """The memory's embedding search over the domain catalog, as the matcher's semantic scorer
    (None without a memory: matching is then lexical only)."""
    if memory is None:
        return None

    def score(phrase: str, part: str) -> list[tuple[str, float]]:
        try:
            hits = memory.search(phrase, k=3, filters={"kind": "catalog", "id_prefix": f"catalog:{part}:"})
        except Exception:  # memory is an aid, never a reason to fail a build
            return []
        return [(h.doc.id.split(":", 2)[2], h.score) for h in hits]
    return score


def read_description(text: str, memory=None):
    """The offline draft of a description: rules + the domain catalog (+ the memory's embeddings)."""
    return understand(text, load_catalog(), catalog_scorer(memory))


def draft_decisions(draft: dict) -> list[dict]:
    """The decision-log lines of a draft: every catalog match with its score, what was not understood."""
    ev = draft["evidence"]
    e = draft["entity"]
    log = [decision("schema_inference", "schema_inference", f"entity '{e['name']}' ({e['count'] or 'count not stated'}, "
                    f"{e.get('kind', 'periodic')})", f"from: {ev.get('entity', '')}")]
    for key, words in ev.items():
        if " " in key and not key.startswith("incident "):
            log.append(decision("schema_inference", "schema_inference", f"{key}: {words}", "catalog match"
                                if "catalog" in words else "read from the description"))
    for part in ("measurements", "states", "cadence", "horizon"):
        if ev.get(part, "").startswith("default"):
            log.append(decision("schema_inference", "schema_inference", f"{part}: not stated",
                                "default: the spec writer picks one"))
    for item in draft.get("not_understood", []):
        log.append(decision("schema_inference", "schema_inference", f"not understood: {item}",
                            "the text names it but the catalog has no entry; see report.md"))
    return log


# pattern kinds the spec writer can place on a single entity type's measurements (from the kinds' registry)
PLACEABLE = tuple(k.name for k in all_kinds() if k.placeable)


def _retrieve(memory, text: str, draft: dict) -> tuple[dict, str]:
    """The draft with the nearest pack (when the rules found none) and, when the text asks for no
    incident kind, the best-fitting placeable pattern kind; and what was found, in words."""
    try:
        packs = memory.search(text, k=3, filters={"kind": "pack"})
        patterns = memory.search(text, k=4, filters={"kind": "pattern"})
    except Exception as exc:  # memory is an aid, never a reason to fail a build
        return draft, f"nothing ({type(exc).__name__}: {str(exc)[:120]})"
    pack = next((h.doc.domains[0] for h in packs if h.doc.domains), None)
    kinds = [h.doc.id.split(":", 1)[-1] for h in patterns]
    draft = dict(draft)
    if draft.get("nearest_pack") is None and pack:
        draft["nearest_pack"] = pack
    fit = next((k for k in kinds if k in PLACEABLE), None)
    if fit and not draft.get("incident_hints"):
        draft["incident_hints"] = [fit]
        draft["evidence"] = {**draft.get("evidence", {}), f"incident {fit}": "retrieved pattern document"}
    return draft, f"pack {pack or '-'}; patterns {', '.join(kinds) or '-'}"
