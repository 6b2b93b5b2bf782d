"""Resolve the spec's incidents against a world: windows in seconds, target entities by id,
filter or seed, cascades expanded level by level through relations, overlaps checked."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from tools.common.durations import parse_duration, parse_timestamp
from tools.common.seeds import rng_for
from tools.generate.behaviour import condition_mask
from tools.generate.population import Population
from tools.patterns.magnitude import Magnitude, parse_magnitude
from tools.patterns.model import Cascade, CascadeStep, EffectsIncident
from tools.patterns.registry import get_kind
from tools.spec.distributions import ForeignKey
from tools.spec.entity import KEY_SEPARATOR
from tools.spec.errors import SpecError
from tools.spec.model import Spec

INCIDENT_RNG = 7  # purpose code for incident placement, distinct from the generator's


@dataclass
class ResolvedIncident:
    """One injectable incident (a cascade yields one per level)."""

    id: str
    kind: str
    entity_type: str
    entities: np.ndarray              # sorted entity indices of the type
    start: float                      # seconds from the spec start, inclusive
    end: float                        # exclusive
    model: object                     # the kind's parameter model
    effects: dict[str, Magnitude] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    cascade: str | None = None
    root: str | None = None
    level: int = 0
    lag: float = 0.0
    children: list[str] = field(default_factory=list)
    path: str = ""


def labels(pop: Population) -> list[str]:
    """Each entity's name in incidents.json and in questions: its id, or for a composite key (``key_parts``)
    the id and the other key columns joined (``RTR_001/eth2``)."""
    parts = pop.etype.key_parts
    if not parts:
        return list(pop.ids)
    cols = [pop.attrs[c].as_objects() for c in parts]
    return [KEY_SEPARATOR.join([str(x), *(str(c[i]) for c in cols)]) for i, x in enumerate(pop.ids)]


def entity_labels(pops: dict[str, Population]) -> dict[str, list[str]]:
    """``labels`` of every entity type."""
    return {n: labels(p) for n, p in pops.items()}


_DAY = re.compile(r"^day\s+(\d+)(?:\s+(\d{1,2}):(\d{2}))?$", re.I)


def window_seconds(text: str, spec: Spec) -> float:
    """``2026-01-02T06:00Z`` | ``day 2 06:00`` | ``1d6h`` → seconds from the spec start."""
    s = str(text).strip()
    if m := _DAY.match(s):
        day, hh, mm = int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0)
        if day < 1:
            raise ValueError("days count from 1 (day 1 is the first day of the horizon)")
        midnight = spec.start_dt.replace(hour=0, minute=0, second=0, microsecond=0)
        return (midnight.timestamp() + (day - 1) * 86400 + hh * 3600 + mm * 60) - spec.start_dt.timestamp()
    if "T" in s or s[:4].isdigit() and "-" in s:
        return parse_timestamp(s).timestamp() - spec.start_dt.timestamp()
    return parse_duration(s)


def incident_window(inc, spec: Spec) -> tuple[float, float]:
    w = inc.window
    start = window_seconds(w.start, spec)
    end = start + parse_duration(w.duration) if w.duration else window_seconds(w.end, spec)
    return start, end


def _targets(inc, spec: Spec, pops: dict[str, Population], seed: int, path: str) -> np.ndarray:
    t = inc.target
    pop = pops[t.entity]
    if t.ids is not None:
        if pop.etype.key_parts:  # a composite key: a full label (RTR_001/eth2) or an id (all its entities)
            pos: dict[str, list[int]] = {}
            for i, (v, lab) in enumerate(zip(pop.ids, labels(pop), strict=True)):
                pos.setdefault(lab, []).append(i)
                pos.setdefault(v, []).append(i)
        else:
            pos = {v: [i] for i, v in enumerate(pop.ids)}
        missing, names = [i for i in t.ids if i not in pos], labels(pop)
        if missing:
            raise SpecError("spec", [(f"{path}.target.ids", f"no {t.entity} called {', '.join(missing)} "
                                                             f"(ids run {names[0]} .. {names[-1]})")])
        return np.array(sorted({j for i in t.ids for j in pos[i]}), dtype=np.int64)
    ok = np.ones(len(pop.ids), bool)
    for c in t.where or []:
        ok &= condition_mask(c, pop.attrs[c.attribute].as_objects())
    cand = np.flatnonzero(ok)
    if t.random is not None:
        if t.random > cand.size:
            raise SpecError("spec", [(f"{path}.target.random", f"asks for {t.random} entities but only {cand.size} "
                                                                "match; lower it or widen the filter")])
        cand = np.sort(rng_for(seed, f"incident:{inc.id}", INCIDENT_RNG).choice(cand, t.random, replace=False))
    if cand.size == 0:
        raise SpecError("spec", [(f"{path}.target", "matches no entity; widen the filter")])
    return cand.astype(np.int64)


def _follow(step: CascadeStep, prev_type: str, prev: np.ndarray, spec: Spec, pops: dict[str, Population],
            path: str) -> np.ndarray:
    child = spec.entity(step.entity)
    on_child = next((a for a in child.attributes if a.name == step.via), None)
    if on_child is not None and isinstance(on_child.dist, ForeignKey) and on_child.dist.entity == prev_type:
        codes = pops[step.entity].attrs[step.via].codes
        return np.flatnonzero(np.isin(codes, prev)).astype(np.int64)
    parent = spec.entity(prev_type)
    on_prev = next((a for a in parent.attributes if a.name == step.via), None)
    if on_prev is not None and isinstance(on_prev.dist, ForeignKey) and on_prev.dist.entity == step.entity:
        return np.unique(pops[prev_type].attrs[step.via].codes[prev]).astype(np.int64)
    raise SpecError("spec", [(f"{path}.via", f"'{step.via}' is not a foreign key between '{prev_type}' and "
                                              f"'{step.entity}'; name the foreign_key attribute that links them")])


def _resolved(inc, spec, pops, seed, path, **extra) -> ResolvedIncident:
    start, end = incident_window(inc, spec)
    effects = {k: parse_magnitude(v) for k, v in getattr(inc, "effects", {}).items()}
    keys = list(effects) or list(getattr(inc, "keys", []))
    return ResolvedIncident(inc.id, inc.kind, inc.target.entity, _targets(inc, spec, pops, seed, path), start, end,
                            inc, effects, keys, path=path, **extra)


def _crowd(inc: ResolvedIncident, spec: Spec, pops: dict[str, Population], seed: int) -> None:
    """A surge on arriving entities (flash_crowd): ``surge`` times the window's usual arrivals are
    added as new entities (copies of random targets, so their attributes follow the same mix)."""
    pop = pops[inc.entity_type]
    arrival = pop.etype.arrival
    base = pop.unit_t0[: pop.base_units]
    cand_units = np.isin(pop.unit_entity[: pop.base_units], inc.entities)
    usual = int(np.sum(cand_units & (base >= inc.start) & (base < inc.end)))
    extra = int(round(parse_magnitude(inc.model.surge).value * usual))
    rng = rng_for(seed, f"incident:{inc.id}", INCIDENT_RNG, 1)
    source = rng.choice(inc.entities, size=extra, replace=True)
    t0 = rng.integers(int(inc.start), int(inc.end), extra)
    t1 = np.minimum(t0 + int(parse_duration(arrival.max_duration)), int(spec.horizon_seconds))
    inc.entities = pop.add_entities(source, t0, t1)


def resolve_incidents(spec: Spec, pops: dict[str, Population], seed: int) -> list[ResolvedIncident]:
    """Every incident of the spec, cascades flattened (root first), overlaps checked. Flash crowds on
    arriving entities (kinds that add arrivals) add their entities to ``pops`` (after the original ones)."""
    out: list[ResolvedIncident] = []
    for i, inc in enumerate(spec.incidents):
        path = f"incidents[{i}]"
        if not isinstance(inc, Cascade):
            out.append(_resolved(inc, spec, pops, seed, path))
            if get_kind(inc.kind).adds_arrivals and not inc.keys and pops[inc.target.entity].etype.arrival:
                _crowd(out[-1], spec, pops, seed)
            continue
        root = _resolved(inc.root, spec, pops, seed, f"{path}.root", cascade=inc.id)
        out.append(root)
        prev_type, prev, lag = root.entity_type, root.entities, 0.0
        for k, step in enumerate(inc.children, start=1):
            lag += parse_duration(step.lag)
            ents = _follow(step, prev_type, prev, spec, pops, f"{path}.children[{k - 1}]")
            scaled = {key: _attenuate(parse_magnitude(v), step.attenuation) for key, v in step.effects.items()}
            child = ResolvedIncident(f"{root.id}.{k}", "kpi_degradation", step.entity, ents, root.start + lag,
                                     root.end + lag, step, scaled, list(scaled), cascade=inc.id, root=root.id,
                                     level=k, lag=lag, path=f"{path}.children[{k - 1}]")
            out.append(child)
            root.children.append(child.id)
            prev_type, prev = step.entity, ents
    _check_overlaps(out, spec)
    return out


def _attenuate(m: Magnitude, factor: float) -> Magnitude:
    return Magnitude(m.value * factor, m.unit)


def _check_overlaps(incs: list[ResolvedIncident], spec: Spec) -> None:
    horizon = spec.horizon_seconds
    problems = []
    for a in incs:
        if not (0 <= a.start < a.end <= horizon + 1e-6):
            problems.append((a.path + ".window", f"window [{a.start:.0f}s, {a.end:.0f}s) from the start must lie "
                                                  f"inside the horizon ({spec.horizon})"))
    for j, b in enumerate(incs):
        for a in incs[:j]:
            if a.entity_type != b.entity_type or not (a.start < b.end and b.start < a.end):
                continue
            shared_keys = set(a.keys) & set(b.keys)
            outage = any(get_kind(k) is not None and get_kind(k).removes_rows for k in (a.kind, b.kind))
            if not shared_keys and not outage:
                continue
            if np.intersect1d(a.entities, b.entities).size and getattr(b.model, "compose", "reject") != "add":
                what = ", ".join(sorted(shared_keys)) or "all rows"
                problems.append((b.path, f"overlaps incident '{a.id}' on the same entities and {what}; move the "
                                         "window, pick other entities, or set compose: add to stack the effects"))
    if problems:
        raise SpecError("spec", problems)


__all__ = ["EffectsIncident", "ResolvedIncident", "incident_window", "resolve_incidents", "window_seconds"]
