"""Noise of a measurement once its level is removed: spikes (a two-component Gaussian mixture fitted to
the tail when the share of residuals beyond 4 robust sigmas is far above the Gaussian one), the AR order
(statsmodels ``ar_select_order`` by BIC on the longest series, spikes clipped first) and its
coefficients, and caps/floors (a point mass of values at the maximum or minimum)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from tools.infer.fit_dist import _sig
from tools.infer.fit_tails import core_share, student_t
from tools.spec.measurement import ArNoise, IidNoise, NoiseLink, NoNoise, PoissonNoise, Spikes

AR_SERIES = 8
AR_ROWS = 2000
MAX_LAG = 4
TAIL_K = 4.0               # "beyond 4 robust sigmas"
GAUSS_TAIL = 6.334e-5      # P(|z| > 4) for a Gaussian
SPIKE_MIN_SHARE = 0.001    # at least this share of rows beyond 4 sigma before spikes are modelled
SPIKE_EXCESS = 10.0        # ... and at least 10x the Gaussian share
CAP_SHARE = 0.002          # a point mass this large at the max (min) is a cap (floor)
MIN_EPISODES = 5           # sustained excursions seen before they are modelled as episodes
ISOLATED_MIN = 0.6         # share of far rows with no far neighbour before they are spikes
LINK_MIN = 0.3             # |correlation| of two measurements' noise before it is modelled
HEAVY_MIN = 3 * GAUSS_TAIL  # share beyond 4 sigma before Student-t noise is considered
PHI_MIN = 0.05             # |lag-1 coefficient| below this is white noise


@dataclass
class NoiseFit:
    """The noise model, its spikes (if any), and what the provenance note says."""

    noise: object
    spikes: Spikes | None
    phi: list[float]
    n_series: int
    tail_share: float
    note: str = ""


def median(x: np.ndarray) -> float:
    """``np.median`` of finite values with one partition (about 5x faster on 1M values)."""
    n = x.size
    if n == 0:
        return float("nan")
    p = np.partition(x, n // 2)
    return float(p[n // 2]) if n % 2 else float((p[: n // 2].max() + p[n // 2]) / 2)


def group_median(x: np.ndarray, ent: np.ndarray) -> pd.Series:
    """The median of ``x`` per entity code (indexed by the codes present). Rows of one entity contiguous
    and every entity with the same number of rows (a periodic grid): one partition of an (entities, rows)
    matrix; otherwise pandas' grouped median."""
    if x.size and ent.size == x.size:
        starts = np.flatnonzero(np.r_[True, ent[1:] != ent[:-1]])
        codes = ent[starts]
        if np.unique(codes).size == codes.size and x.size % codes.size == 0 \
                and np.all(np.diff(np.r_[starts, x.size]) == x.size // codes.size):
            med = np.median(x.reshape(codes.size, -1), axis=1)
            order = np.argsort(codes, kind="stable")
            return pd.Series(med[order], index=codes[order])
    return pd.Series(x).groupby(ent).median()


def robust_sd(x: np.ndarray, center: float | None = None) -> float:
    """1.4826 * MAD (the Gaussian sigma when rare excursions are present)."""
    if not x.size:
        return 0.0
    return 1.4826 * median(np.abs(x - (median(x) if center is None else center)))


def far_rows(x: np.ndarray, k: float = TAIL_K) -> np.ndarray:
    """Whether each (finite) value is more than ``k`` robust sigmas from the median."""
    c = median(x)
    dev = np.abs(x - c)
    sd = 1.4826 * median(dev)
    return dev > k * sd if sd > 0 else np.zeros(x.size, bool)


def tail_share(x: np.ndarray, k: float = TAIL_K) -> float:
    """Share of the values more than ``k`` robust sigmas from the median."""
    x = x[np.isfinite(x)]
    return float(np.mean(far_rows(x, k))) if x.size else 0.0


def _bisect(f, lo: float, hi: float, n: int = 60) -> float:
    """The root of an increasing ``f`` on [lo, hi] (geometric bisection)."""
    for _ in range(n):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return math.sqrt(lo * hi)


def isolated_share(far: np.ndarray, series: np.ndarray) -> float:
    """Share of the far rows whose neighbours in the same series are not far: spikes are isolated, a
    sustained excursion (an incident, a diverging entity) is not."""
    same_prev = np.r_[False, series[1:] == series[:-1]]
    same_next = np.r_[series[1:] == series[:-1], False]
    prev_far = np.r_[False, far[:-1]] & same_prev
    next_far = np.r_[far[1:], False] & same_next
    return float(np.mean(~(prev_far | next_far)[far])) if far.any() else 0.0


def fit_spikes(resid: np.ndarray, sd: float, series: np.ndarray | None = None) -> tuple[Spikes | None, float]:
    """A spike component when the residuals have far more than Gaussian mass beyond 4 sigma, and the sd
    of the noise without it. Fitted to the tail itself: a mixture ``(1-w) N(0, s0) + w N(0, s1)`` whose
    share beyond 4 sigma and mean |value| there equal the sample's, with ``s0`` set so the mixture's
    robust sigma is the sample's (so the tail share, not only the variance, comes back). Direction
    from the sign of the far values."""
    if sd <= 0 or resid.size < 200:
        return None, sd
    r = resid - median(resid)
    c = TAIL_K * sd
    far = np.abs(r) > c
    share = float(far.mean())
    if share < max(SPIKE_MIN_SHARE, SPIKE_EXCESS * GAUSS_TAIL):
        return None, sd
    length = 1.0
    if series is not None and isolated_share(far, series) < ISOLATED_MIN:
        # sustained excursions (unlabelled degraded spells, incidents): episodes with their mean length
        starts = far & ~(np.r_[False, far[:-1]] & np.r_[False, series[1:] == series[:-1]])
        if int(starts.sum()) < MIN_EPISODES:
            return None, sd
        length = float(far.sum() / starts.sum())
    mass = share * float(np.mean(np.abs(r[far])))  # E[|X|; |X| > c]
    s0, s1, w = sd, sd, 0.0
    for _ in range(6):
        q0, e0 = 2 * norm.sf(c / s0), 2 * s0 * norm.pdf(c / s0)

        def weight(x, q0=q0):
            return (share - q0) / max(2 * norm.sf(c / x) - q0, 1e-300)

        def excess(x, q0=q0, e0=e0):
            wx = weight(x)
            return wx * 2 * x * norm.pdf(c / x) + (1 - wx) * e0 - mass
        s1 = _bisect(excess, s0 * 1.001, s0 * 1e4)
        w = weight(s1)
        if not 0 < w < 0.5:
            return None, sd
        m = _bisect(lambda x, w=w, s1=s1, s0=s0: (1 - w) * (1 - 2 * norm.sf(x / s0)) + w * (1 - 2 * norm.sf(x / s1)) - 0.5,
                    s0 * 1e-3, s1 * 10)
        s0 *= sd / (1.4826 * m)
    if s1 <= s0 * 1.001:
        return None, sd
    up = float(np.mean(r[far] > 0))
    direction = "up" if up >= 0.9 else "down" if up <= 0.1 else "both"
    spikes = Spikes(rate=_sig(min(w / length, 0.49), 3), scale=_sig(math.sqrt(s1 * s1 - s0 * s0), 4),
                    direction=direction, length=round(length, 2))
    return spikes, s0


def _series_pick(series: np.ndarray) -> list[np.ndarray]:
    """Row indices of up to AR_SERIES of the longest series (rows sorted by series, then time)."""
    starts = np.flatnonzero(np.r_[True, series[1:] != series[:-1]])
    counts = np.diff(np.r_[starts, series.size])
    pick = np.argsort(-counts, kind="stable")[:AR_SERIES]
    return [np.arange(starts[k], starts[k] + counts[k]) for k in pick if counts[k] >= 30]


def _yule_walker(x: np.ndarray, p: int, share: float) -> np.ndarray:
    """AR(p) coefficients from the autocovariances of ``x`` with the lag-0 one scaled by ``share`` (the
    part of the variance that is the AR process, not white noise on top of it)."""
    g = np.array([float(np.dot(x[k:], x[: x.size - k])) / x.size for k in range(p + 1)])
    g[0] *= share
    toeplitz = g[np.abs(np.subtract.outer(np.arange(p), np.arange(p)))]
    return np.linalg.solve(toeplitz, g[1:])


def fit_ar(resid: np.ndarray, series: np.ndarray, sd: float, share: float = 1.0) -> tuple[list[float], int]:
    """AR coefficients (median per lag over the longest series) with the order statsmodels'
    ``ar_select_order`` (BIC, up to MAX_LAG lags) picks most often; [] for white noise. With ``share``
    < 1 (isolated spikes: white noise on top of the AR process) the coefficients are the Yule-Walker ones
    of the AR part, whose variance is that share of the rows'."""
    from statsmodels.tsa.ar_model import AutoReg, ar_select_order

    # spikes would bias the coefficients: rows beyond 4 sigma are interpolated from their neighbours
    far = np.abs(resid - median(resid)) > TAIL_K * sd
    clipped = resid.copy()
    if far.any() and not far.all():
        pos = np.arange(resid.size)
        clipped[far] = np.interp(pos[far], pos[~far], resid[~far])
    xs = []
    for idx in _series_pick(series):
        x = clipped[idx]
        x = x[:AR_ROWS]  # the order and coefficients need a few thousand rows, not a long series' all
        if np.ptp(x) > 0:
            xs.append(x - x.mean())
    if not xs:
        return [], 0
    orders = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in xs:
            lags = ar_select_order(x, maxlag=min(MAX_LAG, x.size // 10), ic="bic", trend="n").ar_lags
            orders.append(max(lags) if lags else 0)
        p = int(np.bincount(orders).argmax())
        if p == 0:
            # a weak but shared lag-1 dependence that BIC misses on short series: keep it when the median
            # coefficient over the series is clearly non-zero
            phi1 = float(np.median([AutoReg(x, lags=1, trend="n").fit().params[0] for x in xs]))
            if abs(phi1) < PHI_MIN:
                return [], len(xs)
            p = 1
        if share < 1:
            coefs = np.array([_yule_walker(x, p, share) for x in xs])
        else:
            coefs = np.array([AutoReg(x, lags=p, trend="n").fit().params for x in xs])
    return [float(c) for c in np.median(coefs, axis=0)], len(xs)


def _stationary(phi: list[float]) -> list[float]:
    """Shrink the coefficients until the AR process is stationary (roots inside the unit circle)."""
    phi = list(phi)
    for _ in range(50):
        roots = np.roots([1.0, *[-p for p in phi]])
        if np.all(np.abs(roots) < 0.97):
            return phi
        phi = [p * 0.95 for p in phi]
    return phi[:1] if abs(phi[0]) < 0.95 else [math.copysign(0.95, phi[0])]


def ar_variance(phi: list[float]) -> float:
    """Stationary variance of an AR(p) process with unit innovations."""
    from statsmodels.tsa.arima_process import arma_acovf

    return float(arma_acovf(np.r_[1.0, -np.asarray(phi)], np.array([1.0]), nobs=1)[0])


def fit_noise(resid: np.ndarray, series: np.ndarray, periodic: bool, poisson: bool,
              within: np.ndarray | None = None) -> NoiseFit:
    """The noise of the residuals: Poisson counts, none, iid or AR(p), plus spikes. The spread and the
    spikes come from ``resid``; the AR coefficients from ``within`` when given (the residuals less the
    part common to every entity at the same time)."""
    if poisson:
        return NoiseFit(PoissonNoise(kind="poisson"), None, [], 0, 0.0)
    sd = robust_sd(resid) or float(np.std(resid)) if resid.size else 0.0
    if sd < 1e-9:  # exact (up to float rounding): no noise
        return NoiseFit(NoNoise(kind="none"), None, [], 0, 0.0)
    share = tail_share(resid)
    sd0 = sd
    spikes, sd = fit_spikes(resid, sd, series)  # the spikes widen the robust sigma a little: the base noise is narrower
    ar_in = resid if within is None else within
    share_ar = core_share(sd, spikes.rate, spikes.scale, TAIL_K * sd0) if spikes and spikes.length <= 1 else 1.0
    phi, n_ar = fit_ar(ar_in, series, robust_sd(ar_in) or sd, share_ar) if periodic else ([], 0)
    if not phi:
        heavy = student_t(resid, spikes, sd) if share >= HEAVY_MIN and (spikes is None or spikes.length <= 1) else None
        if heavy:  # heavy tails everywhere, not rare spikes on a Gaussian core
            df, scale, note = heavy
            return NoiseFit(IidNoise(kind="iid", sigma=_sig(scale, 4), df=round(df, 2)), None, [], n_ar, share, note)
        return NoiseFit(IidNoise(kind="iid", sigma=_sig(sd, 4)), spikes, [], n_ar, share)
    phi = [round(p, 3) for p in _stationary(phi)]
    sigma = sd / math.sqrt(ar_variance(phi))
    return NoiseFit(ArNoise(kind="ar", phi=phi, sigma=_sig(sigma, 4)), spikes, phi, n_ar, share)


def caps(v: np.ndarray) -> tuple[float | None, float | None]:
    """A floor (cap) where a share of at least CAP_SHARE of the values sit exactly at the minimum
    (maximum) and no other value is as common: values clipped there."""
    v = v[np.isfinite(v)]
    if v.size < 200:
        return None, None
    lo, hi = float(v.min()), float(v.max())
    at_lo, at_hi = float(np.mean(v == lo)), float(np.mean(v == hi))
    vals, counts = np.unique(v[(v > lo) & (v < hi)], return_counts=True)
    if vals.size < 10:
        return None, None
    # a mass must stand out from the values just inside it (3x the most common of the 5 nearest)
    floor = lo if at_lo >= CAP_SHARE and at_lo > 3 * counts[:5].max() / v.size else None
    cap = hi if at_hi >= CAP_SHARE and at_hi > 3 * counts[-5:].max() / v.size else None
    return floor, cap


def link_noise(measurements: list, fits: dict, notes: list[str], table: str) -> list:
    """Correlated measurements: each measurement's noise is linked to the earlier one whose residual noise
    it correlates with most, when |rho| >= LINK_MIN on the rows both have (CPU and latency moving
    together); one link per measurement, never to or from a formula or Poisson counts."""
    out = list(measurements)
    usable = [j for j, m in enumerate(out) if not m.formula and m.noise.kind in ("iid", "ar")
              and fits.get(m.name) is not None and fits[m.name].noise_resid is not None]
    for jj, j in enumerate(usable):
        best, rho = None, 0.0
        y = fits[out[j].name].noise_resid
        for i in usable[:jj]:
            x = fits[out[i].name].noise_resid
            both = np.isfinite(x) & np.isfinite(y)
            if both.sum() < 30 or np.std(x[both]) == 0 or np.std(y[both]) == 0:
                continue
            r = float(np.corrcoef(x[both], y[both])[0, 1])
            if abs(r) > abs(rho):
                best, rho = out[i].name, r
        if best is not None and abs(rho) >= LINK_MIN:
            out[j] = out[j].model_copy(update={"correlated": NoiseLink(**{"with": best, "rho": round(rho, 3)})})
            notes.append(f"{table}.{out[j].name}: noise correlated with {best} (rho {rho:.2f} on the residuals)")
    return out
