"""Spec-level checks of incidents: entity types, keys, states and relations must exist."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.patterns.model import BehaviorShift, Cascade, DataOutage, FlashCrowd, SeasonalityBreak
from tools.spec.distributions import ForeignKey

if TYPE_CHECKING:
    from tools.spec.model import Spec


def _key_problems(path: str, keys: list[str], e, kind: str) -> list[tuple[str, str]]:
    known = {m.name for m in e.measurements}
    out = []
    for k in keys:
        if k not in known:
            out.append((path, f"'{e.name}' has no measurement '{k}'; known: {', '.join(sorted(known)) or 'none'}"))
    return out


def _one(path: str, inc, spec: Spec) -> list[tuple[str, str]]:
    names = {e.name for e in spec.entities}
    if inc.target.entity not in names:
        return [(f"{path}.target.entity", f"unknown entity type '{inc.target.entity}'")]
    e = spec.entity(inc.target.entity)
    out = []
    attrs = {a.name for a in e.attributes}
    for j, c in enumerate(inc.target.where or []):
        if c.attribute not in attrs:
            out.append((f"{path}.target.where[{j}].attribute", f"'{e.name}' has no attribute '{c.attribute}'"))
    if isinstance(inc, DataOutage | BehaviorShift) or (isinstance(inc, FlashCrowd) and e.arrival and not inc.keys):
        if e.emission is None:
            out.append((f"{path}.target.entity", f"'{e.name}' writes no rows (no emission)"))
    keys = list(getattr(inc, "effects", {}) or getattr(inc, "keys", []))
    out += _key_problems(f"{path}.effects" if hasattr(inc, "effects") else f"{path}.keys", keys, e, inc.kind)
    if isinstance(inc, FlashCrowd) and not inc.keys and e.arrival is None:
        out.append((path, f"'{e.name}' has no arrival process: name the rate/count keys to surge (keys: [...])"))
    if isinstance(inc, SeasonalityBreak):
        for k in inc.keys:
            m = next((m for m in e.measurements if m.name == k), None)
            if m is not None and not m.seasonality:
                out.append((f"{path}.keys", f"'{k}' has no seasonality to break"))
    if isinstance(inc, BehaviorShift):
        states = set(e.states.states) if e.states else set()
        if not states:
            out.append((path, f"'{e.name}' has no state machine to shift"))
        for s, row in inc.transitions.items():
            bad = [x for x in [s, *row] if x not in states]
            if bad:
                out.append((f"{path}.transitions.{s}", f"unknown state(s) {', '.join(bad)}"))
            elif abs(sum(row.values()) - 1) > 1e-6:
                out.append((f"{path}.transitions.{s}", f"probabilities sum to {sum(row.values()):.2f}, must sum to 1"))
    return out


def incident_problems(spec: Spec) -> list[tuple[str, str]]:
    """Problems in ``spec.incidents`` as ``(path, message)`` pairs."""
    out = []
    ids = [inc.id for inc in spec.incidents]
    names = {e.name for e in spec.entities}
    for i, inc in enumerate(spec.incidents):
        path = f"incidents[{i}]"
        if ids.count(inc.id) > 1:
            out.append((f"{path}.id", f"incident id '{inc.id}' is used twice"))
        if not isinstance(inc, Cascade):
            out += _one(path, inc, spec)
            continue
        out += _one(f"{path}.root", inc.root, spec)
        prev = inc.root.target.entity
        for k, step in enumerate(inc.children):
            sp = f"{path}.children[{k}]"
            if step.entity not in names or prev not in names:
                out.append((f"{sp}.entity", f"unknown entity type '{step.entity}'"))
                break
            child, parent = spec.entity(step.entity), spec.entity(prev)
            links = [a for a in child.attributes if a.name == step.via and isinstance(a.dist, ForeignKey)
                     and a.dist.entity == prev]
            links += [a for a in parent.attributes if a.name == step.via and isinstance(a.dist, ForeignKey)
                      and a.dist.entity == step.entity]
            if not links:
                out.append((f"{sp}.via", f"'{step.via}' is not a foreign key between '{prev}' and '{step.entity}'"))
            out += _key_problems(f"{sp}.effects", list(step.effects), child, "cascade")
            prev = step.entity
    return out
