"""Schema-inference agent: the user's description (and edits) → a ``DomainDraft``.

Offline: the rules in ``tools.describe`` (through ``agents.lc_tools``). With an LLM: a structured
``DomainDraft`` from the model, validated by pydantic; invalid or failed output falls back to the
rules and the decision log says so. A built-in pack needs no draft.
"""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime

from agents.lc_tools import describe_domain, edit_draft, infer_spec
from graph.context import BuildContext
from graph.state import BuildState, decision
from prompts.schema_inference import SCHEMA_INFERENCE


def _llm_draft(model, request: str, notes: list[str]) -> dict | None:
    """The model's draft as JSON, or None (the notes say why) so the rules take over."""
    from agents.models import structured_call
    from tools.describe.draft import DomainDraft

    draft = structured_call(model, SCHEMA_INFERENCE.render({"description": request}), DomainDraft,
                            purpose="schema_inference", notes=notes)
    return None if draft is None else draft.model_dump()


def schema_inference(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Read the request into a draft (or note that a pack is used)."""
    ctx = runtime.context
    if state.get("pack"):
        return {"draft": None, "decisions": [decision("schema_inference", "schema_inference",
                                                      f"start from built-in pack '{state['pack']}'", "--pack given")]}
    log = []
    if state.get("samples") or state.get("ddl"):
        name = describe_domain.invoke({"description": state["request"]})["name"] if state.get("request") else "inferred"
        res = infer_spec.invoke({"files": state.get("samples", []), "ddl": state.get("ddl"), "name": name,
                                 "seed": ctx.seed})
        log.append(decision("schema_inference", "schema_inference", "spec fitted from "
                            + ", ".join(Path(f).name for f in [*state.get("samples", []), *filter(None, [state.get("ddl")])]),
                            "; ".join(res["notes"] + res["guesses"])[:500] or "tools.infer"))
        return {"draft": {"inferred": True}, "inferred_yaml": res["spec_yaml"], "decisions": log}
    draft = None
    if ctx.model is not None:
        notes: list[str] = []
        draft = _llm_draft(ctx.model, state["request"], notes)
        log.append(decision("schema_inference", "schema_inference",
                            "draft from the LLM" if draft else "draft from rules (LLM output unusable)", "; ".join(notes)))
    if draft is None:
        draft = describe_domain.invoke({"description": state["request"]})
        ev = draft["evidence"]
        log.append(decision("schema_inference", "schema_inference",
                            f"entity '{draft['entity']['name']}' ({draft['entity']['count'] or 'count not stated'})",
                            f"from: {ev.get('entity', '')}"))
        for part in ("measurements", "states", "cadence", "horizon"):
            words = ev.get(part, "")
            log.append(decision("schema_inference", "schema_inference", f"{part}: not stated", "the spec writer "
                                "picks a default") if words.startswith("default") else
                       decision("schema_inference", "schema_inference", f"{part}: '{words}'", "read from the description"))
    for edit in state.get("edits", []):
        res = edit_draft.invoke({"draft": draft, "instruction": edit})
        draft = res["draft"]
        log.append(decision("schema_inference", "schema_inference", f"edit '{edit}'",
                            "; ".join(res["changes"]) or "changed nothing the rules understand"))
    if ctx.memory is not None and draft.get("nearest_pack") is None:
        hits = _nearest_pack(ctx.memory, state["request"])
        if hits:
            draft["nearest_pack"] = hits
            log.append(decision("schema_inference", "schema_inference", f"nearest pack '{hits}'", "retrieved from memory"))
    return {"draft": draft, "decisions": log}


def _nearest_pack(memory, text: str) -> str | None:
    """The pack of the best memory hit whose document is a pack chunk, if any."""
    try:
        hits = memory.search(text, k=5)
    except Exception:  # memory is an aid, never a reason to fail a build
        return None
    for h in hits:
        meta = getattr(getattr(h, "doc", None), "meta", None) or getattr(h, "metadata", None) or {}
        if isinstance(meta, dict) and meta.get("pack"):
            return str(meta["pack"])
    return None
