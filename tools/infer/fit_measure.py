"""Measurement models fitted per column: level, per-state shift and noise scale, daily seasonality
(24 h and 12 h harmonics), trend, entity-level spread, and AR(1) noise (statsmodels AutoReg) or
Poisson counts."""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tools.infer.fit_dist import _sig, decimals_of
from tools.spec.distributions import Normal
from tools.spec.durations import format_duration
from tools.spec.entity import Attribute
from tools.spec.measurement import (
    ArNoise,
    AttributeEffect,
    IidNoise,
    Measurement,
    NoNoise,
    PoissonNoise,
    Seasonality,
    StateEffect,
)

DAY = 86400.0
MONDAY = 345600.0  # 1970-01-05T00:00Z: seasonal phases are measured from a Monday (tools.generate.measure)
OLS_SAMPLE = 200_000
AR_SERIES = 16
MAX_GROUPS = 50
GROUP_R2 = 0.3  # share of the entity-level spread a label attribute must explain to get its own shifts
_PCT = re.compile(r"(pct|percent|utili[sz]ation|availability|load|ratio_pct|%)", re.IGNORECASE)
_UNITS = [(re.compile(r"_ms$", re.I), "ms"), (re.compile(r"(pct|percent|utili[sz]ation|availability)$", re.I), "%"),
          (re.compile(r"_bytes$", re.I), "bytes"), (re.compile(r"_(s|sec|seconds)$", re.I), "s")]


@dataclass
class MeasurementFit:
    """A fitted measurement, its hidden per-entity offset attribute (if any) and a provenance note."""

    measurement: Measurement
    offset: Attribute | None
    note: str


def _unit(name: str) -> str | None:
    return next((u for rx, u in _UNITS if rx.search(name)), None)


def _design(t: np.ndarray, start: float, state: np.ndarray | None, base_state: int, n_states: int,
            seasonal: bool, trend: bool) -> tuple[np.ndarray, list[str]]:
    cols, names = [np.ones(t.size)], ["base"]
    if trend:
        cols.append((t - start) / DAY)
        names.append("trend")
    if seasonal:
        for period, tag in ((DAY, "1d"), (DAY / 2, "12h")):
            w = 2 * np.pi / period * (t - MONDAY)
            cols += [np.cos(w), np.sin(w)]
            names += [f"cos{tag}", f"sin{tag}"]
    if state is not None:
        for s in range(n_states):
            if s != base_state:
                cols.append((state == s).astype(float))
                names.append(f"state{s}")
    return np.column_stack(cols), names


def _inliers(resid: np.ndarray) -> np.ndarray:
    """Rows within 4 robust sigmas: rare excursions (incidents, degraded episodes) do not move the level."""
    mad = 1.4826 * float(np.median(np.abs(resid - np.median(resid))))
    return np.abs(resid - np.median(resid)) <= 4 * mad if mad > 0 else np.ones(resid.size, bool)


def _ar1(resid: np.ndarray, series: np.ndarray) -> tuple[float, int]:
    """Median AR(1) coefficient over up to AR_SERIES of the longest series (statsmodels AutoReg)."""
    from statsmodels.tsa.ar_model import AutoReg

    ids, counts = np.unique(series, return_counts=True)
    pick = ids[np.argsort(-counts, kind="stable")[:AR_SERIES]]
    phis = []
    for k in pick:
        x = resid[series == k]
        if x.size < 20 or np.ptp(x) == 0:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            phis.append(float(AutoReg(x - x.mean(), lags=1, trend="n").fit().params[0]))
    return (float(np.median(phis)) if phis else 0.0), len(phis)


