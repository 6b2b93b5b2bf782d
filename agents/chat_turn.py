"""One chat line, read into typed operations and handled: an ask-back is asked, views are shown at once,
changes are previewed and wait for "ok" (or are applied at once with ``yes``), undo/redo/history work,
and what the conversation was last about is kept so "make it longer" finds "it".

The reading comes from the offline reader (``tools.chat.reader``) or, with a model, from the LLM as the
same ``Reading`` (validated the same way; an invalid or failed LLM reading falls back to the offline one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.chat_apply import apply_ops, preview
from agents.chat_versions import run_control
from tools.bundle.files import SPEC
from tools.chat.ops import HELP, Reading, parse_operations
from tools.describe.apply import RefineError
from tools.spec import SpecError
from tools.spec.io import load_spec


@dataclass
class Turn:
    """What a line did: the reply, the operations waiting for "ok", what the talk is about, whether it ended."""

    lines: list[str]
    op: str
    pending: list[dict] | None = None
    last: dict | None = None
    done: bool = False
    failed: bool = False
    ops: list[dict] = field(default_factory=list)
    from_pending: bool = False  # applied the operations an earlier line previewed


def read_line(text: str, bundle: Path, last: dict | None, model: Any = None) -> Reading:
    """The reading of one line (LLM first when configured, the offline reader otherwise)."""
    from tools.chat.reader import read_request

    spec = load_spec(bundle / SPEC)
    if model is not None:
        from agents.chat_llm import llm_reading

        got = llm_reading(model, text, spec, last)
        if got is not None:
            return got
    return read_request(text, spec, last)


def _last_of(ops: list, spec_after: Any, before_ids: set[str]) -> dict | None:
    for op in reversed(ops):
        if op.op == "add_incident":
            new = [i.id for i in spec_after.incidents if i.id not in before_ids]
            return {"incident": new[-1]} if new else None
        if getattr(op, "incident", None):
            return {"incident": op.incident} if op.op != "remove_incident" else None
        if getattr(op, "persona", None) or op.op == "add_persona":
            return {"persona": getattr(op, "persona", None) or op.name} if getattr(op, "persona", None) or op.name \
                else None
    return None


def apply_and_say(bundle: Path, ops: list, model: Any, last: dict | None) -> Turn:
    """Apply operations (one version) and say what changed; a refusal changes nothing and says why."""
    before = {i.id for i in load_spec(bundle / SPEC).incidents}
    try:
        change = apply_ops(bundle, ops, model)
    except (RefineError, SpecError, ValueError) as exc:
        return Turn([f"could not apply: {exc}"], "refused", last=last, failed=True)
    new_last = _last_of(ops, load_spec(bundle / SPEC), before) or last
    return Turn(change.lines(), ops[0].op, last=new_last, ops=[o.model_dump(exclude_defaults=True) for o in ops])


OK_WORDS = {"ok", "okay", "yes", "y", "apply", "apply it", "go ahead", "do it", "sure", "yep", "confirm"}
CANCEL_WORDS = {"cancel", "no", "n", "nope", "never mind", "nevermind", "scrap that", "forget it", "stop"}


def handle_line(text: str, bundle: Path, *, pending: list[dict] | None = None, last: dict | None = None,
                model: Any = None, yes: bool = False) -> Turn:
    """Handle one chat line (see the module docstring)."""
    low = " ".join(text.lower().strip(" .!?").split())
    if pending and low in OK_WORDS:
        turn = apply_and_say(bundle, parse_operations(pending), model, last)
        turn.from_pending = True
        return turn
    if pending and low in CANCEL_WORDS:
        return Turn(["dropped; nothing was changed"], "cancel", last=last)
    try:
        reading = read_line(text, bundle, last, model)
    except (RefineError, SpecError) as exc:
        return Turn([f"could not read '{text}': {exc}"], "refused", last=last, failed=True)
    if reading.control in ("undo", "redo"):
        change = run_control(bundle, reading.control)
        return Turn(change.lines(), reading.control, last=last, failed=change.summary.startswith("could not"))
    if reading.control == "quit":
        return Turn(["bye: the session is saved"], "quit", last=last, done=True)
    if reading.control == "help" or reading.control in ("ok", "cancel"):
        said = HELP if reading.control == "help" else f"there is nothing waiting to {reading.control == 'ok' and 'apply' or 'cancel'}"
        return Turn([said], reading.control, last=last)
    if reading.ask is not None or not reading.ops:
        ask = reading.ask
        lines = [f"I did not apply '{text}': {ask.question if ask else 'I could not read it'}"]
        if ask and ask.candidates:
            lines.append("Did you mean " + " or ".join(f"'{c}'" for c in ask.candidates) + "?")
        if ask and ask.understood:
            lines.append("I understood: " + "; ".join(ask.understood))
        if reading.confidence <= 0.1:  # nothing was understood: what chat does understand
            lines.append(HELP)
        return Turn(lines, "ask", pending=pending, last=last, failed=True)
    ops = reading.ops
    if all(op.op == "show" for op in ops):
        from agents.chat_apply import show

        return Turn([x for op in ops for x in show(bundle, op).lines()], "show", pending=pending, last=last)
    if yes and not reading.assumed:  # a proposal (an amount the line left out) always waits for "ok"
        return apply_and_say(bundle, ops, model, last)
    try:
        p = preview(bundle, ops)
    except (RefineError, SpecError, ValueError) as exc:
        return Turn([f"could not apply '{text}': {exc}"], "refused", last=last, failed=True)
    lines = p.lines()
    if reading.assumed:
        lines[1:1] = [f"  (I assumed: {a})" for a in reading.assumed]
    return Turn(lines, "preview", pending=[o.model_dump(exclude_defaults=True) | {"op": o.op} for o in ops],
                last=last)

