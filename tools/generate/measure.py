"""Measurement values for emitted rows: level, trend, seasonality, state effects, noise, bounds."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
from scipy.signal import lfilter

from tools.common.durations import parse_duration
from tools.generate.population import Population
from tools.spec.formula import evaluate_formula, formula_names
from tools.spec.measurement import ArNoise, IidNoise, Measurement, PoissonNoise, Spikes

AR_BURN_IN = 200
_MONDAY = datetime(1970, 1, 5, tzinfo=UTC).timestamp()  # seasonal phases are measured from a Monday


def seasonal_wave(t: np.ndarray, period: float, peak: float, start_epoch: float) -> np.ndarray:
    """cos of the cycle at ``t`` seconds from the spec start, peaking ``peak`` after each period's
    start (UTC midnight for daily periods, Monday 00:00 UTC for weekly ones)."""
    return np.cos((2 * np.pi / period) * ((start_epoch - _MONDAY - peak) + t))


def measurement_order(ms: list[Measurement]) -> list[Measurement]:
    """Declaration order, except that a formula comes after the measurements it reads."""
    names = {m.name for m in ms}
    done: list[Measurement] = []
    pending = list(ms)
    while pending:
        for m in pending:
            deps = formula_names(m.formula) & names if m.formula else set()
            if m.correlated is not None:
                deps |= {m.correlated.with_} & names
            if deps <= {d.name for d in done}:
                done.append(m)
                pending.remove(m)
                break
        else:  # validation rejects cycles; this guards against misuse of the library
            raise ValueError("measurement formulas form a cycle")
    return done


def _variant(m: Measurement, pop: Population, k: int) -> Measurement:
    patch = pop.exemplars[k].measurements.get(m.name) if k >= 0 else None
    if patch is None:
        return m
    return m.model_copy(update=patch.model_dump(exclude_none=True, exclude_unset=True) | {
        k2: getattr(patch, k2) for k2 in ("noise", "states", "seasonality") if getattr(patch, k2) is not None})


def _runs(row_unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start index and length of each run of equal units (rows are sorted by unit)."""
    starts = np.flatnonzero(np.r_[True, row_unit[1:] != row_unit[:-1]])
    return starts, np.diff(np.r_[starts, row_unit.size])


def _ar_noise(noise: ArNoise, row_unit: np.ndarray, scale: np.ndarray | None,
              rng: np.random.Generator) -> np.ndarray:
    """AR(p) noise per unit (rows sorted by unit), each unit starting in the stationary regime:
    AR(1) from its exact stationary law, higher orders after a burn-in."""
    if row_unit.size == 0:
        return np.zeros(0)
    starts, counts = _runs(row_unit)
    a = [1.0, *[-p for p in noise.phi]]
    equal = bool((counts == counts[0]).all())
    burn = 0 if len(noise.phi) == 1 else AR_BURN_IN
    if equal and burn == 0:  # periodic tables with AR(1): no padding, no copies
        grid = rng.standard_normal((starts.size, int(counts[0])))
        grid *= noise.sigma
        if scale is not None:
            grid *= scale.reshape(grid.shape)
        phi = noise.phi[0]
        prev = rng.standard_normal((starts.size, 1)) * (noise.sigma / np.sqrt(1 - phi * phi))
        return lfilter([1.0], a, grid, axis=1, zi=phi * prev)[0].ravel()
    width = burn + int(counts.max())
    grid = rng.standard_normal((starts.size, width))
    grid *= noise.sigma
    local = np.repeat(np.arange(starts.size), counts)
    pos = burn + np.arange(row_unit.size) - starts[local]
    if scale is not None:
        grid[local, pos] *= scale
    if burn == 0:
        phi = noise.phi[0]
        prev = rng.standard_normal((starts.size, 1)) * (noise.sigma / np.sqrt(1 - phi * phi))
        return lfilter([1.0], a, grid, axis=1, zi=phi * prev)[0][local, pos]
    return lfilter([1.0], a, grid, axis=1)[local, pos]


class _Rows:
    """Row arrays of one variant block plus caches shared by all measurements of the shard."""

    def __init__(self, t, state, entity, unit, attrs, start_epoch, cache):
        self.t, self.state, self.entity, self.unit, self.attrs = t, state, entity, unit, attrs
        self.start_epoch, self.cache = start_epoch, cache

    def days(self) -> np.ndarray:
        if "days" not in self.cache:
            self.cache["days"] = self.t / 86400.0
        return self.cache["days"]

    def wave(self, period: float, peak: float) -> np.ndarray:
        key = ("wave", period, peak)
        if key not in self.cache:
            self.cache[key] = seasonal_wave(self.t, period, peak, self.start_epoch)
        return self.cache[key]


