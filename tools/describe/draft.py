"""The domain draft: what a plain-language description says about a domain, before it is a spec.

The schema-inference agent produces a ``DomainDraft`` (offline with the rules in
``tools.describe.extract``, or as an LLM's structured output); the spec writer turns it into a
valid spec (``tools.describe.compose_world``). ``evidence`` records which words each part came from, so
the build report can say what was taken from the user's text and what was a default.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools.describe.incident_draft import IncidentDraft

MeasurementKind = Literal["gauge", "percent", "latency", "counter", "rate", "output"]


class MeasurementDraft(BaseModel):
    """One measured value, named as the user named it (``power_output``)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    words: str = ""  # the user's words for it ("power output")
    unit: str | None = None  # the unit the user stated ("kW"), else the catalog's
    level: float | None = None  # a level the user stated ("around -20 °C"), in ``unit``
    low: float | None = None  # a limit the user stated ("at least 0"), in ``unit``
    high: float | None = None  # a limit the user stated ("max 32 kg"), in ``unit``
    whole: bool = False  # the text asks for whole numbers ("multiples of 10", "whole euros")
    catalog_id: str | None = None  # the measurement archetype it matched
    score: float | None = None  # how well it matched (1.0 = a synonym)


class AttributeDraft(BaseModel):
    """A static attribute of the entity (``region`` with its values, if the text gave them)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    values: list[str] = []
    words: str = ""
    n_values: int | None = Field(default=None, gt=0)  # "across 4 zones": how many values, when stated
    catalog_id: str | None = None
    score: float | None = None


class EntityDraft(BaseModel):
    """The thing that reports the time series (``turbine``), with what it reports."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    plural: str
    count: int | None = Field(default=None, gt=0)
    states: list[str] = []
    measurements: list[MeasurementDraft] = []
    attributes: list[AttributeDraft] = []
    cadence: str | None = None  # "10m"; None = the default for the domain
    event_driven: bool = False  # one row per state change (an event log) instead of a cadence
    kind: Literal["periodic", "lifecycle", "static"] = "periodic"  # lifecycle: arrives and ends (trips)
    terminal: list[str] = []  # states that end a lifecycle
    continues: list[str] = []  # states the text says lead on ("approved claims are then paid"): not an end
    parents: list[str] = []  # names of the entity types whose id every row carries (rider, driver)
    catalog_id: str | None = None  # the entity archetype it matched
    score: float | None = None
    words: str = ""  # the user's words for it


class Correction(BaseModel):
    """A reviewer's correction of one item of the offline reading (issue 29: the LLM may correct the rules).

    ``ref`` names the item as the reading lists it ("entity cell", "measurement cell.cell_temperature",
    "attribute run.pipeline_trigger"); ``rematch`` gives it another catalog entry, ``unmatch`` keeps the user's
    words without one, ``rename`` gives it a name made of the description's words, ``drop`` removes an item
    the text does not name (a phrase fragment, a word of another sentence)."""

    ref: str
    action: Literal["rematch", "unmatch", "rename", "drop"]
    catalog_id: str | None = None
    name: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")
    reason: str = ""


class DomainDraft(BaseModel):
    """Everything the description says, plus where each part came from."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str
    entity: EntityDraft
    horizon: str | None = None  # "14d"
    incident_hints: list[str] = []  # pattern kinds the text asks for ("data_outage", ...)
    nearest_pack: str | None = None
    evidence: dict[str, str] = {}  # part -> the words it was taken from, or "default: ..."
    others: list[EntityDraft] = []  # further entity types: parents, an event log beside telemetry
    not_understood: list[str] = []  # what the text names that the reading could not place
    incidents: list[IncidentDraft] = []  # incidents the text describes ("on day 4 five towers go offline")
    corrections: list[Correction] = []  # an LLM reviewer's corrections of the offline reading (see Correction)

    @property
    def entities(self) -> list[EntityDraft]:
        """Every entity type of the draft, the main one first."""
        return [self.entity, *self.others]
