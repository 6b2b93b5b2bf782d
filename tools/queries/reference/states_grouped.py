"""pandas reference for the grouped state-machine templates and the global transition ranking
(issue 19): ``transition_count_by``, ``occupancy_by``, ``reached_by``, ``top_transitions``.

Episodes and row intervals as in ``reference/states.py`` (whole streams replayed; the window selects
what counts). The group of an event is the ``group_by`` value on the row where it happens (with
``params.group_via`` {table, key, ref}: read from the static table through that row's key); events
without a group value are left out.

- ``transition_count_by``: transitions from ``value`` to ``to`` (an episode of ``value`` directly
  followed by one of ``to``), timed and grouped at the first row of the ``to`` episode;
- ``occupancy_by``: per group, percent of the summed row intervals (row to the entity's next row,
  starting in the window; last rows left out) whose row is in ``value``;
- ``reached_by``: per group, entities with an episode of ``value`` starting in the window;
- ``top_transitions``: the ``k`` most frequent "A > B" transitions of all entities (the B episode
  starts in the window), by count, ties by the text.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames
from tools.queries.reference.states import episodes, group_values, in_win, rank_paths, row_intervals, stream
from tools.queries.spec import QuerySpec


def _by_group(groups: pd.Series, values: np.ndarray, how: str) -> dict | None:
    g = groups.to_numpy()
    res = pd.Series(values).groupby(g, dropna=True).agg(how)
    return {str(k): (int(v) if how in ("sum", "nunique") else float(v)) for k, v in res.items()} or None


def _transitions(frames: Frames, q: QuerySpec):
    """(stream, episodes, positions of the closed episodes whose next episode starts in the window)."""
    s, e = episodes(frames, q)
    return s, e, np.flatnonzero(~e.open & in_win(q, e.end))


def transition_count_by(frames: Frames, q: QuerySpec) -> dict | None:
    s, e, i = _transitions(frames, q)
    i = i[(e.code[i] == s.code_of(q.p("value"))) & (e.nxt[i] == s.code_of(q.p("to")))]
    rows = e.row[i + 1]
    return _by_group(group_values(frames, q, s, rows), np.ones(rows.size, dtype=np.int64), "sum")


def transition_count_by_naive(frames: Frames, q: QuerySpec) -> dict | None:
    """Misreading: entities with the transition per group, not the number of times it happened."""
    s, e, i = _transitions(frames, q)
    i = i[(e.code[i] == s.code_of(q.p("value"))) & (e.nxt[i] == s.code_of(q.p("to")))]
    return _by_group(group_values(frames, q, s, e.row[i + 1]), e.gid[i], "nunique")


def occupancy_by(frames: Frames, q: QuerySpec) -> dict | None:
    s = stream(frames, q)
    rows = np.flatnonzero(~s.last & in_win(q, s.t))
    d = row_intervals(s, rows)
    g = group_values(frames, q, s, rows).to_numpy()
    frame = pd.DataFrame({"g": g, "d": d, "v": np.where(s.code[rows] == s.code_of(q.p("value")), d, 0.0)})
    per = frame.dropna(subset=["g"]).groupby("g")[["d", "v"]].sum()
    per = per[per["d"] > 0]
    return {str(k): float(100.0 * r.v / r.d) for k, r in per.iterrows()} or None


def occupancy_by_naive(frames: Frames, q: QuerySpec) -> dict | None:
    """Misreading: percent of rows (not of time) in ``value`` per group."""
    s = stream(frames, q)
    rows = np.flatnonzero(in_win(q, s.t))
    hit = (s.code[rows] == s.code_of(q.p("value"))).astype(float) * 100.0
    return _by_group(group_values(frames, q, s, rows), hit, "mean")


def reached_by(frames: Frames, q: QuerySpec) -> dict | None:
    s, e = episodes(frames, q)
    m = (e.code == s.code_of(q.p("value"))) & in_win(q, e.start)
    return _by_group(group_values(frames, q, s, e.row[m]), e.gid[m], "nunique")


def reached_by_naive(frames: Frames, q: QuerySpec) -> dict | None:
    """Misreading: rows in ``value`` in the window per group (not entities entering it)."""
    s = stream(frames, q)
    rows = np.flatnonzero((s.code == s.code_of(q.p("value"))) & in_win(q, s.t))
    return _by_group(group_values(frames, q, s, rows), np.ones(rows.size, dtype=np.int64), "sum")


def top_transitions(frames: Frames, q: QuerySpec) -> list | None:
    s, e, i = _transitions(frames, q)
    return rank_paths([e.code[i], e.nxt[i]], s.labels, int(q.p("k", 3)))


def top_transitions_naive(frames: Frames, q: QuerySpec) -> list | None:
    """Misreading: every pair of consecutive rows, staying in a state included."""
    s = stream(frames, q)
    i = np.flatnonzero(~s.last)
    i = i[in_win(q, s.t[i + 1])] if i.size else i
    return rank_paths([s.code[i], s.code[i + 1]], s.labels, int(q.p("k", 3)))
