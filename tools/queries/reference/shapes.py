"""pandas/numpy reference of the shape templates: which entities show a shape in ``params.key``.

Each entity's series is its rows in the window with a non-null ``key``, in time order (position
0..n-1; missing readings are skipped, not interpolated). Event logs use ``series: hourly_count``:
per value of ``by`` (e.g. a referrer), its number of rows in each UTC hour of the window. Medians are the lower median (the value at
sorted position ``(n - 1) // 2``), so both executors compute the same numbers exactly.

- ``shape_spike``: a run of at most ``width`` consecutive readings above ``median + mult × MAD``
  (MAD: lower median of ``|x - median|``; ``mult`` 5.93 ≈ 4 robust standard deviations).
- ``shape_rise``: at least ``min_len`` consecutive positions ``i`` with ``x[i] - x[i - lag] > delta``.
- ``shape_plateau``: at least ``min_len`` consecutive readings with the same value.
- ``shape_oscillation``: the signs of ``x - median`` (zeros dropped) change at least ``rate_pct`` % of
  the time: ``100 × changes ≥ rate_pct × (m - 1)`` over the ``m ≥ 3`` non-zero residuals.
- ``shape_level_shift``: a position ``i`` where the ``span`` readings from ``i`` on all lie more than
  ``delta`` above every one of the ``span`` readings before ``i`` (or all below by more than ``delta``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tools.queries.reference.frames import Frames, selected_rows
from tools.queries.spec import QuerySpec


def hourly_counts(frames: Frames, q: QuerySpec) -> dict[str, np.ndarray]:
    """Event logs (``params.series == "hourly_count"``): per value of ``params.by`` (the groups with a
    row in the window), its rows in each hour of the window (hour k: ``[start + k h, start + (k+1) h)``),
    hours without rows counted 0."""
    df = selected_rows(frames, q, events=False)
    by = q.p("by")
    df = df.loc[df[by].notna(), [by, q.time]]
    start = pd.Timestamp(q.window.start)
    n = int((pd.Timestamp(q.window.end) - start) // pd.Timedelta(hours=1))
    k = ((df[q.time] - start) // pd.Timedelta(hours=1)).to_numpy(dtype=np.int64)
    out: dict[str, np.ndarray] = {}
    for e, kk in zip(df[by].astype(str).to_numpy(), k, strict=True):
        if kk < n:
            out.setdefault(e, np.zeros(n))[kk] += 1
    return dict(sorted(out.items()))


def series(frames: Frames, q: QuerySpec) -> dict[str, np.ndarray]:
    """Each entity's values in time order (window, entity filter, non-null key); hourly counts per
    group for event logs."""
    if q.p("series") == "hourly_count":
        return hourly_counts(frames, q)
    df = selected_rows(frames, q, events=False)
    key = q.p("key")
    df = df.loc[df[key].notna(), [q.entity, key]]
    return {str(e): g[key].to_numpy(dtype=float) for e, g in df.groupby(q.entity, sort=True, observed=True)}


def lower_median(x: np.ndarray) -> float:
    return float(np.sort(x)[(len(x) - 1) // 2])


def runs(flags: np.ndarray) -> list[int]:
    """Lengths of the runs of consecutive True values, in order."""
    edges = np.diff(np.concatenate(([0], np.asarray(flags, dtype=bool).astype(np.int8), [0])))
    return (np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)).tolist()


def has_spike(x: np.ndarray, q: QuerySpec) -> bool:
    med = lower_median(x)
    mad = lower_median(np.abs(x - med))
    return any(r <= q.p("width") for r in runs(x > med + q.p("mult") * mad))


def has_rise(x: np.ndarray, q: QuerySpec) -> bool:
    lag = q.p("lag")
    if len(x) <= lag:
        return False
    return any(r >= q.p("min_len") for r in runs(x[lag:] - x[:-lag] > q.p("delta")))


def has_plateau(x: np.ndarray, q: QuerySpec) -> bool:
    return any(r >= q.p("min_len") - 1 for r in runs(x[1:] == x[:-1]))


def oscillates(x: np.ndarray, q: QuerySpec) -> bool:
    r = x - lower_median(x)
    s = np.sign(r[r != 0])
    if len(s) < 3:
        return False
    changes = int((s[1:] != s[:-1]).sum())
    return 100 * changes >= q.p("rate_pct") * (len(s) - 1)


def has_level_shift(x: np.ndarray, q: QuerySpec) -> bool:
    """Some ``i`` where ``x[i:i+span]`` lies above ``max(x[i-span:i]) + delta`` (or below ``min - delta``);
    the windows' maxima and minima come from one sliding view (window ``j`` starts at ``j``)."""
    span, d = q.p("span"), q.p("delta")
    if len(x) < 2 * span:
        return False
    w = np.lib.stride_tricks.sliding_window_view(x, span)
    hi, lo = w.max(axis=1), w.min(axis=1)
    after_lo, after_hi, before_hi, before_lo = lo[span:], hi[span:], hi[:len(hi) - span], lo[:len(lo) - span]
    return bool(np.any(after_lo > before_hi + d) or np.any(after_hi < before_lo - d))


TESTS = {"shape_spike": has_spike, "shape_rise": has_rise, "shape_plateau": has_plateau,
         "shape_oscillation": oscillates, "shape_level_shift": has_level_shift}


def entities_with_shape(frames: Frames, q: QuerySpec) -> list[str]:
    """The sorted entities whose series shows the template's shape."""
    test = TESTS[q.template]
    return sorted(e for e, x in series(frames, q).items() if len(x) and test(x, q))


def spike_naive(frames: Frames, q: QuerySpec) -> list[str]:
    """The global-threshold misreading: entities with a reading above the median + mult × MAD of all
    entities pooled (not each entity's own baseline)."""
    s = series(frames, q)
    if not s:
        return []
    pooled = np.concatenate(list(s.values()))
    med = lower_median(pooled)
    thr = med + q.p("mult") * lower_median(np.abs(pooled - med))
    return sorted(e for e, x in s.items() if (x > thr).any())
