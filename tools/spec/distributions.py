"""Distributions used by the spec: static attributes and state dwell times.

Each distribution is a small pydantic model discriminated by ``kind``; sampling lives in
``tools.generate.sampling`` so this module stays pure data.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from tools.spec.base import Duration, PositiveDuration, SpecModel

# ---------------------------------------------------------------- static attributes


class Categorical(SpecModel):
    """A label drawn with the given weights (normalised; they need not sum to 1)."""

    kind: Literal["categorical"]
    values: dict[str, float] = Field(min_length=1, description=(
        "label -> relative weight (>= 0). Weights are normalised, so they need not sum to 1: {a: 3, b: 1} "
        "gives a 75% and b 25% (transition probabilities, unlike these, must sum to 1)."))

    @model_validator(mode="after")
    def _weights(self):
        if any(w < 0 for w in self.values.values()) or sum(self.values.values()) <= 0:
            raise ValueError("categorical weights must be >= 0 and not all zero (they are relative weights: "
                             "{a: 3, b: 1} gives a 75%)")
        return self


class Normal(SpecModel):
    kind: Literal["normal"]
    mean: float
    std: float = Field(ge=0)
    decimals: int | None = None


class Uniform(SpecModel):
    kind: Literal["uniform"]
    low: float
    high: float
    decimals: int | None = None

    @model_validator(mode="after")
    def _order(self):
        if self.high < self.low:
            raise ValueError(f"uniform high ({self.high}) is below low ({self.low})")
        return self


class LogNormal(SpecModel):
    """``median * exp(sigma * z)``: positive and right-skewed (prices, sizes, durations)."""

    kind: Literal["lognormal"]
    median: float = Field(gt=0)
    sigma: float = Field(ge=0)
    decimals: int | None = None


class IntegerRange(SpecModel):
    """A whole number uniformly drawn from ``low`` to ``high``, both included."""

    kind: Literal["integer"]
    low: int
    high: int

    @model_validator(mode="after")
    def _order(self):
        if self.high < self.low:
            raise ValueError(f"integer high ({self.high}) is below low ({self.low})")
        return self


class Constant(SpecModel):
    kind: Literal["constant"]
    value: str | float | int | bool


class Listed(SpecModel):
    """Values given in entity order: entity ``i`` gets ``values[i % len(values)]`` (the second part of a
    composite key, ``eth1, eth3, eth1, ...``, kept exactly as the sample pairs it with the id)."""

    kind: Literal["listed"]
    values: list[str | float | int] = Field(min_length=1, max_length=100_000)


class ForeignKey(SpecModel):
    """The id of an entity of another type (a relation): each entity draws one parent.

    ``weight_by`` names a numeric attribute of the parent that makes some parents more likely
    (e.g. active users own more sessions). ``counts`` gives how many children each parent has, in
    parent order (cells per link kept as in a sample): the children are dealt out in those numbers
    (scaled to the children drawn), in a seeded random order.
    """

    kind: Literal["foreign_key"]
    entity: str
    weight_by: str | None = None
    counts: list[int] = Field(default=[], max_length=100_000)

    @model_validator(mode="after")
    def _counts(self):
        if any(c < 0 for c in self.counts):
            raise ValueError("foreign key counts (children per parent) must be >= 0")
        return self


class ParentAttribute(SpecModel):
    """A copy of an attribute of the parent reached through the foreign key ``via``."""

    kind: Literal["parent_attribute"]
    via: str
    attribute: str


AttributeDistribution = Annotated[
    Categorical | Normal | Uniform | LogNormal | IntegerRange | Constant | Listed | ForeignKey | ParentAttribute,
    Field(discriminator="kind"),
]

# ---------------------------------------------------------------- dwell times


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
        from tools.spec.durations import parse_duration

        if parse_duration(self.high) < parse_duration(self.low):
            raise ValueError(f"uniform dwell high ({self.high}) is below low ({self.low})")
        return self


DwellDistribution = Annotated[
    Exponential | LogNormalDwell | Gamma | Fixed | UniformDwell, Field(discriminator="kind")
]


def dwell_mean_seconds(dist: Exponential | LogNormalDwell | Gamma | Fixed | UniformDwell) -> float:
    """The mean dwell time in seconds implied by a dwell distribution."""
    import math

    from tools.spec.durations import parse_duration as p

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
