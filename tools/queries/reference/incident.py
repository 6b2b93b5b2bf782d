"""pandas reference implementations of the incident templates.

Shared parameters (``QuerySpec.params``):

- ``key``: the measurement column (None for pure row/entity counts);
- ``agg``: ``mean``, ``sum``, ``max``, ``min``, ``std`` (sample), ``range`` (highest minus lowest,
  null with fewer than two values), ``rows`` (rows counted), ``nulls`` (rows whose ``key`` is null)
  or ``entities`` (distinct entities with a row). Value aggregates skip nulls and are null on no
  values; counts are 0 on no rows.

The population is the entity filter (manifest entity ids, a sub-population, a foreign-key relation);
per-entity templates rank or count its entities with at least one row passing the event filter.
``window`` is the incident window (or a contrast window) and ``params.baseline`` an optional
comparison window ``{"start", "end"}``; without it the baseline is the entity's rows outside ``window``.
Hours are UTC clock hours: ``floor(epoch seconds / 3600)``.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, all_of, entity_rows, in_window, mask
from tools.queries.spec import QuerySpec

COUNT_AGGS = ("rows", "nulls", "entities")
_EPOCH = pd.Timestamp("1970-01-01", tz="UTC")
_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}


def _narrow(df: pd.DataFrame, m: np.ndarray, q: QuerySpec) -> pd.DataFrame:
    """The masked rows, keeping only the columns the analysis reads (no wide copies on big tables)."""
    cols = list(dict.fromkeys([q.entity, q.time] + ([q.p("key")] if q.p("key") else [])))
    return df.loc[m, cols]


def population(frames: Frames, q: QuerySpec, *, window: bool = True) -> tuple[pd.DataFrame, np.ndarray]:
    """(population rows, mask of rows passing the event filter, ``while`` and, if ``window``, the window)."""
    df = entity_rows(frames, q)
    m = all_of(df, q.event_filter)
    if q.while_ is not None:
        m &= mask(df, q.while_)
    if window:
        m &= in_window(df, q)
    return df, m


def rows(frames: Frames, q: QuerySpec) -> pd.DataFrame:
    """The selected rows (entity filter, window, event filter), narrowed to the analysed columns."""
    df, m = population(frames, q)
    return _narrow(df, m, q)


def aggregate(df: pd.DataFrame, q: QuerySpec):
    """``params.agg`` of ``params.key`` over all rows of ``df`` (a scalar, None when undefined)."""
    agg, key = q.p("agg", "mean"), q.p("key")
    if agg == "rows":
        return int(len(df))
    if agg == "entities":
        return int(df[q.entity].nunique())
    if agg == "nulls":
        return int(df[key].isna().sum())
    return aggregate_values(df[key].dropna().to_numpy(dtype=float), agg)


def aggregate_values(v: np.ndarray, agg: str) -> float | None:
    """A value aggregate (mean, sum, max, min, std, range) of non-null values; None when undefined."""
    if agg == "std":
        return float(np.std(v, ddof=1)) if v.size >= 2 else None
    if agg == "range":
        return float(v.max() - v.min()) if v.size >= 2 else None
    if not v.size:
        return None
    return float({"mean": np.mean, "sum": np.sum, "max": np.max, "min": np.min}[agg](v))


def grouped(df: pd.DataFrame, q: QuerySpec, by: list[str]) -> pd.Series:
    """``params.agg`` of ``params.key`` per group of ``by`` (groups without a value are NaN)."""
    agg, key = q.p("agg", "mean"), q.p("key")
    g = df.groupby(by, sort=True, observed=True)
    if agg == "rows":
        return g.size().astype(float)
    if agg == "entities":
        return g[q.entity].nunique().astype(float)
    if agg == "nulls":
        return df[key].isna().groupby([df[b] for b in by], sort=True, observed=True).sum().astype(float)
    s = g[key]
    if agg == "range":
        return (s.max() - s.min()).where(s.count() >= 2).astype(float)
    if agg == "std":
        return s.std(ddof=1).astype(float)
    if agg == "sum":
        return s.sum(min_count=1).astype(float)
    return getattr(s, agg)().astype(float)


def hour_of(t: pd.Series) -> pd.Series:
    """UTC clock-hour number of each timestamp (hours since the epoch)."""
    return (t - _EPOCH) // pd.Timedelta(hours=1)


def hour_grid(q: QuerySpec) -> range:
    """The clock hours lying entirely inside the window."""
    w = q.window
    return range(math.ceil(w.start_dt.timestamp() / 3600), math.floor(w.end_dt.timestamp() / 3600))


def incident_exists(frames: Frames, q: QuerySpec) -> bool:
    """Whether some (entity, clock hour) — or, with ``per: all``, some clock hour over the whole population
    (empty hours count 0) — has an aggregate satisfying ``op value``; only clock hours lying entirely
    inside the window count."""
    df = rows(frames, q)
    grid = hour_grid(q)
    h = hour_of(df[q.time])
    df = df.assign(_h=h)[((h >= grid.start) & (h < grid.stop)).to_numpy(dtype=bool)]
    if q.p("per", "entity") == "entity":
        vals = grouped(df, q, [q.entity, "_h"])
    else:
        vals = grouped(df, q, ["_h"]).reindex(list(grid))
        if q.p("agg") in COUNT_AGGS:
            vals = vals.fillna(0.0)
    vals = vals.dropna()
    return bool(_OPS[q.p("op")](vals, q.p("value")).any())


def incident_kpi(frames: Frames, q: QuerySpec):
    """The aggregate over the population's rows inside the window (also ``incident_cross_entity``)."""
    return aggregate(rows(frames, q), q)


