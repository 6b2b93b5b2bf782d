"""pandas reference for the event-sequence templates (stateful family, first half; conversion_rate and
count_in_state in ``sequences_rates.py``).

Every entity's WHOLE stream (entity filter applied, never the window) is replayed in (entity, time)
order; the window then selects which anchor events count, by their time (half-open). Events are
row predicates (``{"column", "op", "value"}``): a row "is an A event" when predicate ``a`` holds
(nulls never do). Time is compared in integer microseconds (as DuckDB's ``epoch_us``), and every
step is vectorized numpy over the sorted stream (no loops over rows or entities).

Written independently of ``tools/queries/sql/sequences.py``: no SQL here.
"""

from __future__ import annotations

import json
import weakref
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, entity_rows, mask, state_labels
from tools.queries.spec import Predicate, QuerySpec

NONE = np.iinfo(np.int64).max  # "no such time" in per-entity time arrays
NULL_STATE = "<null>"  # the state of rows whose state column is null
_MASKS, _CODES, _SUBSETS = 16, 4, 8  # per-table cache sizes (10M rows: 10 MB a mask, 40 MB a code array)


def frozen(a: np.ndarray) -> np.ndarray:
    """The array, made read-only (cached arrays are shared between queries)."""
    a.flags.writeable = False
    return a


def _lru(d: OrderedDict, key, make, limit: int):
    if key in d:
        d.move_to_end(key)
        return d[key]
    d[key] = v = make()
    while len(d) > limit:
        d.popitem(last=False)
    return v


class TableArrays:
    """One table in (entity, time) order and the arrays every query on it reuses: entity numbers,
    microsecond times, and (bounded caches of) predicate masks, state codes and entity subsets.
    Built once per Frames object and table, so repeated evaluations stay vectorized and cheap."""

    def __init__(self, frames: Frames, table: str, entity: str, time: str):
        self.df = frames.ordered(table, entity, time)  # never mutated
        col = self.df[entity]
        # a category's codes compare as its values (and fast); a null id starts a group of its own
        ent = col.cat.codes.to_numpy() if isinstance(col.dtype, pd.CategoricalDtype) else col.to_numpy()
        first = np.ones(len(ent), dtype=bool)
        if len(ent) > 1:
            first[1:] = np.asarray(ent[1:] != ent[:-1], dtype=bool)
            if isinstance(col.dtype, pd.CategoricalDtype):
                first |= ent < 0
        self.gid = frozen(np.cumsum(first) - 1)
        self.gstart = frozen(np.flatnonzero(first)[self.gid] if len(ent) else self.gid.copy())
        self.n_groups = int(first.sum())
        self.t = frozen(self.df[time].dt.as_unit("us").astype("int64").to_numpy(copy=True))
        self._masks: OrderedDict = OrderedDict()
        self._codes: OrderedDict = OrderedDict()
        self._subsets: OrderedDict = OrderedDict()

    def mask(self, p: dict) -> np.ndarray:
        """Rows where predicate ``p`` holds (nulls never do)."""
        return _lru(self._masks, json.dumps(p, sort_keys=True),
                    lambda: frozen(mask(self.df, Predicate.model_validate(p))), _MASKS)

    def codes(self, state: dict) -> tuple[np.ndarray, list]:
        """Per-row state codes (null is a state of its own) and the state of each code."""
        def make():
            if "predicate" in state:  # "in" where the predicate holds, else "out" (as frames.state_labels)
                return frozen(self.mask(state["predicate"]).astype(np.int32)), ["out", "in"]
            lab = state_labels(self.df, state).fillna(NULL_STATE)
            c, uniques = pd.factorize(lab)
            return frozen(c.astype(np.int32)), [str(u) for u in uniques]
        return _lru(self._codes, json.dumps(state, sort_keys=True), make, _CODES)

    def subset(self, frames: Frames, q: QuerySpec) -> np.ndarray | None:
        """Positions of the rows the entity filter keeps (None: every row)."""
        if q.entity_filter is None:
            return None
        return _lru(self._subsets, q.entity_filter.model_dump_json(),
                    lambda: entity_rows(frames, q).index.to_numpy(), _SUBSETS)


