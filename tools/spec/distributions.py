"""Distributions used by the spec: static attributes and state dwell times.

Each distribution is a small pydantic model discriminated by ``kind``; sampling lives in
``tools.generate.sampling`` so this module stays pure data.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from tools.common.base import SpecModel

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
