"""The pure pattern functions of the kinds (tools/patterns/kinds/*.py) on synthetic arrays.

Each function gets (model, x, tau, span, amount, rng, ctx) and returns the new values; the
expected values here follow the documented contract of each kind (its model's docstring)."""

from __future__ import annotations

import numpy as np
import pytest

from tools.patterns.kinds.correlation_break import CorrelationBreak
from tools.patterns.kinds.dip import Dip
from tools.patterns.kinds.flash_crowd import FlashCrowd
from tools.patterns.kinds.flatline import Flatline
from tools.patterns.kinds.kpi_degradation import KpiDegradation
from tools.patterns.kinds.level_shift import LevelShift
from tools.patterns.kinds.null_burst import NullBurst
from tools.patterns.kinds.seasonality_break import SeasonalityBreak
from tools.patterns.kinds.slow_drift import SlowDrift
from tools.patterns.kinds.spike import Spike
from tools.patterns.kinds.variance_burst import VarianceBurst
from tools.patterns.library import trapezoid
from tools.patterns.model import KINDS
from tools.patterns.registry import all_kinds, get_kind

M = 60.0
H = 3600.0
BASE = {"id": "x", "target": {"entity": "e", "ids": ["a"]}, "window": {"start": "0s", "duration": "4h"}}


def model(cls, **kw):
    kind = cls.model_fields["kind"].annotation.__args__[0]
    return cls.model_validate(BASE | {"kind": kind} | kw)


def call(kind, inc, x, tau=None, span=4 * H, amount=0.0, rng=None, ctx=None):
    x = np.asarray(x, float)
    tau = np.arange(x.size) * 15 * M if tau is None else np.asarray(tau, float)
    amount = np.broadcast_to(np.asarray(amount, float), x.shape)
    return get_kind(kind).inject(inc, x, tau, span, amount, rng or np.random.default_rng(0), ctx or {})


def test_registry_covers_every_value_kind():
    """Every kind of the issue is known; the ones that rewrite values have a function, the other
    three act elsewhere (rows removed, simulation changed, propagation)."""
    assert set(KINDS) == {"spike", "dip", "level_shift", "kpi_degradation", "variance_burst", "flatline",
                          "data_outage", "null_burst", "flash_crowd", "slow_drift", "seasonality_break",
                          "behavior_shift", "correlation_break", "cascade"}
    assert {k.name for k in all_kinds() if k.inject} == set(KINDS) - {"data_outage", "behavior_shift", "cascade"}


@pytest.mark.parametrize("amount", [2.5, -2.5])
def test_spike_goes_up_and_dip_goes_down_whatever_the_sign(amount):
    x = np.array([10.0, 11.0, 9.0])
    eff = {"effects": {"k": amount}}
    assert np.allclose(call("spike", model(Spike, **eff), x, amount=amount), x + 2.5)
    assert np.allclose(call("dip", model(Dip, **eff), x, amount=amount), x - 2.5)


@pytest.mark.parametrize("amount", [3.0, -3.0])
def test_level_shift_adds_the_signed_amount(amount):
    x = np.array([1.0, 2.0, 3.0, 4.0])
    assert np.allclose(call("level_shift", model(LevelShift, effects={"k": amount}), x, amount=amount), x + amount)


def test_trapezoid_ramps_in_holds_and_ramps_out():
    span, ramp_in, ramp_out = 4 * H, 1 * H, 30 * M
    tau = np.arange(0, span, 15 * M)  # 16 readings every 15 minutes
    env = trapezoid(tau, span, ramp_in, ramp_out)
    expected = np.minimum(1.0, np.minimum(tau / ramp_in, (span - tau) / ramp_out))
    assert np.allclose(env, expected, atol=1e-3)
    assert env[0] < 1e-3, "the ramp starts from nothing"
    assert np.all(np.diff(env[tau <= ramp_in]) > 0), "strictly increasing during the ramp in"
    assert np.all(env[(tau >= ramp_in) & (tau <= span - ramp_out)] == 1.0), "flat top at the full magnitude"
    assert np.all(np.diff(env[tau >= span - ramp_out]) < 0), "decreasing during the ramp out"
    assert env[-1] == pytest.approx(15 * M / ramp_out), "last reading: 15 of the 30 ramp-out minutes left"


def test_trapezoid_without_ramps_is_a_box():
    tau = np.arange(0, 2 * H, 5 * M)
    assert np.all(trapezoid(tau, 2 * H, 0, 0) == 1.0)


def test_kpi_degradation_is_the_amount_times_the_trapezoid():
    inc = model(KpiDegradation, effects={"k": -6}, ramp_in="1h", ramp_out="30m")
    x = np.full(16, 50.0)
    tau = np.arange(16) * 15 * M
    out = call("kpi_degradation", inc, x, tau=tau, amount=-6.0)
    assert np.allclose(out, 50.0 - 6.0 * trapezoid(tau, 4 * H, H, 30 * M))
    assert out.min() == pytest.approx(44.0), "holds the full magnitude"


