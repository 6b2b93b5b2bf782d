"""QuerySpec: the structured query behind every question (stored as ``params`` in qa.jsonl).

One model for every template. The parts common to all templates (entity filter, event filter,
window, group-by) are interpreted the same way by both executors:

- ``entity_filter`` selects *entities*, never rows: predicates on static attributes, read from the
  entity's static table (``via``) or from the main table's rows when the attribute is written there.
- ``event_filter`` selects the rows that are counted or aggregated (a row predicate on
  measurements, events or states). Stateful templates replay whole streams and use it only where
  their docstring says so.
- ``window`` is the half-open interval ``[start, end)`` on the row timestamp, in UTC.
- ``while_`` is a predicated window: only rows where the predicate holds ("while cpu_load > 80").
- ``params`` are the analysis function's own parameters (key, aggregate, states, k, ...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Scalar = str | int | float | bool
Op = Literal["==", "!=", "in", "not_in", ">", ">=", "<", "<="]


class QueryModel(BaseModel):
    """Strict, frozen base: unknown fields are errors and specs are hashable by their JSON."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Predicate(QueryModel):
    """``column op value``; ``in``/``not_in`` take a list. Nulls never satisfy a predicate."""

    column: str
    op: Op
    value: Scalar | list[Scalar]


class EntityFilter(QueryModel):
    """Entities whose static attributes satisfy every predicate.

    ``table`` is the table holding the attributes (None: the main table's own rows); ``key`` is
    the main table's column that refers to it and ``ref`` the id column there (``sessions.user_id``
    → ``users.user_id``).
    """

    predicates: list[Predicate] = Field(min_length=1)
    table: str | None = None
    key: str | None = None
    ref: str | None = None


class Window(QueryModel):
    """The half-open UTC interval ``[start, end)`` (ISO-8601 strings with a zone); ``closed``: ``[start,
    end]``, both ends included (a suite whose query plan asks for closed windows, issue 19)."""

    start: str
    end: str
    closed: bool = False

    @property
    def start_dt(self) -> datetime:
        return datetime.fromisoformat(self.start)

    @property
    def end_dt(self) -> datetime:
        return datetime.fromisoformat(self.end)


class QuerySpec(QueryModel):
    """The structured query one question asks. ``template`` names its analysis function."""

    template: str
    table: str
    entity: str
    time: str
    entity_filter: EntityFilter | None = None
    event_filter: list[Predicate] = []
    window: Window | None = None
    while_: Predicate | None = Field(default=None, alias="while")
    group_by: str | None = None
    params: dict[str, Any] = {}
    # further id columns that, with ``entity``, identify one entity (a link is Device_ID + Interface_ID);
    # only the templates in tools.queries.composite.COMPOSITE_OK take them (issue 19)
    entity_parts: list[str] = []

    def p(self, name: str, default: Any = None) -> Any:
        """One analysis parameter."""
        return self.params.get(name, default)

    def to_json(self) -> dict[str, Any]:
        """The JSON form stored as ``params`` in qa.jsonl."""
        return self.model_dump(mode="json", by_alias=True, exclude_defaults=True)


AnswerType = Literal[
    "number", "integer", "boolean", "duration", "timestamp", "entity", "entity_list",
    "label", "mapping", "ranking", "table",
]
