"""Per-entity series, the entity's own baseline model, and the window statistics.

Baseline model: for one entity and key, an ordinary least-squares fit on the entity's rows outside
every incident window that touches it, with an intercept, a linear trend (when the spec has trends)
and a cosine/sine pair per seasonal period declared in the spec (daily, 12-hourly, weekly ...; a
period longer than the fitted span is left out). One re-fit drops rows whose residual exceeds 4
robust sigmas (natural short degradations). The residual scale ``sigma`` is 1.4826 x MAD of the
baseline rows' residuals (falling back to the mean absolute deviation, then the std, for discrete
series whose MAD is 0). Every statistic is computed on residuals ``r = x - fit``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tools.bundle.opened import Bundle
from tools.checks.model import MIN_BASELINE_ROWS, in_list, key_sql, qi

Window = tuple[int, int]  # [start, end) in epoch microseconds


@dataclass
class Series:
    entity: str
    t: np.ndarray                 # int64 epoch microseconds, ascending
    x: dict[str, np.ndarray]      # key -> float values (nan = null)


def fetch_sql(table: str, id_col: str | tuple[str, ...], ts_col: str, entities: list[str], keys: list[str],
              extra: str = "") -> str:
    """The rows of ``entities`` (id, epoch microseconds, ``keys``), ordered by entity and time; ``id_col``
    is the id column or a composite key's columns (``rec_key``)."""
    cols, idc = "".join(f", {qi(k)}" for k in keys), key_sql(id_col)
    return (f"SELECT {idc} AS entity, epoch_us({qi(ts_col)}) AS t_us{cols} FROM {qi(table)} "
            f"WHERE {idc} IN {in_list(entities)}{extra} ORDER BY {idc}, {qi(ts_col)}, rowid")


def table_entities(b: Bundle, table: str, key: str | tuple[str, ...]) -> list[str]:
    """The distinct entities of a table, sorted: its ids, or a composite key's labels (cached)."""
    if isinstance(key, str):
        return b.entities(table, key)
    got = b.cache.get(("entities", table, key))
    if got is None:
        got = b.cache[("entities", table, key)] = sorted(
            str(x) for x, in b.sql(f"SELECT DISTINCT {key_sql(key)} FROM {qi(table)} WHERE {key_sql(key)} IS NOT NULL"))
    return got


def _series(b: Bundle, sql: str, keys: list[str]) -> dict[str, Series]:
    d = b.numpy(sql)
    ent = np.asarray(d["entity"], dtype=object)
    t = np.asarray(np.ma.filled(d["t_us"], 0), dtype=np.int64)
    vals = {k: np.ma.filled(np.ma.asarray(d[k]).astype(float), np.nan) for k in keys}
    out: dict[str, Series] = {}
    if ent.size:
        cut = np.flatnonzero(ent[1:] != ent[:-1]) + 1
        for lo, hi in zip(np.r_[0, cut], np.r_[cut, ent.size], strict=True):
            out[str(ent[lo])] = Series(str(ent[lo]), t[lo:hi], {k: v[lo:hi] for k, v in vals.items()})
    return out


def prefetch(b: Bundle, table: str, id_col: str, ts_col: str, entities: list[str], keys: list[str]) -> None:
    """Read the series of ``entities`` (``keys``) in one scan and keep them on the bundle: later
    ``fetch`` calls for a subset of them (and of the keys) are served from it instead of one scan each.
    A series does not depend on which other entities a query selects, so the result is the same."""
    ents, keys = sorted(set(entities)), sorted(set(keys))
    b.cache[("series", table, id_col, ts_col)] = (set(ents), set(keys),
                                                  _series(b, fetch_sql(table, id_col, ts_col, ents, keys), keys))


