"""Prompts of the spec writer (measurement advice) and the pattern injector (incident plan), and
of the query synthesizer (template focus): the domain knowledge an LLM adds on top of the rules."""

from __future__ import annotations

from pydantic import BaseModel, Field

from prompts.base import Prompt
from tools.patterns.registry import all_kinds


class DomainInput(BaseModel):
    """The domain as drafted: its description, entity, measurements and states."""

    description: str
    entity: str
    measurements: list[str]
    states: list[str] = []
    problems: list[str] = []  # validation errors of the previous answer, when repairing


class MeasurementAdvice(BaseModel):
    """Realistic generation settings of one measurement."""

    name: str
    unit: str | None = None
    typical: float = Field(description="the usual level in the normal state")
    low: float | None = Field(default=None, description="physical lower bound, if any")
    high: float | None = Field(default=None, description="physical upper bound, if any")
    integer: bool = False


class SpecAdvice(BaseModel):
    """Settings for each named measurement."""

    measurements: list[MeasurementAdvice]


SPEC_WRITER = Prompt(
    name="spec_writer",
    instruction="""You are a domain expert helping to simulate realistic telemetry. For each
measurement of the entity, give its unit, its typical level in normal operation, physical bounds
(null when there are none) and whether it is an integer count. Use the measurement names exactly
as given. If problems are listed, your previous answer made the spec invalid: fix them.""",
    input_model=DomainInput,
    output_model=SpecAdvice,
    examples=[(DomainInput(description="40 wind turbines reporting vibration and power output", entity="turbine",
                           measurements=["vibration", "power_output"]),
               SpecAdvice(measurements=[MeasurementAdvice(name="vibration", unit="mm/s", typical=2.5, low=0),
                                        MeasurementAdvice(name="power_output", unit="kW", typical=1500, low=0,
                                                          high=3000)]))],
)


# the kinds a plan can name: the ones a writer places with one key (or none), from the kinds' registry
PLANNABLE = [k.name for k in all_kinds() if k.placement in ("effects", "keys", "rows")]


class IncidentIdea(BaseModel):
    """One incident to inject."""

    kind: str = Field(description="the pattern kind, one of: " + ", ".join(PLANNABLE))
    key: str | None = None
    entities: int = Field(default=3, ge=1)
    day: int = Field(default=2, ge=1)
    start_hour: int = Field(default=10, ge=0, le=23)
    hours: int = Field(default=3, ge=1, le=48)


class IncidentPlan(BaseModel):
    """The incidents that fit the domain."""

    incidents: list[IncidentIdea] = Field(min_length=1, max_length=5)


PATTERN_INJECTOR = Prompt(
    name="pattern_injector",
    instruction="""Choose 2 to 4 realistic incidents for this domain, the kind practitioners would
investigate (an outage, a degradation of a health metric, a stuck sensor, a slow drift). Each names
a measurement (key) from the list unless it is a data_outage, how many entities it hits, the day
(1 = first day of data), the start hour (UTC) and its length in hours.""",
    input_model=DomainInput,
    output_model=IncidentPlan,
    examples=[(DomainInput(description="turbines", entity="turbine", measurements=["vibration", "power_output"]),
               IncidentPlan(incidents=[IncidentIdea(kind="kpi_degradation", key="vibration", entities=2, day=3),
                                       IncidentIdea(kind="data_outage", entities=4, day=2, start_hour=15,
                                                    hours=2)]))],
)


class FocusInput(BaseModel):
    """The domain and the question templates available."""

    description: str
    templates: list[str]
    notes: list[str] = []


class QueryFocus(BaseModel):
    """Templates to favour (agents fail them, or the domain's users ask them most)."""

    prefer: list[str] = Field(default_factory=list, max_length=6)
    reason: str = ""


QUERY_FOCUS = Prompt(
    name="query_synthesizer",
    instruction="""Pick up to 6 question templates this domain's users ask most, or that experience
notes say agents fail; names exactly as listed.""",
    input_model=FocusInput,
    output_model=QueryFocus,
    examples=[(FocusInput(description="on-call SREs for a payments API", templates=["event_count", "state_duration",
                                                                                 "incident_kpi", "sequence_match"],
                          notes=["agent X failed 9/12 sequence_match questions"]),
               QueryFocus(prefer=["sequence_match", "state_duration"],
                          reason="agents fail sequence_match; SREs ask how long services stay degraded"))],
)
