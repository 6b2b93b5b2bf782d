"""pandas reference for ``parent_sequence_count`` (issue 19): scoping by the parent entity, "how many
users had a session where A was followed by B".

Semantics (shared with ``tools/queries/sql/parents.py``): the rows of the selected child entities
(sessions) inside the window; a child qualifies when it has a row matching ``params.a`` and a row
matching ``params.b`` strictly later (its first A row before its last B row). The answer is the number
of distinct non-null parent ids (``params.of``, the child rows' column naming the parent, e.g.
``user_id``) on the qualifying children's rows. The naive reading counts the children instead.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, mask, selected_rows
from tools.queries.spec import Predicate, QuerySpec


def qualifying(frames: Frames, q: QuerySpec) -> tuple[pd.DataFrame, np.ndarray]:
    """The selected rows and a mask of the rows whose child qualifies."""
    if q.event_filter:
        raise ValueError("parent_sequence_count takes its events in params.a and params.b, not an event filter")
    df = selected_rows(frames, q, events=False)
    t = df[q.time].to_numpy(dtype="datetime64[ns]").astype(np.int64)
    ent = df[q.entity].astype("string").to_numpy()
    a = mask(df, Predicate.model_validate(q.p("a")))
    b = mask(df, Predicate.model_validate(q.p("b")))
    first_a = pd.Series(np.where(a, t, np.iinfo(np.int64).max)).groupby(ent).min()
    last_b = pd.Series(np.where(b, t, np.iinfo(np.int64).min)).groupby(ent).max()
    ok = set(first_a.index[(last_b.reindex(first_a.index) > first_a).to_numpy()])
    return df, np.fromiter((e in ok for e in ent), dtype=bool, count=len(ent))


def parent_sequence_count(frames: Frames, q: QuerySpec) -> int:
    df, ok = qualifying(frames, q)
    return int(df.loc[ok, q.p("of")].dropna().nunique())


def parent_sequence_count_naive(frames: Frames, q: QuerySpec) -> int:
    """Misreading: the children (sessions) counted, not their parents (users)."""
    df, ok = qualifying(frames, q)
    return int(df.loc[ok, q.entity].nunique())
