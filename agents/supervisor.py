"""Supervisor: decides the next step from the state (what exists, what is stale, what the user
asked) and routes there with ``Command(goto=...)``.

Offline, a deterministic planner decides. With an LLM, the model proposes a structured ``Route``
and guards keep it honest: a step whose prerequisites are missing, or an unusable answer, is
replaced by the planner's choice (logged). An iteration cap stops a build that never finishes.
Every decision goes to the decision log. The steps, their prerequisites and the planner's order
are ``agents.steps``.
"""

from __future__ import annotations

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from agents.context import BuildContext
from agents.state import BuildState, decision
from agents.steps import BY_NAME, STEPS, plan
from agents.structured import structured_call
from prompts.supervisor import BuildStatus, RouteBase, supervisor_prompt

SUPERVISOR = supervisor_prompt([(s.name, s.does) for s in STEPS])
Route = SUPERVISOR.output_model


def _llm_route(model, state: BuildState, notes: list[str]) -> RouteBase | None:
    status = BuildStatus(request=state.get("request", "")[:500], has_draft=state.get("draft") is not None,
                         has_spec=bool(state.get("spec_yaml")), approved=state.get("review") == "approved",
                         bundle_ready=bool(state.get("bundle_ready")), questions=state.get("questions", 0),
                         paraphrased=bool(state.get("paraphrased")), stale=state.get("stale", []))
    return structured_call(model, SUPERVISOR.render(status), Route, purpose="supervisor", notes=notes)


def supervisor(state: BuildState, runtime: Runtime[BuildContext]) -> Command:
    """Route to the next agent, or to ``finish``/END."""
    ctx = runtime.context
    n = state.get("iterations", 0) + 1
    if state.get("error") or state.get("finished"):
        return Command(goto=END, update={"iterations": n})
    if n > ctx.max_iterations:
        msg = f"stopped after {ctx.max_iterations} routing steps without finishing (iteration cap)"
        return Command(goto="finish", update={"iterations": n, "error": msg,
                                              "decisions": [decision("supervisor", "supervisor", "stop", msg)]})
    step, why = plan(state)
    if ctx.model is not None:
        notes: list[str] = []
        route = _llm_route(ctx.model, state, notes)
        if route is not None and route.next in BY_NAME and BY_NAME[route.next].ready(state):
            step, why = route.next, f"LLM: {route.reason}"
        else:
            why += " (planner; LLM route " + ("unusable: " + "; ".join(notes) if route is None else
                                             f"'{route.next}' lacks its prerequisites") + ")"
    entry = decision("supervisor", "supervisor", f"→ {step}", why)
    if ctx.on_step is not None:
        ctx.on_step(entry)
    return Command(goto=step, update={"iterations": n, "decisions": [entry]})
