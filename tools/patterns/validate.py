"""Spec-level checks of incidents: entity types, keys, states and relations must exist.

The spec is read by duck typing (``spec.entities``, ``spec.entity(name)``), so this module sits
below ``tools.spec``, which calls it; each kind adds its own problems (``PatternKind.problems``).
"""

from __future__ import annotations

from tools.patterns.registry import get_kind


def _key_problems(path: str, keys: list[str], e) -> list[tuple[str, str]]:
    known = {m.name for m in e.measurements}
    out = []
    for k in keys:
        if k not in known:
            out.append((path, f"'{e.name}' has no measurement '{k}'; known: {', '.join(sorted(known)) or 'none'}"))
    return out


def _one(path: str, inc, spec) -> list[tuple[str, str]]:
    names = {e.name for e in spec.entities}
    if inc.target.entity not in names:
        return [(f"{path}.target.entity", f"unknown entity type '{inc.target.entity}'")]
    e = spec.entity(inc.target.entity)
    out = []
    attrs = {a.name for a in e.attributes}
    for j, c in enumerate(inc.target.where or []):
        if c.attribute not in attrs:
            out.append((f"{path}.target.where[{j}].attribute", f"'{e.name}' has no attribute '{c.attribute}'"))
    keys = list(getattr(inc, "effects", {}) or getattr(inc, "keys", []))
    out += _key_problems(f"{path}.effects" if hasattr(inc, "effects") else f"{path}.keys", keys, e)
    kind = get_kind(inc.kind)
    if kind is not None and kind.problems is not None:
        out += kind.problems(inc, e, path)
    return out


def _links(a, entity: str) -> bool:
    return getattr(a.dist, "kind", None) == "foreign_key" and a.dist.entity == entity


def incident_problems(spec) -> list[tuple[str, str]]:
    """Problems in ``spec.incidents`` as ``(path, message)`` pairs."""
    out = []
    ids = [inc.id for inc in spec.incidents]
    names = {e.name for e in spec.entities}
    for i, inc in enumerate(spec.incidents):
        path = f"incidents[{i}]"
        if ids.count(inc.id) > 1:
            out.append((f"{path}.id", f"incident id '{inc.id}' is used twice"))
        if inc.kind != "cascade":
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
            links = [a for a in child.attributes if a.name == step.via and _links(a, prev)]
            links += [a for a in parent.attributes if a.name == step.via and _links(a, step.entity)]
            if not links:
                out.append((f"{sp}.via", f"'{step.via}' is not a foreign key between '{prev}' and '{step.entity}'"))
            out += _key_problems(f"{sp}.effects", list(step.effects), child)
            prev = step.entity
    return out
