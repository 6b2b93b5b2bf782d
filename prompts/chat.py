"""Prompt of the chat reader: one user request about a bundle → a ``Reading`` (typed operations, an
ask-back, or a session control), the same form the offline reader produces (``tools.chat.ops``)."""

from __future__ import annotations

from pydantic import BaseModel

from prompts.base import Prompt
from tools.chat.ops import OP_NAMES, Ask, Reading, parse_operations


class ChatInput(BaseModel):
    """The request and what the bundle has: the names an operation may refer to."""

    request: str
    entities: list[str] = []
    """Entity types with their count and id format ('cell_tower x20, ids SITE_0000..')."""
    measurements: list[str] = []
    attributes: list[str] = []
    """'attribute: value, value, ...' of the categorical attributes (for ``where`` filters)."""
    incidents: list[str] = []
    """One line per incident, in order: 'id: kind on N entities, day N HH:MM for 2h'."""
    personas: list[str] = []
    kinds: list[str] = []
    families: list[str] = []
    start: str = ""
    last: str = ""
    """What the conversation was last about ('incident chat_data_outage_1'), for 'it' and 'that one'."""


CHAT = Prompt(
    name="chat",
    instruction=f"""You read one request of a domain expert refining an eval bundle into a Reading.
Operations (field `op`): {', '.join(OP_NAMES)}; their fields are in the schema. Refer to existing things
ONLY by the exact ids and names given in the input. Times are 'day N HH:MM' (day 1 = the first day of
data); durations '2h', '90m'. 'affecting 5 towers' is an incident's count, never a change of the fleet.
Write only what the request states; never invent an amount. When the request is ambiguous (two
incidents fit), names something that does not exist, or misses an amount the operation needs, return
`ask` (question, candidates, understood) and no operations. Session words (ok, cancel, undo, redo,
help, quit) are `control`.""",
    input_model=ChatInput,
    output_model=Reading,
    examples=[
        (ChatInput(request="add an outage on day 2 at 10:00 for 2 hours affecting 5 towers and drop the stateless "
                           "questions", entities=["cell_tower x20, ids SITE_0000..SITE_0019"],
                   incidents=["cell_tower_outage: data_outage on 3 cell_tower, day 1 15:00 for 2h"]),
         Reading(ops=parse_operations([
             {"op": "add_incident", "kind": "data_outage", "entity": "cell_tower", "count": 5,
              "start": "day 2 10:00", "duration": "2h"}, {"op": "drop_questions", "family": "stateless"}]))),
        (ChatInput(request="make the outage longer",
                   incidents=["cell_tower_outage: data_outage on 3 cell_tower, day 1 15:00 for 2h",
                              "chat_data_outage_1: data_outage on 5 cell_tower, day 2 10:00 for 2h"]),
         Reading(ask=Ask(question="which outage, and how much longer?",
                         candidates=["cell_tower_outage", "chat_data_outage_1"], understood=["make an outage longer"]),
                 confidence=0.3)),
    ],
)