def fetch(b: Bundle, table: str, id_col: str, ts_col: str, entities: list[str], keys: list[str],
          extra: str = "") -> tuple[dict[str, Series], str]:
    """Rows of ``entities`` (all keys), ordered by entity and time; returns series and the SQL (the
    standalone query that reads them, also when they come from ``prefetch``)."""
    sql = fetch_sql(table, id_col, ts_col, entities, keys, extra)
    got = b.cache.get(("series", table, id_col, ts_col))
    if got is None or extra or not (set(entities) <= got[0] and set(keys) <= got[1]):
        return _series(b, sql, keys), sql
    return {e: Series(e, s.t, {k: s.x[k] for k in keys}) for e in sorted(set(entities))
            if (s := got[2].get(e)) is not None}, sql


def in_windows(t: np.ndarray, windows: list[Window]) -> np.ndarray:
    m = np.zeros(t.shape, bool)
    for s, e in windows:
        m |= (t >= s) & (t < e)
    return m


def median(v: np.ndarray) -> float:
    """``np.median`` of a non-empty 1-D array without NaN (the same value: the middle element, or the
    mean of the two middle ones), minus np.median's generic overhead: the fits call it thousands of
    times on short series."""
    k = v.size // 2
    if v.size % 2:
        return float(np.partition(v, k)[k])
    p = np.partition(v, (k - 1, k))
    return float((p[k - 1] + p[k]) / 2)


def robust_scale(r: np.ndarray) -> float:
    r = r[np.isfinite(r)]
    if r.size == 0:
        return 0.0
    med = median(r)
    mad = 1.4826 * median(np.abs(r - med))
    if mad > 0:
        return float(mad)
    mean_ad = 1.2533 * np.mean(np.abs(r - med))
    return float(mean_ad) if mean_ad > 0 else float(np.std(r))


@dataclass
class Fit:
    r: np.ndarray        # residuals of every row (nan where x is null)
    base: np.ndarray     # rows used as the baseline
    sigma: float
    center: float        # median baseline residual

    def z(self, rows: np.ndarray, stat=median) -> float:
        """(stat of the rows' residuals - baseline median) / sigma (inf when sigma is 0)."""
        v = self.r[rows]
        v = v[np.isfinite(v)]
        if v.size == 0:
            return float("nan")
        d = float(stat(v)) - self.center
        if self.sigma > 0:
            return d / self.sigma
        return 0.0 if d == 0 else float(np.sign(d) * np.inf)

    def spread(self, rows: np.ndarray) -> float:
        """1.4826 x median |residual - baseline median| of the rows / sigma: a robust std ratio that
        short natural episodes inside the window do not move."""
        v = self.r[rows]
        v = v[np.isfinite(v)]
        if v.size == 0:
            return float("nan")
        d = 1.4826 * median(np.abs(v - self.center))
        return d / self.sigma if self.sigma > 0 else (0.0 if d == 0 else float("inf"))

    def rms(self, rows: np.ndarray) -> float:
        v = self.r[rows]
        v = v[np.isfinite(v)]
        if v.size == 0:
            return float("nan")
        d = float(np.sqrt(np.mean((v - self.center) ** 2)))
        return d / self.sigma if self.sigma > 0 else (0.0 if d == 0 else float("inf"))


