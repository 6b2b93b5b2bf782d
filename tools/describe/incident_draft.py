"""A described incident as the reader understood it (``IncidentDraft``), before it is a spec incident.

``tools.describe.incident_reader`` fills it from one sentence of a description; the spec writer
(``tools.describe.compose_described``) turns it into a pattern incident on the composed entities.
Every field keeps the user's words for it in ``words`` so the decision log can quote them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

What = Literal["outage", "degradation", "spike", "dip", "surge", "drift", "stuck", "noise", "gaps", "shift",
               "behaviour"]


class IncidentDraft(BaseModel):
    """What happens, to which entities, when and how much, as one sentence states it."""

    text: str  # the sentence (or clause) the incident was read from
    what: What | None = None  # None: no kind of incident could be read
    gradual: bool = False  # "creeps up", "worse and worse": the change builds up over the window
    subject: str = ""  # the sentence without the words of the time, size and target: measurement words live here
    entity_words: list[str] = []  # the nouns that name the targets ("towers", "sensor"), most specific first
    ids: list[str] = []  # targets named by id ("S-014", "Riverside")
    count: int | None = Field(default=None, gt=0)  # "5 towers", "a dozen pumps"
    all: bool = False  # "all", "every", "the whole"
    parent_words: str | None = None  # "stores" in "all terminals in 5 stores"
    parent_count: int | None = Field(default=None, gt=0)
    parent_ids: list[str] = []  # "line 3", "building B"
    day: int | None = Field(default=None, gt=0)  # day 1 = the first day of the horizon
    weekday: int | None = Field(default=None, ge=0, le=6)  # Monday = 0, with ``week``: "Tuesday of week 2"
    week: int | None = Field(default=None, gt=0)
    start: str | None = None  # "14:00"
    duration: str | None = None  # "90m"; None = not stated
    to_end: bool = False  # "and stays", "from then on": until the end of the horizon
    size: float | None = None  # the stated size, always positive: 20 (%), 3 (x), 15 (units)
    size_unit: Literal["%", "x", "units", "zero"] | None = None
    unit: str | None = None  # the unit of a size in units ("°C", "bar")
    direction: Literal["up", "down"] | None = None
    words: dict[str, str] = {}  # field -> the words it was read from
