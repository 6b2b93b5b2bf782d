"""The per-part values of the stateful templates whose answer is a mean or a percentage (the
streaming forms of tools/queries/stream_states.py): each ``*_part`` is the template's reference code
(tools/queries/reference/states*.py, sequences*.py) on one part up to its cross-entity reduction, each
``*_fold`` that reduction over the parts' values in part order (the whole table's values in its order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from tools.queries.reference import parents, sequences_states, states_naive
from tools.queries.reference import sequences as sq
from tools.queries.reference import states as st
from tools.queries.reference.frames import Frames
from tools.queries.spec import QuerySpec

Partial = Callable[[Frames, QuerySpec], Any]
Fold = Callable[[Iterable, QuerySpec], Any]


def mean_of(values: list[np.ndarray]) -> float | None:
    v = np.concatenate(values) if values else np.zeros(0)
    return float(np.mean(v)) if v.size else None


def _group_mean(values: np.ndarray, groups: np.ndarray) -> dict | None:
    res = pd.Series(values).groupby(groups, dropna=True).mean()
    return {str(k): float(v) for k, v in res.items()} or None


def _cat(arrays: list[np.ndarray], dtype=float) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)


def values_and_groups(parts: Iterable) -> tuple[np.ndarray, np.ndarray | None]:
    """The parts' ``(values, groups or None)`` concatenated in part order."""
    vals, groups = [], []
    for v, g in parts:
        vals.append(v)
        groups.append(g)
    return _cat(vals), (None if not groups or groups[0] is None else _cat(groups, object))


# ---------------------------------------------------------------- means of per-episode / per-entity values
def duration_part(frames: Frames, q: QuerySpec):
    s, e = st.episodes(frames, q)
    m = (e.code == s.code_of(q.p("value"))) & ~e.open & st.in_win(q, e.start)
    if q.p("to") is not None:
        m &= e.nxt == s.code_of(q.p("to"))
    rows = e.row[m]
    g = None if q.group_by is None else st.group_values(frames, q, s, rows).to_numpy()
    return (e.end[m] - e.start[m]) / 1e9, g


def duration_fold(parts: Iterable, q: QuerySpec):
    v, g = values_and_groups(parts)
    if q.group_by is None:
        return float(np.mean(v)) if v.size else None
    return _group_mean(v, g)


def duration_naive_part(frames: Frames, q: QuerySpec):
    s = st.stream(frames, q)
    rows = np.flatnonzero((s.code == s.code_of(q.p("value"))) & st.in_win(q, s.t))
    if rows.size == 0:
        return np.zeros(0), (None if q.group_by is None else np.zeros(0, dtype=object))
    per = pd.Series(np.nan_to_num(st.row_intervals(s, rows))).groupby(s.gid[rows]).sum()
    if q.group_by is None:
        return per.to_numpy(), None
    first_rows = pd.Series(rows).groupby(s.gid[rows]).min().to_numpy()
    return per.to_numpy(), st.group_values(frames, q, s, first_rows).to_numpy()


def duration_naive_fold(parts: Iterable, q: QuerySpec):
    v, g = values_and_groups(parts)
    if v.size == 0:
        return None
    if q.group_by is None:
        return float(pd.Series(v).mean())
    return _group_mean(v, g)


def passage_part(frames: Frames, q: QuerySpec) -> np.ndarray:
    s = st.stream(frames, q)
    hit = np.flatnonzero(s.code == s.code_of(q.p("value")))
    firsts = hit[np.r_[True, s.gid[hit][1:] != s.gid[hit][:-1]]] if hit.size else hit
    t0 = s.t[s.first]
    g = s.gid[firsts]
    ok = st.in_win(q, t0[g])
    return (s.t[firsts] - t0[g])[ok] / 1e9


def passage_naive_part(frames: Frames, q: QuerySpec) -> np.ndarray:
    return states_naive.first_passage_naive_seconds(frames, q)


