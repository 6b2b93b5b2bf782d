"""The parts every incident parameter model shares: targets, windows, the common base, the
``effects`` and ``keys`` bases, and cascade steps. One model per kind lives in ``tools/patterns/kinds``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from tools.common.base import Duration, PositiveDuration, SpecModel
from tools.common.conditions import Condition
from tools.patterns.magnitude import parse_magnitude

MagnitudeText = float | str


def check_effects(v: dict[str, MagnitudeText]) -> dict[str, MagnitudeText]:
    """Every magnitude of an ``effects`` map parses (the error names the key)."""
    for key, mag in v.items():
        try:
            parse_magnitude(mag)
        except ValueError as exc:
            raise ValueError(f"effects.{key}: {exc}") from None
    return v


class Target(SpecModel):
    """Which entities: explicit ``ids``, a static-attribute filter ``where``, and/or ``random: k``
    entities drawn by seed (from those matching ``where`` when both are given)."""

    entity: str
    ids: list[str] | None = None
    where: list[Condition] | None = None
    random: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _some(self):
        if self.ids is None and self.where is None and self.random is None:
            raise ValueError("a target needs ids, where or random: k")
        if self.ids is not None and (self.where is not None or self.random is not None):
            raise ValueError("give either ids or where/random, not both")
        return self


class Window(SpecModel):
    """``start``: an ISO timestamp with zone, ``day N HH:MM`` (day 1 is the first day of the
    horizon) or an offset from the spec start (``1d6h``); then ``duration`` or ``end`` (same forms)."""

    start: str
    duration: PositiveDuration | None = None
    end: str | None = None

    @model_validator(mode="after")
    def _one(self):
        if (self.duration is None) == (self.end is None):
            raise ValueError("a window needs exactly one of duration or end")
        return self


class IncidentBase(SpecModel):
    """What every incident has: an id, a target, a window and how it composes with overlapping ones."""

    id: str
    description: str = ""
    target: Target
    window: Window
    compose: Literal["reject", "add"] = "reject"


class EffectsIncident(IncidentBase):
    """Kinds with a magnitude per key: ``effects: {latency_ms: "+300%", loss: 2.5, cpu: 3sigma}``."""

    effects: dict[str, MagnitudeText] = Field(min_length=1)

    _effects = field_validator("effects")(check_effects)


class KeysIncident(IncidentBase):
    """Kinds that name the keys they act on: ``keys: [temperature]``."""

    keys: list[str] = Field(min_length=1)


class CascadeStep(SpecModel):
    """One level of propagation. ``via`` names a foreign_key attribute linking this level's entity
    type with the previous level's (on either side); ``lag`` delays the window, ``attenuation``
    scales the effects."""

    entity: str
    via: str
    lag: Duration = "0s"
    attenuation: float = Field(default=1.0, gt=0)
    effects: dict[str, MagnitudeText] = Field(min_length=1)
    ramp_in: Duration = "0s"
    ramp_out: Duration = "0s"

    _effects = field_validator("effects")(check_effects)
