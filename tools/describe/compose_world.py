"""A whole spec from a multi-entity draft and the domain catalog.

Periodic reporters become metric tables (one row per cadence tick), lifecycle entities event logs
(one row per state entry, arrivals over the horizon, terminal states), parents static tables their
children point to. Values, units, bounds and state effects come from the catalog; a measurement the
catalog does not know gets the name-based defaults of ``tools.describe.profiles``. Every default
the text did not ask for is a decision that says "default".
"""

from __future__ import annotations

import math
import re
from typing import Any

from tools.common.durations import parse_duration
from tools.describe.catalog_model import Catalog, EntityArchetype, MeasurementArchetype
from tools.describe.compose_described import Described
from tools.describe.compose_incidents import lifecycle_incidents, reporter_incidents
from tools.describe.compose_machine import TERMINAL_ROLES, lifecycle_machine, reporter_machine, state_role
from tools.describe.compose_values import PEAKS, generic_measurement, measurement_spec, named_directions
from tools.describe.defaults import DEFAULT_STATES, reporter_kind
from tools.describe.described_overlaps import with_described
from tools.describe.draft import AttributeDraft, DomainDraft, EntityDraft, MeasurementDraft
from tools.describe.extract import snake
from tools.describe.field_context import read_field_context
from tools.spec.model import Spec

TARGET_ROWS = 300_000
_SHAPES = {"flat": [1.0] * 24}
_HOURLY = {  # arrival curves (UTC hours) by shape
    "day_peak": [0.3, 0.2, 0.2, 0.2, 0.3, 0.5, 0.8, 1.1, 1.3, 1.4, 1.5, 1.5, 1.5, 1.6, 1.6, 1.5, 1.4, 1.3, 1.1, 0.9,
                 0.7, 0.6, 0.5, 0.4],
    "evening_peak": [0.5, 0.3, 0.2, 0.2, 0.2, 0.3, 0.5, 0.7, 0.8, 0.8, 0.9, 1.0, 1.1, 1.0, 1.0, 1.1, 1.3, 1.6, 1.9,
                     2.0, 1.8, 1.4, 1.0, 0.7],
    "business_hours": [0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.4, 0.9, 1.6, 2.0, 2.0, 1.9, 1.6, 1.9, 2.0, 1.9, 1.7, 1.2, 0.6,
                       0.4, 0.3, 0.2, 0.2, 0.1],
    "commute": [0.2, 0.1, 0.1, 0.1, 0.2, 0.6, 1.4, 2.2, 2.0, 1.2, 0.9, 1.0, 1.1, 1.0, 1.0, 1.2, 1.6, 2.2, 2.1, 1.4,
                1.0, 0.8, 0.6, 0.4],
}


def _hourly(shape: str | None) -> list[float] | None:
    if shape in _HOURLY:
        return _HOURLY[shape]
    if shape in PEAKS and shape not in ("flat",):
        peak = int(PEAKS[shape].rstrip("h"))
        return [round(1 + 0.6 * math.cos(2 * math.pi * (h - peak) / 24), 3) for h in range(24)]
    return None


def _weights(values: list[str]) -> dict[str, float]:
    w = round(1 / len(values), 6)
    out = {v: w for v in values}
    out[values[-1]] = round(1 - w * (len(values) - 1), 6)
    return out


