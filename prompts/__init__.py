"""chronoeval prompts: one module per agent, each a ``Prompt`` (instruction, input model, output
model, examples). ``PROMPTS`` lists them all (a test renders each with sample values)."""

from prompts.base import Prompt
from prompts.judge import GRADER, PARAPHRASE_JUDGE
from prompts.paraphraser import PARAPHRASER

PROMPTS: dict[str, Prompt] = {p.name: p for p in (PARAPHRASER, PARAPHRASE_JUDGE, GRADER)}

__all__ = ["PROMPTS", "Prompt"]
