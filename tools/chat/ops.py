"""Chat operations: every change (or view) chat can make to a bundle, as one typed, documented model
with a JSON form, so the offline reader, the LLM, the web app and scripts (``chronoeval chat --ops
FILE``) all produce the same thing and are validated the same way.

References are resolved before an operation is built: an operation names an incident by its id, a
persona by its name, an entity type by its name. A reading that cannot be resolved to exactly one
thing is an :class:`Ask` (the candidates, and what was understood), never a guess.

Times are ``day N HH:MM`` (day 1 is the first day of data); durations are ``2h``, ``90m``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter, model_validator

from tools.common.base import PositiveDuration, SpecModel

DAY_TIME = r"^day [1-9]\d* ([01]\d|2[0-3]):[0-5]\d$"
Show = Literal["questions", "incidents", "personas", "spec", "history"]


class AddIncident(SpecModel):
    """Inject a new incident. Targets: ``ids``, or ``count`` entities (drawn by seed among those
    matching ``where``), or every entity matching ``where``; ``entity`` is the entity type."""

    op: Literal["add_incident"] = "add_incident"
    kind: str
    entity: str | None = None
    measurement: str | None = None
    ids: list[str] | None = None
    count: int | None = Field(default=None, gt=0)
    where: dict[str, str] | None = None
    start: str | None = Field(default=None, pattern=DAY_TIME)
    duration: PositiveDuration | None = None
    magnitude: str | None = None  # "+50%", "x2", "to 0", "+8"


class EditIncident(SpecModel):
    """Change an existing incident: each given field replaces its value; ``duration_by`` lengthens
    (``+1h``) or scales (``x2``, ``x0.5``) the duration."""

    op: Literal["edit_incident"] = "edit_incident"
    incident: str
    kind: str | None = None
    measurement: str | None = None
    ids: list[str] | None = None
    count: int | None = Field(default=None, gt=0)
    duration: PositiveDuration | None = None
    duration_by: str | None = Field(default=None, pattern=r"^([+-]\d+(\.\d+)?[smhd]|x\d+(\.\d+)?)$")
    magnitude: str | None = None

    @model_validator(mode="after")
    def _something(self):
        if not self.model_fields_set - {"op", "incident"}:
            raise ValueError("an edit needs at least one field to change")
        if self.duration is not None and self.duration_by is not None:
            raise ValueError("give duration or duration_by, not both")
        return self


class MoveIncident(SpecModel):
    """Move an incident's window: to ``start``, or by ``shift`` (``+1d``, ``-2h``)."""

    op: Literal["move_incident"] = "move_incident"
    incident: str
    start: str | None = Field(default=None, pattern=DAY_TIME)
    shift: str | None = Field(default=None, pattern=r"^[+-]\d+[smhd]$")

    @model_validator(mode="after")
    def _one(self):
        if (self.start is None) == (self.shift is None):
            raise ValueError("a move needs exactly one of start or shift")
        return self


class RemoveIncident(SpecModel):
    """Remove one incident."""

    op: Literal["remove_incident"] = "remove_incident"
    incident: str


class CascadeIncident(SpecModel):
    """Make an incident (``incident``; a new outage when None) hit the entities ``ids`` and cascade to the
    related entity type ``to`` (whose rows point at them through a foreign key)."""

    op: Literal["cascade_incident"] = "cascade_incident"
    ids: list[str] = Field(min_length=1)
    to: str
    incident: str | None = None


class AddPersona(SpecModel):
    """Add a persona (who asks and how they write); every question gets a variant in their voice."""

    op: Literal["add_persona"] = "add_persona"
    name: str | None = None  # derived from the description when not given
    description: str
    style: str = ""


class EditPersona(SpecModel):
    """Change a persona's description or style (its variants are written again)."""

    op: Literal["edit_persona"] = "edit_persona"
    persona: str
    description: str | None = None
    style: str | None = None


class RemovePersona(SpecModel):
    """Remove a persona and its question variants."""

    op: Literal["remove_persona"] = "remove_persona"
    persona: str


