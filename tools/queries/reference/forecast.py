"""pandas reference of the forecast templates: the held-back horizon's actual value, read from
``holdout/<table>.parquet`` (never from data/, which agents see).

- ``forecast_mean``: the mean of ``key`` over the rows of entity ``id`` in the window (a held-back day);
- ``forecast_count``: the number of rows in the window (those with ``pred`` when given).

The naive reading is the seasonal-naive forecast: the same aggregate over the last visible day
(the day before the window), computed from the visible data. The calibration model
(:func:`model_forecast`) is statsmodels' Holt-Winters (additive trend and daily seasonality, fixed
smoothing) on hourly values of the visible data: the stated tolerance is chosen so that this model
is within it and the seasonal-naive forecast is not.
"""

from __future__ import annotations

import threading
import warnings
from datetime import timedelta

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from tools.bundle.files import HOLDOUT_DIR
from tools.queries.reference.frames import Frames, mask
from tools.queries.spec import Predicate, QuerySpec

_LOCK = threading.Lock()
_CACHE: dict[tuple[str, float], pd.DataFrame] = {}


def held_back(frames: Frames, table: str) -> pd.DataFrame:
    """The held-back rows of ``table`` (cached per file and modification time)."""
    path = frames.bundle / HOLDOUT_DIR / f"{table}.parquet"
    if not path.is_file():
        raise ValueError(f"{frames.bundle} holds nothing back for {table}; run `chronoeval queries BUNDLE "
                         f"--holdout 1d` to hold back the last day")
    k = (str(path), path.stat().st_mtime)
    with _LOCK:
        if k not in _CACHE:
            _CACHE[k] = pq.read_table(path).to_pandas()
        return _CACHE[k]


def _select(df: pd.DataFrame, q: QuerySpec, start, end) -> pd.DataFrame:
    t = df[q.time]
    m = ((t >= pd.Timestamp(start)) & (t < pd.Timestamp(end))).to_numpy(dtype=bool, copy=True)
    if q.p("id") is not None:
        m &= (df[q.entity].astype(str) == str(q.p("id"))).to_numpy(dtype=bool)
    if q.p("pred"):
        m &= mask(df, Predicate.model_validate(q.p("pred")))
    return df[m]


def aggregate_rows(df: pd.DataFrame, q: QuerySpec):
    """The forecast's aggregate (a row count, or the mean of ``key``) of the selected rows."""
    if q.template == "forecast_count":
        return int(len(df))
    v = df[q.p("key")].dropna().to_numpy(dtype=float)
    return float(v.mean()) if v.size else None


def forecast_actual(frames: Frames, q: QuerySpec):
    """The held-back value the question asks to forecast."""
    return aggregate_rows(_select(held_back(frames, q.table), q, q.window.start, q.window.end), q)


def naive_rows(frames: Frames, q: QuerySpec) -> pd.DataFrame:
    """The visible rows the seasonal-naive forecast aggregates: the same hours of the day before."""
    day = timedelta(days=1)
    return _select(frames.table(q.table), q, q.window.start_dt - day, q.window.end_dt - day)


def seasonal_naive(frames: Frames, q: QuerySpec):
    """The same aggregate over the same hours of the day before (the last visible day)."""
    return aggregate_rows(naive_rows(frames, q), q)


def model_forecast(series: np.ndarray, hours: tuple[int, int], count: bool) -> float | None:
    """Holt-Winters' forecast (additive daily seasonality, slow level, fixed smoothing) of the hours
    ``[a, b)`` after the series ends, aggregated as the question asks (mean of the hourly means, or the
    sum of hourly counts); None with fewer than two whole days of history."""
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    if len(series) < 48 or not np.isfinite(series).all():
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ExponentialSmoothing(series, trend=None, seasonal="add", seasonal_periods=24,
                                   initialization_method="heuristic").fit(
            smoothing_level=0.05, smoothing_seasonal=0.1, optimized=False)
        f = np.asarray(fit.forecast(hours[1]), dtype=float)[hours[0]:]
    return float(f.sum() if count else f.mean())
