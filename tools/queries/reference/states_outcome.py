"""pandas reference for ``threshold_without_outcome`` (split from ``reference/states.py``, whose streams,
episodes and window semantics it shares): entries into a state not followed by an outcome within a
horizon."""

from __future__ import annotations

import numpy as np

from tools.queries.reference.frames import Frames
from tools.queries.reference.states import Stream, episodes, in_win, state_codes
from tools.queries.spec import QuerySpec


def next_time(s: Stream, hit: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows``, the time (ns) of the entity's first row at or after it where ``hit``
    holds; -1 if none."""
    pos = np.flatnonzero(hit)
    i = np.searchsorted(pos, rows)
    found = i < pos.size
    j = pos[np.minimum(i, max(pos.size - 1, 0))] if pos.size else np.zeros_like(rows)
    ok = found & (s.gid[j] == s.gid[rows]) if pos.size else found
    return np.where(ok, s.t[j], -1)


def outcome_hits(frames: Frames, q: QuerySpec, s: Stream) -> np.ndarray:
    """Rows in the outcome state ``outcome`` (of ``outcome_state``, default ``state``)."""
    os_ = q.p("outcome_state") or q.p("state")
    codes, labels = (s.code, s.labels) if os_ == q.p("state") else state_codes(s.frame(), os_)
    out = q.p("outcome")
    return codes == (labels.index(out) if out in labels else -2)


def threshold_without_outcome(frames: Frames, q: QuerySpec) -> int:
    """Entities with at least one entry into ``value`` in the window after which no row in the
    outcome state occurs from the entry (included) up to ``horizon_s`` later (included)."""
    s, e = episodes(frames, q)
    m = (e.code == s.code_of(q.p("value"))) & in_win(q, e.start)
    rows = e.row[m]
    nb = next_time(s, outcome_hits(frames, q, s), rows)
    h = int(round(float(q.p("horizon_s")) * 1e9))
    miss = (nb < 0) | (nb - s.t[rows] > h)
    return int(np.unique(s.gid[rows[miss]]).size)