def _raw(m: Measurement, r: _Rows, env: dict, states: list[str], rng: np.random.Generator) -> np.ndarray:
    """Level, seasonality, state effects and noise (before bounds and rounding)."""
    if m.formula:
        level = np.broadcast_to(evaluate_formula(m.formula, env), r.t.shape).astype(float)
    elif m.trend:
        level = m.base + m.trend * r.days()
    else:
        level = np.full(r.t.shape, float(m.base))
    for a in m.attribute_effects:
        col = r.attrs[a.attribute]
        if a.coef is not None:
            level += a.coef * col.values.astype(float)[r.entity]
        else:
            level += np.array([a.values.get(str(lab), 0.0) for lab in col.labels])[col.codes[r.entity]]
    for s in m.seasonality:
        wave = r.wave(parse_duration(s.period), parse_duration(s.peak))
        if s.mode == "multiplicative":
            level *= 1 + s.amplitude * wave
        else:
            level += s.amplitude * wave
    noise_scale = None
    if m.states and r.state is not None:
        eff = [m.states.get(x) for x in states]
        sc = np.array([e.scale if e else 1.0 for e in eff])
        sh = np.array([e.shift if e else 0.0 for e in eff])
        ns = np.array([e.noise_scale if e else 1.0 for e in eff])
        if (sc != 1).any():
            level *= sc[r.state]
        if (sh != 0).any():
            level += sh[r.state]
        if (ns != 1).any():
            noise_scale = ns[r.state]
    match m.noise:
        case PoissonNoise():
            value = rng.poisson(np.maximum(np.nan_to_num(level), 0)).astype(float)
        case IidNoise(sigma=sigma, df=df):
            z = rng.standard_normal(r.t.shape) if df is None else rng.standard_t(df, r.t.shape)
            z *= sigma
            if noise_scale is not None:
                z *= noise_scale
            value = level + _linked(m, z, r)
        case ArNoise() as ar:
            value = level + _linked(m, _ar_noise(ar, r.unit, noise_scale, rng), r)
        case _:
            value = level
    if m.spikes is not None:  # drawn only when asked: specs without spikes keep their bytes
        value = _spiked(m.spikes, value, r.unit, rng)
    return value


def _linked(m: Measurement, noise: np.ndarray, r: _Rows) -> np.ndarray:
    """Keep this block's noise for measurements correlated with ``m``; mix in the partner's noise when ``m``
    is correlated (no draws: specs without ``correlated`` keep their bytes)."""
    if m.correlated is not None and ("noise", m.correlated.with_) in r.cache:
        other = r.cache[("noise", m.correlated.with_)]
        so, sn = float(np.std(other)), float(np.std(noise))
        rho = m.correlated.rho
        if so > 0:
            noise = rho * other * (sn / so) + np.sqrt(1 - rho * rho) * noise
    if m.name in r.cache.get("linked", ()):  # kept only when another measurement asks for it
        r.cache[("noise", m.name)] = noise
    return noise


