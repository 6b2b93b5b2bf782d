"""State dwell-time distributions: how long an entity stays in a state (the spec's state machines
and the ``behavior_shift`` pattern kind both use them)."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator

from tools.common.base import Duration, PositiveDuration, SpecModel
from tools.common.durations import parse_duration


class Exponential(SpecModel):
    """Memoryless dwell with the given mean."""

    kind: Literal["exponential"]
    mean: PositiveDuration


class LogNormalDwell(SpecModel):
    kind: Literal["lognormal"]
    median: PositiveDuration
    sigma: float = Field(ge=0, le=10)


class Gamma(SpecModel):
    """Gamma dwell with the given mean; ``shape`` > 1 makes dwell times more regular."""

    kind: Literal["gamma"]
    mean: PositiveDuration
    shape: float = Field(gt=0)


class Fixed(SpecModel):
    kind: Literal["fixed"]
    value: PositiveDuration


class UniformDwell(SpecModel):
    kind: Literal["uniform"]
    low: Duration
    high: PositiveDuration

    @model_validator(mode="after")
    def _order(self):
        if parse_duration(self.high) < parse_duration(self.low):
            raise ValueError(f"uniform dwell high ({self.high}) is below low ({self.low})")
        return self


DwellDistribution = Annotated[
    Exponential | LogNormalDwell | Gamma | Fixed | UniformDwell, Field(discriminator="kind")
]


def dwell_mean_seconds(dist: Exponential | LogNormalDwell | Gamma | Fixed | UniformDwell) -> float:
    """The mean dwell time in seconds implied by a dwell distribution."""
    p = parse_duration
    match dist:
        case Exponential() | Gamma():
            return p(dist.mean)
        case LogNormalDwell():
            return p(dist.median) * math.exp(dist.sigma**2 / 2)
        case Fixed():
            return p(dist.value)
        case UniformDwell():
            return (p(dist.low) + p(dist.high)) / 2
    raise TypeError(dist)
