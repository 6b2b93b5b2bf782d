"""The chat graph: ``listen`` waits for the user's next request (``interrupt()``), ``act`` turns it
into a refinement (LLM structured output when configured, the offline grammar otherwise), applies
it to the bundle re-running only what it invalidates, and reports what changed. With a
``SqliteSaver`` the conversation resumes in a new process (``chronoeval chat --thread ID``)."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from tools.bundle.files import SPEC


class ChatState(TypedDict, total=False):
    """A chat session on one bundle."""

    bundle: str
    """The bundle directory being refined."""
    message: str | None
    """The request being handled."""
    turns: Annotated[list[dict], operator.add]
    """Every turn: ``{request, op, lines}`` (what the user asked, how it was read, what changed)."""
    done: bool
    """The user ended the session."""


@dataclass
class ChatContext:
    """Run-scoped: the chat model (or None) and where replies go."""

    model: Any = None
    on_reply: Any = None  # called with the reply's lines
    memory: Any = None  # a knowledge Memory: applied refinements become user-preference notes


def listen(state: ChatState) -> dict:
    """Wait for the next request."""
    return {"message": str(interrupt({"prompt": "chronoeval> "}) or "")}


def _parse(text: str, bundle: Path, model: Any):
    from tools.describe.refine import parse_request
    from tools.spec.io import load_spec

    spec = load_spec(bundle / SPEC)
    days = max(1, int(spec.horizon_seconds // 86400))
    if model is not None:
        from agents.structured import structured_call
        from prompts.chat import CHAT, ChatInput
        from tools.describe.refine import Refinement

        inp = ChatInput(request=text, entities=[e.name for e in spec.entities],
                        incidents=[i.id for i in spec.incidents], start=spec.start)
        r = structured_call(model, CHAT.render(inp), Refinement, purpose="chat")
        if r is not None and r.op != "unknown":
            return r.model_copy(update={"text": text})
    return parse_request(text, spec.start_dt, days)


def act(state: ChatState, runtime: Runtime[ChatContext]) -> Command:
    """Apply one request and report it."""
    from agents.chat_ops import Change
    from agents.chat_versions import apply_recorded
    from tools.describe.apply import RefineError
    from tools.spec import SpecError

    text = (state.get("message") or "").strip()
    bundle = Path(state["bundle"])
    if not text:
        return Command(goto="listen")
    model = runtime.context.model
    from agents.chat_versions import control_of, run_control

    if (control := control_of(text)) is not None:
        change = run_control(bundle, control)
        if runtime.context.on_reply is not None:
            runtime.context.on_reply(change.lines())
        return Command(goto="listen", update={"turns": [{"request": text, "op": control, "lines": change.lines()}],
                                              "message": None})
    if model is not None and text.lower() not in ("quit", "exit", "bye", "q", "help"):
        from agents.chat_agent import tool_calling_turn

        turn = tool_calling_turn(model, bundle, text)
        if turn is not None:
            changes, reply = turn
            lines = [x for c in changes for x in c.lines()] + ([reply] if reply else [])
            if runtime.context.on_reply is not None:
                runtime.context.on_reply(lines)
            return Command(goto="listen", update={"turns": [{"request": text, "op": "tools", "lines": lines}],
                                                  "message": None})
    r = _parse(text, bundle, model)
    if r.op == "quit":
        change = Change("bye: the session is saved")
    else:
        try:
            change = apply_recorded(bundle, r, runtime.context.model)
        except (RefineError, SpecError) as exc:
            change = Change(f"could not apply '{text}': {exc}")
    if runtime.context.on_reply is not None:
        runtime.context.on_reply(change.lines())
    if runtime.context.memory is not None and r.op not in NOT_PREFERENCES and not change.summary.startswith(
            ("could not", "I did not")):
        _remember(runtime.context.memory, bundle, text)
    turn = {"request": text, "op": r.op, "lines": change.lines()}
    if r.op == "quit":
        return Command(goto=END, update={"turns": [turn], "done": True, "message": None})
    return Command(goto="listen", update={"turns": [turn], "message": None})


NOT_PREFERENCES = {"help", "quit", "show_incidents", "show_questions", "unknown"}


def _remember(memory: Any, bundle: Path, text: str) -> None:
    """A user-preference note for an applied refinement (memory problems never stop the chat)."""
    from knowledge.documents import ExperienceNote
    from tools.spec.io import load_spec

    try:
        domain = load_spec(bundle / SPEC).name
        memory.remember(ExperienceNote(kind="user_preference", text=f"{domain}: {text}", source=str(bundle),
                                       tags=["chat"]))
    except Exception:  # an aid, not part of the change
        return


def build_chat_graph(*, checkpointer: Any = None):
    """Compile the chat graph (``listen`` ⇄ ``act``)."""
    g = StateGraph(ChatState, context_schema=ChatContext)
    g.add_node("listen", listen)
    g.add_node("act", act)
    g.add_edge(START, "listen")
    g.add_edge("listen", "act")
    return g.compile(checkpointer=checkpointer)
