"""Measurement models against their spec parameters: seasonality, trend, AR noise, bounds,
Poisson counts and formulas. Rows come from the real shard emission path (no Parquet)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import periodogram
from statsmodels.tsa.ar_model import AutoReg

from tools.common.durations import parse_duration

from ._helpers import column, emit_type, spec_from

DAY = 86400.0

SEASONAL = """
name: seasonal
start: "2026-03-02T05:30:00Z"
horizon: 14d
entities:
  - name: meter
    id: {column: meter_id, format: "MT{i:03d}"}
    count: 50
    emission: {kind: periodic, cadence: 10m}
    measurements:
      - name: load
        base: 50
        seasonality: [{period: 1d, amplitude: 8, peak: 15h}]
        noise: {kind: iid, sigma: 2}
      - name: traffic
        base: 200
        seasonality: [{period: 1d, amplitude: 0.25, peak: 20h30m, mode: multiplicative}]
        noise: {kind: iid, sigma: 5}
      - name: drift
        base: 10
        trend: 0.5
        noise: {kind: iid, sigma: 1}
"""


@pytest.fixture(scope="module")
def seasonal():
    spec = spec_from(SEASONAL)
    _, rows = emit_type(spec, "meter", seed=7)
    return spec, rows


def _harmonic_fit(ts: np.ndarray, y: np.ndarray, period: float) -> tuple[float, float, float]:
    """Least squares y ~ a + b cos + c sin on UTC clock time: (level, amplitude, peak offset seconds)."""
    w = 2 * np.pi * np.mod(ts, period) / period
    x = np.column_stack([np.ones_like(w), np.cos(w), np.sin(w)])
    (a, b, c), *_ = np.linalg.lstsq(x, y, rcond=None)
    return a, float(np.hypot(b, c)), float(np.mod(np.arctan2(c, b) / (2 * np.pi) * period, period))


def _circular_gap(a: float, b: float, period: float) -> float:
    d = abs(a - b) % period
    return min(d, period - d)


@pytest.mark.slow
def test_daily_seasonality_recovered(seasonal):
    spec, rows = seasonal
    ts = column(rows, "timestamp")
    m = {x.name: x for x in spec.entity("meter").measurements}
    # additive: amplitude in units, peak at the configured UTC clock time
    s = m["load"].seasonality[0]
    level, amp, peak = _harmonic_fit(ts, column(rows, "load"), parse_duration(s.period))
    assert level == pytest.approx(m["load"].base, abs=0.1)
    assert amp == pytest.approx(s.amplitude, rel=0.05)
    assert _circular_gap(peak, parse_duration(s.peak), DAY) <= 600
    # multiplicative: amplitude is a fraction of the level
    s = m["traffic"].seasonality[0]
    level, amp, peak = _harmonic_fit(ts, column(rows, "traffic"), parse_duration(s.period))
    assert level == pytest.approx(m["traffic"].base, rel=0.01)
    assert amp == pytest.approx(s.amplitude * m["traffic"].base, rel=0.05)
    assert _circular_gap(peak, parse_duration(s.peak), DAY) <= 600


@pytest.mark.slow
def test_periodogram_peaks_at_one_day(seasonal):
    spec, rows = seasonal
    ts, load = column(rows, "timestamp"), column(rows, "load")
    grid, idx = np.unique(ts, return_inverse=True)
    mean = np.bincount(idx, weights=load) / np.bincount(idx)  # average over meters
    cadence = parse_duration(spec.entity("meter").emission.cadence)
    assert np.all(np.diff(grid) == cadence)
    freqs, power = periodogram(mean - mean.mean(), fs=DAY / cadence)  # cycles per day
    assert freqs[np.argmax(power[1:]) + 1] == pytest.approx(1.0, abs=1 / 14)


@pytest.mark.slow
def test_linear_trend_recovered(seasonal):
    spec, rows = seasonal
    m = next(x for x in spec.entity("meter").measurements if x.name == "drift")
    days = (column(rows, "timestamp") - spec.start_dt.timestamp()) / DAY
    slope, intercept = np.polyfit(days, column(rows, "drift"), 1)
    assert slope == pytest.approx(m.trend, rel=0.02)
    assert intercept == pytest.approx(m.base, abs=0.05)


AR = """
name: ar_noise
start: "2026-01-01T00:00:00Z"
horizon: 120d
entities:
  - name: probe
    id: {column: probe_id, format: "P{i}"}
    count: 1
    emission: {kind: periodic, cadence: 5m}
    measurements:
      - name: x
        base: 10
        noise: {kind: ar, phi: [0.6], sigma: 1.5}
      - name: y
        noise: {kind: ar, phi: [0.5, 0.3], sigma: 1.0}
"""


@pytest.mark.slow
def test_ar_coefficients_recovered():
    spec = spec_from(AR)
    _, rows = emit_type(spec, "probe", seed=8)
    assert rows.num_rows == int(spec.horizon_seconds // parse_duration("5m"))
    for m in spec.entity("probe").measurements:
        fit = AutoReg(column(rows, m.name), lags=len(m.noise.phi), trend="c").fit()
        phi = fit.params[1:]
        assert np.all(np.abs(phi - np.array(m.noise.phi)) < 0.05), f"{m.name}: {phi} vs {m.noise.phi}"
        assert np.sqrt(fit.sigma2) == pytest.approx(m.noise.sigma, rel=0.05)
        assert fit.params[0] / (1 - sum(phi)) == pytest.approx(m.base, abs=0.15)


BOUNDS = """
name: bounds
start: "2026-01-01T00:00:00Z"
horizon: 7d
entities:
  - name: sensor
    id: {column: sensor_id, format: "S{i:03d}"}
    count: 40
    states:
      column: state
      initial: ok
      states:
        ok: {dwell: {kind: exponential, mean: 6h}}
        bad: {dwell: {kind: exponential, mean: 2h}}
      transitions:
        ok: {bad: 1.0}
        bad: {ok: 1.0}
    emission: {kind: periodic, cadence: 5m}
    measurements:
      - name: humidity
        base: 95
        noise: {kind: iid, sigma: 20}
        states: {bad: {shift: -60, noise_scale: 3}}
        bounds: [0, 100]
        decimals: 1
      - name: battery
        base: 3
        noise: {kind: ar, phi: [0.8], sigma: 4}
        bounds: [0, 10]
        integer: true
      - name: queue
        base: 8
        noise: {kind: poisson}
        states: {bad: {scale: 3}}
        bounds: [null, 12]
