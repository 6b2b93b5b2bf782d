"""Chat's versions (``tools.bundle.history``, recorded by ``agents.chat_apply``): ``undo``, ``redo`` and
``history`` in chat and as commands."""

from __future__ import annotations

from pathlib import Path

from agents.chat_ops import Change
from tools.bundle.history import HistoryError, read_history, redo, undo


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
    return history_change(bundle)


def history_change(bundle: Path) -> Change:
    """The applied versions (and what could be redone), as a reply."""
    h = read_history(bundle)
    lines = [f"v{v.n}: {v.summary or 'a change'} ({len(v.changed) + len(v.added) + len(v.removed)} file(s))"
             for v in h.applied]
    lines += [f"undone, `redo` brings back: v{v.n}: {v.summary}" for v in reversed(h.undone)]
    return Change(f"{len(h.applied)} version(s) applied" if h.applied or h.undone else "no changes yet",
                  details=lines)


def _touches_data(v) -> bool:
    return any(f.startswith("data") for f in v.changed + v.added + v.removed)
