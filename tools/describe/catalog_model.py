"""The domain catalog's typed model: what a domain expert knows about measurements, entities,
state roles and incidents, independent of any one description.

The catalog's documents live in ``knowledge/catalog/*.yaml`` (knowledge owns its files and parses
them into a ``Catalog``); the core receives the parsed object. Every archetype has an ``id`` (a
snake_case identifier), the words users use for it (``synonyms``) and the facts the spec writer
needs: units, levels, hard bounds, whether values are whole, how states move it, and which
direction means "worse".
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

IDENT = r"^[a-z][a-z0-9_]*$"

FIELDS = (
    "vital_signs", "energy", "environment", "rotating_machinery", "mobility", "network", "compute",
    "application", "payments", "product_analytics", "support_ops", "manufacturing", "agriculture",
    "logistics", "healthcare_ops", "security", "general",
)
Field_ = Literal[
    "vital_signs", "energy", "environment", "rotating_machinery", "mobility", "network", "compute",
    "application", "payments", "product_analytics", "support_ops", "manufacturing", "agriculture",
    "logistics", "healthcare_ops", "security", "general",
]

# Fields that sit side by side in the catalog (its files: business_*, digital_*, physical_*): a word one of them
# uses means much the same in its neighbours (a food-delivery tip is a ride's tip), not in a far field.
FIELD_GROUPS = {
    "business": ("logistics", "mobility", "payments", "product_analytics", "support_ops"),
    "digital": ("application", "compute", "network", "security"),
    "physical": ("energy", "environment", "agriculture", "healthcare_ops", "vital_signs", "manufacturing",
                 "rotating_machinery"),
}
GROUP_OF = {f: g for g, fields in FIELD_GROUPS.items() for f in fields}

# How a measurement responds to states; state roles give one default effect per class.
MeasurementClass = Literal[
    "vital",        # physiological readings: alarm/critical move them the worse way
    "throughput",   # production, output, flow, traffic, power output, rotor speed: 0 when down
    "consumption",  # power draw, energy use, CPU/memory use: low when idle, 0 when down
    "latency",      # response or processing times: up when degraded
    "error",        # error/failure/drop rates and counts: up when degraded or down
    "condition",    # machine health gauges (vibration, bearing temperature, pressure): worse when degraded
    "environment",  # ambient conditions (air temperature, humidity, wind): states barely move them
    "storage",      # battery / fuel / tank / fill levels: charging raises, moving lowers
    "position",     # speed, altitude, distance moved: high when moving, 0 when parked or charging
    "signal",       # radio signal strength / quality: worse when degraded
    "amount",       # money and quantities per event (fare, transaction amount): fraud raises
    "count",        # counts per interval (requests, visitors, messages): low when idle, 0 when down
    "duration",     # durations of lifecycle steps (wait time, handling time, build time)
    "score",        # scores and ratings (satisfaction 1-5, risk score)
]
MEASUREMENT_CLASSES = MeasurementClass.__args__  # type: ignore[attr-defined]

StateRoleName = Literal[
    "normal", "degraded", "alarm", "critical", "down", "maintenance", "idle", "charging", "moving", "hovering",
    "waiting", "in_progress", "success", "failure", "cancelled", "compromised", "tampered", "low", "high",
]
STATE_ROLES = StateRoleName.__args__  # type: ignore[attr-defined]

Shape = Literal["flat", "day_peak", "evening_peak", "night_peak", "business_hours", "commute", "solar",
                "night_low"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RoleEffect(_Model):
    """How a state role moves a measurement: ``level * scale`` then ``worse`` spreads in the
    measurement's worse direction; noise times ``noise_scale``."""

    scale: float = Field(default=1.0, ge=0)
    worse: float = 0.0  # in multiples of the archetype's spread; negative = the better way
    shift: float = 0.0  # in spreads, up positive whatever is worse ("too low" / "too high" states)
    noise_scale: float = Field(default=1.0, ge=0)


