"""The pattern library: one pure function per value-level kind, in a registry keyed by kind.

Each function gets the affected rows of one key inside the window and returns their new values:
``x`` the values, ``tau`` seconds since the window start, ``span`` the window length, ``amount``
the magnitude in units of the key for each row (resolved from the entity's own baseline), ``ctx``
per-row extras (``first``: index of each row's first in-window row, ``mean``/``std``: the entity's
baseline, ``season``: the spec's seasonal component at each row and at the shifted time).
Overlapping anomalies are never silently overwritten: composition is explicit (see resolve.py).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tools.common.durations import parse_duration

PatternFn = Callable[..., np.ndarray]


def trapezoid(tau: np.ndarray, span: float, ramp_in: float, ramp_out: float) -> np.ndarray:
    """0 → 1 over ``ramp_in``, 1, then 1 → 0 over ``ramp_out`` before the window's end."""
    env = np.ones_like(tau, dtype=float)
    if ramp_in > 0:
        env = np.minimum(env, (tau + 1) / ramp_in)
    if ramp_out > 0:
        env = np.minimum(env, (span - tau) / ramp_out)
    return np.clip(env, 0.0, 1.0)


def spike(inc, x, tau, span, amount, rng, ctx):
    return x + np.abs(amount)


def dip(inc, x, tau, span, amount, rng, ctx):
    return x - np.abs(amount)


def level_shift(inc, x, tau, span, amount, rng, ctx):
    return x + amount


def kpi_degradation(inc, x, tau, span, amount, rng, ctx):
    env = trapezoid(tau, span, parse_duration(inc.ramp_in), parse_duration(inc.ramp_out))
    return x + amount * env


def variance_burst(inc, x, tau, span, amount, rng, ctx):
    return x + np.abs(amount) * rng.standard_normal(x.shape)


def slow_drift(inc, x, tau, span, amount, rng, ctx):
    return x + amount * (tau / span)


def flash_crowd(inc, x, tau, span, amount, rng, ctx):
    env = trapezoid(tau, span, parse_duration(inc.ramp_in), parse_duration(inc.ramp_out))
    return x * (1 + amount * env)


def flatline(inc, x, tau, span, amount, rng, ctx):
    return x[ctx["first"]]


def null_burst(inc, x, tau, span, amount, rng, ctx):
    return np.full(x.shape, np.nan)


def correlation_break(inc, x, tau, span, amount, rng, ctx):
    return ctx["mean"] + ctx["std"] * rng.standard_normal(x.shape)


def seasonality_break(inc, x, tau, span, amount, rng, ctx):
    add, mul = ctx["season"], ctx["season_factor"]
    if inc.mode == "remove":
        return (x - add) / mul
    if inc.mode == "invert":
        return (x - 2 * add) / mul * (2 - mul)
    return (x - add + ctx["season_shifted"]) / mul * ctx["season_factor_shifted"]


VALUE_PATTERNS: dict[str, PatternFn] = {
    "spike": spike, "dip": dip, "level_shift": level_shift, "kpi_degradation": kpi_degradation,
    "variance_burst": variance_burst, "slow_drift": slow_drift, "flash_crowd": flash_crowd,
    "flatline": flatline, "null_burst": null_burst, "correlation_break": correlation_break,
    "seasonality_break": seasonality_break,
}
"""Kinds that rewrite values of existing rows. ``data_outage`` removes rows (emit stage),
``behavior_shift`` changes the simulation and ``flash_crowd`` on arriving entities adds units."""
