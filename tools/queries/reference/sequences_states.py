"""pandas reference for the episode-based sequence templates: state_reached, alternating_count,
cross_window_delta.

A row's state is the state column's value (null is a state of its own) or, for a predicated state,
"in"/"out" (see ``frames.state_labels``). An episode is a maximal run of consecutive rows of one
entity with the same state; entering a state is the first row of one of its episodes (an entity's
first row enters its state). Streams are replayed over the whole history; the window selects
episodes by their start time (half-open). No SQL here.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np

from tools.queries.reference.frames import Frames
from tools.queries.reference.sequences import Stream, event, in_window, labels, micros, stream
from tools.queries.spec import QuerySpec, Window


def code_of(uniques: list, value: str) -> int:
    """The code of a state value (-2 if no row is in it)."""
    return uniques.index(value) if value in uniques else -2


def episode_starts(s: Stream, codes: np.ndarray) -> np.ndarray:
    """Positions of the rows that start an episode (entity's first row, or state differs from the
    previous row's)."""
    n = len(codes)
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = codes[1:] != codes[:-1]
    start |= s.gstart == np.arange(n)
    return np.flatnonzero(start)


# ---------------------------------------------------------------- state_reached
def state_reached(frames: Frames, q: QuerySpec) -> int:
    """Entities entering state ``value`` (an episode of it starts) in the window."""
    s = stream(frames, q)
    codes, uniq = labels(s, q.p("state"))
    st = episode_starts(s, codes)
    hit = st[(codes[st] == code_of(uniq, q.p("value"))) & in_window(q, s.t[st])]
    return int(np.unique(s.gid[hit]).size)


def state_reached_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: rows in state ``value`` in the window."""
    s = stream(frames, q)
    codes, uniq = labels(s, q.p("state"))
    return int(np.count_nonzero((codes == code_of(uniq, q.p("value"))) & in_window(q, s.t)))


# ---------------------------------------------------------------- alternating_count
def _round_trips(frames: Frames, q: QuerySpec, *, back: bool) -> tuple[Stream, np.ndarray]:
    """Starts of the B episodes directly preceded by an A episode (and, if ``back``, directly
    followed by one) whose start is in the window."""
    s = stream(frames, q)
    codes, uniq = labels(s, q.p("state"))
    a, b = code_of(uniq, q.p("a")), code_of(uniq, q.p("b"))
    st = episode_starts(s, codes)
    c, g = codes[st], s.gid[st]
    prev_ok = np.zeros(st.size, dtype=bool)
    prev_ok[1:] = (c[:-1] == a) & (g[:-1] == g[1:])
    ok = (c == b) & prev_ok
    if back:
        next_ok = np.zeros(st.size, dtype=bool)
        next_ok[:-1] = (c[1:] == a) & (g[1:] == g[:-1])
        ok &= next_ok
    return s, st[ok & in_window(q, s.t[st])]


def _count(s: Stream, rows: np.ndarray, q: QuerySpec) -> int:
    k = q.p("k")
    if k is None:
        return int(rows.size)
    per = np.bincount(s.gid[rows], minlength=s.n_groups)
    return int(np.count_nonzero(per >= int(k)))


def alternating_count(frames: Frames, q: QuerySpec) -> int:
    """A→B→A round trips (an A episode, directly a B episode, directly an A episode again), counted
    when the B episode starts in the window; with ``k``: entities with at least ``k`` of them."""
    s, rows = _round_trips(frames, q, back=True)
    return _count(s, rows, q)


def alternating_count_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: A→B transitions (the return to A not required)."""
    s, rows = _round_trips(frames, q, back=False)
    return _count(s, rows, q)


# ---------------------------------------------------------------- cross_window_delta
def earlier_window(q: QuerySpec) -> Window:
    """The earlier window: the later one (``q.window``) moved back by ``offset_s`` seconds."""
    d = timedelta(seconds=float(q.p("offset_s")))
    return Window(start=(q.window.start_dt - d).isoformat(), end=(q.window.end_dt - d).isoformat())


def _measure(frames: Frames, q: QuerySpec, w: Window, measure: str) -> float | None:
    s = stream(frames, q)
    lo, hi = micros(w.start), micros(w.end)
    if measure in ("entries", "rows"):
        codes, uniq = labels(s, q.p("state"))
        rows = episode_starts(s, codes) if measure == "entries" else np.arange(len(codes))
        rows = rows[codes[rows] == code_of(uniq, q.p("value"))]
        return float(np.count_nonzero((s.t[rows] >= lo) & (s.t[rows] < hi)))
    win = (s.t >= lo) & (s.t < hi)
    if measure == "events":
        return float(np.count_nonzero(event(s, q.p("event")) & win))
    if measure == "mean":
        v = s.column(q.p("key")).to_numpy(dtype=float, na_value=np.nan)[win]
        v = v[~np.isnan(v)]
        return float(np.mean(v)) if v.size else None
    raise ValueError(f"cross_window_delta: unknown measure {measure!r}")


def _delta(frames: Frames, q: QuerySpec, measure: str, sign: int) -> float | None:
    if q.window is None:
        raise ValueError("cross_window_delta needs a window (the later one)")
    later = _measure(frames, q, q.window, measure)
    earlier = _measure(frames, q, earlier_window(q), measure)
    if later is None or earlier is None:
        return None
    return sign * (later - earlier)


def cross_window_delta(frames: Frames, q: QuerySpec) -> float | None:
    """Later window's measure minus the earlier window's: ``entries`` into state ``value``,
    ``events`` (rows matching ``event``) or the ``mean`` of ``key`` over rows."""
    return _delta(frames, q, q.p("measure"), 1)


def cross_window_delta_naive(frames: Frames, q: QuerySpec) -> float | None:
    """Misreading: for entries, rows in the state instead of entries; otherwise earlier minus later."""
    if q.p("measure") == "entries":
        return _delta(frames, q, "rows", 1)
    return _delta(frames, q, q.p("measure"), -1)