class MeasurementArchetype(_Model):
    """One kind of measured value (``spo2``, ``rotor_speed``, ``fare``)."""

    id: str = Field(pattern=IDENT)
    name: str  # display name as experts write it ("SpO2")
    field: Field_
    synonyms: list[str] = Field(min_length=1)  # lower-case phrases and abbreviations, the id's words first
    unit: str | None  # pint-parseable ("percent", "kilowatt", "degC", "1/minute"); None for plain counts
    unit_label: str | None = None  # how the unit is written in tables and questions ("%", "kW", "°C", "bpm")
    alt_units: list[str] = []  # other pint-parseable units people use for it ("degF", "megawatt")
    klass: MeasurementClass
    typical: float  # a typical level for a normal entity in a normal state
    spread: float = Field(ge=0)  # typical within-entity standard deviation around that level
    bounds: tuple[float | None, float | None]  # hard physical or logical bounds (None = open)
    integer: bool = False  # whole numbers only (counts, bpm, retries)
    decimals: int | None = Field(default=None, ge=0, le=6)
    noise: Literal["iid", "ar", "poisson"] = "ar"
    daily: Shape = "flat"
    daily_amplitude: float = Field(default=0.0, ge=0)  # fraction of the level (0.3 = ±30%)
    weekly: Literal["flat", "weekday_high", "weekend_high"] = "flat"
    worse: Literal["up", "down"]  # the direction that means "worse" (SpO2 down, latency up)
    states: dict[StateRoleName, RoleEffect] = {}  # overrides of the role's default for this class
    event_level: bool = False  # measured once per event/lifecycle step (fare, duration), not sampled
    companions: list[str] = []  # measured together under one name ("blood pressure" = systolic + diastolic)
    per: str | None = None  # accumulated over this period ("1d": rumination minutes a day); a reporter with a
    # shorter cadence reports the share of each interval

    @model_validator(mode="after")
    def _consistent(self):
        lo, hi = self.bounds
        if lo is not None and hi is not None and hi <= lo:
            raise ValueError(f"{self.id}: bounds [{lo}, {hi}] are empty")
        if (lo is not None and self.typical < lo) or (hi is not None and self.typical > hi):
            raise ValueError(f"{self.id}: typical {self.typical} is outside its bounds {self.bounds}")
        if self.integer and self.decimals not in (None, 0):
            raise ValueError(f"{self.id}: an integer measurement has no decimals")
        return self


class AttributeArchetype(_Model):
    """A static attribute users slice by (``tariff_plan``, ``triage_level``, ``country``)."""

    id: str = Field(pattern=IDENT)
    synonyms: list[str] = Field(min_length=1)
    values: dict[str, float] = Field(min_length=2)  # label -> share (sums to 1)
    field: Field_ = "general"

    @model_validator(mode="after")
    def _shares(self):
        if abs(sum(self.values.values()) - 1.0) > 1e-6:
            raise ValueError(f"{self.id}: value shares sum to {sum(self.values.values())}, not 1")
        return self


class LifecycleState(_Model):
    """One canonical state of an entity archetype."""

    name: str = Field(pattern=IDENT)
    role: StateRoleName
    dwell: str | None = None  # median time in the state ("8m"); None for terminal states
    terminal: bool = False
    synonyms: list[str] = []


class ParentLink(_Model):
    """A parent entity type of a lifecycle entity (rider and driver of a trip)."""

    entity: str = Field(pattern=IDENT)  # an entity archetype id
    column: str = Field(pattern=IDENT)  # the foreign-key column ("rider_id")
    per_parent: float = Field(gt=0)  # typical children per parent over a week


