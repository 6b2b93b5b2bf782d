"""Measurement models fitted per column: level, per-state shift and noise scale, daily seasonality
(harmonics of the day down to 3 h), trend, entity-level spread, caps and floors, and the noise
(tools.infer.fit_noise: AR(p) with the order by BIC, spikes) or Poisson counts."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tools.common.durations import format_duration
from tools.infer.fit_dist import _sig, decimals_of
from tools.infer.fit_noise import caps, far_rows, fit_noise, group_median, median
from tools.infer.fit_tails import spike_free_scales
from tools.spec.distributions import Normal
from tools.spec.entity import Attribute
from tools.spec.measurement import (
    AttributeEffect,
    Measurement,
    Seasonality,
    StateEffect,
)

DAY = 86400.0
MONDAY = 345600.0  # 1970-01-05T00:00Z: seasonal phases are measured from a Monday (tools.generate.measure)
OLS_SAMPLE = 200_000
MAX_GROUPS = 50
FLOOR_STATE = 0.2  # a state whose values spread this little (vs the entities' levels) sets the value
MIN_COMMON = 5  # series sharing a timestamp before their common part is taken out of the noise
HARMONICS = (1, 2, 3, 4, 6, 8)  # cycles per day fitted as seasonality
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
    noise_resid: np.ndarray | None = None  # per input row (NaN where not fitted): for correlated noise


def _unit(name: str) -> str | None:
    return next((u for rx, u in _UNITS if rx.search(name)), None)


def _harmonics(step: float) -> list[tuple[float, str]]:
    """Daily harmonics (24 h, 12 h, 8 h, 6 h, 4 h, 3 h) with at least 4 rows per cycle: a daily profile
    that is not one cosine (a working-hours plateau) would otherwise be left as autocorrelated noise."""
    return [(DAY / k, format_duration(DAY / k)) for k in HARMONICS if DAY / k >= 4 * step]


def _design(t: np.ndarray, start: float, state: np.ndarray | None, base_state: int, n_states: int,
            seasonal: list[tuple[float, str]], trend: bool) -> tuple[np.ndarray, list[str]]:
    cols, names = [np.ones(t.size)], ["base"]
    if trend:
        cols.append((t - start) / DAY)
        names.append("trend")
    if seasonal:  # per distinct time, then gathered: rows share a few hundred timestamps
        codes, times = pd.factorize(t)
        w0 = 2 * np.pi * (np.asarray(times, dtype=float) - MONDAY)
        for period, tag in seasonal:
            cols += [np.cos(w0 / period)[codes], np.sin(w0 / period)[codes]]
            names += [f"cos{tag}", f"sin{tag}"]
    if state is not None:
        for s in range(n_states):
            if s != base_state:
                cols.append((state == s).astype(float))
                names.append(f"state{s}")
    return np.column_stack(cols), names


def _predict(c: dict[str, float], t: np.ndarray, start: float, state: np.ndarray | None,
             seasonal: list[tuple[float, str]]) -> np.ndarray:
    """The fitted level of every row (``_design(...) @ coef`` without building the matrix)."""
    level = np.full(t.size, float(c["base"]))
    if "trend" in c:
        level += c["trend"] * ((t - start) / DAY)
    if seasonal:  # the daily shape depends on the time only: computed once per distinct time
        codes, times = pd.factorize(t)
        w0 = 2 * np.pi * (np.asarray(times, dtype=float) - MONDAY)
        shape = sum(c[f"cos{tag}"] * np.cos(w0 / period) + c[f"sin{tag}"] * np.sin(w0 / period)
                    for period, tag in seasonal)
        level += shape[codes]
    if state is not None:
        shift = np.zeros(int(state.max(initial=0)) + 1)
        for name, x in c.items():
            if name.startswith("state"):
                shift[int(name[5:])] = x
        level += shift[state]
    return level


def _ols(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares through the small Gram matrix (columns are few, rows many: one pass over the rows)."""
    return np.linalg.lstsq(X.T @ X, X.T @ y, rcond=None)[0]


def _inliers(resid: np.ndarray, state: np.ndarray | None = None) -> np.ndarray:
    """Rows within 4 robust sigmas of their state's residuals: rare excursions (incidents, degraded
    episodes) do not move the level, and a state's own wider noise is not taken for excursions (trimming
    it at the usual state's sigma would bias that state's shift)."""
    if state is None:
        dev = np.abs(resid - median(resid))
        mad = 1.4826 * median(dev)
        return dev <= 4 * mad if mad > 0 else np.ones(resid.size, bool)
    out = np.ones(resid.size, bool)
    for s in np.unique(state):
        rows = np.flatnonzero(state == s)
        out[rows] = _inliers(resid[rows])
    return out


