"""Entity populations: ids, static attributes, foreign keys, exemplar and epoch assignment.

A *unit* is one simulated trajectory: an entity over its lifetime, or (for long-lived entities
with epochs) an entity within one epoch. Times are whole seconds from the spec start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tools.common.durations import parse_duration
from tools.common.seeds import POPULATION, rng_for
from tools.generate.sampling import Column, sample_attribute
from tools.spec.distributions import ForeignKey, ParentAttribute
from tools.spec.entity import EntityType
from tools.spec.model import Exemplar, Spec


@dataclass
class Population:
    """Everything about one entity type that is decided before simulation."""

    etype: EntityType
    ids: np.ndarray
    attrs: dict[str, Column]
    exemplars: list[Exemplar]
    unit_entity: np.ndarray
    unit_t0: np.ndarray
    unit_t1: np.ndarray
    unit_exemplar: np.ndarray
    epochs: list[str] = field(default_factory=list)
    unit_epoch: np.ndarray | None = None
    n_base_units: int | None = None       # units beyond this were added by incidents (flash crowds)
    n_base_entities: int | None = None

    @property
    def n_units(self) -> int:
        return int(self.unit_entity.shape[0])

    @property
    def base_units(self) -> int:
        return self.n_units if self.n_base_units is None else self.n_base_units

    @property
    def base_entities(self) -> int:
        return len(self.ids) if self.n_base_entities is None else self.n_base_entities

    def add_entities(self, source: np.ndarray, t0: np.ndarray, t1: np.ndarray) -> np.ndarray:
        """Append copies of the ``source`` entities (attributes, exemplar) as new entities with one unit
        each starting at ``t0``; returns the new entity indices. The existing ones are unchanged."""
        if self.n_base_units is None:
            self.n_base_units, self.n_base_entities = self.n_units, len(self.ids)
        first = len(self.ids)
        new = np.arange(first, first + source.size)
        self.ids = np.concatenate([self.ids, np.array([self.etype.id.format.format(i=i) for i in new], dtype=object)])
        for name, col in self.attrs.items():
            extra = col.take(source)
            self.attrs[name] = (Column(codes=np.concatenate([col.codes, extra.codes]), labels=col.labels)
                                if col.is_label else Column(values=np.concatenate([col.values, extra.values])))
        ex_of_entity = entity_exemplars(self.unit_entity, self.unit_exemplar, first)
        self.unit_entity = np.concatenate([self.unit_entity, new])
        self.unit_t0 = np.concatenate([self.unit_t0, t0.astype(np.int64)])
        self.unit_t1 = np.concatenate([self.unit_t1, t1.astype(np.int64)])
        self.unit_exemplar = np.concatenate([self.unit_exemplar, ex_of_entity[source]])
        if self.unit_epoch is not None:
            self.unit_epoch = np.concatenate([self.unit_epoch, np.full(source.size, -1, np.int32)])
        return new


def entity_exemplars(unit_entity: np.ndarray, unit_exemplar: np.ndarray, n_entities: int) -> np.ndarray:
    """Each entity's exemplar: that of its first unit (-1 for the plain type)."""
    out = np.full(n_entities, -1, np.int32)
    out[unit_entity[::-1]] = unit_exemplar[::-1]
    return out


def scaled(n: int, scale: float) -> int:
    """Entity counts under ``--scale`` (never below one)."""
    return max(1, int(round(n * scale)))


def largest_remainder(weights: list[float], n: int) -> np.ndarray:
    """Split ``n`` into integer shares as close as possible to ``weights`` (which sum to 1)."""
    raw = np.array(weights, dtype=float) * n
    out = np.floor(raw).astype(int)
    rest = n - out.sum()
    order = np.argsort(-(raw - out), kind="stable")
    out[order[:rest]] += 1
    return out


