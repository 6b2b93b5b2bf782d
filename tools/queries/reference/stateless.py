"""pandas reference implementations of the stateless templates (rows are independent).

Shared conventions (the SQL compiler in ``tools/queries/sql/stateless.py`` implements the same,
independently): the rows are those of :func:`selected_rows` (entity filter, half-open window,
``while`` predicate, event filter); nulls in the aggregated key are skipped; an aggregate over no
value is ``None``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.spec import QuerySpec

AGGS = {"mean": "mean", "sum": "sum", "min": "min", "max": "max", "count": "count"}


def _values(frames: Frames, q: QuerySpec) -> np.ndarray:
    """Non-null values of ``params.key`` over the selected rows, as floats."""
    return selected_rows(frames, q)[q.p("key")].dropna().to_numpy(dtype=float)


def window_hours(q: QuerySpec) -> float:
    """Length of the query window in hours (the window is required)."""
    if q.window is None:
        raise ValueError(f"{q.template} needs a window")
    return (q.window.end_dt - q.window.start_dt).total_seconds() / 3600.0


def event_count(frames: Frames, q: QuerySpec) -> int:
    """Rows matching the filters."""
    return int(len(selected_rows(frames, q)))


def distinct_count(frames: Frames, q: QuerySpec) -> int:
    """Distinct values of ``params.of`` (default: the entity) over the matching rows."""
    return int(selected_rows(frames, q)[q.p("of", q.entity)].nunique())


def event_rate(frames: Frames, q: QuerySpec) -> float:
    """Matching rows (or the sum of ``params.key`` over them) divided by the window's length in hours."""
    hours = window_hours(q)
    df = selected_rows(frames, q)
    key = q.p("key")
    total = float(len(df)) if key is None else float(df[key].dropna().to_numpy(dtype=float).sum())
    return total / hours


def attribute_mean(frames: Frames, q: QuerySpec) -> float | None:
    """Mean of ``params.key`` over matching rows (nulls skipped)."""
    v = _values(frames, q)
    return float(np.mean(v)) if v.size else None


def attribute_std(frames: Frames, q: QuerySpec) -> float | None:
    """Sample standard deviation (ddof=1) of ``params.key``; None with fewer than 2 values."""
    v = _values(frames, q)
    return float(np.std(v, ddof=1)) if v.size >= 2 else None


def attribute_percentile(frames: Frames, q: QuerySpec) -> float | None:
    """The ``params.p`` quantile of ``params.key`` with linear interpolation (numpy's default)."""
    p = float(q.p("p"))
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"percentile p={p} outside [0, 1]")
    v = _values(frames, q)
    return float(np.quantile(v, p)) if v.size else None


def attribute_extreme(frames: Frames, q: QuerySpec) -> float | None:
    """``params.agg`` (max or min) of ``params.key`` over matching rows."""
    agg = q.p("agg", "max")
    if agg not in ("max", "min"):
        raise ValueError(f"extreme agg {agg!r}")
    v = _values(frames, q)
    if not v.size:
        return None
    return float(v.max() if agg == "max" else v.min())


def _aggregate(v: np.ndarray, agg: str) -> float | None:
    """mean/sum/max/min of the values; None when there is none (as SQL's aggregates)."""
    if not v.size:
        return None
    return float({"mean": np.mean, "sum": np.sum, "max": np.max, "min": np.min}[agg](v))


def conditional_aggregate(frames: Frames, q: QuerySpec) -> float | None:
    """``params.agg`` of ``params.key`` over the rows where the ``while`` predicate holds."""
    if q.while_ is None:
        raise ValueError("conditional_aggregate needs a while predicate")
    return _aggregate(_values(frames, q), q.p("agg", "mean"))


def conditional_aggregate_naive(frames: Frames, q: QuerySpec) -> float | None:
    """The misreading that ignores the condition: the same aggregate over every row in the window."""
    return _aggregate(_values(frames, q.model_copy(update={"while_": None})), q.p("agg", "mean"))


def group_labels(frames: Frames, q: QuerySpec, df: pd.DataFrame) -> pd.Series:
    """The group of each row: ``group_by`` on the row, or on the static table ``params.group_table``.

    A static attribute is looked up through ``params.group_key`` (column of the main table) →
    ``params.group_ref`` (id column of the static table); rows without a match get no group.
    """
    table = q.p("group_table")
    if table is None:
        return df[q.group_by]
    static = frames.table(table)
    lookup = pd.Series(static[q.group_by].to_numpy(dtype=object), index=static[q.p("group_ref")].to_numpy(dtype=object))
    return df[q.p("group_key")].map(lookup)


def group_aggregate(frames: Frames, q: QuerySpec) -> dict | None:
    """``params.agg`` per group (groups with no value left out; None when no group has one).

    ``agg`` is mean/sum/min/max of ``params.key`` (nulls skipped), ``count`` (matching rows, or
    non-null key values when a key is given) or ``distinct`` (distinct entities with a matching row).
    """
    df = selected_rows(frames, q)
    key, agg = q.p("key"), q.p("agg", "mean")
    d = pd.DataFrame({"g": group_labels(frames, q, df), "e": df[q.entity]})
    if key is not None:
        d["v"] = df[key]
        d = d[d["v"].notna()]
    elif agg != "count" and agg != "distinct":
        raise ValueError(f"group agg {agg!r} needs a key")
    g = d.groupby("g", observed=True, dropna=True)
    if agg == "distinct":
        res, cast = g["e"].nunique(), int
    elif agg == "count":
        res, cast = g.size(), int
    else:
        res, cast = getattr(g["v"], AGGS[agg])(), float
    out = {str(k): cast(v) for k, v in res.items() if cast is float or v > 0}
    return out or None


def exists(frames: Frames, q: QuerySpec) -> bool:
    """Whether at least one row matches the filters."""
    return bool(len(selected_rows(frames, q)) > 0)
