"""Cross-field checks of a spec: references, probabilities, reachability, cycles, columns (the
state-machine checks are in ``tools.spec.validate_states``).

Each problem is reported as ``(yaml_path, message-with-fix)``, e.g.
``("entities[1].states.transitions.warning", "probabilities sum to 0.90, must sum to 1")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.common.durations import parse_duration
from tools.common.families import FAMILIES
from tools.spec.distributions import Categorical, ForeignKey, ParentAttribute
from tools.spec.formula import formula_names
from tools.spec.validate_states import TOL, Problems, row_problems, state_machine_problems

if TYPE_CHECKING:
    from tools.spec.entity import EntityType
    from tools.spec.model import Spec



def _numeric_attrs(e: EntityType, spec: Spec) -> set[str]:
    from tools.spec.distributions import IntegerRange, LogNormal, Normal, Uniform

    out = set()
    for a in e.attributes:
        d = a.dist
        if isinstance(d, Normal | Uniform | LogNormal | IntegerRange):
            out.add(a.name)
        elif isinstance(d, ParentAttribute):
            fk = next((x.dist for x in e.attributes if x.name == d.via), None)
            if isinstance(fk, ForeignKey) and any(p.name == fk.entity for p in spec.entities):
                if d.attribute in _numeric_attrs(spec.entity(fk.entity), spec):
                    out.add(a.name)
    return out


def _measurement_problems(p: str, e: EntityType, numeric: set[str], attrs: set[str]) -> Problems:
    out: Problems = []
    names = [m.name for m in e.measurements]
    states = set(e.states.states) if e.states else set()
    deps: dict[str, set[str]] = {}
    for i, m in enumerate(e.measurements):
        mp = f"{p}.measurements[{i}]"
        if names.count(m.name) > 1:
            out.append((f"{mp}.name", f"measurement '{m.name}' is declared twice"))
        for s in m.states:
            if s not in states:
                out.append((f"{mp}.states.{s}", f"unknown state '{s}'; known: {', '.join(sorted(states)) or 'none'}"))
        for j, a in enumerate(m.attribute_effects):
            if a.attribute not in attrs:
                out.append((f"{mp}.attribute_effects[{j}].attribute", f"unknown attribute '{a.attribute}'"))
            elif a.coef is not None and a.attribute not in numeric:
                out.append((f"{mp}.attribute_effects[{j}]", f"'{a.attribute}' is not numeric; use values: {{label: shift}}"))
        if m.formula and (m.base != 0 or m.trend != 0):
            out.append((f"{mp}.formula", "a formula measurement takes its level from the formula; remove base/"
                                         "trend or write them into the formula (e.g. '40 + 0.5 * cpu')"))
        if m.formula:
            try:
                used = formula_names(m.formula)
            except ValueError as exc:
                out.append((f"{mp}.formula", str(exc)))
                continue
            unknown = used - set(names) - numeric
            if unknown:
                out.append((f"{mp}.formula", f"unknown name(s) {', '.join(sorted(unknown))}; a formula may use "
                                             "other measurements of this entity and its numeric attributes"))
            deps[m.name] = used & set(names)
        if m.correlated is not None:
            other = next((x for x in e.measurements if x.name == m.correlated.with_), None)
            if other is None or other is m or other.formula or m.formula:
                out.append((f"{mp}.correlated.with", f"'{m.correlated.with_}' must be another measurement of "
                                                     f"'{e.name}' with noise (not a formula)"))
            else:
                deps.setdefault(m.name, set()).add(other.name)
    if _has_cycle(deps):
        out.append((f"{p}.measurements", "formulas depend on each other in a cycle; break the loop"))
    if e.measurements and e.emission is None:
        out.append((f"{p}.emission", "measurements need an emission (periodic or on_transition) to be written"))
    return out


def _has_cycle(graph: dict[str, set[str]]) -> bool:
    state: dict[str, int] = {}

    def visit(n: str) -> bool:
        if state.get(n) == 1:
            return True
        if state.get(n) == 2:
            return False
        state[n] = 1
        if any(visit(m) for m in graph.get(n, ())):
            return True
        state[n] = 2
        return False

    return any(visit(n) for n in list(graph))


def _entity_problems(i: int, e: EntityType, spec: Spec, names: set[str]) -> Problems:
    p = f"entities[{i}]"
    out: Problems = []
    attrs = [a.name for a in e.attributes]
    for j, a in enumerate(e.attributes):
        d = a.dist
        if attrs.count(a.name) > 1:
            out.append((f"{p}.attributes[{j}].name", f"attribute '{a.name}' is declared twice"))
        if isinstance(d, ForeignKey):
            if d.entity not in names:
                out.append((f"{p}.attributes[{j}].dist.entity", f"unknown entity type '{d.entity}'"))
            elif d.weight_by and d.weight_by not in _numeric_attrs(spec.entity(d.entity), spec):
                out.append((f"{p}.attributes[{j}].dist.weight_by", f"'{d.weight_by}' is not a numeric attribute of '{d.entity}'"))
        if isinstance(d, ParentAttribute):
            fk = next((x.dist for x in e.attributes[:j] if x.name == d.via), None)
            if not isinstance(fk, ForeignKey):
                out.append((f"{p}.attributes[{j}].dist.via", f"'{d.via}' must be a foreign_key attribute declared above"))
            elif fk.entity in names and d.attribute not in {a.name for a in spec.entity(fk.entity).attributes}:
                out.append((f"{p}.attributes[{j}].dist.attribute", f"'{fk.entity}' has no attribute '{d.attribute}'"))
    if e.states:
        out += state_machine_problems(f"{p}.states", e.states, set(attrs))
    if e.emission and e.emission.kind == "on_transition" and not e.states:
        out.append((f"{p}.emission", "on_transition emission needs a state machine (states:)"))
    if e.emission and e.emission.cadence and parse_duration(e.emission.cadence) > spec.horizon_seconds:
        out.append((f"{p}.emission.cadence", "cadence is longer than the horizon; no rows would be written"))
    out += _measurement_problems(p, e, _numeric_attrs(e, spec), set(attrs))
    from tools.spec.names import MAX_ID_CHARS

    long_ids = [v for v in e.id.values if len(v) > MAX_ID_CHARS or not v]
    if long_ids:
        out.append((f"{p}.id.values", f"id {long_ids[0][:20]!r} is empty or longer than {MAX_ID_CHARS} characters"))
    if e.id.formats and e.id.formats_by not in {a.name for a in e.attributes if not isinstance(a.dist, ForeignKey)}:
        out.append((f"{p}.id.formats_by", f"'{e.id.formats_by}' must name a label attribute of '{e.name}' "
                                          "(the per-label id formats are chosen by it)"))
    cols = [e.id.column] + [a.name for a in e.attributes if a.in_rows]
    if e.emission:
        cols += [e.emission.timestamp_column] + [m.name for m in e.measurements if not m.hidden]
    if e.states:
        cols += ([e.states.column] if e.states.column else []) + list(e.states.derived_columns) + list(e.states.flags)
    if e.exemplar_column:
        cols.append(e.exemplar_column)
    dup = sorted({c for c in cols if cols.count(c) > 1})
    if dup:
        out.append((p, f"column(s) {', '.join(dup)} appear twice in table '{e.table_name}'; rename one"))
    if e.static_table and not e.emission:
        out.append((f"{p}.static_table", "static_table is for entity types with an emission; without one, "
                                         "'table' already names the static table"))
    statics = [a for a in e.attributes if a.emit == "static"]
    if statics and not (e.static_table or not e.emission):
        out.append((f"{p}.attributes", f"attribute(s) {', '.join(a.name for a in statics)} are emit: static "
                                       "but the entity type has no static_table; add static_table: NAME"))
    return out


def _fk_cycle(spec: Spec) -> Problems:
    graph = {e.name: {a.dist.entity for a in e.attributes if isinstance(a.dist, ForeignKey)} for e in spec.entities}
    for i, e in enumerate(spec.entities):
        if e.name in graph[e.name]:
            return [(f"entities[{i}].attributes", f"'{e.name}' has a foreign key to itself; relations must form a tree")]
    if _has_cycle(graph):
        return [("entities", "foreign-key relations form a cycle; a parent cannot depend on its own children")]
    return []


def _assembly_problems(spec: Spec, names: set[str]) -> Problems:
    out: Problems = []
    ex_names = [x.name for x in spec.exemplars]
    for i, x in enumerate(spec.exemplars):
        p = f"exemplars[{i}]"
        if ex_names.count(x.name) > 1:
            out.append((f"{p}.name", f"exemplar '{x.name}' is declared twice"))
        if x.entity not in names:
            out.append((f"{p}.entity", f"unknown entity type '{x.entity}'"))
            continue
        e = spec.entity(x.entity)
        states = set(e.states.states) if e.states else set()
        for a, dist in x.attributes.items():
            if a not in {b.name for b in e.attributes}:
                out.append((f"{p}.attributes.{a}", f"'{x.entity}' has no attribute '{a}'"))
            elif isinstance(dist, ForeignKey | ParentAttribute) or isinstance(
                    next(b.dist for b in e.attributes if b.name == a), ForeignKey | ParentAttribute):
                out.append((f"{p}.attributes.{a}", "relations (foreign_key, parent_attribute) cannot be "
                                                  "overridden by an exemplar; use a condition on them instead"))
        for s, row in x.transitions.items():
            if s not in states:
                out.append((f"{p}.transitions.{s}", f"unknown state '{s}'"))
            out += row_problems(f"{p}.transitions.{s}", row, states)
        for s in x.dwell:
            if s not in states:
                out.append((f"{p}.dwell.{s}", f"unknown state '{s}'"))
        for m in x.measurements:
            if m not in {mm.name for mm in e.measurements}:
                out.append((f"{p}.measurements.{m}", f"'{x.entity}' has no measurement '{m}'"))
    for e in spec.entities:
        total = sum(x.count or 0 for x in spec.exemplars if x.entity == e.name)
        if total > e.count:
            out.append(("exemplars", f"exemplar counts for '{e.name}' add up to {total}, more than its count {e.count}"))
    horizon = spec.horizon_seconds
    spans: dict[str, list[tuple[float, float, str]]] = {}
    for i, ep in enumerate(spec.epochs):
        p = f"epochs[{i}]"
        if ep.entity not in names:
            out.append((f"{p}.entity", f"unknown entity type '{ep.entity}'"))
            continue
        s, t = parse_duration(ep.start), parse_duration(ep.end)
        if not s < t <= horizon + TOL:
            out.append((p, f"epoch [{ep.start}, {ep.end}) must satisfy start < end <= horizon ({spec.horizon})"))
        valid = {"base"} | {x.name for x in spec.exemplars if x.entity == ep.entity}
        for k in ep.blend:
            if k not in valid:
                out.append((f"{p}.blend.{k}", f"unknown exemplar '{k}' for '{ep.entity}'; use one of {', '.join(sorted(valid))}"))
        if abs(sum(ep.blend.values()) - 1) > TOL or min(ep.blend.values()) < 0:
            out.append((f"{p}.blend", f"weights sum to {sum(ep.blend.values()):.2f}, must be >= 0 and sum to 1"))
        for s2, t2, n2 in spans.get(ep.entity, []):
            if s < t2 and s2 < t:
                out.append((p, f"epoch overlaps epoch '{n2}' for '{ep.entity}'; epochs of one entity type must not overlap"))
        spans.setdefault(ep.entity, []).append((s, t, ep.name))
    for k in spec.query_plan.mix:
        if k not in FAMILIES:
            out.append((f"query_plan.mix.{k}", f"unknown family; use one of {', '.join(FAMILIES)}"))
    return out


def semantic_errors(spec: Spec) -> Problems:
    """All cross-field problems of a structurally valid spec (empty when the spec is sound)."""
    from tools.spec.names import limit_problems, name_problems

    out: Problems = name_problems(spec) + limit_problems(spec)
    names = [e.name for e in spec.entities]
    tables: list[str] = []
    for i, e in enumerate(spec.entities):
        if names.count(e.name) > 1:
            out.append((f"entities[{i}].name", f"entity type '{e.name}' is declared twice"))
        tables += e.table_names
    for t in sorted({t for t in tables if tables.count(t) > 1}):
        out.append(("entities", f"table name '{t}' is used twice; give each table its own name"))
    for i, e in enumerate(spec.entities):
        out += _entity_problems(i, e, spec, set(names))
    out += _fk_cycle(spec)
    out += _assembly_problems(spec, set(names))
    from tools.patterns.validate import incident_problems

    out += incident_problems(spec)
    return out


__all__ = ["Categorical", "semantic_errors"]