class EntityArchetype(_Model):
    """A kind of thing that produces rows: a periodic reporter or a lifecycle that arrives and ends."""

    id: str = Field(pattern=IDENT)
    name: str  # singular noun ("trip")
    plural: str
    field: Field_
    synonyms: list[str] = Field(min_length=1)  # singular nouns and noun phrases ("ride", "journey")
    kind: Literal["periodic", "lifecycle", "static"]
    id_prefix: str = Field(pattern=r"^[A-Z][A-Z0-9]*$")
    typical_count: int = Field(gt=0)  # periodic: fleet size; lifecycle: arrivals per day
    cadence: str | None = None  # periodic reporters: the usual reporting interval
    measurements: list[str] = []  # measurement archetype ids reported by default
    attributes: list[str] = []  # attribute archetype ids typical for it
    states: list[LifecycleState] = []  # canonical states (first = initial)
    transitions: dict[str, dict[str, float]] = {}  # canonical next-state shares (rows sum to 1)
    arrival: Shape | None = None  # lifecycle entities: when they start over the day
    typical_duration: str | None = None  # lifecycle entities: how long one usually lasts
    parents: list[ParentLink] = []

    @model_validator(mode="after")
    def _machine(self):
        names = [s.name for s in self.states]
        for src, row in self.transitions.items():
            if src not in names or any(t not in names for t in row):
                raise ValueError(f"{self.id}: transitions name a state that is not in states")
            if abs(sum(row.values()) - 1.0) > 1e-6:
                raise ValueError(f"{self.id}: transitions from {src} sum to {sum(row.values())}, not 1")
        if self.kind == "lifecycle" and not any(s.terminal for s in self.states):
            raise ValueError(f"{self.id}: a lifecycle entity needs at least one terminal state")
        return self


class StateRole(_Model):
    """What a role means for any state that plays it (``alarm``, ``charging``, ``cancelled``)."""

    id: StateRoleName
    synonyms: list[str] = Field(min_length=1)  # words in state names that mean this role
    emits_rows: bool = True  # periodic reporters in this state still send readings
    terminal: bool = False
    dwell: str  # a default median dwell for a reporter in this role
    effects: dict[MeasurementClass, RoleEffect] = {}  # default effect per measurement class


class IncidentArchetype(_Model):
    """A named incident of a field, with the pattern kind that injects it and what it does."""

    id: str = Field(pattern=IDENT)
    name: str
    field: Field_
    synonyms: list[str] = Field(min_length=1)
    kind: str  # a registered pattern kind (tools/patterns/kinds)
    measurements: list[str] = []  # measurement archetype ids it applies to (first that the spec has wins)
    classes: list[MeasurementClass] = []  # or any measurement of these classes
    magnitude_sigma: float = Field(default=8.0, ge=0)  # in spreads, applied in the worse direction
    duration: str = "4h"
    share: float = Field(default=0.1, gt=0, le=1)  # share of entities affected

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, v: str) -> str:
        from tools.patterns.registry import kind_names

        if v not in kind_names():
            raise ValueError(f"unknown pattern kind '{v}'; known: {', '.join(kind_names())}")
        return v


class Catalog(_Model):
    """The whole catalog, with lookups by id."""

    measurements: list[MeasurementArchetype]
    entities: list[EntityArchetype]
    attributes: list[AttributeArchetype]
    roles: list[StateRole]
    incidents: list[IncidentArchetype]

    @model_validator(mode="after")
    def _unique_and_linked(self):
        for part in ("measurements", "entities", "attributes", "roles", "incidents"):
            ids = [x.id for x in getattr(self, part)]
            dup = {i for i in ids if ids.count(i) > 1}
            if dup:
                raise ValueError(f"catalog {part}: duplicate ids {sorted(dup)}")
        m_ids, a_ids, e_ids = ({x.id for x in self.measurements}, {x.id for x in self.attributes},
                               {x.id for x in self.entities})
        for e in self.entities:
            missing = [m for m in e.measurements if m not in m_ids] + [a for a in e.attributes if a not in a_ids]
            missing += [p.entity for p in e.parents if p.entity not in e_ids]
            if missing:
                raise ValueError(f"catalog entity {e.id}: unknown ids {missing}")
        for i in self.incidents:
            if any(m not in m_ids for m in i.measurements):
                raise ValueError(f"catalog incident {i.id}: unknown measurement ids")
        return self

    def measurement(self, id_: str) -> MeasurementArchetype:
        return next(m for m in self.measurements if m.id == id_)

    def entity(self, id_: str) -> EntityArchetype:
        return next(e for e in self.entities if e.id == id_)

    def attribute(self, id_: str) -> AttributeArchetype:
        return next(a for a in self.attributes if a.id == id_)

    def role(self, id_: str) -> StateRole:
        return next(r for r in self.roles if r.id == id_)
