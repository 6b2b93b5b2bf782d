"""Supervisor: decides the next step from the state (what exists, what is stale, what the user
asked) and routes there with ``Command(goto=...)``.

Offline, a deterministic planner decides. With an LLM, the model proposes a structured ``Route``
and guards keep it honest: a step whose prerequisites are missing, or an unusable answer, is
replaced by the planner's choice (logged). An iteration cap stops a build that never finishes.
Every decision goes to the decision log.
"""

from __future__ import annotations

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command

from graph.context import BuildContext
from graph.state import BuildState, decision
from prompts.supervisor import STEPS, SUPERVISOR, BuildStatus, Route

PREREQUISITES = {
    "schema_inference": lambda s: True,
    "spec_writer": lambda s: s.get("draft") is not None or bool(s.get("pack")),
    "review": lambda s: bool(s.get("spec_yaml")),
    "pattern_injector": lambda s: bool(s.get("spec_yaml")) and s.get("review") == "approved",
    "query_synthesizer": lambda s: bool(s.get("bundle_ready")),
    "paraphraser": lambda s: bool(s.get("questions")),
    "finish": lambda s: plan(s)[0] == "finish",  # an LLM cannot end a build early
}


def plan(state: BuildState) -> tuple[str, str]:
    """The deterministic next step and why."""
    stale = set(state.get("stale", []))
    if state.get("draft") is None and not state.get("pack"):
        return "schema_inference", "no draft of the domain yet"
    if not state.get("spec_yaml"):
        return "spec_writer", "no spec yet"
    if state.get("review") != "approved":
        return "review", "the spec has not been approved"
    if not state.get("bundle_ready") or "data" in stale:
        return "pattern_injector", "no data with incidents yet" if not state.get("bundle_ready") else "data is stale"
    if state.get("world_only"):
        return "finish", "only the world was asked for (--world-only): data, incidents and checks are up to date"
    if not state.get("questions") or "questions" in stale:
        return "query_synthesizer", "no question suite yet" if not state.get("questions") else "questions are stale"
    if not state.get("paraphrased") or "paraphrases" in stale:
        return "paraphraser", "the questions have no persona variants yet"
    return "finish", "data, checks, questions and paraphrases are up to date"


def _llm_route(model, state: BuildState, notes: list[str]) -> Route | None:
    from agents.models import structured_call

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
        if route is not None and route.next in STEPS and PREREQUISITES[route.next](state):
            step, why = route.next, f"LLM: {route.reason}"
        else:
            why += " (planner; LLM route " + ("unusable: " + "; ".join(notes) if route is None else
                                             f"'{route.next}' lacks its prerequisites") + ")"
    entry = decision("supervisor", "supervisor", f"→ {step}", why)
    if ctx.on_step is not None:
        ctx.on_step(entry)
    return Command(goto=step, update={"iterations": n, "decisions": [entry]})