def fit_measurement(name: str, kind: str, v: np.ndarray, t: np.ndarray, start: float, entity: np.ndarray,
                    series: np.ndarray, state: np.ndarray | None, state_names: list[str], periodic: bool,
                    seed: int = 0, groups: dict[str, np.ndarray] | None = None) -> MeasurementFit:
    """Fit one measurement column. ``t`` in epoch seconds, rows sorted by series then time; ``groups``
    maps a label attribute to its label per entity code (candidates for a per-label level shift)."""
    ok = np.isfinite(v)
    v, t, entity, series = v[ok], t[ok], entity[ok], series[ok]
    state = state[ok] if state is not None else None
    span = float(t.max() - t.min()) if t.size else 0.0
    n_states = len(state_names)
    base_state = int(np.bincount(state, minlength=n_states).argmax()) if state is not None else 0
    if state is not None and n_states < 2:
        state = None
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(v.size, OLS_SAMPLE, replace=False)) if v.size > OLS_SAMPLE else slice(None)
    cumulative = kind == "cumulative counter"  # grows by construction: always a trend, however short the span
    step = float(np.median(np.diff(np.unique(t[: min(t.size, 10_000)])))) if t.size > 1 else DAY
    # a daily cycle needs a day of data and >= 4 rows per cycle (a daily table cannot show one)
    seasonal, trend = span >= DAY and step <= DAY / 4, span >= DAY or (cumulative and span > 0)
    X, cols = _design(t[pick], start, None if state is None else state[pick], base_state, n_states, seasonal, trend)
    y = v[pick]
    coef = np.linalg.lstsq(X, y, rcond=None)[0]
    inlier = _inliers(y - X @ coef)
    coef = np.linalg.lstsq(X[inlier], y[inlier], rcond=None)[0]
    resid_sd = float(np.std((y - X @ coef)[inlier])) or 1e-9
    keep_seasonal = seasonal and max(math.hypot(coef[cols.index(f"cos{k}")], coef[cols.index(f"sin{k}")])
                                     for k in ("1d", "12h")) >= 0.2 * resid_sd
    keep_trend = trend and (cumulative or abs(coef[cols.index("trend")]) * span / DAY >= 0.5 * resid_sd)
    if keep_seasonal != seasonal or keep_trend != trend:
        X, cols = _design(t[pick], start, None if state is None else state[pick], base_state, n_states,
                          keep_seasonal, keep_trend)
        coef = np.linalg.lstsq(X[inlier], y[inlier], rcond=None)[0]
    c = dict(zip(cols, coef, strict=True))
    Xall, _ = _design(t, start, state, base_state, n_states, keep_seasonal, keep_trend)
    level = Xall @ coef
    resid = v - level
    base = float(c["base"])
    season = []
    for tag, period in (("1d", DAY), ("12h", DAY / 2)):
        if keep_seasonal:
            amp = math.hypot(c[f"cos{tag}"], c[f"sin{tag}"])
            if amp >= 0.2 * resid_sd:
                peak = (math.atan2(c[f"sin{tag}"], c[f"cos{tag}"]) % (2 * np.pi)) / (2 * np.pi) * period
                season.append((tag, amp, format_duration((round(peak / 60) * 60) % period)))
    integer = kind in ("count", "integer", "cumulative counter")
    mean_level = float(np.mean(level)) if level.size else 0.0
    disp = float(np.var(resid)) / mean_level if mean_level > 0 else 0.0
    poisson = kind == "count" and v.min() >= 0 and 0.6 <= disp <= 1.6 and all(a / max(base, 1e-9) < 0.95 for _, a, _ in season)
    # entity-level spread: a hidden per-entity offset when entities differ by more than noise would explain
    offset = None
    effects = []
    ent_mean = pd.Series(resid).groupby(entity).median()  # robust to an entity's rare excursions
    center = float(ent_mean.mean()) if ent_mean.size else 0.0  # the level of the typical entity vs the fit
    if not poisson and groups:
        found = _group_effect(ent_mean, groups)
        if found:
            attr, shifts = found
            effects.append(AttributeEffect(attribute=attr, values=shifts))
            resid = resid - pd.Series(groups[attr][entity]).map(shifts).fillna(0.0).to_numpy()
            ent_mean = pd.Series(resid).groupby(entity).median()
    within = resid - ent_mean.reindex(entity).to_numpy()
    counts = np.bincount(entity)[np.unique(entity)]
    between_sd = float(np.sqrt(max(ent_mean.var(ddof=1) - np.var(within) / max(np.mean(counts), 1), 0.0))) \
        if ent_mean.size >= 3 else 0.0
    if not poisson and between_sd >= 0.2 * max(float(np.std(within)), 1e-9):
        oname = f"{name}_entity_offset"
        offset = Attribute(name=oname, emit=False, dist=Normal(kind="normal", mean=0.0, std=_sig(between_sd)))
        effects.append(AttributeEffect(attribute=oname, coef=1.0))
        resid = within
    if effects:  # shifts and offsets are centred on the typical entity: the base moves there
        base += center
    states = {}
    if state is not None:
        base_sd = float(np.std(resid[state == base_state])) or 1e-9
        for s in range(n_states):
            if s == base_state or not np.any(state == s):
                continue
            shift = float(c.get(f"state{s}", 0.0))
            sd = float(np.std(resid[state == s]))
            states[state_names[s]] = StateEffect(shift=_sig(shift), noise_scale=_sig(sd / base_sd, 3))
    noise, phi, n_ar = _noise(resid, series, periodic, poisson)
    lo = 0.0 if v.min() >= 0 else None
    hi = 100.0 if _PCT.search(name) and v.max() <= 100 else None
    digits = None if integer or poisson else decimals_of(v)
    m = Measurement(
        name=name, unit=_unit(name), base=_sig(base), trend=_sig(c.get("trend", 0.0)),
        seasonality=[Seasonality(period=tag, amplitude=_sig(a / base if poisson else a, 4), peak=pk,
                                 mode="multiplicative" if poisson else "additive") for tag, a, pk in season],
        noise=noise, states=states, attribute_effects=effects, bounds=(lo, hi), integer=integer and not poisson,
        decimals=digits)
    parts = [f"level {_sig(base, 4)}", f"noise {noise.kind}" + (f" phi={phi:.2f} from {n_ar} series" if n_ar else "")]
    if season:
        parts.append("daily seasonality " + ", ".join(f"{tag} amp {a:.3g} peak {pk}" for tag, a, pk in season))
    if keep_trend:
        parts.append(f"trend {c['trend']:.3g}/day")
    for a in effects:
        if a.values:
            parts.append(f"level by {a.attribute}: " + ", ".join(f"{k} {v:+.3g}" for k, v in a.values.items()))
    if offset:
        parts.append(f"entity spread sd {between_sd:.3g}")
    return MeasurementFit(m, offset, "; ".join(parts))