def split_rows(frames: Frames, q: QuerySpec) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """(population rows passing the event filter, in-window mask, baseline mask)."""
    df, m = population(frames, q, window=False)
    df = _narrow(df, m, q)
    inw = in_window(df, q)
    b = q.p("baseline")
    if isinstance(b, dict):
        t = df[q.time]
        inb = ((t >= pd.Timestamp(b["start"])) & (t < pd.Timestamp(b["end"]))).to_numpy(dtype=bool, copy=True)
    else:
        inb = ~inw
    return df, inw, inb


def _per_entity(df: pd.DataFrame, m: np.ndarray, q: QuerySpec) -> pd.Series:
    """Per-entity aggregate over the masked rows; every entity of ``df`` present (counts 0, values NaN)."""
    ents = pd.Index(df[q.entity].unique())
    return grouped(df[m], q, [q.entity]).reindex(ents, fill_value=0.0 if q.p("agg") in COUNT_AGGS else np.nan)


def incident_affected_count(frames: Frames, q: QuerySpec) -> int:
    """Entities of the population that deviate inside the window by the stated rule.

    ``rule: shift``: in-window mean of ``key`` minus the baseline mean is beyond ``n`` baseline sample
    standard deviations (``direction`` up: above, down: below). ``rule: flat``: at least two in-window
    values and all of them equal.
    """
    df, inw, inb = split_rows(frames, q)
    key, e = q.p("key"), q.entity
    if q.p("rule") == "flat":
        r = grouped(df[inw], q.model_copy(update={"params": {**q.params, "agg": "range"}}), [e])
        return int((r == 0).sum())
    vi = df[key][inw].groupby(df[e][inw], observed=True).mean()
    gb = df[key][inb].groupby(df[e][inb], observed=True)
    d, lim = vi - gb.mean(), q.p("n") * gb.std(ddof=1)
    ok = d > lim if q.p("direction") == "up" else d < -lim
    return int(ok.sum())


def _ranked(s: pd.Series, order: str) -> pd.DataFrame:
    f = pd.DataFrame({"e": [str(x) for x in s.index], "v": s.to_numpy(dtype=float)}).dropna()
    return f.sort_values(["v", "e"], ascending=[order == "asc", True], kind="stable")


def incident_top_k(frames: Frames, q: QuerySpec) -> list | None:
    """The ``k`` entities with the highest (``order: desc``) or lowest aggregate in the window, ties by id."""
    f = _ranked(grouped(rows(frames, q), q, [q.entity]), q.p("order", "desc")).head(int(q.p("k")))
    return [[e, float(v)] for e, v in zip(f["e"], f["v"], strict=True)] or None


def incident_worst_entity(frames: Frames, q: QuerySpec) -> str | None:
    """The entity whose in-window aggregate (minus its baseline aggregate when ``baseline`` is set:
    ``"rest"`` = its rows outside the window, or a window) is highest (``order: desc``) or lowest; ties
    by id."""
    df, inw, inb = split_rows(frames, q)
    s = _per_entity(df, inw, q)
    if q.p("baseline") is not None:
        s = s - _per_entity(df, inb, q)
    f = _ranked(s, q.p("order", "desc"))
    return None if f.empty else str(f["e"].iloc[0])


def incident_vs_baseline(frames: Frames, q: QuerySpec) -> dict:
    """``{"value": in-window aggregate is above (direction up) / below (down) the baseline aggregate,
    "ratio": in / baseline}`` (``figure: difference`` gives ``"difference": in - baseline``)."""
    df, inw, inb = split_rows(frames, q)
    vi, vb = aggregate(df[inw], q), aggregate(df[inb], q)
    both = vi is not None and vb is not None
    value = both and (vi > vb if q.p("direction", "up") == "up" else vi < vb)
    if q.p("figure", "ratio") == "ratio":
        return {"value": bool(value), "ratio": (vi / vb) if both and vb != 0 else None}
    return {"value": bool(value), "difference": (vi - vb) if both else None}
