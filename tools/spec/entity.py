"""Entity types: ids, static attributes, the semi-Markov state machine, emission and arrival."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from tools.common.base import Duration, PositiveDuration, SpecModel
from tools.common.conditions import Condition
from tools.common.dwell import DwellDistribution
from tools.spec.distributions import AttributeDistribution
from tools.spec.measurement import Measurement

KEY_SEPARATOR = "/"  # a composite key's label: its parts in key order, joined ("RTR_001/eth2")


class Attribute(SpecModel):
    """A static attribute drawn once per entity.

    ``emit``: ``true`` writes it on every row of the entity's tables (denormalised, like the
    AgentFuel cell-site table), ``static`` only in its static (one-row-per-entity) table, so
    questions need a join; ``false`` keeps it internal (conditions, effects, formulas).
    """

    name: str
    dist: AttributeDistribution
    emit: bool | Literal["static"] = True

    @property
    def in_rows(self) -> bool:
        """Written on every row of the event/metric table."""
        return self.emit is True

    @property
    def in_static(self) -> bool:
        """Written in the static (one-row-per-entity) table."""
        return self.emit is True or self.emit == "static"
    unit: str | None = None
    description: str = ""


class IdSpec(SpecModel):
    """The id column and its format: ``{i}`` is the entity index (``SENSOR_{i:04d}``).

    ``formats_by`` names a label attribute of the entity and ``formats`` gives a format per label
    (``{TEMP: "TEMP_{i:03d}", HUM: "HUM_{i:03d}"}``): an entity with a listed label gets that format,
    ``{i}`` counting within its label from 0; other entities keep ``format``. ``values`` lists ids
    given in entity order (entity ``i < len(values)`` gets ``values[i]``); they may repeat when the id
    is shared (a router's id on each of its interfaces: the key is the id plus another attribute)."""

    column: str
    format: str = "{i}"
    formats_by: str | None = None
    formats: dict[str, str] = {}
    values: list[str] = Field(default=[], max_length=100_000)

    @field_validator("formats")
    @classmethod
    def _fmts(cls, v: dict[str, str]) -> dict[str, str]:
        return {k: check_id_format(f) for k, f in v.items()}

    @field_validator("format")
    @classmethod
    def _fmt(cls, v: str) -> str:
        return check_id_format(v)

    def ids(self, n: int, labels=None):
        """The ``n`` entity ids (object array); ``labels`` (the ``formats_by`` label of each entity) picks
        a per-label format, numbered within the label."""
        import numpy as np

        out = np.array([self.format.format(i=i) for i in range(n)], dtype=object)
        if self.values:
            k = min(n, len(self.values))
            out[:k] = self.values[:k]
        if self.formats and labels is not None:
            seen: dict[str, int] = {}
            for j, lab in enumerate(labels):
                fmt = self.formats.get(str(lab))
                if fmt is not None:
                    k = seen.get(str(lab), 0)
                    out[j], seen[str(lab)] = fmt.format(i=k), k + 1
        return out


def check_id_format(v: str) -> str:
    """Validate one id format (``SENSOR_{i:04d}``); raise ValueError naming the fix."""
    from tools.spec.names import id_format_problem

    if (problem := id_format_problem(v)) is not None:  # before formatting: '{i:>2000000000}' is 2 GB
        raise ValueError(problem)
    try:
        a, b = v.format(i=0), v.format(i=1)
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(f"id format '{v}' must use only the field {{i}}, e.g. 'SENSOR_{{i:04d}}'") from exc
    if a == b:
        raise ValueError(f"id format '{v}' gives the same id to every entity; include {{i}}")
    return v


class StateDef(SpecModel):
    """One state: how long the entity stays there (not needed for terminal states)."""

    dwell: DwellDistribution | None = None
    description: str = ""


class Timeout(SpecModel):
    """Leave the state for ``to`` once ``after`` has elapsed without another transition."""

    after: PositiveDuration
    to: str


class TransitionOverride(SpecModel):
    """Replacement transition rows and dwell times for entities whose attributes match ``when``."""

    when: list[Condition] = Field(min_length=1)
    transitions: dict[str, dict[str, float]] = {}
    dwell: dict[str, DwellDistribution] = {}
    description: str = ""


class TrajectoryFlag(SpecModel):
    """A per-entity 0/1 column: 1 when the trajectory ever enters one of ``ever_in``."""

    ever_in: list[str] = Field(min_length=1)


class StateMachine(SpecModel):
    """A semi-Markov process: an embedded Markov chain plus a dwell distribution per state."""

    column: str | None = None
    states: dict[str, StateDef] = Field(min_length=1, max_length=200)
    initial: str | dict[str, float]
    terminal: list[str] = []
    transitions: dict[str, dict[str, float]] = {}
    overrides: list[TransitionOverride] = []
    timeouts: dict[str, Timeout] = {}
    derived_columns: dict[str, dict[str, str | None]] = {}
    flags: dict[str, TrajectoryFlag] = {}


class Emission(SpecModel):
    """How rows come out: every ``cadence`` (metrics) or one row per state entry (event logs)."""

    kind: Literal["periodic", "on_transition"]
    cadence: PositiveDuration | None = None
    jitter: Duration = "0s"
    missing_rate: float = Field(default=0.0, ge=0.0, lt=1.0)
    timestamp_column: str = "timestamp"

    @model_validator(mode="after")
    def _cadence(self):
        if self.kind == "periodic" and self.cadence is None:
            raise ValueError("periodic emission needs a cadence, e.g. cadence: 15m")
        return self


class Arrival(SpecModel):
    """Entities that appear over the horizon (sessions, jobs) instead of living through it.

    ``hourly_weights`` (24 values, UTC hours) shape when entities start; ``max_duration`` caps a
    trajectory that has not reached a terminal state.
    """

    hourly_weights: list[float] | None = None
    max_duration: PositiveDuration = "1d"

    @field_validator("hourly_weights")
    @classmethod
    def _hours(cls, v):
        if v is not None and (len(v) != 24 or min(v) < 0 or sum(v) <= 0):
            raise ValueError("hourly_weights needs 24 non-negative weights, one per UTC hour, not all zero")
        return v


class EntityType(SpecModel):
    """A kind of thing in the domain and the table(s) it produces."""

    name: str
    description: str = ""
    table: str | None = None
    static_table: str | None = None
    id: IdSpec
    count: int = Field(gt=0)
    attributes: list[Attribute] = Field(default=[], max_length=500)
    states: StateMachine | None = None
    emission: Emission | None = None
    measurements: list[Measurement] = Field(default=[], max_length=500)
    arrival: Arrival | None = None
    exemplar_column: str | None = None

    @property
    def table_name(self) -> str:
        """The main table: the event/metric table when the type emits rows, else its static table."""
        return self.table or self.name

    @property
    def static_table_name(self) -> str | None:
        """The one-row-per-entity table, if any: ``static_table`` beside an emission, else the main table."""
        return self.static_table if self.emission else self.table_name

    @property
    def key_parts(self) -> tuple[str, ...]:
        """The other columns of a composite key (``Interface_ID`` after ``Device_ID``): the spec lists
        repeated ids (a router's id on each of its interfaces) and a ``listed`` attribute on the rows
        pairs each with its second part. Empty for a single-column key."""
        ids = list(self.id.values)
        if len(set(ids)) == len(ids):
            return ()
        return tuple(a.name for a in self.attributes if a.dist.kind == "listed" and a.in_rows)

    @property
    def table_names(self) -> list[str]:
        """Every table this entity type produces: static first, then the event/metric table."""
        return [t for t in (self.static_table_name, self.table_name if self.emission else None) if t]
