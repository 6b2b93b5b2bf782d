"""State machines from named states: each state's role (catalog state roles; a periodic reporter
reads "running" as normal, a pipeline run as in progress), transitions by role, dwell times by
role (or the entity archetype's), terminal states for lifecycles.
"""

from __future__ import annotations

from typing import Any

from tools.common.durations import format_duration, parse_duration
from tools.describe.catalog_model import Catalog, EntityArchetype
from tools.describe.match import index, tokens
from tools.describe.profiles import TRANSITION_WEIGHTS

LIFECYCLE_ROLES = {"waiting", "in_progress", "success", "failure", "cancelled"}
TERMINAL_ROLES = {"success", "failure", "cancelled"}
# the reporter health classes of the transition weights, per role
_CLASS = {"normal": "active", "moving": "active", "hovering": "active", "in_progress": "active", "charging": "idle", "idle": "idle",
          "waiting": "idle", "degraded": "reduced", "alarm": "reduced", "tampered": "reduced",
          "compromised": "reduced", "critical": "down", "down": "down", "failure": "down", "maintenance": "service",
          "low": "reduced", "high": "reduced"}


def state_role(name: str, lifecycle: bool, catalog: Catalog, position: int) -> tuple[str, bool]:
    """(role, understood) of a state named by the user; an unknown name is the normal/first step
    when listed first, else degraded (reporters) or in progress (lifecycles)."""
    idx = index(catalog, "roles")
    t = tokens(name)
    cands: list[str] = []
    for n in range(len(t), 0, -1):
        for i in range(len(t) - n + 1):
            cands += [r for r in idx.by_phrase.get(t[i: i + n], []) if r not in cands]
    if not cands:
        cands = [m.id for m in idx.lexical(name) if m.score >= 0.8]
    if cands:
        own = [r for r in cands if (r in LIFECYCLE_ROLES) == lifecycle]
        return (own or cands)[0], True
    if lifecycle:
        return ("waiting" if position == 0 else "in_progress"), False
    return ("normal" if position == 0 else "degraded"), False


def _normalise(row: dict[str, float]) -> dict[str, float]:
    total = sum(row.values())
    probs = {t: round(w / total, 4) for t, w in row.items() if w > 0}
    last = list(probs)[-1]
    probs[last] = round(1 - sum(v for t, v in probs.items() if t != last), 4)
    return probs


def _dwell(median: str, role: str, scale: float = 1.0) -> dict[str, Any]:
    secs = max(2.0, parse_duration(median) * scale)
    if role == "normal":
        return {"kind": "exponential", "mean": format_duration(round(secs))}
    return {"kind": "lognormal", "median": format_duration(round(secs)), "sigma": 0.6}


def reporter_machine(states: list[str], roles: dict[str, str], catalog: Catalog, cadence_s: float) -> dict[str, Any]:
    """A periodic reporter's machine: transitions weighted by role, dwell scaled with the cadence so
    states last several readings."""
    scale = max(1.0, cadence_s / 900)
    transitions = {}
    for s in states:
        weights = TRANSITION_WEIGHTS[_CLASS.get(roles[s], "reduced")]
        row = {t: weights.get(_CLASS.get(roles[t], "reduced"), 0.0) for t in states if t != s}
        row = {t: w for t, w in row.items() if w > 0} or {t: 1.0 for t in states if t != s}
        transitions[s] = _normalise(row)
    initial = next((s for s in states if roles[s] == "normal"), states[0])
    defs = {s: {"description": f"{roles[s]} state", "dwell": _dwell(catalog.role(roles[s]).dwell, roles[s], scale)}
            for s in states}
    return {"column": "status", "initial": initial, "states": defs, "transitions": transitions}


def lifecycle_machine(states: list[str], roles: dict[str, str], arch: EntityArchetype | None,
                      catalog: Catalog) -> dict[str, Any]:
    """A lifecycle's machine: states in the order named, each step to the next, the last to the
    success states; failure and cancellation branch off every step. The archetype's own transitions
    are used when every named state is one of its states."""
    terminal = [s for s in states if roles[s] in TERMINAL_ROLES]
    steps = [s for s in states if s not in terminal]
    by_name = {x.name: x for x in arch.states} if arch else {}
    own = arch is not None and all(s in by_name for s in states) and all(s in arch.transitions for s in steps)
    transitions = {}
    for i, s in enumerate(steps):
        good = [steps[i + 1]] if i + 1 < len(steps) else [t for t in terminal if roles[t] == "success"] or terminal[:1]
        if own:  # the archetype's shares; a step the user did not name hands its share to the next named one
            row: dict[str, float] = {}
            for t, w in arch.transitions[s].items():
                for target in ([t] if t in states else good):
                    row[target] = row.get(target, 0.0) + w / (1 if t in states else len(good))
            row.pop(s, None)
            if row:
                transitions[s] = _normalise(row)
                continue
        bad = [t for t in terminal if t not in good and roles[t] != "success"]
        row = {t: 0.88 / len(good) for t in good}
        row.update({t: 0.12 / len(bad) for t in bad})
        if not good and not bad:
            row = {terminal[0]: 1.0}
        transitions[s] = _normalise(row)
    defs = {}
    for s in states:
        if s in terminal:
            defs[s] = {"description": f"{roles[s]} (terminal)"}
            continue
        median = by_name[s].dwell if s in by_name and by_name[s].dwell else catalog.role(roles[s]).dwell
        defs[s] = {"description": f"{roles[s]} step", "dwell": _dwell(median, "step")}
    return {"column": "status", "initial": steps[0] if steps else states[0], "terminal": terminal,
            "states": defs, "transitions": transitions}