def _arrival_times(lo: int, hi: int, n: int, hourly: list[float] | None, start_epoch: int,
                   rng: np.random.Generator) -> np.ndarray:
    """Start times in [lo, hi) seconds from the spec start, with an intensity that is constant
    within each UTC hour of the day (bins aligned to UTC hours, whatever the start time)."""
    if not hourly:
        return rng.integers(lo, hi, n)
    first = ((start_epoch + lo) // 3600) * 3600
    edges_abs = np.arange(first, start_epoch + hi + 3600, 3600)
    edges = edges_abs - start_epoch
    a, b = np.maximum(edges[:-1], lo), np.minimum(edges[1:], hi)
    hours = ((edges_abs[:-1] // 3600) % 24).astype(int)
    w = np.array(hourly)[hours] * np.maximum(b - a, 0)
    pick = rng.choice(len(w), size=n, p=w / w.sum())
    return (a[pick] + rng.random(n) * (b[pick] - a[pick])).astype(np.int64)


def _draw_attributes(e: EntityType, n: int, ex_of_entity: np.ndarray, exemplars: list[Exemplar],
                     parents: dict[str, Population], rng: np.random.Generator) -> dict[str, Column]:
    attrs: dict[str, Column] = {}
    for a in e.attributes:
        d = a.dist
        if isinstance(d, ForeignKey):
            parent = parents[d.entity]
            w = None
            if d.weight_by:
                w = np.maximum(parent.attrs[d.weight_by].values.astype(float), 0)
                w = w / w.sum()
            if d.counts and sum(d.counts[:len(parent.ids)]) > 0:  # children per parent as given
                c = np.array(d.counts[:len(parent.ids)], dtype=float)
                share = largest_remainder(list(c / c.sum()), n)
                codes = rng.permutation(np.repeat(np.arange(c.size), share)).astype(np.int32)
                attrs[a.name] = Column(codes=codes, labels=parent.ids)
                continue
            attrs[a.name] = Column(codes=rng.choice(len(parent.ids), size=n, p=w).astype(np.int32),
                                   labels=parent.ids)
            continue
        if isinstance(d, ParentAttribute):
            fk = next(x.dist for x in e.attributes if x.name == d.via)
            attrs[a.name] = parents[fk.entity].attrs[d.attribute].take(attrs[d.via].codes)
            continue
        col = sample_attribute(d, n, rng)
        for k, x in enumerate(exemplars):
            if a.name in x.attributes and (m := ex_of_entity == k).any():
                sub = sample_attribute(x.attributes[a.name], int(m.sum()), rng)
                col = _overlay(col, sub, m)
        attrs[a.name] = col
    return attrs


def _overlay(col: Column, sub: Column, mask: np.ndarray) -> Column:
    if col.is_label or sub.is_label:
        labels = np.array(list(dict.fromkeys([*(col.labels if col.is_label else []),
                                              *(sub.labels if sub.is_label else [])])), dtype=object)
        pos = {v: i for i, v in enumerate(labels)}
        base = np.array([pos[v] for v in col.labels], np.int32)[col.codes]
        base[mask] = np.array([pos[v] for v in sub.labels], np.int32)[sub.codes]
        return Column(codes=base, labels=labels)
    out = col.values.astype(np.result_type(col.values, sub.values)).copy()
    out[mask] = sub.values
    return Column(values=out)


def build_population(spec: Spec, e: EntityType, seed: int, scale: float,
                     parents: dict[str, Population]) -> Population:
    """Ids, attributes and units of one entity type (parents must be built first)."""
    rng = rng_for(seed, e.name, POPULATION)
    horizon = int(round(spec.horizon_seconds))
    exemplars = [x for x in spec.exemplars if x.entity == e.name]
    epochs = [ep for ep in spec.epochs if ep.entity == e.name]
    start_epoch = int(spec.start_dt.timestamp())
    arrival = e.arrival
    unit_ex: list[np.ndarray] = []
    unit_t0: list[np.ndarray] = []
    unit_ent: list[np.ndarray] = []
    unit_ep: list[np.ndarray] = []
    if epochs:
        n_entities = scaled(e.count, scale) if arrival is None else 0
        order = rng.permutation(max(n_entities, 1))
        for j, ep in enumerate(epochs):
            k = scaled(ep.count, scale)
            lo, hi = int(parse_duration(ep.start)), int(parse_duration(ep.end))
            names = list(ep.blend)
            shares = largest_remainder([ep.blend[nm] for nm in names], k)
            codes = np.repeat([-1 if nm == "base" else [x.name for x in exemplars].index(nm) for nm in names], shares)
            unit_ex.append(rng.permutation(codes).astype(np.int32))
            unit_ep.append(np.full(k, j, np.int32))
            if arrival is None:
                if k > n_entities:
                    k = n_entities
                    unit_ex[-1], unit_ep[-1] = unit_ex[-1][:k], unit_ep[-1][:k]
                unit_ent.append(np.sort(order[:k]))
                unit_t0.append(np.full(k, lo, np.int64))
            else:
                unit_ent.append(np.arange(n_entities, n_entities + k))
                n_entities += k
                unit_t0.append(_arrival_times(lo, hi, k, arrival.hourly_weights, start_epoch, rng))
        ends = [int(parse_duration(ep.end)) for ep in epochs]
        ep_idx = np.concatenate(unit_ep)
        t1 = np.array(ends, np.int64)[ep_idx] if arrival is None else None
    else:
        n_entities = scaled(e.count, scale)
        codes = np.full(n_entities, -1, np.int32)
        perm, at = rng.permutation(n_entities), 0
        for k, x in enumerate(exemplars):
            c = min(scaled(x.count, scale) if x.count else 0, n_entities - at)
            codes[perm[at:at + c]] = k
            at += c
        unit_ex, unit_ent, ep_idx = [codes], [np.arange(n_entities)], None
        t0 = np.zeros(n_entities, np.int64) if arrival is None else \
            _arrival_times(0, horizon, n_entities, arrival.hourly_weights, start_epoch, rng)
        unit_t0, t1 = [t0], (np.full(n_entities, horizon, np.int64) if arrival is None else None)
    u_ex, u_ent, u_t0 = np.concatenate(unit_ex), np.concatenate(unit_ent).astype(np.int64), np.concatenate(unit_t0)
    if arrival is not None:
        cap = np.full(len(u_ex), int(parse_duration(arrival.max_duration)), np.int64)
        t1 = u_t0 + cap
        if epochs:
            t1 = np.minimum(t1, np.array([int(parse_duration(ep.end)) for ep in epochs])[ep_idx])
    for k, x in enumerate(exemplars):
        if x.duration:
            m = u_ex == k
            t1[m] = np.minimum(t1[m], u_t0[m] + int(parse_duration(x.duration)))
    t1 = np.minimum(t1, horizon)
    ex_of_entity = entity_exemplars(u_ent, u_ex, n_entities)  # decides exemplar attribute overrides
    attrs = _draw_attributes(e, n_entities, ex_of_entity, exemplars, parents, rng)
    by = attrs.get(e.id.formats_by) if e.id.formats else None  # per-label formats: no draws, same bytes without
    ids = e.id.ids(n_entities, by.as_objects() if by is not None else None)
    return Population(e, ids, attrs, exemplars, u_ent, u_t0, t1.astype(np.int64), u_ex,
                      [ep.name for ep in epochs], ep_idx)