def test_slow_drift_is_linear_and_reaches_the_magnitude_at_the_window_end():
    inc = model(SlowDrift, effects={"k": 20})
    span = 2 * 86400.0
    tau = np.linspace(0, span, 97)
    out = call("slow_drift", inc, np.zeros(97), tau=tau, span=span, amount=20.0)
    assert out[0] == 0.0
    assert out[-1] == pytest.approx(20.0)
    assert np.allclose(np.diff(out), 20.0 / 96), "constant slope"


def test_flatline_repeats_the_first_in_window_value_of_each_entity_run():
    inc = model(Flatline, keys=["k"])
    x = np.array([5.0, 6.0, 7.0, 1.0, 2.0, 3.0, 4.0])
    first = np.array([0, 0, 0, 3, 3, 3, 3])  # two entity runs, as the injector passes them
    out = call("flatline", inc, x, ctx={"first": first})
    assert out.tolist() == [5.0, 5.0, 5.0, 1.0, 1.0, 1.0, 1.0]


def test_null_burst_gives_nan():
    out = call("null_burst", model(NullBurst, keys=["k"]), np.arange(5.0))
    assert np.isnan(out).all()


def test_variance_burst_adds_zero_mean_noise_with_the_magnitude_as_std():
    inc = model(VarianceBurst, effects={"k": 3})
    x = np.full(40_000, 10.0)
    out = call("variance_burst", inc, x, tau=np.zeros(x.size), amount=3.0)
    d = out - x
    assert d.std() == pytest.approx(3.0, rel=0.03)
    assert abs(d.mean()) < 4 * 3.0 / np.sqrt(x.size)


def test_variance_burst_with_a_negative_magnitude_still_adds_noise():
    out = call("variance_burst", model(VarianceBurst, effects={"k": -2}), np.zeros(20_000),
               tau=np.zeros(20_000), amount=-2.0)
    assert out.std() == pytest.approx(2.0, rel=0.05)


def test_correlation_break_keeps_mean_and_std_but_decouples_from_the_upstream():
    rng = np.random.default_rng(1)
    upstream = rng.normal(50, 10, 20_000)
    x = 5 + 0.2 * upstream + rng.normal(0, 0.3, upstream.size)  # a formula key tracking its input
    assert np.corrcoef(x, upstream)[0, 1] > 0.95
    mean, std = np.full(x.size, x.mean()), np.full(x.size, x.std())
    out = call("correlation_break", model(CorrelationBreak, keys=["k"]), x, tau=np.zeros(x.size),
               rng=np.random.default_rng(2), ctx={"mean": mean, "std": std})
    assert out.mean() == pytest.approx(x.mean(), abs=4 * x.std() / np.sqrt(x.size))
    assert out.std() == pytest.approx(x.std(), rel=0.03)
    assert abs(np.corrcoef(out, upstream)[0, 1]) < 0.03


def _season(amplitude, t, period=86400.0, peak=15 * H):
    return amplitude * np.cos(2 * np.pi * (t - peak) / period)


@pytest.mark.parametrize("mode", ["remove", "invert", "shift"])
def test_seasonality_break_on_an_additive_cycle(mode):
    t = np.arange(0, 86400, 900.0)
    noise = np.random.default_rng(3).normal(0, 0.1, t.size)
    add, shifted = _season(4.0, t), _season(4.0, t - 6 * H)
    x = 20 + add + noise
    ctx = {"season": add, "season_factor": np.ones(t.size), "season_shifted": shifted,
           "season_factor_shifted": np.ones(t.size)}
    out = call("seasonality_break", model(SeasonalityBreak, keys=["k"], mode=mode, shift="6h"), x, tau=t,
               span=86400.0, ctx=ctx)
    expected = {"remove": 20 + noise, "invert": 20 - add + noise, "shift": 20 + shifted + noise}[mode]
    assert np.allclose(out, expected)


@pytest.mark.parametrize("mode", ["remove", "invert", "shift"])
def test_seasonality_break_on_a_multiplicative_cycle(mode):
    t = np.arange(0, 86400, 900.0)
    mul, mul_shifted = 1 + _season(0.3, t), 1 + _season(0.3, t - 6 * H)
    x = 200 * mul
    ctx = {"season": np.zeros(t.size), "season_factor": mul, "season_shifted": np.zeros(t.size),
           "season_factor_shifted": mul_shifted}
    out = call("seasonality_break", model(SeasonalityBreak, keys=["k"], mode=mode, shift="6h"), x, tau=t,
               span=86400.0, ctx=ctx)
    expected = {"remove": np.full(t.size, 200.0), "invert": 200 * (2 - mul), "shift": 200 * mul_shifted}[mode]
    assert np.allclose(out, expected)


def test_flash_crowd_on_a_rate_multiplies_by_one_plus_the_surge_with_ramps():
    inc = model(FlashCrowd, keys=["k"], surge="+200%", ramp_in="30m")
    tau = np.arange(16) * 15 * M
    out = call("flash_crowd", inc, np.full(16, 10.0), tau=tau, amount=2.0)
    assert np.allclose(out, 10.0 * (1 + 2.0 * trapezoid(tau, 4 * H, 30 * M, 0)))
    assert out.max() == pytest.approx(30.0), "three times the usual rate at the top"
