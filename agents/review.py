"""The human review point: the spec draft is shown (entities, states, measurements, incidents,
query plan) and the user answers "ok" or gives edit instructions (``interrupt()``)."""

from __future__ import annotations

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agents.context import BuildContext
from agents.state import BuildState, decision
from tools.spec import parse_spec_text

APPROVALS = {"", "ok", "okay", "yes", "y", "approve", "approved", "lgtm", "go", "continue", "looks good"}


def spec_summary(spec_yaml: str) -> dict:
    """A JSON summary of a spec for review: what a domain expert checks before data is generated."""
    spec = parse_spec_text(spec_yaml, "spec.yaml")
    ents = []
    for e in spec.entities:
        ents.append({
            "name": e.name, "count": e.count, "table": e.table_names,
            "cadence": e.emission.cadence if e.emission else None,
            "states": list(e.states.states) if e.states else [],
            "measurements": [f"{m.name} ({m.unit})" if m.unit else m.name for m in e.measurements if not m.hidden],
            "attributes": [a.name for a in e.attributes if a.emit],
        })
    return {"name": spec.name, "horizon": spec.horizon, "start": spec.start, "entities": ents,
            "incidents": [f"{i.kind} '{i.id}': {i.description.strip()}" for i in spec.incidents],
            "query_plan": {"n_questions": spec.query_plan.n_questions, "mix": spec.query_plan.mix}}


def review(state: BuildState, runtime: Runtime[BuildContext]) -> dict:
    """Approve (``--yes`` or an "ok" answer) or record the edit instructions and send the build back."""
    if runtime.context.auto_approve:
        return {"review": "approved", "decisions": [decision("review", "user", "approved", "--yes")]}
    summary = {**spec_summary(state["spec_yaml"]), "not_understood": state.get("not_understood", [])}
    answer = interrupt({"kind": "spec_review", "summary": summary,
                        "prompt": "Answer 'ok' to build, or describe a change (e.g. '80 turbines every 5 minutes')."})
    text = str(answer or "").strip()
    if text.lower().rstrip(".!") in APPROVALS:
        return {"review": "approved", "decisions": [decision("review", "user", "approved", text or "empty answer")]}
    return {"review": None, "edits": [*state.get("edits", []), text], "draft": None, "spec_yaml": None,
            "decisions": [decision("review", "user", f"edit: {text}", "the spec is redrafted with the edit")]}