"""


@pytest.mark.slow
def test_bounds_never_violated_under_heavy_noise():
    spec = spec_from(BOUNDS)
    _, rows = emit_type(spec, "sensor", seed=9)
    for m in spec.entity("sensor").measurements:
        v = column(rows, m.name).astype(float)
        lo, hi = m.bounds
        if lo is not None:
            assert v.min() >= lo, f"{m.name} below {lo}"
            assert np.mean(v == lo) > 0.01, f"{m.name}: the lower bound is never reached, test too weak"
        if hi is not None:
            assert v.max() <= hi, f"{m.name} above {hi}"
            assert np.mean(v == hi) > 0.01, f"{m.name}: the upper bound is never reached, test too weak"


@pytest.mark.parametrize(("rounding", "base", "bounds"), [("decimals: 1", 0.5, "[0.05, 0.95]"),
                                                          ("integer: true", 1.5, "[0.5, 2.5]")])
def test_bounds_hold_after_rounding(rounding, base, bounds):
    """Bounds that are not on the rounding grid must still hold after ``decimals``/``integer`` rounding."""
    spec = spec_from(f"""
    name: bounds_rounding
    start: "2026-01-01T00:00:00Z"
    horizon: 1d
    entities:
      - name: link
        id: {{column: link_id, format: "L{{i}}"}}
        count: 5
        emission: {{kind: periodic, cadence: 5m}}
        measurements:
          - name: loss
            base: {base}
            noise: {{kind: iid, sigma: 1}}
            bounds: {bounds}
            {rounding}
    """)
    lo, hi = spec.entity("link").measurements[0].bounds
    _, rows = emit_type(spec, "link", seed=10)
    v = column(rows, "loss").astype(float)
    bad = sorted({x for x in v.tolist() if not lo <= x <= hi})
    assert not bad, f"{rounding}: values {bad} escape the bounds [{lo}, {hi}]"


POISSON = """
name: counts
start: "2026-01-01T00:00:00Z"
horizon: 7d
entities:
  - name: cell
    id: {column: cell_id, format: "C{i:03d}"}
    count: 300
    states:
      column: load_state
      initial: quiet
      states:
        quiet: {dwell: {kind: exponential, mean: 5h}}
        busy: {dwell: {kind: exponential, mean: 3h}}
      transitions:
        quiet: {busy: 1.0}
        busy: {quiet: 1.0}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: attempts
        base: 4
        noise: {kind: poisson}
        states: {busy: {scale: 5}}
"""


@pytest.mark.slow
def test_poisson_counts_mean_equals_level_and_variance_equals_mean():
    spec = spec_from(POISSON)
    m = spec.entity("cell").measurements[0]
    _, rows = emit_type(spec, "cell", seed=11)
    assert rows.schema.field("attempts").type == "int64"
    v, st = column(rows, "attempts").astype(float), column(rows, "load_state")
    assert v.min() >= 0 and np.all(v == np.round(v))
    for state in ("quiet", "busy"):
        eff = m.states.get(state)
        level = m.base * (eff.scale if eff else 1.0) + (eff.shift if eff else 0.0)
        x = v[st == state]
        assert x.size > 50_000
        assert x.mean() == pytest.approx(level, rel=0.02), f"mean in {state}"
        assert x.var() == pytest.approx(x.mean(), rel=0.05), f"variance/mean in {state}"


FORMULA = """
name: formulas
start: "2026-01-01T00:00:00Z"
horizon: 3d
entities:
  - name: cell
    id: {column: cell_id, format: "C{i:03d}"}
    count: 60
    attributes:
      - name: capacity
        dist: {kind: integer, low: 50, high: 80}
    emission: {kind: periodic, cadence: 15m}
    measurements:
      - name: fail
        formula: "att - succ"
        integer: true
      - name: att
        base: 40
        noise: {kind: poisson}
      - name: succ
        formula: "floor(att * 0.9)"
        integer: true
      - name: util
        formula: "att / capacity"
      - name: background
        base: 3
        noise: {kind: poisson}
        hidden: true
      - name: total
        formula: "att + background"
"""


def test_formula_measurements_exact_on_every_row():
    spec = spec_from(FORMULA)
    _, rows = emit_type(spec, "cell", seed=12)
    assert "background" not in rows.column_names, "hidden measurements must not be written"
    att, succ, fail = (column(rows, n).astype(float) for n in ("att", "succ", "fail"))
    assert rows.num_rows > 10_000 and att.std() > 0
    np.testing.assert_array_equal(fail, att - succ)
    np.testing.assert_array_equal(succ, np.floor(att * 0.9))
    np.testing.assert_array_equal(column(rows, "util"), att / column(rows, "capacity").astype(float))
    hidden = column(rows, "total") - att  # the hidden Poisson(3) feeding the formula
    assert hidden.min() >= 0 and np.all(hidden == np.round(hidden))
    assert hidden.mean() == pytest.approx(3, rel=0.05)
