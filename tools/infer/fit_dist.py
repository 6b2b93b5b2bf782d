"""Distribution fits: static attributes (categorical weights, numeric family by goodness of fit) and
dwell times (exponential, lognormal, gamma, fixed, uniform).

The goodness-of-fit criterion is the two-sample Kolmogorov-Smirnov statistic between the data and a
seeded draw from each fitted candidate (rounded like the data), so discrete and continuous values are
judged the same way; the smallest statistic wins and ties go to the simpler family.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from tools.common.durations import format_duration
from tools.common.dwell import Exponential, Fixed, Gamma, LogNormalDwell, UniformDwell
from tools.spec.distributions import Categorical, Constant, IntegerRange, LogNormal, Normal, Uniform

FIT_SAMPLE = 20_000


@dataclass
class Fit:
    """A chosen distribution, the KS statistic it achieved and the candidates it beat."""

    dist: object
    ks: float
    tried: dict[str, float]


def decimals_of(values: np.ndarray, max_digits: int = 6) -> int | None:
    """The fewest decimals that represent every value exactly (None: full precision floats)."""
    v = values[np.isfinite(values)]
    if v.size == 0:
        return None
    for d in range(max_digits + 1):
        if np.all(np.abs(v - np.round(v, d)) <= 1e-9 * np.maximum(1, np.abs(v))):
            return d
    return None


def _sample(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return values if values.size <= FIT_SAMPLE else rng.choice(values, FIT_SAMPLE, replace=False)


def _round(x: np.ndarray, digits: int | None) -> np.ndarray:
    return x if digits is None else np.round(x, digits)


def categorical(labels: list[str], counts: list[int]) -> Categorical:
    """Weights as shares of the observed counts (4 significant decimals)."""
    total = float(sum(counts))
    return Categorical(kind="categorical", values={str(k): round(c / total, 4) for k, c in zip(labels, counts, strict=True)})


def fit_numeric(values: np.ndarray, seed: int = 0) -> Fit:
    """The best of normal, lognormal (positive data), uniform and integer range (whole numbers)."""
    v = values[np.isfinite(values)].astype(float)
    if v.size == 0 or np.ptp(v) == 0:
        value = float(v[0]) if v.size else 0.0
        return Fit(Constant(kind="constant", value=int(value) if value.is_integer() else value), 0.0, {})
    rng = np.random.default_rng(seed)
    data = _sample(v, rng)
    digits = decimals_of(v)
    m = data.size
    cands: dict[str, object] = {
        "normal": Normal(kind="normal", mean=_sig(data.mean()), std=_sig(data.std()), decimals=digits),
        "uniform": Uniform(kind="uniform", low=float(v.min()), high=float(v.max()), decimals=digits),
    }
    draws = {"normal": rng.normal(data.mean(), data.std(), m), "uniform": rng.uniform(v.min(), v.max(), m)}
    if v.min() > 0:
        logs = np.log(data)
        cands["lognormal"] = LogNormal(kind="lognormal", median=_sig(math.exp(logs.mean())), sigma=_sig(logs.std()),
                                       decimals=digits)
        draws["lognormal"] = np.exp(rng.normal(logs.mean(), logs.std(), m))
    if digits == 0 and np.ptp(v) < 10_000:
        cands["integer"] = IntegerRange(kind="integer", low=int(v.min()), high=int(v.max()))
        draws["integer"] = rng.integers(int(v.min()), int(v.max()) + 1, m).astype(float)
    scores = {k: float(stats.ks_2samp(data, _round(draws[k], digits)).statistic) for k in cands}
    best = min(scores, key=lambda k: (round(scores[k], 3), list(cands).index(k)))
    return Fit(cands[best], scores[best], scores)


def _sig(x: float, digits: int = 6) -> float:
    """``x`` rounded to ``digits`` significant digits (readable specs, stable bytes)."""
    if x == 0 or not math.isfinite(x):
        return float(x)
    return float(round(x, digits - 1 - int(math.floor(math.log10(abs(x))))))


def _dur(seconds: float) -> str:
    """A positive spec duration (milliseconds below a minute, whole seconds above; at least 1 ms)."""
    return format_duration(max(round(seconds, 3 if seconds < 60 else 0), 0.001))  # whole seconds from a minute


def fit_dwell(durations: np.ndarray, seed: int = 0, censored: np.ndarray | None = None) -> Fit:
    """The best dwell family for durations in seconds (fixed when they are all equal). ``censored``: the
    stays still running when the sample ends (their time so far); the family is chosen on the finished
    stays, its parameters then fitted by censored maximum likelihood (``_censored``)."""
    fit = _fit_dwell(durations, seed)
    c = np.empty(0) if censored is None else censored[np.isfinite(censored) & (censored > 0)].astype(float)
    if c.size and isinstance(fit.dist, (Exponential, Gamma, LogNormalDwell)):
        fit.dist = _censored(fit.dist, durations[np.isfinite(durations)].astype(float), c, seed)
    return fit


def _censored(dist, done: np.ndarray, cens: np.ndarray, seed: int):
    """``dist``'s family refitted with the censored stays: the finished stays alone are biased short (a
    long stay is the one a sample window is most likely to cut off, so a state's mean dwell, and with it
    the time spent in each state, would come back too short)."""
    if isinstance(dist, Exponential):
        return Exponential(kind="exponential", mean=_dur((done.sum() + cens.sum()) / max(done.size, 1)))
    rng = np.random.default_rng(seed)
    n = done.size + cens.size
    if n > FIT_SAMPLE:  # the same share of each
        k = max(1, round(FIT_SAMPLE * done.size / n))
        done, cens = rng.choice(done, k, replace=False), rng.choice(cens, max(1, FIT_SAMPLE - k), replace=False)
    unit = float(np.mean(done)) or 1.0  # fitted in units of the finished stays' mean (well scaled)
    data = stats.CensoredData(uncensored=np.maximum(done, 0.001) / unit, right=cens / unit)
    try:
        if isinstance(dist, Gamma):
            a, _, scale = stats.gamma.fit(data, float(dist.shape), floc=0, scale=1 / float(dist.shape))
            return Gamma(kind="gamma", mean=_dur(a * scale * unit), shape=_sig(a, 3))
        s, _, scale = stats.lognorm.fit(data, float(dist.sigma) or 0.5, floc=0, scale=float(np.exp(np.mean(np.log(
            np.maximum(done, 0.001) / unit)))))
        return LogNormalDwell(kind="lognormal", median=_dur(scale * unit), sigma=_sig(s, 3))
    except (ValueError, RuntimeError, FloatingPointError):  # no convergence: the finished stays' fit
        return dist


def _fit_dwell(durations: np.ndarray, seed: int = 0) -> Fit:
    d = durations[np.isfinite(durations)].astype(float)
    d = np.maximum(d, 0.001)
    if d.size == 0:
        raise ValueError("no dwell durations")
    if np.ptp(d) < 1e-9 or d.size == 1:
        return Fit(Fixed(kind="fixed", value=_dur(float(d.mean()))), 0.0, {})
    rng = np.random.default_rng(seed)
    data = _sample(d, rng)
    m = data.size
    mean = float(data.mean())
    logs = np.log(data)
    shape = mean**2 / max(float(data.var()), 1e-12)
    cands = {
        "exponential": (Exponential(kind="exponential", mean=_dur(mean)), rng.exponential(mean, m)),
        "lognormal": (LogNormalDwell(kind="lognormal", median=_dur(math.exp(logs.mean())), sigma=_sig(logs.std(), 3)),
                      np.exp(rng.normal(logs.mean(), logs.std(), m))),
        "gamma": (Gamma(kind="gamma", mean=_dur(mean), shape=_sig(shape, 3)), rng.gamma(shape, mean / shape, m)),
        "uniform": (UniformDwell(kind="uniform", low=format_duration(round(float(data.min()), 3)),
                                 high=_dur(float(data.max()))), rng.uniform(data.min(), data.max(), m)),
    }
    scores = {k: float(stats.ks_2samp(data, draw).statistic) for k, (_, draw) in cands.items()}
    best = min(scores, key=lambda k: (round(scores[k], 3), list(cands).index(k)))
    return Fit(cands[best][0], scores[best], scores)


def censored_exponential(total_seconds: float, exits: int) -> Exponential:
    """Exponential dwell from censored runs: total time in the state over the number of exits."""
    return Exponential(kind="exponential", mean=_dur(total_seconds / max(exits, 1)))
