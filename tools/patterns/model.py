"""Incident spec models: one parameter model per pattern kind (GutenTAG style), discriminated by
``kind``, plus targets, windows and cascades."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from tools.common.base import Duration, PositiveDuration, SpecModel
from tools.common.conditions import Condition
from tools.common.dwell import DwellDistribution
from tools.patterns.magnitude import parse_magnitude

MagnitudeText = float | str


def _check_effects(v: dict[str, MagnitudeText]) -> dict[str, MagnitudeText]:
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
    id: str
    description: str = ""
    target: Target
    window: Window
    compose: Literal["reject", "add"] = "reject"


class EffectsIncident(IncidentBase):
    """Kinds with a magnitude per key: ``effects: {latency_ms: "+300%", loss: 2.5, cpu: 3sigma}``."""

    effects: dict[str, MagnitudeText] = Field(min_length=1)

    _effects = field_validator("effects")(_check_effects)


class Spike(EffectsIncident):
    """Values jump up by the magnitude inside a short window (one or a few readings)."""

    kind: Literal["spike"]


class Dip(EffectsIncident):
    """Values drop by the magnitude inside a short window."""

    kind: Literal["dip"]


class LevelShift(EffectsIncident):
    """An abrupt step for the whole window."""

    kind: Literal["level_shift"]


class KpiDegradation(EffectsIncident):
    """Ramp in, hold, ramp out (a trapezoid inside the window)."""

    kind: Literal["kpi_degradation"]
    ramp_in: Duration = "0s"
    ramp_out: Duration = "0s"


class VarianceBurst(EffectsIncident):
    """Extra Gaussian noise with the magnitude as its standard deviation."""

    kind: Literal["variance_burst"]


class SlowDrift(EffectsIncident):
    """Linear drift reaching the magnitude at the window's end (gradual growth or decline)."""

    kind: Literal["slow_drift"]


class FlashCrowd(IncidentBase):
    """A surge: for arriving entities (sessions) ``surge`` more arrivals than usual in the window;
    for metrics, the ``keys`` (rates/counts) multiplied by ``1 + surge`` with ramps."""

    kind: Literal["flash_crowd"]
    surge: MagnitudeText = "+200%"
    keys: list[str] = []
    ramp_in: Duration = "0s"
    ramp_out: Duration = "0s"

    @field_validator("surge")
    @classmethod
    def _surge(cls, v):
        if parse_magnitude(v).unit != "relative":
            raise ValueError("surge is relative, e.g. '+200%' (three times the usual)")
        return v


class KeysIncident(IncidentBase):
    keys: list[str] = Field(min_length=1)


class Flatline(KeysIncident):
    """A stuck sensor: the value at the window start repeats for the whole window."""

    kind: Literal["flatline"]


class NullBurst(KeysIncident):
    """Values are null (the row is there, the reading is not)."""

    kind: Literal["null_burst"]


class CorrelationBreak(KeysIncident):
    """Derived keys stop tracking their inputs: an independent series with the same mean and std."""

    kind: Literal["correlation_break"]


class SeasonalityBreak(KeysIncident):
    """The spec's seasonal cycle is removed, inverted or shifted in time inside the window."""

    kind: Literal["seasonality_break"]
    mode: Literal["remove", "invert", "shift"] = "remove"
    shift: Duration = "6h"


class DataOutage(IncidentBase):
    """No rows at all from the target entities inside the window."""

    kind: Literal["data_outage"]


class BehaviorShift(IncidentBase):
    """The targets' state machine changes inside the window (replacement rows and dwell times)."""

    kind: Literal["behavior_shift"]
    transitions: dict[str, dict[str, float]] = {}
    dwell: dict[str, DwellDistribution] = {}

    @model_validator(mode="after")
    def _some(self):
        if not self.transitions and not self.dwell:
            raise ValueError("behavior_shift needs transitions and/or dwell overrides")
        return self


RootIncident = Annotated[
    Spike | Dip | LevelShift | KpiDegradation | VarianceBurst | SlowDrift | FlashCrowd | Flatline | NullBurst
    | CorrelationBreak | SeasonalityBreak | DataOutage | BehaviorShift,
    Field(discriminator="kind"),
]


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

    _effects = field_validator("effects")(_check_effects)


class Cascade(SpecModel):
    """A root incident whose effect propagates through relations, level by level."""

    kind: Literal["cascade"]
    id: str
    description: str = ""
    root: RootIncident
    children: list[CascadeStep] = Field(min_length=1)


Incident = Annotated[
    Spike | Dip | LevelShift | KpiDegradation | VarianceBurst | SlowDrift | FlashCrowd | Flatline | NullBurst
    | CorrelationBreak | SeasonalityBreak | DataOutage | BehaviorShift | Cascade,
    Field(discriminator="kind"),
]

KINDS = ["spike", "dip", "level_shift", "kpi_degradation", "variance_burst", "flatline", "data_outage",
         "null_burst", "flash_crowd", "slow_drift", "seasonality_break", "behavior_shift", "correlation_break",
         "cascade"]
