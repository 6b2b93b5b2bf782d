"""The stateless misreadings of the state-machine templates (``naive_answer``), pandas only.

Each one is what a practitioner gets by reasoning on rows instead of episodes:

- state_duration: the total time each entity spent in the state (each row in it counts the time to
  the entity's next row), averaged over entities, and the ``to`` condition ignored;
- first_passage_time: entities that never enter the state counted with their whole span;
- transition_counts: row-to-row pairs, so consecutive rows in the same state count as self-transitions;
- common_paths: every run of ``n`` consecutive rows (repeats not collapsed, not only the first ones);
- revisit_count: entities with at least 2 rows in the state;
- state_occupancy: share of rows instead of share of time;
- threshold_without_outcome: entities with a row in state A in the window and no row in B in their
  whole history.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames
from tools.queries.reference.states import (
    group_values,
    in_win,
    rank_paths,
    row_intervals,
    stream,
)
from tools.queries.reference.states_outcome import outcome_hits
from tools.queries.spec import QuerySpec


def state_duration(frames: Frames, q: QuerySpec):
    """Per-entity total time in the state (rows in the window), averaged over entities."""
    s = stream(frames, q)
    rows = np.flatnonzero((s.code == s.code_of(q.p("value"))) & in_win(q, s.t))
    if rows.size == 0:
        return None
    per = pd.Series(np.nan_to_num(row_intervals(s, rows))).groupby(s.gid[rows]).sum()
    if q.group_by is None:
        return float(per.mean())
    first_rows = pd.Series(rows).groupby(s.gid[rows]).min().to_numpy()
    g = group_values(frames, q, s, first_rows).to_numpy()
    res = pd.Series(per.to_numpy()).groupby(g, dropna=True).mean()
    return {str(k): float(v) for k, v in res.items()} or None


def first_passage_naive_seconds(frames: Frames, q: QuerySpec) -> np.ndarray:
    """Per entity in the window, seconds from its first row to its first row in the state, or to its
    last row when it never enters it (the streamed form averages these over the parts)."""
    s = stream(frames, q)
    t0, t1 = s.t[s.first], s.t[s.last]
    hit = np.flatnonzero(s.code == s.code_of(q.p("value")))
    reach = t1.copy()
    if hit.size:
        firsts = hit[np.r_[True, s.gid[hit][1:] != s.gid[hit][:-1]]]
        reach[s.gid[firsts]] = s.t[firsts]
    return ((reach - t0) / 1e9)[in_win(q, t0)]


def first_passage_time(frames: Frames, q: QuerySpec) -> float | None:
    """Like the real one, but entities that never enter the state count with first-to-last-row span."""
    d = first_passage_naive_seconds(frames, q)
    return float(np.mean(d)) if d.size else None


def transition_counts(frames: Frames, q: QuerySpec) -> dict | None:
    """Rows in the state paired with the entity's next row (counted when that row is in the window)."""
    s = stream(frames, q)
    i = np.flatnonzero((s.code == s.code_of(q.p("value"))) & ~s.last)
    i = i[in_win(q, s.t[i + 1])] if i.size else i
    nx, counts = np.unique(s.code[i + 1], return_counts=True)
    return {s.labels[c]: int(n) for c, n in zip(nx, counts, strict=True)} or None


def common_paths(frames: Frames, q: QuerySpec) -> list | None:
    """Every run of ``n`` consecutive rows of one entity (entities whose first row is in the window)."""
    s = stream(frames, q)
    n, k = int(q.p("n", 3)), int(q.p("k", 3))
    size = s.t.size
    if size < n:
        return None
    starts = np.arange(size - n + 1)
    ok = s.gid[starts] == s.gid[starts + n - 1]
    ok &= in_win(q, s.t[s.first])[s.gid[starts]]
    p0 = starts[ok]
    return rank_paths([s.code[p0 + j] for j in range(n)], s.labels, k)


def revisit_count(frames: Frames, q: QuerySpec) -> int:
    """Entities with at least 2 rows in the state in the window."""
    s = stream(frames, q)
    m = (s.code == s.code_of(q.p("value"))) & in_win(q, s.t)
    return int(np.count_nonzero(np.bincount(s.gid[m]) >= 2)) if m.any() else 0


def state_occupancy(frames: Frames, q: QuerySpec) -> dict | None:
    """Percent of the rows in the window per state."""
    s = stream(frames, q)
    m = in_win(q, s.t)
    if not m.any():
        return None
    counts = np.bincount(s.code[m], minlength=len(s.labels))
    return {s.labels[c]: float(100.0 * counts[c] / m.sum()) for c in np.flatnonzero(counts)}


def threshold_without_outcome(frames: Frames, q: QuerySpec) -> int:
    """Entities with a row in state A in the window and no row in the outcome state at all."""
    s = stream(frames, q)
    a = (s.code == s.code_of(q.p("value"))) & in_win(q, s.t)
    b = outcome_hits(frames, q, s)
    with_a = np.unique(s.gid[a])
    with_b = np.unique(s.gid[b])
    return int(np.setdiff1d(with_a, with_b).size)