def _spiked(sp: Spikes, value: np.ndarray, unit: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Add ``scale * z`` to a ``rate`` share of the rows (one uniform per row, one normal per spike), or
    with ``length`` > 1 to episodes of rows starting at that rate (rows sorted by unit; an episode ends
    at its unit's last row; a later episode takes over from an earlier one)."""
    hit = np.flatnonzero(rng.random(value.shape) < sp.rate)
    z = rng.standard_normal(hit.size)
    if sp.direction != "both":
        z = np.abs(z) if sp.direction == "up" else -np.abs(z)
    value = value.copy()
    if sp.length <= 1:
        value[hit] += sp.scale * z
        return value
    length = rng.geometric(1.0 / sp.length, hit.size)
    starts, counts = _runs(unit)
    unit_end = np.repeat(starts + counts, counts)  # each row's unit ends before this row index
    end = np.minimum(hit + length, unit_end[hit])
    rows = np.arange(value.size)
    k = np.searchsorted(hit, rows, side="right") - 1
    on = (k >= 0) & (rows < end[np.maximum(k, 0)])
    value[on] += sp.scale * z[k[on]]
    return value


def _finish(m: Measurement, value: np.ndarray) -> np.ndarray:
    """Bounds, then rounding (with bounds rounded inward so rounding never leaves them)."""
    lo, hi = m.bounds
    if lo is not None or hi is not None:
        np.clip(value, lo, hi, out=value)
    digits = 0 if m.integer or isinstance(m.noise, PoissonNoise) else m.decimals
    if digits is not None:
        value = np.rint(value) if digits == 0 else np.round(value, digits)
        if lo is not None or hi is not None:  # rounding may step outside: clip to the bounds rounded inward
            q = 10.0**digits
            np.clip(value, None if lo is None else np.ceil(lo * q - 1e-9) / q,
                    None if hi is None else np.floor(hi * q + 1e-9) / q, out=value)
        value += 0.0  # rounding keeps the sign of tiny negatives: -0.0 is written as 0.0
    return value


def _variant_blocks(rows: dict, unit_variant: np.ndarray):
    """A row permutation that makes each variant's rows contiguous, and the block bounds."""
    local = rows["local"]
    starts = np.searchsorted(local, np.arange(unit_variant.size))
    counts = np.diff(np.r_[starts, local.size])
    order = np.argsort(unit_variant, kind="stable")
    c = counts[order]
    perm = np.repeat(starts[order] - (np.cumsum(c) - c), c) + np.arange(local.size)
    bounds = np.r_[0, np.cumsum(np.bincount(np.searchsorted(np.unique(unit_variant), unit_variant[order]),
                                            weights=c).astype(np.int64))]
    return perm, bounds


def compute_measurements(pop: Population, rows: dict, rng: np.random.Generator, start_epoch: float,
                         injector=None, inc_rng: np.random.Generator | None = None,
                         ) -> dict[str, tuple[np.ndarray, bool]]:
    """All measurements of ``pop`` for the given rows.

    ``rows`` holds shard-level arrays sorted by unit: ``units`` (global unit ids of the shard),
    ``local`` (row -> index into ``units``), ``entity``, ``t`` (seconds from start), ``state``
    (index or None) and ``attrs`` (the population's columns).
    Returns ``{name: (float values, is_integer)}`` for the visible measurements. ``injector``
    (tools.generate.incidents.inject.Injector) applies incidents before bounds and rounding, drawing only
    from ``inc_rng``.
    """
    e = pop.etype
    states = list(e.states.states) if e.states else []
    unit_variant = pop.unit_exemplar[rows["units"]]
    variants = np.unique(unit_variant)
    perm, bounds = (None, np.array([0, rows["t"].size])) if variants.size <= 1 else _variant_blocks(rows, unit_variant)

    def arr(key):
        v = rows[key]
        return v if perm is None or v is None else v[perm]

    t, state, entity, local = arr("t"), arr("state"), arr("entity"), arr("local")
    used = set().union(*(formula_names(m.formula) for m in e.measurements if m.formula))
    env: dict[str, np.ndarray] = {k: c.values.astype(float)[entity] for k, c in pop.attrs.items()
                                  if k in used and not c.is_label}
    linked = {m.correlated.with_ for m in e.measurements if m.correlated is not None}
    caches = [{"linked": linked} if linked else {} for _ in range(max(variants.size, 1))]
    out: dict[str, tuple[np.ndarray, bool]] = {}
    for m in measurement_order(e.measurements):
        value = np.empty(t.shape)
        for j in range(max(variants.size, 1)):
            a, b = bounds[j], bounds[j + 1]
            block = _Rows(t[a:b], None if state is None else state[a:b], entity[a:b], local[a:b], rows["attrs"],
                          start_epoch, caches[j])
            ex = int(variants[j]) if variants.size else -1
            v = _raw(_variant(m, pop, ex), block, {k: v[a:b] for k, v in env.items()}, states, rng)
            if injector is None:
                value[a:b] = _finish(m, v)
                continue
            injected = injector.apply_values(e.name, m, v, block.entity, block.t, inc_rng)
            value[a:b] = _finish(m, injected)
            if injector.last_hits:
                injector.record(m.name, _finish(m, v.copy()), value[a:b])
        env[m.name] = value
        if not m.hidden:
            if perm is not None:
                restored = np.empty_like(value)
                restored[perm] = value
                value = restored
            out[m.name] = (value, m.integer or isinstance(m.noise, PoissonNoise))
    return out
