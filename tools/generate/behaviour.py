"""Behaviour groups: each unit's transition matrix and dwell times after exemplar and
attribute-conditioned overrides, packed into arrays for the vectorized simulator."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tools.common.conditions import Condition
from tools.common.durations import parse_duration
from tools.generate.population import Population
from tools.generate.sampling import dwell_params
from tools.spec.entity import StateMachine


@dataclass
class Behaviour:
    """Arrays indexed [group, state(, next state)] plus per-unit group ids."""

    states: list[str]
    initial: np.ndarray          # [S]
    terminal: np.ndarray         # [S] bool
    cum: np.ndarray              # [G, S, S] cumulative transition probabilities
    dwell_kind: np.ndarray       # [G, S]
    dwell_p1: np.ndarray         # [G, S]
    dwell_p2: np.ndarray         # [G, S]
    timeout_after: np.ndarray    # [S] seconds, inf when none
    timeout_to: np.ndarray       # [S]
    unit_group: np.ndarray       # [units]
    shifts: list[Shift] = field(default_factory=list)


@dataclass
class Shift:
    """A time-limited behaviour change (a behavior_shift incident) for some entities."""

    entity_mask: np.ndarray      # [entities] bool
    start: float
    end: float
    cum: np.ndarray              # [G, S, S]
    dwell_kind: np.ndarray       # [G, S]
    dwell_p1: np.ndarray
    dwell_p2: np.ndarray


def condition_mask(c: Condition, values: np.ndarray) -> np.ndarray:
    """Which entities satisfy a condition on one attribute (values as Python objects)."""
    if c.equals is not None:
        return values == c.equals
    if c.in_ is not None:
        return np.isin(values, np.array(c.in_, dtype=object))
    v = values.astype(float)
    for op, ref in (("gt", c.gt), ("ge", c.ge), ("lt", c.lt), ("le", c.le)):
        if ref is not None:
            return {"gt": v > ref, "ge": v >= ref, "lt": v < ref, "le": v <= ref}[op]
    raise ValueError("empty condition")


def _matrix(sm: StateMachine, idx: dict[str, int], rows_list: list[dict]) -> np.ndarray:
    s = len(idx)
    p = np.zeros((s, s))
    for rows in rows_list:
        for src, row in rows.items():
            p[idx[src]] = 0
            for dst, prob in row.items():
                p[idx[src], idx[dst]] = prob
    for t in sm.terminal:
        p[idx[t], idx[t]] = 1.0
    return p / p.sum(axis=1, keepdims=True).clip(min=1e-300)


def add_shift(b: Behaviour, pop: Population, entities: np.ndarray, start: float, end: float,
              transitions: dict, dwell: dict) -> None:
    """Register a behaviour change: every group's rows/dwell replaced by the given ones in [start, end)."""
    idx = {s: i for i, s in enumerate(b.states)}
    cum = b.cum.copy()
    kind, p1, p2 = b.dwell_kind.copy(), b.dwell_p1.copy(), b.dwell_p2.copy()
    for src, row in transitions.items():
        p = np.zeros(len(idx))
        for dst, prob in row.items():
            p[idx[dst]] = prob
        cum[:, idx[src]] = np.cumsum(p / p.sum())
    for st, d in dwell.items():
        kind[:, idx[st]], p1[:, idx[st]], p2[:, idx[st]] = dwell_params(d)
    mask = np.zeros(len(pop.ids), bool)
    mask[entities] = True
    b.shifts.append(Shift(mask, start, end, cum, kind, p1, p2))


def build_behaviour(pop: Population) -> Behaviour:
    """Resolve each unit's behaviour group: (exemplar, matching overrides) → matrices."""
    sm = pop.etype.states
    assert sm is not None
    states = list(sm.states)
    idx = {s: i for i, s in enumerate(states)}
    n_states = len(states)
    init = np.zeros(n_states)
    for s, w in ({sm.initial: 1.0} if isinstance(sm.initial, str) else sm.initial).items():
        init[idx[s]] = w
    masks = np.zeros(pop.n_units, np.int64)
    for k, o in enumerate(sm.overrides):
        ok = np.ones(len(pop.ids), bool)
        for c in o.when:
            ok &= condition_mask(c, pop.attrs[c.attribute].as_objects())
        masks |= ok[pop.unit_entity].astype(np.int64) << k
    key = (pop.unit_exemplar.astype(np.int64) + 1) << len(sm.overrides) | masks
    uniq, unit_group = np.unique(key, return_inverse=True)
    g = len(uniq)
    cum = np.zeros((g, n_states, n_states))
    kind, p1, p2 = np.zeros((g, n_states), np.int8), np.zeros((g, n_states)), np.zeros((g, n_states))
    for gi, kv in enumerate(uniq):
        ex = int(kv >> len(sm.overrides)) - 1
        rows_list = [sm.transitions]
        dwell = {s: d.dwell for s, d in sm.states.items() if d.dwell is not None}
        for k, o in enumerate(sm.overrides):
            if kv >> k & 1:
                rows_list.append(o.transitions)
                dwell |= o.dwell
        if ex >= 0:  # a named behaviour is the most specific statement, so it wins over overrides
            rows_list.append(pop.exemplars[ex].transitions)
            dwell |= pop.exemplars[ex].dwell
        cum[gi] = np.cumsum(_matrix(sm, idx, rows_list), axis=1)
        for s, d in dwell.items():
            kind[gi, idx[s]], p1[gi, idx[s]], p2[gi, idx[s]] = dwell_params(d)
    after = np.full(n_states, np.inf)
    to = np.zeros(n_states, np.int64)
    for s, t in sm.timeouts.items():
        after[idx[s]], to[idx[s]] = parse_duration(t.after), idx[t.to]
    terminal = np.zeros(n_states, bool)
    terminal[[idx[t] for t in sm.terminal]] = True
    return Behaviour(states, init / init.sum(), terminal, cum, kind, p1, p2, after, to,
                     unit_group.astype(np.int32))
