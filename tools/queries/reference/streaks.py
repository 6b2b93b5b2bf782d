"""pandas reference for ``entity_count_streak`` (issue 19): entities with more than N matching rows
"within T" or "without a Y row in between".

Semantics (shared with ``tools/queries/sql/streaks.py``): the rows of the selected entities inside the
window (entity filter, window; ``params.a`` is the counted row predicate X):

- ``within_s`` T: an entity counts when some n+1 of its X rows lie within T seconds (the first and
  the last of them at most T apart, both ends included);
- ``without`` Y: an entity's rows are cut into runs by its Y rows (a Y row starts a new run; rows at
  the same time as a Y row are in the run it starts); the entity counts when some run holds more
  than n X rows.

The naive reading drops the "within"/"without" clause: entities with more than n X rows in the window.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.composite import entity_numbers, in_entity_time_order, key_columns
from tools.queries.reference.frames import Frames, mask, selected_rows
from tools.queries.spec import Predicate, QuerySpec


def _rows(frames: Frames, q: QuerySpec) -> tuple[pd.DataFrame, np.ndarray]:
    """The selected rows in (entity, time) order and their entity numbers (0..k-1)."""
    if q.event_filter:
        raise ValueError("entity_count_streak takes its counted rows in params.a, not an event filter")
    df = selected_rows(frames, q, events=False)
    gid = entity_numbers(df, q)
    return in_entity_time_order(df, gid, q.time) if q.entity_parts else (df, gid)


def _times(df: pd.DataFrame, q: QuerySpec) -> np.ndarray:
    return df[q.time].to_numpy(dtype="datetime64[ns]").astype(np.int64)


def _within(df: pd.DataFrame, gid: np.ndarray, q: QuerySpec, n: int) -> int:
    x = mask(df, Predicate.model_validate(q.p("a")))
    t, g = _times(df, q)[x], gid[x]
    if t.size <= n:
        return 0
    span = int(round(float(q.p("within_s")) * 1e9))
    ok = (g[n:] == g[:-n]) & (t[n:] - t[:-n] <= span) if n else np.ones(t.size, dtype=bool)
    return int(np.unique((g[n:] if n else g)[ok]).size)


def _without(df: pd.DataFrame, gid: np.ndarray, q: QuerySpec, n: int) -> int:
    x = mask(df, Predicate.model_validate(q.p("a")))
    y = mask(df, Predicate.model_validate(q.p("without"))).astype(np.int64)
    frame = pd.DataFrame({"g": gid, "t": _times(df, q), "y": y, "x": x.astype(np.int64)})
    # runs: Y rows up to and including each row's time (rows at one time share a run)
    frame["run"] = frame.groupby("g")["y"].cumsum()
    frame["run"] = frame.groupby(["g", "t"])["run"].transform("max")
    per = frame.groupby(["g", "run"])["x"].sum()
    return int(per[per > n].index.get_level_values(0).unique().size)


def entity_count_streak(frames: Frames, q: QuerySpec) -> int:
    df, gid = _rows(frames, q)
    n = int(q.p("n"))
    if q.p("within_s") is not None:
        return _within(df, gid, q, n)
    if q.p("without") is not None:
        return _without(df, gid, q, n)
    raise ValueError("entity_count_streak needs params.within_s or params.without")


def entity_count_streak_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: the 'within'/'without' clause ignored (more than n X rows in the whole window)."""
    df, _gid = _rows(frames, q)
    x = mask(df, Predicate.model_validate(q.p("a")))
    counts = df.loc[x].groupby(key_columns(q), observed=True).size()
    return int((counts > int(q.p("n"))).sum())
