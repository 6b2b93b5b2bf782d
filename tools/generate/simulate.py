"""Vectorized semi-Markov simulation: all units of a shard advance one transition per step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tools.generate.behaviour import Behaviour
from tools.generate.sampling import dwell_from_uniform


@dataclass
class Segments:
    """State entries sorted by (unit, time): unit is shard-local, times in whole seconds."""

    unit: np.ndarray
    state: np.ndarray
    t: np.ndarray


def simulate(b: Behaviour, group: np.ndarray, t0: np.ndarray, t1: np.ndarray,
             rng: np.random.Generator, entity: np.ndarray | None = None,
             rng_shift: np.random.Generator | None = None) -> Segments:
    """Run every unit from ``t0`` until ``t1`` (exclusive) or a terminal state.

    Dwell times are rounded to whole seconds (at least one), so event timestamps are distinct and
    ordered within a unit. The loop runs once per transition, never once per row. Behaviour shifts
    (``b.shifts``, needing each unit's ``entity``) redraw the affected units' dwell and next state
    from ``rng_shift`` after the normal draws, so every other unit sees exactly the same numbers as
    in a world without the shift; a targeted unit whose dwell spans the shift's start is cut there
    (no new row) and continues under the shift.
    """
    n = len(t0)
    state = rng.choice(len(b.states), size=n, p=b.initial) if n else np.zeros(0, np.int64)
    t = t0.astype(np.int64).copy()
    active = np.arange(n)
    out_u, out_s, out_t = [], [], []
    cum_last = b.cum.shape[2] - 1
    silent = np.zeros(n, bool)  # a dwell cut at a shift's start continues without a new entry row
    while active.size:
        s = state[active]
        rec = ~silent[active]
        out_u.append(active[rec])
        out_s.append(s[rec])
        out_t.append(t[active][rec])
        silent[active] = False
        live = ~b.terminal[s]
        active, s = active[live], s[live]
        if not active.size:
            break
        g = group[active]
        draws = rng.random((2, n))[:, active]  # a fixed amount per step: units never shift each other's draws
        dwell = dwell_from_uniform(b.dwell_kind[g, s], b.dwell_p1[g, s], b.dwell_p2[g, s], draws[0])
        nxt = np.minimum((draws[1][:, None] >= b.cum[g, s]).sum(axis=1), cum_last)
        for sh in b.shifts:
            hit = sh.entity_mask[entity[active]] & (t[active] >= sh.start) & (t[active] < sh.end)
            if hit.any():
                gh, sh_s = g[hit], s[hit]
                uh = rng_shift.random((2, int(hit.sum())))
                dwell[hit] = dwell_from_uniform(sh.dwell_kind[gh, sh_s], sh.dwell_p1[gh, sh_s], sh.dwell_p2[gh, sh_s],
                                                uh[0])
                uh = uh[1]
                nxt[hit] = np.minimum((uh[:, None] >= sh.cum[gh, sh_s]).sum(axis=1), cum_last)
        dwell = np.maximum(np.rint(dwell), 1)
        timed_out = dwell >= b.timeout_after[s]  # whole seconds: reaching the timeout fires it
        dwell = np.where(timed_out, np.rint(b.timeout_after[s]), dwell)
        nxt = np.where(timed_out, b.timeout_to[s], nxt)
        new_t = t[active] + dwell.astype(np.int64)
        for sh in b.shifts:  # a dwell that spans a shift's start is cut there and redrawn under the shift
            cross = sh.entity_mask[entity[active]] & (t[active] < sh.start) & (new_t > sh.start)
            if cross.any():
                new_t[cross] = int(np.ceil(sh.start))
                nxt[cross] = s[cross]
                silent[active[cross]] = True
        t[active] = new_t
        keep = t[active] < t1[active]
        active = active[keep]
        state[active] = nxt[keep]
    unit, st, tt = (np.concatenate(x) if x else np.zeros(0, np.int64) for x in (out_u, out_s, out_t))
    order = np.argsort(unit, kind="stable")
    return Segments(unit[order], st[order].astype(np.int32), tt[order])


def state_at(seg: Segments, unit: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The state each (unit, time) query point is in (the last entry at or before ``t``)."""
    if seg.unit.size == 0:
        return np.zeros(len(unit), np.int32)
    width = int(max(seg.t.max(), t.max() if t.size else 0)) + 1
    seg_key = seg.unit.astype(np.int64) * width + seg.t
    q_key = unit.astype(np.int64) * width + t
    pos = np.searchsorted(seg_key, q_key, side="right") - 1
    return seg.state[np.maximum(pos, 0)]


def ever_in(seg: Segments, n_units: int, states: list[int]) -> np.ndarray:
    """0/1 per unit: did its trajectory ever enter one of ``states``."""
    out = np.zeros(n_units, np.int8)
    out[seg.unit[np.isin(seg.state, states)]] = 1
    return out