def _group_effect(ent_mean: pd.Series, groups: dict[str, np.ndarray]) -> tuple[str, dict[str, float]] | None:
    """The label attribute whose groups explain most (>= 30%) of the spread of entity levels, with each
    label's shift from the mean of the entities; None when no attribute explains that much."""
    best, best_r2 = None, GROUP_R2
    total = float(ent_mean.var(ddof=0))
    if ent_mean.size < 4 or total <= 0:
        return None
    for attr, labels in groups.items():
        lab = pd.Series(labels[ent_mean.index.to_numpy()], index=ent_mean.index)
        k, n = lab.nunique(), ent_mean.size
        if k < 2 or k > min(MAX_GROUPS, n / 2):
            continue
        means = ent_mean.groupby(lab).mean()
        r2 = float(means.reindex(lab).var(ddof=0)) / total
        r2 = 1 - (1 - r2) * (n - 1) / (n - k)  # adjusted: many small groups explain noise too
        if r2 >= best_r2:
            center = float(ent_mean.mean())
            best, best_r2 = (attr, {str(k): _sig(float(m) - center, 4) for k, m in means.items()}), r2
    return best


def _noise(resid: np.ndarray, series: np.ndarray, periodic: bool, poisson: bool):
    if poisson:
        return PoissonNoise(kind="poisson"), 0.0, 0
    # robust spread (1.4826 MAD): rare excursions (hidden degraded states, incidents) do not widen the noise
    sd = 1.4826 * float(np.median(np.abs(resid - np.median(resid)))) if resid.size else 0.0
    sd = sd or float(np.std(resid))
    if sd < 1e-9:  # exact (up to float rounding): no noise
        return NoNoise(kind="none"), 0.0, 0
    phi, n_ar = _ar1(resid, series) if periodic else (0.0, 0)
    if abs(phi) < 0.15:
        return IidNoise(kind="iid", sigma=_sig(sd, 4)), phi, n_ar
    phi = float(np.clip(phi, -0.95, 0.95))
    return ArNoise(kind="ar", phi=[round(phi, 3)], sigma=_sig(sd * math.sqrt(1 - phi * phi), 4)), phi, n_ar
