"""Prompt of the chat refiner: one user request about a bundle → a ``Refinement``."""

from __future__ import annotations

from pydantic import BaseModel

from prompts.base import Prompt
from tools.common.families import CORE_FAMILIES
from tools.describe.refine import HELP, Refinement


class ChatInput(BaseModel):
    """The user's request and what the bundle has (names the refinement may refer to)."""

    request: str
    entities: list[str] = []
    incidents: list[str] = []
    start: str = ""


CHAT = Prompt(
    name="chat",
    instruction="""You turn a domain expert's request about an eval bundle into one refinement.
ops: show_incidents, show_questions, add_persona (topic = who the persona is and how they write),
add_incident (kind = a pattern kind; when = 'day N HH:MM' counted from the data start; duration such
as '3h'; topic = an attribute value that selects the targets, or target_ids), cascade (target_ids =
the root entity ids, entity_word = the entities it cascades to, topic = the incident's word),
remove_incident, drop_questions (topic), more_questions (kind = """ + "|".join(CORE_FAMILIES) + """, topic),
resize (count + entity_word, kind = new cadence, duration = new horizon), help, quit, unknown.
The offline grammar, for reference:
""" + HELP,
    input_model=ChatInput,
    output_model=Refinement,
    examples=[(ChatInput(request="add a flash crowd on Friday evening for premium users", entities=["user", "session"],
                         start="2026-01-01T00:00:00Z"),
               Refinement(op="add_incident", text="add a flash crowd on Friday evening for premium users",
                          kind="flash_crowd", when="day 2 18:00", duration="3h", topic="premium", entity_word="user"))],
)
