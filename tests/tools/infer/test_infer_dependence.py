"""What the lag-1 autocorrelation and the time per state rest on: AR coefficients fitted under isolated
spikes (white noise on top of the AR process) and dwell times fitted with the stays a sample window cuts
off (issue 20: lag-1 within 0.05, state occupancy within 10%)."""

from __future__ import annotations

import numpy as np
import pytest

from tools.common.dwell import dwell_mean_seconds
from tools.infer.fit_dist import fit_dwell
from tools.infer.fit_noise import fit_noise
from tools.infer.fit_tails import core_share


def _ar_with_spikes(rng, series=30, rows=400, phi=0.6, rate=0.06, scale=0.8):
    x = np.zeros((series, rows))
    e = rng.normal(0, 0.1, (series, rows))
    for t in range(1, rows):
        x[:, t] = phi * x[:, t - 1] + e[:, t]
    hit = rng.random((series, rows)) < rate
    x = x + hit * rng.normal(0, scale * 0.1 / np.sqrt(1 - phi**2) * 4, (series, rows))
    return x.ravel(), np.repeat(np.arange(series), rows)


def _lag1(x, ent):
    d = x - np.bincount(ent, x)[ent] / np.bincount(ent)[ent]
    same = ent[1:] == ent[:-1]
    return float(np.sum(d[1:][same] * d[:-1][same]) / np.sum(d * d))


def test_ar_coefficient_is_the_ar_parts_not_diluted_by_spikes():
    rng = np.random.default_rng(3)
    x, ent = _ar_with_spikes(rng)
    nf = fit_noise(x, ent, periodic=True, poisson=False)
    assert nf.spikes is not None and nf.spikes.length == 1
    # fitted on all rows within 4 sigma, the moderate spikes there pull the coefficient to about 0.45
    assert nf.phi[0] == pytest.approx(0.6, abs=0.06)
    # regenerated as AR + spikes, the lag-1 of the values is the sample's again
    ar_var = nf.noise.sigma**2 / (1 - nf.phi[0] ** 2)
    model = nf.phi[0] * ar_var / (ar_var + nf.spikes.rate * nf.spikes.scale**2)
    assert model == pytest.approx(_lag1(x, ent), abs=0.05)


def test_core_share_is_one_without_spikes_and_falls_with_them():
    assert core_share(1.0, 0.0, 3.0, 4.0) == 1.0
    assert 0.5 < core_share(1.0, 0.1, 3.0, 4.0) < core_share(1.0, 0.02, 3.0, 4.0) < 1.0


def test_dwell_mean_counts_the_stays_the_window_cuts_off():
    rng = np.random.default_rng(0)
    done, cut = [], []
    for _ in range(2000):  # 7-day windows on a state with a 1-day mean dwell: about one stay in seven cut off
        t = 0.0
        while True:
            d = rng.gamma(2.0, 43200.0)
            if t + d > 7 * 86400:
                cut.append(7 * 86400 - t)
                break
            done.append(d)
            t += d + 3600
    done, cut = np.array(done), np.array(cut)
    finished_only = dwell_mean_seconds(fit_dwell(done, 0).dist)
    assert finished_only < 0.93 * 86400  # biased short: long stays are the ones cut off
    fit = fit_dwell(done, 0, cut).dist
    assert fit.kind == "gamma" and dwell_mean_seconds(fit) == pytest.approx(86400, rel=0.04)
    assert fit.shape == pytest.approx(2.0, rel=0.15)
