"""Rows of one shard: periodic ticks or one row per state entry, with states, flags and values."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from tools.common.durations import parse_duration
from tools.generate.behaviour import Behaviour
from tools.generate.measure import compute_measurements
from tools.generate.population import Population
from tools.generate.sampling import Column
from tools.generate.simulate import Segments, ever_in, simulate, state_at


def _terminal_end(seg: Segments, behaviour: Behaviour | None, n_units: int, t1: np.ndarray,
                  cadence: int) -> np.ndarray:
    """A unit that enters a terminal state stops reporting: its last row is the first tick at or
    after the terminal entry (so the terminal state is visible once)."""
    if behaviour is None or not behaviour.terminal.any() or seg.unit.size == 0:
        return t1
    last = np.r_[seg.unit[1:] != seg.unit[:-1], True]
    ended = last & behaviour.terminal[seg.state]
    out = t1.copy()
    u, t = seg.unit[ended], seg.t[ended]
    out[u] = np.minimum(out[u], -(-t // cadence) * cadence + 1)
    return out


def _periodic_rows(t0: np.ndarray, t1: np.ndarray, cadence: int) -> tuple[np.ndarray, np.ndarray]:
    """Shard-local unit and time of every tick ``k * cadence`` in ``[t0, t1)``."""
    k0 = -(-t0 // cadence)
    n = np.maximum(-(-t1 // cadence) - k0, 0)
    local = np.repeat(np.arange(t0.size), n)
    starts = np.cumsum(n) - n
    pos = np.arange(local.size) - starts[local]
    return local, (k0[local] + pos) * cadence


def label_array(codes: np.ndarray, labels: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A dictionary-encoded string column (fast to build and to write)."""
    if len(labels) and len(set(labels)) < len(labels):  # shared ids (IdSpec.values): one dictionary entry each
        labels, inverse = np.unique(np.asarray(labels, dtype=object).astype(str), return_inverse=True)
        codes = inverse[codes]
    idx = pa.array(codes.astype(np.int32), mask=None if valid is None else ~valid)
    return pa.DictionaryArray.from_arrays(idx, pa.array(list(labels), pa.string()))


def _column(col: Column, entity: np.ndarray) -> pa.Array:
    if col.is_label:
        return label_array(col.codes[entity], col.labels)
    return pa.array(col.values[entity])


def shard_table(pop: Population, behaviour: Behaviour | None, units: np.ndarray, start_epoch: float,
                rng_sim: np.random.Generator, rng_emit: np.random.Generator, injector=None,
                rng_incident: np.random.Generator | None = None) -> pa.Table:
    """Simulate the units of one shard and return its rows as an Arrow table (entity-major order).

    ``injector`` applies incidents (value changes, outages) using only ``rng_incident``."""
    e = pop.etype
    em = e.emission
    assert em is not None
    if behaviour is not None:
        seg = simulate(behaviour, behaviour.unit_group[units], pop.unit_t0[units], pop.unit_t1[units], rng_sim,
                       pop.unit_entity[units], rng_incident)
    else:
        seg = Segments(np.arange(units.size), np.zeros(units.size, np.int32), pop.unit_t0[units])
    if em.kind == "periodic":
        cadence = int(round(parse_duration(em.cadence)))
        t1 = _terminal_end(seg, behaviour, units.size, pop.unit_t1[units], cadence)
        local, t = _periodic_rows(pop.unit_t0[units], t1, cadence)
        state = state_at(seg, local, t) if behaviour is not None else None
    else:
        local, t, state = seg.unit, seg.t, seg.state
    entity = pop.unit_entity[units][local]
    rows = {"units": units, "local": local, "entity": entity, "t": t, "state": state, "attrs": pop.attrs}
    if injector is not None:
        injector.note_rows(e.name, entity, t)
    values = compute_measurements(pop, rows, rng_emit, start_epoch, injector, rng_incident)
    keep = None
    if em.missing_rate > 0:
        keep = rng_emit.random(t.size) >= em.missing_rate
    if injector is not None and (outage := injector.keep_rows(e.name, entity, t)) is not None:
        keep = outage if keep is None else keep & outage
    jitter = int(round(parse_duration(em.jitter)))
    if jitter > 0:
        t = t + rng_emit.integers(0, jitter, t.size)
    cols: dict[str, pa.Array] = {}
    ids = pop.ids
    uniq_ent, unit_ent_local = np.unique(pop.unit_entity[units], return_inverse=True)
    cols[e.id.column] = label_array(unit_ent_local[local], ids[uniq_ent])
    for a in e.attributes:
        if a.in_rows:
            cols[a.name] = _column(pop.attrs[a.name], entity)
    sm = e.states
    if sm is not None:
        names = np.array(list(sm.states), dtype=object)
        if sm.column:
            cols[sm.column] = label_array(state, names)
        for col, mapping in sm.derived_columns.items():
            labels = list(dict.fromkeys(v for v in mapping.values() if v is not None))
            code = np.array([labels.index(mapping[s]) if mapping.get(s) is not None else -1 for s in names])
            c = code[state]
            cols[col] = label_array(np.maximum(c, 0), np.array(labels or [""], dtype=object), c >= 0)
        for col, flag in sm.flags.items():
            flags = ever_in(seg, units.size, [list(sm.states).index(s) for s in flag.ever_in])
            cols[col] = pa.array(flags[local].astype(np.int64))
    for name, (v, is_int) in values.items():
        finite = np.isfinite(v)
        if is_int:
            cols[name] = pa.array(np.where(finite, v, 0).astype(np.int64), mask=None if finite.all() else ~finite)
        else:
            cols[name] = pa.array(v, mask=None if finite.all() else ~finite)
    if e.exemplar_column:
        labels = np.array(["base", *[x.name for x in pop.exemplars]], dtype=object)
        cols[e.exemplar_column] = label_array(pop.unit_exemplar[units][local] + 1, labels)
    cols[em.timestamp_column] = pa.array(((start_epoch + t) * 1_000_000).astype(np.int64), pa.timestamp("us", "UTC"))
    table = pa.table(cols)
    return table.filter(pa.array(keep)) if keep is not None else table


def static_table(pop: Population, n: int | None = None) -> pa.Table:
    """One row per entity (the first ``n`` when given): the id and its emitted attributes."""
    e = pop.etype
    idx = np.arange(len(pop.ids) if n is None else n)
    cols = {e.id.column: pa.array(list(pop.ids[idx]), pa.string())}
    for a in e.attributes:
        if a.in_static:
            col = pop.attrs[a.name]
            cols[a.name] = pa.array(list(col.labels[col.codes[idx]]), pa.string()) if col.is_label \
                else pa.array(col.values[idx])
    return pa.table(cols)
