"""pandas reference for ``top_k_by_aggregate``: entities ranked by an aggregate of a key.

Semantics (shared with ``tools/queries/sql/stateless_rank.py``): per entity of the selected rows,
``params.agg`` of ``params.key`` (mean/sum/max/min, nulls skipped; ``count`` = matching rows, no
key needed); entities without a value are not ranked. Order by the value (``params.order``:
``desc`` or ``asc``). A *tie* is two neighbours among the first k+1 whose values differ by less
than ``10**-params.decimals`` (indistinguishable at the question's precision): the question is
then ambiguous and the answer is None (dropped), as it is with fewer than k ranked entities.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.spec import QuerySpec

RANK_AGGS = ("mean", "sum", "max", "min", "count")


def per_entity(frames: Frames, q: QuerySpec) -> pd.Series:
    """``params.agg`` per entity (index: entity id as string)."""
    df = selected_rows(frames, q)
    agg = q.p("agg", "mean")
    if agg not in RANK_AGGS:
        raise ValueError(f"ranking agg {agg!r}")
    if agg == "count":
        res = df.groupby(q.entity, observed=True).size()
        return res[res > 0]
    d = df[[q.entity, q.p("key")]].dropna(subset=[q.p("key")])
    return getattr(d.groupby(q.entity, observed=True)[q.p("key")], agg)()


def top_k_by_aggregate(frames: Frames, q: QuerySpec) -> list | None:
    """``[[entity, value], ...]`` for the k best entities, or None when the cut is ambiguous."""
    k = int(q.p("k"))
    desc = q.p("order", "desc") == "desc"
    res = per_entity(frames, q)
    if len(res) < k:
        return None
    labels = np.array([str(x) for x in res.index], dtype=object)
    vals = res.to_numpy(dtype=float)
    order = np.lexsort((labels.astype(str), -vals if desc else vals))  # ties beyond the head: by id
    head = vals[order[:k + 1]]
    if np.any(np.abs(np.diff(head)) < 10.0 ** -int(q.p("decimals", 2))):
        return None
    cast = int if q.p("agg", "mean") == "count" else float
    return [[str(labels[i]), cast(vals[i])] for i in order[:k]]
