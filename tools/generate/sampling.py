"""Vectorized samplers for attribute and dwell-time distributions (explicit Generators only)."""

from __future__ import annotations

import numpy as np

from tools.common.durations import parse_duration
from tools.common.dwell import Exponential, Fixed, Gamma, LogNormalDwell, UniformDwell
from tools.spec.distributions import Categorical, Constant, IntegerRange, Listed, LogNormal, Normal, Uniform


class Column:
    """A per-entity attribute: numeric values, or string labels stored as codes into ``labels``."""

    __slots__ = ("values", "codes", "labels")

    def __init__(self, values: np.ndarray | None = None, codes: np.ndarray | None = None,
                 labels: np.ndarray | None = None):
        self.values, self.codes, self.labels = values, codes, labels

    @property
    def is_label(self) -> bool:
        return self.codes is not None

    def take(self, idx: np.ndarray) -> Column:
        if self.is_label:
            return Column(codes=self.codes[idx], labels=self.labels)
        return Column(values=self.values[idx])

    def as_objects(self) -> np.ndarray:
        """Python-level values (labels as str) — for small arrays such as conditions."""
        return self.labels[self.codes] if self.is_label else self.values


def _rounded(x: np.ndarray, decimals: int | None) -> np.ndarray:
    if decimals == 0:
        return np.rint(x).astype(np.int64)
    return np.round(x, decimals) if decimals is not None else x


def sample_attribute(dist, n: int, rng: np.random.Generator) -> Column:
    """Draw ``n`` values of a static-attribute distribution (foreign keys are handled by the caller)."""
    match dist:
        case Categorical(values=vals):
            labels = np.array(list(vals), dtype=object)
            w = np.array(list(vals.values()), dtype=float)
            return Column(codes=rng.choice(len(labels), size=n, p=w / w.sum()).astype(np.int32), labels=labels)
        case Normal():
            return Column(values=_rounded(rng.normal(dist.mean, dist.std, n), dist.decimals))
        case Uniform():
            return Column(values=_rounded(rng.uniform(dist.low, dist.high, n), dist.decimals))
        case LogNormal():
            return Column(values=_rounded(dist.median * np.exp(dist.sigma * rng.standard_normal(n)), dist.decimals))
        case IntegerRange():
            return Column(values=rng.integers(dist.low, dist.high + 1, n).astype(np.int64))
        case Listed(values=vals):  # no draw: entity order decides
            pos = np.arange(n) % len(vals)
            if all(isinstance(v, str) for v in vals):
                labels = np.array(list(dict.fromkeys(vals)), dtype=object)
                index = {v: i for i, v in enumerate(labels)}
                return Column(codes=np.array([index[v] for v in vals], np.int32)[pos], labels=labels)
            return Column(values=np.array(vals, dtype=float)[pos])
        case Constant(value=v):
            if isinstance(v, str):
                return Column(codes=np.zeros(n, np.int32), labels=np.array([v], dtype=object))
            return Column(values=np.full(n, v))
    raise TypeError(f"cannot sample attribute distribution {type(dist).__name__}")


# dwell kinds as integer codes so one vectorized draw serves many (group, state) pairs
DWELL_EXP, DWELL_LOGNORMAL, DWELL_GAMMA, DWELL_FIXED, DWELL_UNIFORM = range(5)


def dwell_params(dist) -> tuple[int, float, float]:
    """(kind code, p1, p2) for a dwell distribution, times in seconds."""
    p = parse_duration
    match dist:
        case Exponential():
            return DWELL_EXP, p(dist.mean), 0.0
        case LogNormalDwell():
            return DWELL_LOGNORMAL, p(dist.median), dist.sigma
        case Gamma():
            return DWELL_GAMMA, p(dist.mean), dist.shape
        case Fixed():
            return DWELL_FIXED, p(dist.value), 0.0
        case UniformDwell():
            return DWELL_UNIFORM, p(dist.low), p(dist.high)
    raise TypeError(f"unknown dwell distribution {type(dist).__name__}")


def dwell_from_uniform(kind: np.ndarray, p1: np.ndarray, p2: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Dwell times in seconds by inverse CDF of one uniform per element.

    Exactly one uniform per unit and step, whatever the distribution (no rejection sampling), so
    one unit's path never shifts the random numbers another unit sees."""
    from scipy.special import gammaincinv, ndtri

    out = np.empty(kind.shape[0])
    for code in np.unique(kind):
        m = kind == code
        a, b, v = p1[m], p2[m], u[m]
        if code == DWELL_EXP:
            out[m] = -a * np.log1p(-v)
        elif code == DWELL_LOGNORMAL:
            out[m] = a * np.exp(b * ndtri(v))
        elif code == DWELL_GAMMA:
            out[m] = (a / b) * gammaincinv(b, v)
        elif code == DWELL_FIXED:
            out[m] = a
        else:
            out[m] = a + (b - a) * v
    return out