def between_part(frames: Frames, q: QuerySpec) -> np.ndarray:
    s = sq.stream(frames, q)
    if q.p("pairing", "first") == "each":
        a = sq.event(s, q.p("a")) & sq.in_window(q, s.t)
        tb = sq.next_after(s, sq.event(s, q.p("b")))
        ok = a & (tb != sq.NONE)
        return tb[ok] - s.t[ok]
    ta = sq.first_time(s, sq.event(s, q.p("a")))
    tb = sq.first_after(s, sq.event(s, q.p("b")), ta)
    ok = (tb != sq.NONE) & sq.in_window(q, ta)
    return tb[ok] - ta[ok]


def between_naive_part(frames: Frames, q: QuerySpec) -> np.ndarray:
    s = sq.stream(frames, q)
    la = sq.last_before(s, sq.event(s, q.p("a")))
    ok = sq.event(s, q.p("b")) & (la != sq.NONE) & sq.in_window(q, la)
    return s.t[ok] - la[ok]


def between_fold(parts: Iterable, q: QuerySpec) -> float | None:
    v = _cat(list(parts), np.int64)
    return float(np.mean(v) / 1e6) if v.size else None


# ---------------------------------------------------------------- percentages
def conversion_part(frames: Frames, q: QuerySpec) -> tuple[int, int]:
    s = sq.stream(frames, q)
    ta = sq.first_time(s, sq.event(s, q.p("a")))
    reached = sq.in_window(q, ta)
    tb = sq.first_after(s, sq.event(s, q.p("b")), ta)
    return int(np.count_nonzero(reached)), int(np.count_nonzero(reached & (tb != sq.NONE)))


def conversion_fold(parts: Iterable, q: QuerySpec) -> float | None:
    pairs = list(parts)
    reached, hit = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    return 100.0 * float(hit) / float(reached) if reached else None


def conversion_naive_part(frames: Frames, q: QuerySpec) -> tuple[int, int]:
    s = sq.stream(frames, q)
    w = sq.in_window(q, s.t)
    return np.count_nonzero(sq.event(s, q.p("a")) & w), np.count_nonzero(sq.event(s, q.p("b")) & w)


def conversion_naive_fold(parts: Iterable, q: QuerySpec) -> float | None:
    pairs = list(parts)
    na, nb = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    return 100.0 * nb / na if na else None


def occupancy_part(frames: Frames, q: QuerySpec):
    s = st.stream(frames, q)
    rows = np.flatnonzero(~s.last & st.in_win(q, s.t))
    return s.labels, s.code[rows], st.row_intervals(s, rows)


def occupancy_fold(parts: Iterable, q: QuerySpec) -> dict | None:
    """``states.state_occupancy``: each part's intervals are added to the running per-state totals in
    row order (the reference's one ``bincount`` over all rows, continued part by part)."""
    tot: dict[str, float] = {}
    order: list[str] = []
    seen: set[str] = set()
    rows = 0
    for labels, code, d in parts:
        order += [x for x in labels if x not in tot and x != st.NULL_STATE]
        prior = np.array([tot.get(x, 0.0) for x in labels])
        now = np.bincount(np.r_[np.arange(len(labels)), code], weights=np.r_[prior, d], minlength=len(labels))
        tot.update(zip(labels, now.tolist(), strict=True))
        seen.update(labels[c] for c in np.unique(code))
        rows += code.size
    if rows == 0:
        return None
    order += [st.NULL_STATE] if st.NULL_STATE in tot else []
    total = np.array([tot[x] for x in order]).sum()
    if total <= 0:
        return None
    return {x: float(100.0 * tot[x] / total) for x in order if x in seen}


def occupancy_naive_part(frames: Frames, q: QuerySpec) -> tuple[dict, int]:
    s = st.stream(frames, q)
    m = st.in_win(q, s.t)
    counts = np.bincount(s.code[m], minlength=len(s.labels))
    return {s.labels[c]: int(counts[c]) for c in np.flatnonzero(counts)}, int(m.sum())


def occupancy_naive_fold(parts: Iterable, q: QuerySpec) -> dict | None:
    counts: dict[str, int] = {}
    total = 0
    for c, n in parts:
        total += n
        for k, v in c.items():
            counts[k] = counts.get(k, 0) + v
    return {k: float(100.0 * v / total) for k, v in counts.items()} if total else None


