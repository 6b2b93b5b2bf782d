"""``build_graph``: the supervisor graph over the agents, and a module-level ``graph`` (compiled
without a checkpointer) for ``langgraph.json``.

Every specialist returns to the supervisor, which routes with ``Command(goto=...)``; ``review``
pauses with ``interrupt()`` (a checkpointer is needed to resume it, e.g. ``SqliteSaver``).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import START, StateGraph

from agents.pattern_injector import pattern_injector
from agents.query_synthesizer import query_synthesizer
from agents.schema_inference import schema_inference
from agents.spec_writer import spec_writer
from agents.supervisor import supervisor
from graph.context import BuildContext
from graph.finish import finish
from graph.paraphrase_node import paraphraser
from graph.review import review
from graph.state import BuildState

SPECIALISTS = {"schema_inference": schema_inference, "spec_writer": spec_writer, "review": review,
               "pattern_injector": pattern_injector, "query_synthesizer": query_synthesizer,
               "paraphraser": paraphraser}
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
    for name, fn in SPECIALISTS.items():
        g.add_node(name, with_default_model(fn))
        g.add_edge(name, "supervisor")
    g.add_node("finish", finish)
    g.add_edge(START, "supervisor")
    g.add_edge("finish", "supervisor")
    return g.compile(checkpointer=checkpointer)


def _with_model(ctx: BuildContext, model: Any) -> BuildContext:
    from dataclasses import replace

    return replace(ctx, model=model)


graph = build_graph()