def fit_measurement(name: str, kind: str, v: np.ndarray, t: np.ndarray, start: float, entity: np.ndarray,
                    series: np.ndarray, state: np.ndarray | None, state_names: list[str], periodic: bool,
                    seed: int = 0, groups: dict[str, np.ndarray] | None = None,
                    t_codes: np.ndarray | None = None) -> MeasurementFit:
    """Fit one measurement column. ``t`` in epoch seconds, rows sorted by series then time; ``groups``
    maps a label attribute to its label per entity code (candidates for a per-label level shift);
    ``t_codes`` numbers the distinct times (computed once per table when given)."""
    ok = np.isfinite(v)
    t_codes = pd.factorize(t)[0] if t_codes is None else t_codes
    if not ok.all():
        v, t, entity, series, t_codes = v[ok], t[ok], entity[ok], series[ok], t_codes[ok]
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
    seasonal = _harmonics(step) if span >= DAY and step <= DAY / 4 else []
    trend = span >= DAY or (cumulative and span > 0)
    X, cols = _design(t[pick], start, None if state is None else state[pick], base_state, n_states, seasonal, trend)
    y = v[pick]
    coef = _ols(X, y)
    inlier = _inliers(y - X @ coef, None if state is None else state[pick])
    coef = _ols(X[inlier], y[inlier])
    # trend and seasonality are judged against the noise within an entity, not the spread between entities
    r0 = pd.Series(y - X @ coef)
    within0 = (r0 - r0.groupby(entity[pick]).transform("median")).to_numpy()
    resid_sd = float(np.std(within0[inlier])) or 1e-9
    amps = {tag: math.hypot(coef[cols.index(f"cos{tag}")], coef[cols.index(f"sin{tag}")]) for _, tag in seasonal}
    keep_seasonal = [(period, tag) for period, tag in seasonal if amps[tag] >= 0.2 * resid_sd] \
        if seasonal and max(amps.values()) >= 0.2 * resid_sd else []
    keep_trend = trend and (cumulative or abs(coef[cols.index("trend")]) * span / DAY >= 0.5 * resid_sd)
    if keep_seasonal != seasonal or keep_trend != trend:
        X, cols = _design(t[pick], start, None if state is None else state[pick], base_state, n_states,
                          keep_seasonal, keep_trend)
        coef = _ols(X[inlier], y[inlier])
    c = dict(zip(cols, coef, strict=True))
    level = _predict(c, t, start, state, keep_seasonal)
    resid = v - level
    base = float(c["base"])
    season = []
    for period, tag in keep_seasonal:
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
    ent_mean = group_median(resid, entity)  # robust to an entity's rare excursions
    center = float(ent_mean.mean()) if ent_mean.size else 0.0  # the level of the typical entity vs the fit
    if not poisson and groups:
        found = _group_effect(ent_mean, groups)
        if found:
            attr, shifts = found
            effects.append(AttributeEffect(attribute=attr, values=shifts))
            resid = resid - pd.Series(groups[attr][entity]).map(shifts).fillna(0.0).to_numpy()
            ent_mean = group_median(resid, entity)
    per = np.zeros(int(entity.max(initial=0)) + 1)
    per[ent_mean.index.to_numpy()] = ent_mean.to_numpy()
    within = resid - per[entity]
    counts = np.bincount(entity)
    counts = counts[counts > 0]
    between_sd = float(np.sqrt(max(ent_mean.var(ddof=1) - np.var(within) / max(np.mean(counts), 1), 0.0))) \
        if ent_mean.size >= 3 else 0.0
    if between_sd >= 0.2 * max(float(np.std(within)), 1e-9):  # counts too: the level of each entity differs
        oname = f"{name}_entity_offset"
        offset = Attribute(name=oname, emit=False, dist=Normal(kind="normal", mean=0.0, std=_sig(between_sd)))
        effects.append(AttributeEffect(attribute=oname, coef=1.0))
        resid = within
    if effects:  # shifts and offsets are centred on the typical entity: the base moves there
        base += center
    states = {}
    if state is not None:
        base_sd = float(np.std(resid[state == base_state])) or 1e-9
        in_base = state == base_state  # how far apart the entities' levels are in the usual state
        level_spread = float(pd.Series(v[in_base]).groupby(entity[in_base]).mean().std(ddof=0)) if in_base.any() else 0.0
        for s in range(n_states):
            if s == base_state or not np.any(state == s):
                continue
            held = v[state == s]
            if held.size >= 5 and np.std(held) <= FLOOR_STATE * level_spread:
                # about one value whatever the entity's level (offline: the noise floor): the state sets the
                # value instead of shifting it
                sd_held = float(np.std(held))
                states[state_names[s]] = StateEffect(scale=0.0, shift=_sig(float(np.mean(held))),
                                                     noise_scale=_sig(sd_held / base_sd, 3))
                continue
            shift = float(c.get(f"state{s}", 0.0))
            sd = float(np.std(resid[state == s]))
            states[state_names[s]] = StateEffect(shift=_sig(shift), noise_scale=_sig(sd / base_sd, 3))
    # the noise is fitted on residuals divided by their state's noise scale (a state's wider noise is not a
    # tail of its own); rows of states without noise (offline: a stale value) are left out
    scale = np.ones(resid.size)
    if states:
        ns = np.array([states[nm].noise_scale if nm in states else 1.0 for nm in state_names])
        scale = ns[state]
    live = scale > 0.05
    r_n, s_n = resid[live] / scale[live], series[live]
    within = _without_common(r_n, t_codes[live], s_n) if periodic else None
    nf = fit_noise(r_n, s_n, periodic, poisson, within)
    noise = nf.noise
    floor, cap = caps(v)
    lo = floor if floor is not None else 0.0 if v.min() >= 0 else None
    hi = cap if cap is not None else 100.0 if _PCT.search(name) and v.max() <= 100 else None
    digits = None if integer or poisson else decimals_of(v)
    m = Measurement(
        name=name, unit=_unit(name), base=_sig(base), trend=_sig(c.get("trend", 0.0)),
        seasonality=[Seasonality(period=tag, amplitude=_sig(a / base if poisson else a, 4), peak=pk,
                                 mode="multiplicative" if poisson else "additive") for tag, a, pk in season],
        noise=noise, spikes=nf.spikes, states=spike_free_scales(states, noise, nf.spikes), attribute_effects=effects,
        bounds=(lo, hi), integer=integer and not poisson, decimals=digits)
    ar = f" phi={[round(x, 2) for x in nf.phi]} (order by BIC) from {nf.n_series} series" if nf.phi else ""
    parts = [f"level {_sig(base, 4)}", f"noise {noise.kind}{ar}" + (f": {nf.note}" if nf.note else "")]
    if nf.spikes:
        spell = f", episodes of {nf.spikes.length:g} rows" if nf.spikes.length > 1 else ""
        parts.append(f"spikes: {nf.tail_share:.2%} of residuals beyond 4 sigma; mixture rate {nf.spikes.rate:.3g}, "
                     f"scale {nf.spikes.scale:.3g} ({nf.spikes.direction}{spell})")
    if floor is not None or cap is not None:
        parts.append("clipped at " + ", ".join(f"{k} {x:g}" for k, x in (("floor", floor), ("cap", cap)) if x is not None))
    if season:
        parts.append("daily seasonality " + ", ".join(f"{tag} amp {a:.3g} peak {pk}" for tag, a, pk in season))
    if keep_trend:
        parts.append(f"trend {c['trend']:.3g}/day")
    for a in effects:
        if a.values:
            parts.append(f"level by {a.attribute}: " + ", ".join(f"{k} {v:+.3g}" for k, v in a.values.items()))
    if offset:
        parts.append(f"entity spread sd {between_sd:.3g}")
    full = np.full(ok.size, np.nan)
    full[np.flatnonzero(ok)[live]] = r_n if within is None else within  # a shared daily shape is no link
    return MeasurementFit(m, offset, "; ".join(parts), full)


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


def _without_common(resid: np.ndarray, codes: np.ndarray, series: np.ndarray) -> np.ndarray:
    """The residuals less their mean over the series at the same time (``codes`` number the times), where at least MIN_COMMON series
    share that time: a profile common to every entity (a daily shape the harmonics miss) is not noise
    of each entity, and fitted as such it would make entity means spread far wider than in the sample.
    Rescaled by sqrt(n / (n - 1)) so the within-entity spread stays unbiased."""
    if np.count_nonzero(np.bincount(series)) < MIN_COMMON:
        return resid
    # the common part from the rows within 4 robust sigmas: a spike of one series is not spread (by a
    # 1/n share of it) into every other series as white noise that would hide their autocorrelation
    calm = ~far_rows(resid)
    n = np.bincount(codes, weights=calm.astype(float), minlength=int(codes.max(initial=0)) + 1)
    shared = n >= MIN_COMMON
    mean = np.where(shared, np.bincount(codes, weights=np.where(calm, resid, 0.0), minlength=n.size)
                    / np.maximum(n, 1), 0.0)
    factor = np.where(shared, np.sqrt(n / np.maximum(n - 1, 1)), 1.0)
    return (resid - mean[codes]) * factor[codes]  # per distinct time, then one gather per row
