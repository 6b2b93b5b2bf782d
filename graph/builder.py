"""``build_graph``: the supervisor graph over the agents, and a module-level ``graph`` (compiled
without a checkpointer) for ``langgraph.json``.

The nodes are the supervisor and the steps of ``agents.steps.STEPS``; every step returns to the
supervisor, which routes with ``Command(goto=...)``; ``review`` pauses with ``interrupt()`` (a
checkpointer is needed to resume it, e.g. ``SqliteSaver``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.graph import START, StateGraph

from agents.context import BuildContext
from agents.state import BuildState
from agents.steps import STEPS
from agents.supervisor import supervisor

RECURSION_LIMIT = 80  # supervisor + specialist supersteps; the supervisor's own cap stops sooner


def build_graph(models: Any = None, *, checkpointer: Any = None):
    """Compile the build graph. ``models`` is the default chat model (None: offline) used when the
    run's ``BuildContext.model`` is not set."""
    g = StateGraph(BuildState, context_schema=BuildContext)

    def with_default_model(fn):
        def node(state, runtime):
            if models is not None and runtime.context.model is None:
                runtime = runtime.override(context=_with_model(runtime.context, models))
            return fn(state, runtime)
        node.__name__ = fn.__name__
        return node

    g.add_node("supervisor", with_default_model(supervisor))
    for step in STEPS:  # every step returns to the supervisor
        g.add_node(step.name, with_default_model(step.node))
        g.add_edge(step.name, "supervisor")
    g.add_edge(START, "supervisor")
    return g.compile(checkpointer=checkpointer)


def _with_model(ctx: BuildContext, model: Any) -> BuildContext:
    return replace(ctx, model=model)


graph = build_graph()