def occupancy_by_part(frames: Frames, q: QuerySpec):
    s = st.stream(frames, q)
    rows = np.flatnonzero(~s.last & st.in_win(q, s.t))
    d = st.row_intervals(s, rows)
    g = pd.Categorical(st.group_values(frames, q, s, rows))
    return g, d, s.code[rows] == s.code_of(q.p("value"))


def occupancy_by_fold(parts: Iterable, q: QuerySpec) -> dict | None:
    from pandas.api.types import union_categoricals

    gs, ds, hits = [], [], []
    for g, d, h in parts:
        gs.append(g)
        ds.append(d)
        hits.append(h)
    if not gs:
        return None
    g, d = union_categoricals(gs), _cat(ds)  # a category, not objects: the same groups' sums in row order
    frame = pd.DataFrame({"g": g, "d": d, "v": np.where(_cat(hits, bool), d, 0.0)})
    per = frame.dropna(subset=["g"]).groupby("g", observed=True)[["d", "v"]].sum()
    per = per[per["d"] > 0]
    return {str(k): float(100.0 * r.v / r.d) for k, r in per.iterrows()} or None


def occupancy_by_naive_part(frames: Frames, q: QuerySpec) -> dict:
    s = st.stream(frames, q)
    rows = np.flatnonzero(st.in_win(q, s.t))
    hit = s.code[rows] == s.code_of(q.p("value"))
    g = st.group_values(frames, q, s, rows)
    per = pd.DataFrame({"g": g.to_numpy(), "h": hit}).dropna(subset=["g"]).groupby("g")["h"].agg(["sum", "size"])
    return {str(k): (int(r["sum"]), int(r["size"])) for k, r in per.iterrows()}


def occupancy_by_naive_fold(parts: Iterable, q: QuerySpec) -> dict | None:
    """The reference's per-group mean of 100/0 per row: an exact sum (100 × hits) over the row count."""
    acc: dict[str, list[int]] = {}
    for p in parts:
        for k, (h, n) in p.items():
            a = acc.setdefault(k, [0, 0])
            a[0] += h
            a[1] += n
    return {k: float(100.0 * h / n) for k, (h, n) in acc.items()} or None


# ---------------------------------------------------------------- cross_window_delta
def _measure(frames: Frames, q: QuerySpec, w, measure: str):
    """``sequences_states._measure`` on one part: a count, or for ``mean`` the values themselves."""
    if measure != "mean":
        return sequences_states._measure(frames, q, w, measure)
    s = sq.stream(frames, q)
    lo, hi = sq.micros(w.start), sq.micros(w.end)
    v = s.column(q.p("key")).to_numpy(dtype=float, na_value=np.nan)[(s.t >= lo) & (s.t < hi)]
    return v[~np.isnan(v)]


def _delta_measure(q: QuerySpec, naive: bool) -> tuple[str, int]:
    if not naive:
        return q.p("measure"), 1
    return ("rows", 1) if q.p("measure") == "entries" else (q.p("measure"), -1)


def delta_part(naive: bool) -> Partial:
    def partial(frames: Frames, q: QuerySpec):
        if q.window is None:
            raise ValueError("cross_window_delta needs a window (the later one)")
        m = _delta_measure(q, naive)[0]
        return _measure(frames, q, q.window, m), _measure(frames, q, sequences_states.earlier_window(q), m)
    return partial


def delta_fold(naive: bool) -> Fold:
    def fold(parts: Iterable, q: QuerySpec) -> float | None:
        m, sign = _delta_measure(q, naive)
        later, earlier = [], []
        for a, b in parts:
            later.append(a)
            earlier.append(b)
        if m == "mean":
            lv, ev = mean_of(later), mean_of(earlier)
        else:
            lv, ev = float(sum(later)), float(sum(earlier))
        return None if lv is None or ev is None else sign * (lv - ev)
    return fold


def parents_part(frames: Frames, q: QuerySpec) -> set:
    df, ok = parents.qualifying(frames, q)
    return set(df.loc[ok, q.p("of")].dropna().unique().tolist())


def union_size(parts: Iterable, q: QuerySpec) -> int:
    return len(set().union(*parts))
