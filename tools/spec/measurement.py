"""Measurement models: level, trend, seasonality, noise, state shifts, bounds and dependencies."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator

from tools.common.base import Duration, PositiveDuration, SpecModel


class NoNoise(SpecModel):
    kind: Literal["none"]


class IidNoise(SpecModel):
    """Independent noise with scale ``sigma``: Gaussian, or Student-t with ``df`` degrees of freedom
    (heavy tails: ``sigma * t_df``; ``df`` None keeps the Gaussian)."""

    kind: Literal["iid"]
    sigma: float = Field(ge=0)
    df: float | None = Field(default=None, gt=2, le=1000)


class ArNoise(SpecModel):
    """AR(p) noise ``x_t = sum(phi_k x_{t-k}) + e_t``, ``e_t ~ N(0, sigma)`` (statsmodels' ArmaProcess
    convention with ar = [1, -phi...]); must be stationary."""

    kind: Literal["ar"]
    phi: list[float] = Field(min_length=1, max_length=8)
    sigma: float = Field(ge=0)

    @model_validator(mode="after")
    def _stationary(self):
        import numpy as np

        roots = np.roots([1.0, *[-p for p in self.phi]])
        if np.any(np.abs(roots) >= 1):
            raise ValueError(f"AR coefficients {self.phi} are not stationary; keep |phi| < 1 (for AR(1))")
        return self


class PoissonNoise(SpecModel):
    """Counts: the value is a Poisson draw whose mean is the level (requests, attempts, logins)."""

    kind: Literal["poisson"]


class Spikes(SpecModel):
    """Rare excursions on top of the noise (a two-component mixture): each row independently, with
    probability ``rate``, gets ``+ scale * z`` (``z`` standard normal; ``direction`` up or down keeps
    the sign: ``|z|`` or ``-|z|``). Bounds still apply, so a spike can hit a cap or a floor.

    ``length`` > 1 makes them episodes (an unlabelled degraded spell): ``rate`` is then the chance that
    an episode starts at a row, it lasts a geometric number of rows with mean ``length`` (within the
    entity), and every row of it gets the same ``scale * z``."""

    rate: float = Field(gt=0, lt=0.5)
    scale: float = Field(gt=0)
    direction: Literal["both", "up", "down"] = "both"
    length: float = Field(default=1.0, ge=1.0, le=100_000)


class NoiseLink(SpecModel):
    """Noise correlated with another measurement's: ``rho * (its noise, rescaled to this noise's sd) +
    sqrt(1 - rho^2) * this measurement's own noise`` (CPU and latency moving together)."""

    with_: str = Field(alias="with")
    rho: float = Field(gt=-1, lt=1)


Noise = Annotated[NoNoise | IidNoise | ArNoise | PoissonNoise, Field(discriminator="kind")]


class Seasonality(SpecModel):
    """A cosine cycle peaking at ``peak`` after the start of each period (UTC).

    additive: ``+ amplitude * cos``; multiplicative: ``* (1 + amplitude * cos)`` (amplitude as a
    fraction of the level, for rates that scale with traffic).
    """

    period: PositiveDuration = "1d"
    amplitude: float
    peak: Duration = "0h"
    mode: Literal["additive", "multiplicative"] = "additive"


class StateEffect(SpecModel):
    """How a state changes the measurement: ``level * scale + shift``, noise times ``noise_scale``."""

    shift: float = 0.0
    scale: float = 1.0
    noise_scale: float = Field(default=1.0, ge=0)


class AttributeEffect(SpecModel):
    """Level shift from a static attribute: ``coef * value`` (numeric) or ``values[label]``."""

    attribute: str
    coef: float | None = None
    values: dict[str, float] | None = None

    @model_validator(mode="after")
    def _one(self):
        if (self.coef is None) == (self.values is None):
            raise ValueError("an attribute effect needs exactly one of coef (numeric) or values (labels)")
        return self


class Plausible(SpecModel):
    """What a domain expert accepts for every value of the column (from the domain catalog, not from
    the generator): the ``plausibility`` data check tests the data against it."""

    low: float | None = None
    high: float | None = None
    integer: bool = False
    source: str = ""  # where the range comes from ("catalog: spo2")

    @model_validator(mode="after")
    def _order(self):
        if self.low is not None and self.high is not None and self.high < self.low:
            raise ValueError(f"plausible range [{self.low}, {self.high}]: high is below low")
        return self


class Measurement(SpecModel):
    """One value column. ``formula`` derives it from other measurements and numeric attributes
    (``RRC_ConnEstabAtt - RRC_ConnEstabSucc``); ``hidden`` ones feed formulas but are not written."""

    name: str
    unit: str | None = None
    description: str = ""
    base: float = 0.0
    trend: float = 0.0
    seasonality: list[Seasonality] = []
    noise: Noise = Field(default_factory=lambda: NoNoise(kind="none"))
    spikes: Spikes | None = None
    correlated: NoiseLink | None = None
    states: dict[str, StateEffect] = {}
    attribute_effects: list[AttributeEffect] = []
    formula: str | None = None
    bounds: tuple[float | None, float | None] = (None, None)
    integer: bool = False
    decimals: int | None = Field(default=None, ge=0, le=12)
    hidden: bool = False
    plausible: Plausible | None = None

    @model_validator(mode="after")
    def _bounds(self):
        lo, hi = self.bounds
        if lo is not None and hi is not None and hi < lo:
            raise ValueError(f"bounds [{lo}, {hi}]: upper bound is below lower bound")
        digits = 0 if self.integer or self.noise.kind == "poisson" else self.decimals
        if lo is not None and hi is not None and digits is not None:
            q = 10.0**digits
            if math.ceil(lo * q - 1e-9) > math.floor(hi * q + 1e-9):
                raise ValueError(f"bounds [{lo}, {hi}] contain no value rounded to {digits} decimals; widen them")
        return self


class MeasurementPatch(SpecModel):
    """Exemplar overrides of a measurement (only the fields given change)."""

    base: float | None = None
    trend: float | None = None
    noise: Noise | None = None
    states: dict[str, StateEffect] | None = None
    seasonality: list[Seasonality] | None = None


__all__ = [
    "ArNoise", "AttributeEffect", "Duration", "IidNoise", "Measurement", "MeasurementPatch", "NoNoise",
    "Noise", "Plausible", "NoiseLink", "PoissonNoise", "PositiveDuration", "Seasonality", "Spikes", "StateEffect",
]
