"""Prompt of the schema-inference agent: a domain description → a ``DomainDraft``."""

from __future__ import annotations

from pydantic import BaseModel

from prompts.base import Prompt
from tools.describe.draft import DomainDraft, EntityDraft, MeasurementDraft
from tools.patterns.registry import all_kinds

# kinds a description can ask for (those that need more than a key are the spec writer's), and cascades
HINTABLE = ", ".join([k.name for k in all_kinds() if k.placement != "other"] + ["cascade"])


class DescriptionInput(BaseModel):
    """The user's description of the domain (and edits given at review, in order), the catalog entries
    the offline reading matched, and what it could not place."""

    description: str
    edits: list[str] = []
    catalog: list[str] = []
    not_understood: list[str] = []
    reading: list[str] = []  # the offline reading's items: words, catalog match or "from the text only"


SCHEMA_INFERENCE = Prompt(
    name="schema_inference",
    instruction=f"""You read a domain expert's description of their telemetry and draft the data it
describes. Name things with the user's own words in snake_case. The entity is the thing each time
series belongs to (a turbine, a pod, a region). Give the count, cadence (e.g. 10m) and horizon
(e.g. 14d) only when the text states them; leave them null otherwise. List the measurements the
text names, and the states it names in the order given (the normal state first). incident_hints
are pattern kinds the user asks for: {HINTABLE}. In evidence, map each part
(entity, count, measurements, states, cadence, horizon) to the words it came from.
Use the catalog entries you are given: set catalog_id to an entry's id where the text means it, and
units as the catalog writes them; mention every measurement, attribute and state the text names, and
place the items listed as not understood if you can (put further entity types in "others").
"reading" lists what the offline rules read, one item per line with the words it came from and its
catalog match. Review it: where a match is wrong for THIS description (a word shared with another
field: a prison's "cell" is no radio cell, a bakery oven's "run" no CI pipeline run), add to
"corrections" {{"ref": <the item's ref>, "action": "rematch" with a better catalog_id, or "unmatch"
to keep the user's words without an entry}}; "rename" (name: snake_case of the description's own
words) an item whose name is a phrase fragment; "drop" an item the text does not name as a thing to
record. Leave right items alone: corrections is empty when the reading is right.""",
    input_model=DescriptionInput,
    output_model=DomainDraft,
    examples=[(
        DescriptionInput(description="a wind farm of 40 turbines reporting vibration and power output every 10 "
                                     "minutes; turbines go through normal, curtailed and fault"),
        DomainDraft(name="wind_farm", description="a wind farm of 40 turbines reporting vibration and power output "
                                                  "every 10 minutes; turbines go through normal, curtailed and fault",
                    entity=EntityDraft(name="turbine", plural="turbines", count=40,
                                       states=["normal", "curtailed", "fault"], cadence="10m",
                                       measurements=[MeasurementDraft(name="vibration", words="vibration"),
                                                     MeasurementDraft(name="power_output", words="power output")]),
                    nearest_pack="iot",
                    evidence={"entity": "40 turbines", "count": "40 turbines", "cadence": "every 10 minutes",
                              "measurements": "reporting vibration and power output",
                              "states": "go through normal, curtailed and fault"}),
    )],
)
