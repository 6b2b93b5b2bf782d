"""Chat's versions: every refinement that changes the bundle is recorded (``tools.bundle.history``), so
``undo``, ``redo`` and ``history`` work in chat and as commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.chat_ops import Change, run_refinement
from tools.bundle.history import HistoryError, read_history, recorded, redo, undo
from tools.describe.refine import Refinement

CONTROLS = {"undo": "undo", "undo that": "undo", "undo it": "undo", "undo the last change": "undo",
            "go back": "undo", "revert": "undo", "revert that": "undo", "redo": "redo", "redo that": "redo",
            "history": "history", "show history": "history", "show the history": "history",
            "what did we change": "history", "what have we changed": "history"}


def control_of(text: str) -> str | None:
    """``undo``, ``redo`` or ``history`` when the line asks for one (and nothing else), else None."""
    return CONTROLS.get(" ".join(text.lower().strip(" .!?").split()))


def apply_recorded(bundle: Path, r: Refinement, model: Any = None) -> Change:
    """Run one refinement as a new version of the bundle; the reply names the version."""
    with recorded(bundle, [r.model_dump(exclude_defaults=True)]) as rec:
        change = run_refinement(bundle, r, model)
        rec.summary = change.summary
    if rec.version is not None:
        change.details.append(f"(version {rec.version.n}; `undo` takes it back)")
    return change


def run_control(bundle: Path, what: str) -> Change:
    """Undo or redo the last change, or list the versions."""
    try:
        if what == "undo":
            v = undo(bundle)
            return Change(f"undid version {v.n} ({v.summary}): the bundle is byte for byte as before it; "
                          "`redo` applies it again", data_changed=_touches_data(v))
        if what == "redo":
            v = redo(bundle)
            return Change(f"redid version {v.n} ({v.summary})", data_changed=_touches_data(v))
    except HistoryError as exc:
        return Change(f"could not {what}: {exc}")
    return Change(*history_lines(bundle))


def history_lines(bundle: Path) -> tuple[str, bool, list, list, list[str]]:
    """A ``Change``'s fields listing the applied versions (and what could be redone)."""
    h = read_history(bundle)
    lines = [f"v{v.n}: {v.summary or 'a change'} ({len(v.changed) + len(v.added) + len(v.removed)} file(s))"
             for v in h.applied]
    lines += [f"undone, `redo` brings back: v{v.n}: {v.summary}" for v in reversed(h.undone)]
    return (f"{len(h.applied)} version(s) applied" if h.applied or h.undone else "no changes yet", False, [], [],
            lines)


def _touches_data(v) -> bool:
    return any(f.startswith("data") for f in v.changed + v.added + v.removed)
