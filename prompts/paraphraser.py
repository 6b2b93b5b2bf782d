"""Prompt of the paraphraser agent: k persona variants of a canonical question, same query."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from prompts.base import Prompt


class ParaphraseInput(BaseModel):
    """What the paraphraser sees: the canonical question, its structured query and the persona."""

    canonical_question: str
    query_spec: dict[str, Any]
    persona: str = Field(description="who asks and how they write (role, style, dialect, habits)")
    k: int = Field(ge=1, le=10)
    today: str | None = Field(default=None, description="the data's last day, for relative dates")


class ParaphraseOutput(BaseModel):
    """k rewordings of the question in the persona's voice."""

    variants: list[str] = Field(min_length=1)


PARAPHRASER = Prompt(
    name="paraphraser",
    instruction="""You rewrite a question about a telemetry dataset the way a given person would ask it.
Write k different variants in that person's voice (role, vocabulary, style, dialect, habits such as
abbreviations or typos). Every variant must ask exactly the same query as the canonical question:
keep every number, threshold and its direction (above/below), every quoted value (states, attribute
values, entity ids), every column name, every duration and every window bound with its convention
(start included, end excluded). Keep the definitions that make the answer unique. You may reorder
clauses, change the sentence type (question or request), use synonyms and relative dates only when
you also state what today is. Variants must differ clearly from the canonical question and from each
other.""",
    input_model=ParaphraseInput,
    output_model=ParaphraseOutput,
    examples=[(
        ParaphraseInput(
            canonical_question="How many readings with battery below 43 percent were recorded for sensors, from "
                               "04:00 UTC on 5 January 2026 (included) up to 10:00 UTC on 5 January 2026 "
                               "(excluded)? Count every matching reading.",
            query_spec={"template": "event_count", "table": "readings"},
            persona="oncall_sre: terse, US English, abbreviations", k=2),
        ParaphraseOutput(variants=[
            "count readings w/ battery below 43% for sensors btw 2026-01-05 04:00 and 10:00 UTC "
            "(start incl, end excl), every matching reading",
            "From 04:00 UTC on 5 Jan 2026 up to but not including 10:00 UTC that day: how many sensor "
            "readings had battery below 43 percent? Count every matching reading."]),
    )],
)
