"""A typed prompt: an input model rendered into chat messages, an output model, and examples.

Each agent's prompt file defines one ``Prompt`` (ragas-style): the instruction, the pydantic input
and output models, and worked examples (input → output) that are shown to the model. The output
model is what ``agents.models.structured_call`` asks for as JSON-schema structured output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel

I = TypeVar("I", bound=BaseModel)  # noqa: E741 - the usual name for an input type variable
O = TypeVar("O", bound=BaseModel)  # noqa: E741


@dataclass(frozen=True)
class Prompt(Generic[I, O]):
    """Instruction + input model + output model + examples."""

    name: str
    instruction: str
    input_model: type[I]
    output_model: type[O]
    examples: list[tuple[I, O]] = field(default_factory=list)

    def system(self) -> str:
        """The system message: instruction, output format and the worked examples."""
        parts = [self.instruction.strip(), "",
                 f"Reply with only a JSON object matching the {self.output_model.__name__} schema:",
                 json.dumps(self.output_model.model_json_schema(), sort_keys=True)]
        for i, (inp, out) in enumerate(self.examples, 1):
            parts += ["", f"Example {i} input:", inp.model_dump_json(indent=None),
                      f"Example {i} output:", out.model_dump_json(indent=None)]
        return "\n".join(parts)

    def render(self, inp: I) -> list[tuple[str, str]]:
        """Chat messages (role, content) for one input."""
        if not isinstance(inp, self.input_model):
            inp = self.input_model.model_validate(inp)
        return [("system", self.system()), ("user", inp.model_dump_json(indent=None))]