class ScaleEntities(SpecModel):
    """Set an entity type's count (``count``) or multiply it (``factor``)."""

    op: Literal["scale_entities"] = "scale_entities"
    entity: str
    count: int | None = Field(default=None, gt=0)
    factor: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one(self):
        if (self.count is None) == (self.factor is None):
            raise ValueError("scaling needs exactly one of count or factor")
        return self


class SetHorizon(SpecModel):
    """Set how long the data covers (``3d``, ``2w``)."""

    op: Literal["set_horizon"] = "set_horizon"
    horizon: PositiveDuration


class SetCadence(SpecModel):
    """Set how often an entity type reports (every periodic entity type when ``entity`` is None)."""

    op: Literal["set_cadence"] = "set_cadence"
    cadence: PositiveDuration
    entity: str | None = None


class AddQuestions(SpecModel):
    """Add questions: of a family and/or template, about a topic; ``count`` of them (default 6)."""

    op: Literal["add_questions"] = "add_questions"
    family: str | None = None
    template: str | None = None
    topic: str | None = None
    count: int | None = Field(default=None, gt=0)


class DropQuestions(SpecModel):
    """Remove the questions of a family or template, or about a topic (a measurement, state, word)."""

    op: Literal["drop_questions"] = "drop_questions"
    family: str | None = None
    template: str | None = None
    topic: str | None = None

    @model_validator(mode="after")
    def _some(self):
        if self.family is None and self.template is None and self.topic is None:
            raise ValueError("say which questions to drop: family, template or topic")
        return self


class MakeHarder(SpecModel):
    """Shift the suite's mix toward stateful and incident questions (suite size unchanged)."""

    op: Literal["make_harder"] = "make_harder"


class ShowItems(SpecModel):
    """Show questions (with answers; optionally about a topic or of a family), incidents, personas,
    the spec or the history. Changes nothing."""

    op: Literal["show"] = "show"
    what: Show
    topic: str | None = None
    family: str | None = None


Operation = Annotated[AddIncident | EditIncident | MoveIncident | RemoveIncident | CascadeIncident | AddPersona
                      | EditPersona
                      | RemovePersona | ScaleEntities | SetHorizon | SetCadence | AddQuestions | DropQuestions
                      | MakeHarder | ShowItems, Field(discriminator="op")]
OPERATIONS = TypeAdapter(list[Operation])
OP_NAMES: tuple[str, ...] = ("add_incident", "edit_incident", "move_incident", "remove_incident", "cascade_incident",
                             "add_persona",
                             "edit_persona", "remove_persona", "scale_entities", "set_horizon", "set_cadence",
                             "add_questions", "drop_questions", "make_harder", "show")


class Ask(SpecModel):
    """A reading that is not applied: the question back, the candidates it could mean, and what was
    understood (so a refusal always names it)."""

    question: str
    candidates: list[str] = []
    understood: list[str] = []


HELP = """I understand, one or more per line (I show each change and apply it on 'ok'):
  show the questions / the incidents / the personas / the spec / the history
  add an outage on day 2 at 10:00 for 2 hours affecting 5 towers     add a spike of +50% in throughput on SITE_0003
  make the outage longer by an hour / twice as long     move it 2 hours later     remove the flatline
  make a new outage cascade to the cells behind RTR_003
  add a persona: a NOC engineer who writes terse questions     make the technician's style formal
  make it 40 towers / every 5 minutes / over 3 days     drop the stateless questions     more stateful questions
  make it harder      undo, redo, history      ok, cancel      help, quit"""


Control = Literal["ok", "cancel", "undo", "redo", "help", "quit"]


class Reading(SpecModel):
    """What one chat line means: operations to preview, an ask-back, or a session control."""

    ops: list[Operation] = []
    ask: Ask | None = None
    control: Control | None = None
    confidence: float = Field(default=1.0, ge=0, le=1)
    assumed: list[str] = []
    """Amounts the line left out that the reader proposes ("twice as long"): such a reading is a proposal,
    shown and applied only on "ok", never at once (not even with --yes)."""


def parse_operations(data: object) -> list:
    """Validate a list of operations in their JSON form (``--ops FILE``); errors name the item."""
    return OPERATIONS.validate_python(data)


__all__ = ["OPERATIONS", "OP_NAMES", "Ask", "Operation", "Reading", "parse_operations"]
