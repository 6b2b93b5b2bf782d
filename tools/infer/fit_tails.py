"""Heavy-tailed noise chosen by likelihood: Student-t (``noise.df``) against the Gaussian and against the
spike mixture, by AIC on (a seeded sample of) the residuals. Spikes are rare excursions on top of a
Gaussian core; Student-t noise is heavy tails everywhere (a core that is peaked, shoulders that are wide):
the data say which, and t is kept only where it explains them clearly better."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

LIKELIHOOD_ROWS = 20_000  # residuals the models are compared on
MAX_DF = 30.0             # beyond this the t is a Gaussian for every purpose
MIN_DF = 2.1              # the spec needs df > 2 (a finite variance)
AIC_MARGIN = 10.0         # t must beat the best other model by this much


def _mixture_loglik(x: np.ndarray, s0: float, rate: float, scale: float, direction: str) -> float:
    """Log-likelihood of Gaussian noise ``s0`` plus, with probability ``rate``, ``scale * z`` (|z| for one
    direction), as the spikes are generated."""
    s1 = math.sqrt(s0 * s0 + scale * scale)
    core = stats.norm.pdf(x, 0.0, s0)
    if direction == "both":
        spike = stats.norm.pdf(x, 0.0, s1)
    else:  # N(0, s0) + |z| scale (or minus): the skew-normal with that shape
        a = (scale / s0) * (1 if direction == "up" else -1)
        spike = stats.skewnorm.pdf(x, a, 0.0, s1)
    return float(np.sum(np.log((1 - rate) * core + rate * spike + 1e-300)))


DF_GRID = np.geomspace(MIN_DF, 2 * MAX_DF, 48)


def _t_fit(x: np.ndarray) -> tuple[float, float, float]:
    """Maximum-likelihood ``(df, scale, log-likelihood)`` of a centred Student-t: the profile likelihood
    over a grid of df (7% apart), the scale for each by the EM fixed point (vectorised, no optimiser)."""
    x2 = x * x
    best = (math.inf, 0.0, -math.inf)
    s2 = float(np.mean(x2)) or 1e-12
    for df in DF_GRID:
        for _ in range(30):  # s^2 = mean(w x^2), w = (df + 1) / (df + x^2 / s^2)
            new = float(np.mean(x2 * (df + 1) / (df + x2 / s2)))
            done = abs(new - s2) <= 1e-6 * s2
            s2 = new
            if done:
                break
        ll = float(np.sum(stats.t.logpdf(x, df, 0.0, math.sqrt(s2))))
        if ll > best[2]:
            best = (float(df), math.sqrt(s2), ll)
    return best


def student_t(resid: np.ndarray, spikes, s0: float, seed: int = 0) -> tuple[float, float, str] | None:
    """``(df, scale, note)`` when Student-t noise explains the residuals better (AIC, by AIC_MARGIN) than
    the Gaussian and than the spike mixture ``spikes`` (with core sd ``s0``); None otherwise."""
    x = resid[np.isfinite(resid)]
    if x.size < 200:
        return None
    rng = np.random.default_rng(seed)
    if x.size > LIKELIHOOD_ROWS:
        x = rng.choice(x, LIKELIHOOD_ROWS, replace=False)
    x = x - np.median(x)
    df, scale, loglik = _t_fit(x)
    if df > MAX_DF or scale <= 0:
        return None
    aic_t = 4 - 2 * loglik
    aic_n = 2 - 2 * float(np.sum(stats.norm.logpdf(x, 0.0, math.sqrt(float(np.mean(x * x))))))
    aic_m = math.inf
    if spikes is not None and spikes.length <= 1:
        aic_m = 6 - 2 * _mixture_loglik(x, s0, spikes.rate, spikes.scale, spikes.direction)
    best_other = min(aic_n, aic_m)
    if aic_t > best_other - AIC_MARGIN:
        return None
    note = f"Student-t df {df:.3g} (AIC {aic_t:.0f} vs Gaussian {aic_n:.0f}" + (
        f", spike mixture {aic_m:.0f})" if math.isfinite(aic_m) else ")")
    return df, float(scale), note


def core_share(s0: float, rate: float, scale: float, c: float) -> float:
    """The share of the variance of residuals within +-``c`` (the rows AR coefficients are fitted on, far
    rows taken out) that belongs to the Gaussian core ``s0`` of the spike mixture. Isolated spikes are
    white noise: the many moderate ones inside +-c add variance but no autocovariance, so coefficients
    fitted on those rows come out too small by this factor (and the spikes added back on regeneration
    would shrink the lag-1 autocorrelation twice)."""
    if s0 <= 0 or rate <= 0 or c <= 0:
        return 1.0
    s1 = math.hypot(s0, scale)

    def inside(s: float) -> tuple[float, float]:  # P(|x| <= c) and E[x^2; |x| <= c] for N(0, s)
        t = c / s
        p = 1 - 2 * float(stats.norm.sf(t))
        return p, s * s * (p - 2 * t * float(stats.norm.pdf(t)))

    (p0, m0), (p1, m1) = inside(s0), inside(s1)
    var = ((1 - rate) * m0 + rate * m1) / max((1 - rate) * p0 + rate * p1, 1e-12)
    return min(1.0, m0 / max(p0, 1e-12) / var) if var > 0 else 1.0


def spike_free_scales(states: dict, noise, spikes) -> dict:
    """The states' noise scales for the noise without its spikes: a state's scale is measured on all its
    residuals (the usual state's spikes included), but on regeneration it multiplies only the Gaussian or
    AR noise and the spikes come on top, unscaled; a wider state would come back narrower than sampled."""
    if not states or spikes is None or spikes.length > 1 or noise.kind not in ("iid", "ar"):
        return states
    from statsmodels.tsa.arima_process import arma_acovf

    core = noise.sigma ** 2 * (float(arma_acovf(np.r_[1.0, -np.asarray(noise.phi)], np.array([1.0]), nobs=1)[0])
                               if noise.kind == "ar" else 1.0)
    spike = spikes.rate * spikes.scale ** 2
    out = {}
    for name, eff in states.items():
        if eff.noise_scale > 0 and eff.scale != 0:
            scale = math.sqrt(max(eff.noise_scale ** 2 * (core + spike) - spike, 0.0) / core)
            eff = eff.model_copy(update={"noise_scale": round(scale, 3)})
        out[name] = eff
    return out
