"""The domain spec ("eval as code"): the root model and its global assembly parts."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field, model_validator

from tools.common.base import Duration, PositiveDuration, SpecModel, Timestamp
from tools.common.durations import parse_duration, parse_timestamp
from tools.common.dwell import DwellDistribution
from tools.patterns.model import Incident
from tools.spec.distributions import AttributeDistribution
from tools.spec.entity import EntityType
from tools.spec.measurement import MeasurementPatch


class Exemplar(SpecModel):
    """A named behaviour of one entity type: overrides applied to the entities that follow it.

    Without epochs, ``count`` entities of the type (chosen by seed) follow the exemplar; with
    epochs, each epoch's blend says what share of its entities do. ``duration`` caps each
    trajectory (a session of this kind never lasts longer).
    """

    name: str
    entity: str
    description: str = ""
    count: int | None = Field(default=None, ge=0)
    duration: PositiveDuration | None = None
    attributes: dict[str, AttributeDistribution] = {}
    transitions: dict[str, dict[str, float]] = {}
    dwell: dict[str, DwellDistribution] = {}
    measurements: dict[str, MeasurementPatch] = {}


class Epoch(SpecModel):
    """A slice of the horizon ``[start, end)`` (offsets from the spec start) with its own blend.

    ``blend`` maps exemplar names (or ``base`` for the plain entity type) to weights that sum to 1;
    ``count`` is how many entities of the type are active in the epoch.
    """

    name: str
    entity: str
    start: Duration = "0s"
    end: PositiveDuration
    count: int = Field(gt=0)
    blend: dict[str, float] = Field(min_length=1)


class Persona(SpecModel):
    """Who asks the questions and how they talk (used by the paraphraser)."""

    name: str
    description: str = ""
    vocabulary: dict[str, str] = {}
    style: str = ""


class QueryPlan(SpecModel):
    """How many questions to synthesize and the family mix (weights, normalised)."""

    n_questions: int = Field(default=60, gt=0)
    mix: dict[str, float] = {"stateless": 0.3, "stateful": 0.4, "incident": 0.3}
    # "closed": every question's period includes both ends (tools/queries/closed.py); default half-open
    windows: Literal["half_open", "closed"] = "half_open"
    # opt-in question variants (issue 19; docs/INCIDENT-VARIANTS.md): incident baselines over another population
    # (the unaffected peers in the same window, the whole fleet in a reference period) and affected counts by
    # a stated numeric threshold. Default suites are unchanged.
    variants: list[Literal["peer_baseline", "fleet_baseline", "threshold_count"]] = []


class Spec(SpecModel):
    """A complete, validated domain spec. Load with ``tools.spec.load_spec``."""

    name: str
    description: str = ""
    seed: int = Field(default=0, ge=0)
    start: Timestamp = "2026-01-01T00:00:00Z"
    horizon: PositiveDuration = "3d"
    entities: list[EntityType] = Field(min_length=1, max_length=100)  # limits keep validation fast
    exemplars: list[Exemplar] = Field(default=[], max_length=500)
    epochs: list[Epoch] = Field(default=[], max_length=500)
    incidents: list[Incident] = Field(default=[], max_length=500)
    personas: list[Persona] = Field(default=[], max_length=200)
    query_plan: QueryPlan = Field(default_factory=QueryPlan)

    @model_validator(mode="after")
    def _semantics(self):
        from tools.spec.validate import semantic_errors

        errors = semantic_errors(self)
        if errors:
            raise ValueError("\n".join(f"{path}: {msg}" for path, msg in errors))
        return self

    # -- helpers -------------------------------------------------------------
    @property
    def start_dt(self) -> datetime:
        return parse_timestamp(self.start)

    @property
    def horizon_seconds(self) -> float:
        return parse_duration(self.horizon)

    def entity(self, name: str) -> EntityType:
        """The entity type called ``name`` (KeyError if absent)."""
        for e in self.entities:
            if e.name == name:
                return e
        raise KeyError(name)
