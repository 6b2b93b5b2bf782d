"""Conditions on static attributes (exemplars, transition overrides and incident targets use them)."""

from __future__ import annotations

from pydantic import Field, model_validator

from tools.common.base import SpecModel


class Condition(SpecModel):
    """A predicate on one static attribute of the entity: exactly one comparison is given."""

    attribute: str
    equals: str | float | int | bool | None = None
    in_: list[str | float | int | bool] | None = Field(default=None, alias="in")
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None

    @model_validator(mode="after")
    def _one(self):
        given = [k for k in ("equals", "in_", "gt", "ge", "lt", "le") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a condition needs exactly one of equals, in, gt, ge, lt, le")
        return self