_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Stream:
    """One query's entity-filtered rows in (entity, time) order (whole history)."""

    tab: TableArrays
    pos: np.ndarray | None  # positions in ``tab`` (None: all rows)
    gid: np.ndarray  # entity number per row (numbers of filtered-out entities are unused)
    gstart: np.ndarray  # position (in this stream) of the entity's first row, per row
    t: np.ndarray  # int64 microseconds since the epoch
    n_groups: int

    def take(self, a: np.ndarray) -> np.ndarray:
        return a if self.pos is None else a[self.pos]

    def column(self, name: str) -> pd.Series:
        df = self.tab.df
        return df[name] if self.pos is None else df[name].iloc[self.pos]


def check_spec(q: QuerySpec) -> None:
    """Stateful sequence templates take their events from ``params``: reject the parts they ignore."""
    if q.event_filter or q.while_ is not None or q.group_by is not None:
        raise ValueError(f"{q.template} takes no event_filter, while or group_by")


def micros(value) -> int:
    """An ISO-8601 instant in microseconds since the epoch."""
    return int(pd.Timestamp(value).value) // 1000  # .value is always nanoseconds


def stream(frames: Frames, q: QuerySpec) -> Stream:
    """The entity-filtered stream of ``q``'s table, whole history, in (entity, time) order."""
    check_spec(q)
    per = _TABLES.setdefault(frames, {})
    key = (q.table, q.entity, q.time)
    if key not in per:
        per[key] = TableArrays(frames, *key)
    tab = per[key]
    pos = tab.subset(frames, q)
    if pos is None:
        return Stream(tab, None, tab.gid, tab.gstart, tab.t, tab.n_groups)
    gid = tab.gid[pos]
    first = np.ones(len(gid), dtype=bool)
    first[1:] = gid[1:] != gid[:-1]
    gstart = np.flatnonzero(first)[np.cumsum(first) - 1] if len(gid) else gid
    return Stream(tab, pos, gid, gstart, tab.t[pos], tab.n_groups)


def event(s: Stream, p: dict | None) -> np.ndarray:
    """Rows that are events of predicate ``p`` (nulls never are; no predicate: no row)."""
    if p is None:
        return np.zeros(len(s.t), dtype=bool)
    return s.take(s.tab.mask(p))


def labels(s: Stream, state: dict) -> tuple[np.ndarray, list]:
    """Per-row state codes of the stream and the state of each code."""
    codes, uniques = s.tab.codes(state)
    return s.take(codes), uniques


def in_window(q: QuerySpec, times: np.ndarray) -> np.ndarray:
    """Which of ``times`` (µs; NONE = no time) fall in ``[start, end)``; all real times without a window."""
    if q.window is None:
        return times != NONE
    return (times >= micros(q.window.start)) & (times < micros(q.window.end))


def first_time(s: Stream, m: np.ndarray) -> np.ndarray:
    """Per entity: the time of its first row in ``m`` (NONE if it has none)."""
    out = np.full(s.n_groups, NONE, dtype=np.int64)
    idx = np.flatnonzero(m)
    if idx.size:
        g = s.gid[idx]
        keep = np.ones(idx.size, dtype=bool)
        keep[1:] = g[1:] != g[:-1]
        out[g[keep]] = s.t[idx[keep]]
    return out


def last_before(s: Stream, m: np.ndarray) -> np.ndarray:
    """Per row: the time of the latest earlier row (same entity, strictly before) in ``m``, else NONE."""
    n = len(s.t)
    pos = np.where(m, np.arange(n), -1)
    pos = np.maximum.accumulate(pos) if n else pos
    prev = np.full(n, -1, dtype=np.int64)
    prev[1:] = pos[:-1]
    ok = prev >= s.gstart
    return np.where(ok, s.t[np.maximum(prev, 0)], NONE)