class Model:
    """The design of the baseline regression for one entity type."""

    def __init__(self, t0_us: int, periods: list[float], trend: bool, horizon_s: float):
        self.t0, self.periods, self.trend, self.horizon = t0_us, periods, trend, max(horizon_s, 1.0)

    def design(self, t: np.ndarray, span_s: float, inputs: list[np.ndarray] | None = None) -> np.ndarray:
        s = (t - self.t0) / 1e6
        cols = [np.ones(t.shape)]
        if self.trend:
            cols.append(s / self.horizon)
        for p in self.periods:
            if p <= span_s * 1.05:
                cols += [np.cos(2 * np.pi * s / p), np.sin(2 * np.pi * s / p)]
        for v in inputs or []:
            cols.append(np.nan_to_num(v))
        return np.column_stack(cols)

    def fit(self, t: np.ndarray, x: np.ndarray, exclude: np.ndarray,
            inputs: list[np.ndarray] | None = None, floor: float = 0.0) -> Fit | None:
        """Fit on rows outside ``exclude``; None when too few baseline rows. ``floor`` is the smallest
        residual scale (the key's resolution: 1 for counts, 10^-decimals for rounded values)."""
        base = ~exclude & np.isfinite(x)
        if inputs:
            for v in inputs:
                base &= np.isfinite(v)
        if base.sum() < MIN_BASELINE_ROWS:
            return None
        span = (t[base].max() - t[base].min()) / 1e6
        X = self.design(t, span, inputs)
        if base.sum() < 2 * X.shape[1]:
            X = X[:, :1]
        if self.trend and X.shape[1] > 1:
            r = _residuals(np.delete(X, 1, axis=1), x, base)
            if _significant_trend(X[:, 1], r, base):
                r = _residuals(X, x, base)
        else:
            r = _residuals(X, x, base)
        r = np.where(np.isfinite(x), r, np.nan)
        return Fit(r, base, max(robust_scale(r[base]), floor), median(r[base]))


def _residuals(X: np.ndarray, x: np.ndarray, base: np.ndarray) -> np.ndarray:
    """OLS residuals, re-fitted once without the rows beyond 4 robust sigmas (short natural episodes)."""
    use = base.copy()
    for _ in range(2):
        beta = np.linalg.lstsq(X[use], x[use], rcond=None)[0]
        r = x - X @ beta
        sigma = robust_scale(r[base])
        if sigma <= 0:
            break
        keep = base & (np.abs(r - median(r[base])) <= 4 * sigma)
        if keep.sum() < max(MIN_BASELINE_ROWS, X.shape[1] + 1) or (keep == use).all():
            break
        use = keep
    return r


def _significant_trend(col: np.ndarray, r: np.ndarray, base: np.ndarray) -> bool:
    """Is there a linear trend in the (trend-free) residuals ``r``? |t| >= 3, with the standard error
    widened for the lag-1 autocorrelation (effective n = n (1 - phi) / (1 + phi)): a free trend on a
    slowly wandering AR series would otherwise be extrapolated into the window as a fake drift."""
    c, rb = col[base] - col[base].mean(), r[base]
    if rb.size < 8 or not (c @ c) > 0:
        return False
    beta = float(c @ (rb - rb.mean()) / (c @ c))
    e = rb - rb.mean() - beta * c
    if np.std(e) == 0:
        return beta != 0
    phi = float(np.clip(np.corrcoef(e[:-1], e[1:])[0, 1], 0.0, 0.99)) if np.std(e[1:]) > 0 else 0.0
    n_eff = max(rb.size * (1 - phi) / (1 + phi), 3.0)
    se = float(np.std(e)) / (float(np.std(c)) * np.sqrt(n_eff))
    return abs(beta) / se >= 3.0



def control_windows(t: np.ndarray, start: int, end: int, excluded: list[Window], limit: int = 200) -> list[Window]:
    """Windows of the incident's length tiled over the entity's span (phase-aligned with the window),
    skipping any that overlap an excluded window; at most ``limit``, evenly spaced."""
    if t.size == 0:
        return []
    length = end - start
    k_lo = -((start - int(t.min())) // length)
    k_hi = (int(t.max()) - start) // length
    out = []
    for k in range(k_lo, k_hi + 1):
        s, e = start + k * length, start + (k + 1) * length
        if k == 0 or any(s < xe and xs < e for xs, xe in excluded):
            continue
        out.append((s, e))
    if len(out) > limit:
        out = [out[i] for i in np.linspace(0, len(out) - 1, limit).round().astype(int)]
    return out


def spread(items: list, limit: int) -> list:
    """At most ``limit`` items, evenly spaced (deterministic)."""
    if len(items) <= limit:
        return list(items)
    return [items[i] for i in np.linspace(0, len(items) - 1, limit).round().astype(int)]