class _Composer:
    def __init__(self, draft: DomainDraft, catalog: Catalog, seed: int):
        self.draft, self.catalog, self.seed = draft, catalog, seed
        self.decisions: list[str] = []
        self.notes: list[str] = []
        self.horizon = draft.horizon or "7d"
        if not draft.horizon:
            self.decisions.append("horizon 7d: default (the text states none)")
        self.horizon_s = parse_duration(self.horizon)
        self.days = max(1, int(self.horizon_s // 86400))
        self.archs: dict[str, MeasurementArchetype] = {}
        self.own = read_field_context(draft.description, catalog).own  # the description's own fields

    def arch(self, e: EntityDraft) -> EntityArchetype | None:
        return self.catalog.entity(e.catalog_id) if e.catalog_id else None

    def defaults_from(self, e: EntityDraft, arch: EntityArchetype | None, what: str) -> EntityArchetype | None:
        """The archetype whose defaults may fill what the text leaves open: one of the description's own field
        only (issue 29: nothing the text did not ask for is imported from another field)."""
        if arch is None or arch.field in self.own or arch.field == "general":
            return arch
        self.decisions.append(f"{e.name} {what}: none added (catalog '{arch.id}' is of {arch.field}, which the "
                              "description is not about: only what the text names)")
        return None

    # -- attributes ---------------------------------------------------------------------------
    def attributes(self, e: EntityDraft, arch: EntityArchetype | None) -> list[dict]:
        out = []
        for a in e.attributes:
            out.append(self.attribute(e, a))
        if not e.attributes and arch and arch.attributes:
            arch = self.defaults_from(e, arch, "attributes")
        if not e.attributes and arch and arch.attributes:
            for aid in arch.attributes[:2]:
                ca = self.catalog.attribute(aid)
                out.append({"name": ca.id, "emit": True if e.kind == "lifecycle" else "static",
                            "dist": {"kind": "categorical", "values": dict(ca.values)}})
            self.decisions.append(f"{e.name} attributes {', '.join(arch.attributes[:2])}: catalog defaults "
                                  "(the text names none)")
        return out

    def attribute(self, e: EntityDraft, a: AttributeDraft) -> dict:
        ca = self.catalog.attribute(a.catalog_id) if a.catalog_id else None
        if a.values:
            values = _weights(list(dict.fromkeys(a.values)))
            src = "values stated in the text"
        elif ca and (a.n_values is None or a.n_values <= len(ca.values)):
            picked = list(ca.values)[: a.n_values] if a.n_values else list(ca.values)
            values = _weights(picked) if a.n_values else dict(ca.values)
            src = f"values from catalog '{ca.id}'"
        else:
            k = a.n_values or 3
            values = _weights([f"{a.name}_{i + 1}" for i in range(k)])
            src = f"{k} generic values ({'count stated' if a.n_values else 'default: no values stated'})"
        self.decisions.append(f"{e.name}.{a.name}: {src}")
        return {"name": a.name, "emit": True if e.kind == "lifecycle" else "static",
                "dist": {"kind": "categorical", "values": values}}

    # -- measurements and states -------------------------------------------------------------
    def roles(self, e: EntityDraft, states: list[str]) -> dict[str, str]:
        """Each state's role: the entity archetype's own state of that name (or synonym) first, then the
        catalog's state roles."""
        arch = self.arch(e)
        own = {}
        for x in arch.states if arch else []:
            for w in [x.name, *x.synonyms]:
                own.setdefault(snake(w), x)
        out = {}
        for i, s in enumerate(states):
            hit = own.get(s) or own.get(re.sub(r"^(?:in|is|on|under)_", "", s))
            if hit is not None:
                out[s] = "failure" if hit.terminal and hit.role not in TERMINAL_ROLES else hit.role
                continue
            role, ok = state_role(s, e.kind == "lifecycle", self.catalog, i)
            out[s] = role
            if not ok:
                self.notes.append(f"state '{s}' of {e.name}: no known state role; treated as {role}")
        return out

    def states(self, e: EntityDraft, arch: EntityArchetype | None) -> list[str]:
        if len(e.states) >= 2:
            states = list(e.states)
        elif arch and len(arch.states) >= 2 and self.defaults_from(e, arch, "states"):
            states = [s.name for s in arch.states]
            self.decisions.append(f"{e.name} states {', '.join(states)}: catalog defaults for "
                                  f"'{arch.id}' (the text names none)")
        else:
            kind = reporter_kind(self.draft)
            states = list(DEFAULT_STATES[kind]) if e.kind != "lifecycle" else ["started", "in_progress", "completed",
                                                                               "failed"]
            self.decisions.append(f"{e.name} states {', '.join(states)}: default (the text names none)")
        return states

    def measurements(self, e: EntityDraft, arch: EntityArchetype | None, roles: dict[str, str],
                     cadence_s: float | None = None) -> list[dict]:
        mds = list(e.measurements)
        if not mds and arch and arch.measurements:
            arch = self.defaults_from(e, arch, "measurements")
        if not mds and arch and arch.measurements:
            mds = [MeasurementDraft(name=m, catalog_id=m, words=m.replace("_", " ")) for m in arch.measurements[:4]]
            self.decisions.append(f"{e.name} measurements {', '.join(m.name for m in mds)}: catalog defaults "
                                  "(the text names none)")
        elif not mds and e.kind != "static":  # issue 29: no generic "cpu" or "vibration" in a court's cases
            self.decisions.append(f"{e.name} measurements: none (the text names none, and no catalog entry of the "
                                  "description's field is known for it)")
        out = []
        for md in mds:
            if md.catalog_id:
                a = self.catalog.measurement(md.catalog_id)
                self.archs[md.name] = a
                spec = measurement_spec(md, a, roles, self.catalog, self.notes, cadence_s)
                if e.kind == "lifecycle" and a.event_level and a.klass == "duration" and not a.states:
                    spec["states"] = {s: {"scale": 0.0, "noise_scale": 0.0} for s, r in roles.items()
                                      if r not in ("success", "failure")}
                    self.decisions.append(f"{e.name}.{md.name}: recorded when the {e.name} ends; 0 on the earlier "
                                          "steps and when cancelled")
                out.append(spec)
            else:
                out.append(generic_measurement(md, roles, self.catalog, self.notes, event=e.kind == "lifecycle"))
        return out

    # -- entities -------------------------------------------------------------------------------
    def entity(self, e: EntityDraft) -> dict:
        arch = self.arch(e)
        prefix = arch.id_prefix if arch else e.name.upper().replace("_", "")[:8]
        ent: dict[str, Any] = {"name": e.name, "description": f"A {e.name.replace('_', ' ')}"
                               + (f" (catalog: {arch.id})" if arch else " (from the description)"),
                               "id": {"column": f"{e.name}_id", "format": prefix + "_{i:04d}"}}
        attrs = [{"name": f"{p}_id", "dist": {"kind": "foreign_key", "entity": p}} for p in e.parents]
        attrs += self.attributes(e, arch)
        if e.kind == "static":
            ent.update(table=e.plural, count=e.count or self.static_count(e, arch), attributes=attrs)
            return ent
        states = self.states(e, arch)
        roles = self.roles(e, states)
        for x in e.continues:  # "approved claims are then paid": approved is a step, not an end
            if x in roles and roles[x] in TERMINAL_ROLES:
                roles[x] = "in_progress"
        if e.kind == "lifecycle":
            loose = [x for x in e.terminal if x in roles and roles[x] not in TERMINAL_ROLES]
            if loose:  # "..., then released or scrapped": the final alternatives end the lifecycle
                has_success = any(roles[x] == "success" for x in e.terminal if x in roles)
                for s in loose:
                    roles[s] = "failure" if has_success else "success"
                    has_success = True
                self.decisions.append(f"{e.name} terminal states {', '.join(e.terminal)}: the last step and its "
                                      "alternatives in the text")
            if all(r in TERMINAL_ROLES for r in roles.values()):  # only the endings named: the steps by default
                first = [x.name for x in arch.states if not x.terminal][:3] if arch else []
                first = first or ["started"]
                states = first + [x for x in states if x not in first]
                roles.update({x: state_role(x, True, self.catalog, i)[0] for i, x in enumerate(first)})
                if arch:
                    roles.update({x.name: x.role for x in arch.states if x.name in first})
                self.decisions.append(f"{e.name} steps {', '.join(first)}: default (the text names only how it ends)")
            if any(r in TERMINAL_ROLES for r in roles.values()):
                machine = lifecycle_machine(states, roles, arch, self.catalog)
            else:
                machine = self.add_terminal(e, arch, states, roles)
            per_day = arch.typical_count if arch else 500
            count = e.count or min(per_day * self.days, 40_000)
            if not e.count:
                self.decisions.append(f"count {count:,} {e.plural} over the horizon: default ({per_day:,} a day"
                                      f"{', capped to keep the build fast' if count < per_day * self.days else ''})")
            dur = parse_duration(arch.typical_duration) if arch and arch.typical_duration else 3600
            ent.update(table=e.plural, count=count, attributes=attrs, states=machine,
                       emission={"kind": "on_transition", "timestamp_column": "timestamp"},
                       arrival={"hourly_weights": _hourly(arch.arrival if arch else "day_peak"),
                                "max_duration": f"{max(3600, int(dur * 6))}s"})
            if ent["arrival"]["hourly_weights"] is None:
                ent["arrival"].pop("hourly_weights")
        else:
            cadence = e.cadence or (arch.cadence if arch and arch.cadence else "15m")
            if not e.cadence:
                self.decisions.append(f"{e.name} cadence {cadence}: {'catalog' if arch and arch.cadence else ''} "
                                      "default (the text states none)")
            steps = max(1, int(self.horizon_s // parse_duration(cadence)))
            count = e.count or max(4, min(arch.typical_count if arch else 40, TARGET_ROWS // steps))
            if not e.count:
                self.decisions.append(f"count {count} {e.plural}: default (about {count * steps:,} rows)")
            machine = reporter_machine(states, roles, self.catalog, parse_duration(cadence))
            ent.update(table=f"{e.name}_metrics", static_table=e.plural, count=count, attributes=attrs,
                       states=machine, emission={"kind": "periodic", "cadence": cadence})
        cadence_s = parse_duration(ent["emission"]["cadence"]) if ent["emission"]["kind"] == "periodic" else None
        ent["measurements"] = named_directions(self.measurements(e, arch, roles, cadence_s), roles)
        ent["_roles"] = roles
        return ent

    def add_terminal(self, e: EntityDraft, arch: EntityArchetype | None, states: list[str],
                     roles: dict[str, str]) -> dict:
        extra = [s.name for s in arch.states if s.terminal][:2] if arch else []
        extra = extra or ["completed", "cancelled"]
        self.decisions.append(f"{e.name} terminal states {', '.join(extra)}: default (the text names no end state)")
        states = states + [s for s in extra if s not in states]
        roles.update({s: state_role(s, True, self.catalog, 1)[0] for s in extra})
        return lifecycle_machine(states, roles, arch, self.catalog)

    def static_count(self, e: EntityDraft, arch: EntityArchetype | None) -> int:
        children = [x for x in self.draft.entities if e.name in x.parents]
        n = max(10, min(2000, (children[0].count or 400) // 4)) if children else (arch.typical_count if arch else 100)
        self.decisions.append(f"count {n} {e.plural}: default")
        return n


def compose_world(draft: DomainDraft, catalog: Catalog, seed: int = 0) -> tuple[Spec, list[str], list[str]]:
    """(spec, decisions, notes): the spec of the draft; decisions are the defaults taken, notes what
    was adjusted or not understood while composing."""
    c = _Composer(draft, catalog, seed)
    order = list(draft.entities)  # the main entity first: it is what the domain is about
    entities = [c.entity(e) for e in order]
    incidents: list[dict] = []
    told = Described(entities, order, c.archs, c.days, c.horizon_s, seed, draft.description, c.decisions, c.notes)
    for ent, e in zip(entities, order, strict=True):
        roles = told.roles[e.name] = ent.pop("_roles", {})
        noun = e.plural.replace("_", " ")
        arch = c.arch(e)
        if e.kind == "periodic":
            incidents += reporter_incidents(e.name, noun, ent["count"], ent["measurements"], c.archs, catalog,
                                            arch.field if arch and arch.field in c.own else None, c.days, draft.incident_hints
                                            if e is draft.entity else [], c.decisions,
                                            {k[len("incident "):]: v for k, v in draft.evidence.items()
                                             if k.startswith("incident ")})
        elif e.kind == "lifecycle" and c.horizon_s >= 86400:
            attr = next((a for a in ent["attributes"] if a["dist"]["kind"] == "categorical"), None)
            if attr is None:
                continue
            target = {"entity": e.name, "where": [{"attribute": attr["name"], "in": list(attr["dist"]["values"])}]}
            for inc in lifecycle_incidents(e.name, noun, ent["states"], roles, c.days, c.decisions):
                inc["target"] = target
                incidents.append(inc)
    if draft.incidents:  # what the text describes replaces the defaults of its kinds
        incidents = with_described(told.compose([i.model_copy(deep=True) for i in draft.incidents]), incidents,
                                   c.days, c.decisions)
        draft.not_understood += [n for n in c.notes if n.startswith("incident '")]
    seen: set[str] = set()
    for inc in incidents:  # two entity types may share a measurement name: ids stay unique
        if inc["id"] in seen:
            inc["id"] = f"{inc['target']['entity']}_{inc['id']}"
        seen.add(inc["id"])
    spec = {"name": draft.name, "description": draft.description, "seed": seed, "start": "2026-01-01T00:00:00Z",
            "horizon": c.horizon, "entities": entities, "incidents": incidents}
    return Spec.model_validate(spec), c.decisions, c.notes