def first_after(s: Stream, m: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Per entity: its first row in ``m`` strictly after the entity's time ``after`` (NONE if none)."""
    lim = after[s.gid]
    return first_time(s, m & (lim != NONE) & (s.t > lim))


# ---------------------------------------------------------------- avg_time_between
def next_after(s: Stream, m: np.ndarray) -> np.ndarray:
    """Per row: the time of the first row in ``m`` of the same entity strictly later in time, else NONE."""
    n = len(s.t)
    if n == 0:
        return np.full(0, NONE, dtype=np.int64)
    same = (s.gid[1:] == s.gid[:-1]) & (s.t[1:] == s.t[:-1])
    last_of_run = np.minimum.accumulate(np.where(np.r_[~same, True], np.arange(n), n)[::-1])[::-1]
    j = last_of_run + 1  # the first row strictly later in time (another entity's, or n)
    bpos = np.minimum.accumulate(np.where(m, np.arange(n), n)[::-1])[::-1]  # first row in m at or after
    cand = np.where(j < n, bpos[np.minimum(j, n - 1)], n)
    ok = (cand < n) & (s.gid[np.minimum(cand, n - 1)] == s.gid)
    return np.where(ok, s.t[np.minimum(cand, n - 1)], NONE)


def avg_time_between(frames: Frames, q: QuerySpec) -> float | None:
    """Seconds from each entity's first A to its first B strictly after it, averaged over entities
    having both whose first A is in the window (None if there are none). ``pairing: each``: every A
    row in the window to the first B strictly after it, averaged over those pairs."""
    s = stream(frames, q)
    if q.p("pairing", "first") == "each":
        a = event(s, q.p("a")) & in_window(q, s.t)
        tb = next_after(s, event(s, q.p("b")))
        ok = a & (tb != NONE)
        return float(np.mean(tb[ok] - s.t[ok]) / 1e6) if ok.any() else None
    ta = first_time(s, event(s, q.p("a")))
    tb = first_after(s, event(s, q.p("b")), ta)
    ok = (tb != NONE) & in_window(q, ta)
    return float(np.mean(tb[ok] - ta[ok]) / 1e6) if ok.any() else None


def avg_time_between_naive(frames: Frames, q: QuerySpec) -> float | None:
    """Misreading: every B paired with the latest A before it, averaged over all such pairs
    (whose A is in the window)."""
    s = stream(frames, q)
    la = last_before(s, event(s, q.p("a")))
    ok = event(s, q.p("b")) & (la != NONE) & in_window(q, la)
    return float(np.mean(s.t[ok] - la[ok]) / 1e6) if ok.any() else None


# ---------------------------------------------------------------- sequence_match
def sequence_match(frames: Frames, q: QuerySpec) -> int:
    """Entities whose events in the window contain the steps in order (a subsequence: other rows
    may come between, each step on a strictly later row than the previous one)."""
    s = stream(frames, q)
    w = in_window(q, s.t)
    steps = q.p("steps")
    cur = first_time(s, event(s, steps[0]) & w)
    for p in steps[1:]:
        cur = first_after(s, event(s, p) & w, cur)
    return int(np.count_nonzero(cur != NONE))


def sequence_match_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: entities having every step's event in the window, in any order."""
    s = stream(frames, q)
    w = in_window(q, s.t)
    ok = np.ones(s.n_groups, dtype=bool)
    for p in q.p("steps"):
        ok &= first_time(s, event(s, p) & w) != NONE
    return int(np.count_nonzero(ok))


# ---------------------------------------------------------------- count_after_trigger
def count_after_trigger(frames: Frames, q: QuerySpec) -> int:
    """X events in the window that come at most ``horizon_s`` seconds after an earlier Y event of
    the same entity (strictly earlier row; the Y may lie before the window). Each X counts once."""
    s = stream(frames, q)
    ly = last_before(s, event(s, q.p("y")))
    h = int(round(float(q.p("horizon_s")) * 1e6))
    ok = event(s, q.p("x")) & in_window(q, s.t) & (ly != NONE)
    ok &= (s.t - np.where(ly == NONE, 0, ly)) <= h
    return int(np.count_nonzero(ok))


def x_in_entities_with_y(frames: Frames, q: QuerySpec, y: str) -> int:
    """Misreading shared by count_after_trigger and count_in_state: X events in the window of
    entities that ever had a ``y`` event (at any time)."""
    s = stream(frames, q)
    has_y = first_time(s, event(s, q.p(y))) != NONE
    return int(np.count_nonzero(event(s, q.p("x")) & in_window(q, s.t) & has_y[s.gid]))


def count_after_trigger_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: X events in the window of entities that ever had a Y event."""
    return x_in_entities_with_y(frames, q, "y")
