"""The chat graph: ``listen`` waits for the user's next request (``interrupt()``), ``act`` reads it into
typed operations (``tools.chat.ops``: the offline reader, or the LLM's structured output when
configured), asks back when unsure, previews a change and applies it on "ok" as one version of the
bundle (re-running only what it invalidates; ``undo`` takes it back). With a ``SqliteSaver`` the
conversation, its pending preview included, resumes in a new process (``chronoeval chat --thread ID``)."""

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
    pending: list[dict] | None
    """Operations previewed and waiting for "ok" (their JSON form)."""
    pending_request: str | None
    """The words of the request whose operations are pending."""
    last: dict | None
    """What the conversation was last about (``{"incident": id}`` or ``{"persona": name}``)."""
    done: bool
    """The user ended the session."""


@dataclass
class ChatContext:
    """Run-scoped: the chat model (or None), where replies go, the memory, and whether to apply at once."""

    model: Any = None
    on_reply: Any = None  # called with the reply's lines
    memory: Any = None  # a knowledge Memory: applied refinements become user-preference notes
    yes: bool = False  # apply without waiting for "ok" (scripts)


def listen(state: ChatState) -> dict:
    """Wait for the next request."""
    return {"message": str(interrupt({"prompt": "chronoeval> "}) or "")}


def act(state: ChatState, runtime: Runtime[ChatContext]) -> Command:
    """Read one line into operations, then ask back, show, preview or apply (``agents.chat_turn``)."""
    from agents.chat_turn import handle_line

    text = (state.get("message") or "").strip()
    bundle = Path(state["bundle"])
    if not text:
        return Command(goto="listen")
    ctx = runtime.context
    turn = handle_line(text, bundle, pending=state.get("pending"), last=state.get("last"), model=ctx.model,
                       yes=ctx.yes)
    if ctx.on_reply is not None:
        ctx.on_reply(turn.lines)
    asked = state.get("pending_request") if turn.from_pending else text
    if ctx.memory is not None and turn.ops and turn.op not in NOT_PREFERENCES and not turn.failed:
        _remember(ctx.memory, bundle, asked or text)
    update = {"turns": [{"request": text, "op": turn.op, "lines": turn.lines, "failed": turn.failed}],
              "message": None, "pending": turn.pending, "last": turn.last,
              "pending_request": text if turn.op == "preview" else state.get("pending_request") if turn.pending else None}
    if turn.done:
        return Command(goto=END, update={**update, "done": True})
    return Command(goto="listen", update=update)


NOT_PREFERENCES = {"help", "quit", "show", "ask", "refused", "preview", "cancel", "undo", "redo"}


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
