"""Cross-field checks of a spec's state machines: transition rows, initial states, reachability.

Problems are ``(yaml_path, message-with-fix)`` as in ``tools.spec.validate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.spec.entity import StateMachine

Problems = list[tuple[str, str]]
TOL = 1e-6


def row_problems(path: str, row: dict[str, float], states: set[str]) -> Problems:
    out: Problems = []
    for target, p in row.items():
        if target not in states:
            out.append((f"{path}.{target}", f"unknown state '{target}'; known states: {', '.join(sorted(states))}"))
        if p < 0 or p > 1:
            out.append((f"{path}.{target}", f"probability {p} must be between 0 and 1"))
    total = sum(row.values())
    if abs(total - 1) > TOL:
        out.append((path, f"probabilities sum to {total:.2f}, must sum to 1"))
    return out


def state_machine_problems(p: str, sm: StateMachine, attrs: set[str]) -> Problems:
    out: Problems = []
    states = set(sm.states)
    initial = {sm.initial: 1.0} if isinstance(sm.initial, str) else sm.initial
    for s in initial:
        if s not in states:
            out.append((f"{p}.initial", f"unknown state '{s}'; known states: {', '.join(sorted(states))}"))
    if isinstance(sm.initial, dict) and abs(sum(sm.initial.values()) - 1) > TOL:
        out.append((f"{p}.initial", f"probabilities sum to {sum(sm.initial.values()):.2f}, must sum to 1"))
    for s in sm.terminal:
        if s not in states:
            out.append((f"{p}.terminal", f"unknown state '{s}'; known states: {', '.join(sorted(states))}"))
    for s, row in sm.transitions.items():
        if s not in states:
            out.append((f"{p}.transitions.{s}", f"unknown state '{s}'; declare it under states"))
        elif s in sm.terminal:
            out.append((f"{p}.transitions.{s}", f"'{s}' is terminal and cannot be left; remove its row"))
        out += row_problems(f"{p}.transitions.{s}", row, states)
    for s, d in sm.states.items():
        if s in sm.terminal:
            continue
        if s not in sm.transitions:
            out.append((f"{p}.transitions", f"state '{s}' has no transition row; add one or list it as terminal"))
        if d.dwell is None:
            out.append((f"{p}.states.{s}.dwell", f"non-terminal state '{s}' needs a dwell distribution"))
    for s, t in sm.timeouts.items():
        if s not in states or t.to not in states:
            out.append((f"{p}.timeouts.{s}", f"timeout names an unknown state ('{s}' -> '{t.to}')"))
    for i, o in enumerate(sm.overrides):
        for j, c in enumerate(o.when):
            if c.attribute not in attrs:
                out.append((f"{p}.overrides[{i}].when[{j}].attribute",
                            f"unknown attribute '{c.attribute}'; known: {', '.join(sorted(attrs)) or 'none'}"))
        for s, row in o.transitions.items():
            if s not in states or s in sm.terminal:
                out.append((f"{p}.overrides[{i}].transitions.{s}", f"'{s}' is not a non-terminal state"))
            out += row_problems(f"{p}.overrides[{i}].transitions.{s}", row, states)
        for s in o.dwell:
            if s not in states:
                out.append((f"{p}.overrides[{i}].dwell.{s}", f"unknown state '{s}'"))
    for col, mapping in sm.derived_columns.items():
        for s in mapping:
            if s not in states:
                out.append((f"{p}.derived_columns.{col}.{s}", f"unknown state '{s}'"))
    for col, flag in sm.flags.items():
        for s in flag.ever_in:
            if s not in states:
                out.append((f"{p}.flags.{col}.ever_in", f"unknown state '{s}'"))
    out += reachability(p, sm, initial)
    return out


def reachability(p: str, sm: StateMachine, initial: dict[str, float]) -> Problems:
    edges: dict[str, set[str]] = {s: set() for s in sm.states}
    rows = [sm.transitions] + [o.transitions for o in sm.overrides]
    for r in rows:
        for s, row in r.items():
            edges.setdefault(s, set()).update(t for t, prob in row.items() if prob > 0)
    for s, t in sm.timeouts.items():
        edges.setdefault(s, set()).add(t.to)
    seen, todo = set(), [s for s, w in initial.items() if w > 0 and s in sm.states]
    if not todo:  # the initial state itself is already reported
        return []
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            todo += edges.get(s, ())
    missing = sorted(set(sm.states) - seen)
    if missing:
        return [(f"{p}.states", f"state(s) {', '.join(missing)} can never be reached from the initial state; "
                                "add a transition into them or remove them")]
    return []
